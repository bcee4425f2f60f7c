//! A chunk table grouped by file, for the smallest chunk holding a line: CodeNib's map from a
//! grep match to its chunk. Made once per opened chunking: it groups every chunk of the table
//! (tens of thousands), and each grep pool asks it once a kept line (about 750 times).

use rustc_hash::FxHashMap;

use super::CodeChunk;

/// Each file's chunks, as the smallest chunk holding each run of lines: fewest lines, then the
/// earliest start, then the name, then the first in the table.
#[derive(Debug)]
pub struct ChunksByFile {
    by_path: FxHashMap<String, Runs>,
}

/// A file's lines cut where a chunk starts or ends: `starts[i]` is the first line of run `i`
/// (the run ends where the next starts; the last is held by no chunk), `owners[i]` the position
/// in the table of the smallest chunk holding it ([`NONE`]: none). A pool asks a file's map once
/// for each kept line (about 750 a pool), which a binary search over its runs answers without
/// walking the file's chunks (a class of a hundred methods had a hundred to pass).
#[derive(Debug)]
struct Runs {
    starts: Vec<u64>,
    owners: Vec<u32>,
}

/// No chunk holds the run.
const NONE: u32 = u32::MAX;

impl Runs {
    /// The runs of `spans` (`(start, end, position)`, inclusive lines), given from the smallest.
    fn of(spans: &[(u32, u32, u32)]) -> Self {
        let mut starts: Vec<u64> = spans
            .iter()
            .flat_map(|&(start, end, _)| [u64::from(start), u64::from(end) + 1])
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut owners = vec![NONE; starts.len()];
        for &(start, end, at) in spans {
            let first = starts.partition_point(|&s| s < u64::from(start));
            let past = starts.partition_point(|&s| s <= u64::from(end));
            for owner in &mut owners[first..past] {
                if *owner == NONE {
                    *owner = at;
                }
            }
        }
        Runs { starts, owners }
    }

    /// The owner of the run holding `line`.
    fn owner(&self, line: u32) -> Option<usize> {
        let run = self.starts.partition_point(|&s| s <= u64::from(line));
        let owner = *self.owners.get(run.checked_sub(1)?)?;
        (owner != NONE).then_some(owner as usize)
    }
}

impl ChunksByFile {
    /// The grouping of `table` (a chunk ending before it starts holds no line; positions past
    /// `u32::MAX - 1` are not kept: no table is that long).
    pub fn new(table: &[CodeChunk]) -> Self {
        let mut grouped: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        // A chunk ending before it starts holds no line.
        let held = table
            .iter()
            .enumerate()
            .filter(|(_, c)| c.start_line <= c.end_line);
        for (at, chunk) in held {
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
                let spans: Vec<(u32, u32, u32)> = list
                    .into_iter()
                    .filter_map(|at| {
                        let position = u32::try_from(at).ok().filter(|&p| p != NONE)?;
                        Some((table[at].start_line, table[at].end_line, position))
                    })
                    .collect();
                (path.to_string(), Runs::of(&spans))
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
        SpansOfFile(self.by_path.get(path))
    }
}

/// One file's chunks ([`ChunksByFile::of_file`]).
#[derive(Debug, Clone, Copy)]
pub struct SpansOfFile<'c>(Option<&'c Runs>);

impl SpansOfFile<'_> {
    /// The position in the table of the smallest chunk holding `line`, if any.
    pub fn enclosing(&self, line: u32) -> Option<usize> {
        self.0?.owner(line)
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
        // A chunk may end on the last line a u32 numbers.
        let far = ChunksByFile::new(&[chunk("a.py", 3, u32::MAX, "x")]);
        assert_eq!(far.enclosing("a.py", u32::MAX), Some(0));
        assert_eq!(far.enclosing("a.py", 2), None);
        // A chunk ending before it starts holds nothing, and leaves the others as they are.
        let inverted = ChunksByFile::new(&[chunk("a.py", 5, 2, "x"), chunk("a.py", 1, 9, "y")]);
        assert_eq!(inverted.enclosing("a.py", 3), Some(1));
        assert_eq!(inverted.enclosing("a.py", 5), Some(1));
    }

    proptest::proptest! {
        #[test]
        fn the_enclosing_chunk_is_the_first_smallest_of_a_brute_force_search(
            table in proptest::collection::vec(
                (0..3usize, 0..12u32, 0..6u32, 0..3usize), 0..30),
        ) {
            let paths = ["a.py", "b.py", "c.py"];
            let names = ["x", "y", ""];
            let chunks: Vec<CodeChunk> = table
                .iter()
                .map(|&(p, start, len, n)| chunk(paths[p], start, start + len, names[n]))
                .collect();
            let map = ChunksByFile::new(&chunks);
            for (path, line) in paths.into_iter().flat_map(|p| (0..20u32).map(move |l| (p, l))) {
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
