//! A chunk table grouped by file, for the smallest chunk holding a line: CodeNib's map from a
//! grep match to its chunk. Made once per opened chunking: it groups every chunk of the table
//! (tens of thousands), and each grep pool asks it only a few hundred times.

use rustc_hash::FxHashMap;

use super::CodeChunk;

/// Each file's chunks from the smallest: fewest lines, then the earliest start, then the name,
/// then the first in the table.
#[derive(Debug)]
pub struct ChunksByFile {
    by_path: FxHashMap<String, Vec<Span>>,
}

/// A chunk's lines and its position in the table.
#[derive(Debug)]
struct Span {
    start: u32,
    end: u32,
    at: usize,
}

impl ChunksByFile {
    /// The grouping of `table`.
    pub fn new(table: &[CodeChunk]) -> Self {
        let mut grouped: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (at, chunk) in table.iter().enumerate() {
            grouped.entry(&chunk.path).or_default().push(at);
        }
        let by_path = grouped
            .into_iter()
            .map(|(path, mut list)| {
                // Stable: equal chunks keep their table order.
                list.sort_by(|&a, &b| {
                    let (a, b) = (&table[a], &table[b]);
                    (a.end_line - a.start_line, a.start_line, &a.name).cmp(&(
                        b.end_line - b.start_line,
                        b.start_line,
                        &b.name,
                    ))
                });
                let spans = list
                    .into_iter()
                    .map(|at| Span {
                        start: table[at].start_line,
                        end: table[at].end_line,
                        at,
                    })
                    .collect();
                (path.to_string(), spans)
            })
            .collect();
        ChunksByFile { by_path }
    }

    /// The position in the table of the smallest chunk of `path` holding `line`, if any.
    pub fn enclosing(&self, path: &str, line: u32) -> Option<usize> {
        self.of_file(path).enclosing(line)
    }

    /// The chunks of `path` (none when it has none), looked up once for many lines.
    pub fn of_file(&self, path: &str) -> SpansOfFile<'_> {
        SpansOfFile(self.by_path.get(path).map_or(&[], Vec::as_slice))
    }
}

/// One file's chunks, from the smallest ([`ChunksByFile::of_file`]).
#[derive(Debug, Clone, Copy)]
pub struct SpansOfFile<'c>(&'c [Span]);

impl SpansOfFile<'_> {
    /// The position in the table of the smallest chunk holding `line`, if any.
    pub fn enclosing(&self, line: u32) -> Option<usize> {
        self.0
            .iter()
            .find(|s| s.start <= line && line <= s.end)
            .map(|s| s.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::code_chunks::test_chunk as chunk;

    #[test]
    fn a_line_maps_to_the_smallest_chunk_holding_it_ties_by_start_then_name() {
        let chunks = vec![
            chunk("a.py", 1, 20, "Outer"),
            chunk("a.py", 5, 9, "Outer.inner"),
            chunk("a.py", 5, 9, "Outer.alias"),
            chunk("a.py", 12, 16, "Outer.other"),
        ];
        let map = ChunksByFile::new(&chunks);
        assert_eq!(
            map.enclosing("a.py", 6),
            Some(2),
            "same length and start: by name"
        );
        assert_eq!(map.enclosing("a.py", 14), Some(3));
        assert_eq!(map.enclosing("a.py", 2), Some(0));
        assert_eq!(map.enclosing("a.py", 21), None);
        assert_eq!(map.enclosing("b.py", 1), None);
    }

    proptest::proptest! {
        #[test]
        fn the_enclosing_chunk_is_the_first_smallest_of_a_brute_force_search(
            table in proptest::collection::vec(
                (0..3usize, 1..12u32, 0..6u32, 0..3usize), 0..30),
            line in 0..20u32,
        ) {
            let paths = ["a.py", "b.py", "c.py"];
            let names = ["x", "y", ""];
            let chunks: Vec<CodeChunk> = table
                .iter()
                .map(|&(p, start, len, n)| chunk(paths[p], start, start + len, names[n]))
                .collect();
            let map = ChunksByFile::new(&chunks);
            for path in paths {
                // Every chunk of the file holding the line, by (lines, start, name), the
                // earlier in the table first.
                let mut holding: Vec<usize> = (0..chunks.len())
                    .filter(|&at| chunks[at].path == path)
                    .filter(|&at| chunks[at].start_line <= line && line <= chunks[at].end_line)
                    .collect();
                holding.sort_by_key(|&at| {
                    let c = &chunks[at];
                    (c.end_line - c.start_line, c.start_line, c.name.clone(), at)
                });
                proptest::prop_assert_eq!(map.enclosing(path, line), holding.first().copied());
            }
        }
    }
}
