//! The pools a reranker judges, and what it sees of each candidate. The BM25 pool is the chunk
//! ranking's head (CodeNib: the full text, top 100); the union interleaves BM25 and grep,
//! each chunk once, capped (CodeNib reports it for coverage). A candidate shows its first 3,000
//! characters: its line range is clipped to the lines visible, and a hit counts only inside.

use serde::{Deserialize, Serialize};

use super::file_trigrams::FileTrigrams;
use super::grep_pool::round_robin;
use crate::corpus::code_chunks::CodeChunk;
use crate::error::{Error, Result};

/// Where a pool's candidates come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Chunk BM25 over the issue.
    Bm25,
    /// A grep plan's matches.
    Grep,
    /// Both, interleaved.
    Union,
}

impl Route {
    /// Every route.
    pub const ALL: [Route; 3] = [Route::Bm25, Route::Grep, Route::Union];

    /// Its name (`bm25`, `grep`, `union`).
    pub fn name(self) -> &'static str {
        match self {
            Route::Bm25 => "bm25",
            Route::Grep => "grep",
            Route::Union => "union",
        }
    }

    /// The route with this name.
    pub fn from_name(name: &str) -> Option<Route> {
        Route::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// CodeNib's pool size (100) and visible characters per candidate (3,000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolSettings {
    /// Candidates in a pool.
    pub depth: usize,
    /// Characters of a candidate a reranker sees.
    pub visible_chars: usize,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            depth: 100,
            visible_chars: 3_000,
        }
    }
}

/// The union pool: BM25 and grep interleaved (BM25 first), each chunk once, at most `depth`.
pub fn union_pool(bm25: &[usize], grep: &[usize], depth: usize) -> Vec<usize> {
    round_robin(&[bm25, grep], depth)
}

/// One candidate as a reranker sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Its position in the chunk table.
    pub chunk: usize,
    /// The chunk's qualified name (its path and lines when it has none).
    pub name: String,
    /// Its file.
    pub file: String,
    /// First line.
    pub start_line: u32,
    /// Last visible line (the chunk's last, unless the visible text ends before it).
    pub end_line: u32,
    /// The visible text.
    pub content: String,
}

/// The candidates of `pool` as a reranker sees them: each chunk's text from `text_of` (its
/// file's text), cut to its first `visible_chars` characters and the line range clipped to
/// what is visible. `index`, the texts' trigram index, knows how many lines precede each of a
/// file's blocks, so a chunk's first line is found from its block's start, not the file's.
pub fn candidates<'t>(
    pool: &[usize],
    chunks: &[CodeChunk],
    (text_of, index): (impl Fn(&str) -> Option<&'t str>, &FileTrigrams),
    visible_chars: usize,
) -> Result<Vec<Candidate>> {
    pool.iter()
        .map(|&at| {
            let chunk = chunks
                .get(at)
                .ok_or_else(|| Error::setting("candidate", at, "a position in the chunk table"))?;
            let text = text_of(&chunk.path).ok_or_else(|| {
                Error::field(
                    &chunk.path,
                    "text",
                    "the bundle holds no text for this chunk's file",
                )
            })?;
            let lines = (chunk.end_line - chunk.start_line + 1) as usize;
            let skip = (chunk.start_line as usize).saturating_sub(1);
            let block = index.block_before_line(&chunk.path, text, skip);
            let (content, shown) = visible(from_line(text, skip, block), lines, visible_chars);
            let name = if chunk.name.is_empty() {
                format!("{}:{}-{}", chunk.path, chunk.start_line, chunk.end_line)
            } else {
                chunk.name.clone()
            };
            Ok(Candidate {
                chunk: at,
                name,
                file: chunk.path.clone(),
                start_line: chunk.start_line,
                end_line: chunk.start_line + shown.saturating_sub(1) as u32,
                content,
            })
        })
        .collect()
}

/// The first `chars` characters of `text`'s first `lines` lines (as `str::lines` gives them)
/// joined by newlines, and how many lines they reach into (a line cut part-way counts as
/// visible; at least one). Where those lines hold no `\r`, the joined lines are `text` up to the
/// last one's end, and where the first `chars` bytes are ASCII the cut is at byte `chars`: both
/// found without copying or walking the characters (a pool's hundred candidates had taken about
/// a seventh of the grep route's time in the browser's worker).
fn visible(text: &str, lines: usize, chars: usize) -> (String, usize) {
    let bytes = text.as_bytes();
    let (end, taken) = if lines == 0 {
        (0, 0)
    } else {
        match nth_line_break(bytes, lines - 1) {
            Some(at) => (at, lines),
            // Fewer lines than asked for: all of them, without the last line's break.
            None => match text.strip_suffix('\n') {
                Some(closed) => (closed.len(), memchr::memchr_iter(b'\n', bytes).count()),
                None if text.is_empty() => (0, 0),
                None => (text.len(), memchr::memchr_iter(b'\n', bytes).count() + 1),
            },
        }
    };
    let joined = &text[..end];
    if memchr::memchr(b'\r', joined.as_bytes()).is_some() {
        let lines: Vec<&str> = text.lines().take(lines).collect();
        return cut(&lines.join("\n"), lines.len(), chars);
    }
    cut(joined, taken, chars)
}

/// The first `chars` characters of `joined` (which holds `lines` lines), and how many lines
/// they reach into.
fn cut(joined: &str, lines: usize, chars: usize) -> (String, usize) {
    let at = if joined.len() <= chars {
        None
    } else if joined.as_bytes()[..chars].is_ascii() {
        Some(chars)
    } else {
        joined.char_indices().nth(chars).map(|(at, _)| at)
    };
    match at {
        None => (joined.to_string(), lines.max(1)),
        Some(at) => {
            let shown = &joined[..at];
            let breaks = memchr::memchr_iter(b'\n', shown.as_bytes()).count();
            (shown.to_string(), breaks + 1)
        }
    }
}

/// `text` from the start of its 0-based line `skip` on (empty past the last line), as
/// `text.lines().skip(skip)` would go on, counting from `block` when given: a line start at or
/// before that line, and the lines before it. The line breaks are found with memchr, which has
/// a SIMD path in wasm32 (`str::lines` has none).
fn from_line(text: &str, skip: usize, block: Option<(usize, usize)>) -> &str {
    let (start, before) = block.unwrap_or((0, 0));
    if skip == before {
        return &text[start..];
    }
    nth_line_break(&text.as_bytes()[start..], skip - before - 1)
        .map_or("", |at| &text[start + at + 1..])
}

/// The position of the `n`-th (0-based) `\n` in `bytes`, as `memchr_iter(b'\n', bytes).nth(n)`
/// gives it, but counted a window at a time (memchr's count is vectorised) and only the window
/// holding it walked break by break: walking to a candidate's last line took a memchr call per
/// line, about a tenth of a grep pool's time in the browser's worker.
fn nth_line_break(bytes: &[u8], mut n: usize) -> Option<usize> {
    const WINDOW: usize = 512;
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes.len().min(start + WINDOW);
        let window = &bytes[start..end];
        let breaks = memchr::memchr_iter(b'\n', window).count();
        if n < breaks {
            return memchr::memchr_iter(b'\n', window)
                .nth(n)
                .map(|at| start + at);
        }
        n -= breaks;
        start = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(path: &str, start: u32, end: u32) -> CodeChunk {
        CodeChunk {
            path: path.into(),
            start_line: start,
            end_line: end,
            kind: "function".into(),
            name: String::new(),
            tokens: 0,
        }
    }

    #[test]
    fn a_candidate_shows_its_first_characters_and_its_range_is_clipped_to_them() {
        let text = "head\naaaa\nbbbb\ncccc\ndddd\n";
        let chunks = vec![chunk("a.py", 2, 5)];
        // The text's index in blocks of a line each, one that does not know the file, and one
        // made over another text: the same candidate.
        let indexes = [
            FileTrigrams::in_blocks([("a.py", text)], 1),
            FileTrigrams::new([("b.py", text)]),
            FileTrigrams::in_blocks([("a.py", "other\ntext\n")], 1),
        ];
        for index in &indexes {
            let seen = candidates(&[0], &chunks, (|_| Some(text), index), 7).unwrap();
            // "aaaa\nbb" reaches into line 3.
            assert_eq!(seen[0].content, "aaaa\nbb");
            assert_eq!((seen[0].start_line, seen[0].end_line), (2, 3));
            assert_eq!(seen[0].name, "a.py:2-5");
            let whole = candidates(&[0], &chunks, (|_| Some(text), index), 3_000).unwrap();
            assert_eq!(whole[0].end_line, 5);
            assert_eq!(whole[0].content, "aaaa\nbbbb\ncccc\ndddd");
        }
        assert!(candidates(&[0], &chunks, (|_| None, &indexes[0]), 10)
            .unwrap_err()
            .to_string()
            .contains("a.py"));
    }

    #[test]
    fn the_union_interleaves_bm25_first_and_caps() {
        assert_eq!(union_pool(&[1, 2, 3], &[3, 4], 4), [1, 3, 2, 4]);
    }

    /// What a candidate showed before [`visible`] avoided the copies: the lines joined, then
    /// cut by walking the characters.
    fn visible_by_joining(text: &str, lines: usize, chars: usize) -> (String, usize) {
        let lines: Vec<&str> = text.lines().take(lines).collect();
        let joined = lines.join("\n");
        match joined.char_indices().nth(chars) {
            None => (joined, lines.len().max(1)),
            Some((cut, _)) => {
                let shown = &joined[..cut];
                (shown.to_string(), shown.matches('\n').count() + 1)
            }
        }
    }

    #[test]
    fn the_nth_line_break_is_found_across_window_edges() {
        let mut text = vec![b'a'; 1_100];
        for at in [0, 510, 511, 512, 513, 1_023, 1_024, 1_099] {
            text[at] = b'\n';
        }
        let walked: Vec<usize> = memchr::memchr_iter(b'\n', &text).collect();
        for (n, &at) in walked.iter().enumerate() {
            assert_eq!(nth_line_break(&text, n), Some(at), "break {n}");
        }
        assert_eq!(nth_line_break(&text, walked.len()), None);
        assert_eq!(nth_line_break(&text[..512], 2), Some(511));
        assert_eq!(nth_line_break(&text[..512], 3), None);
        assert_eq!(nth_line_break(b"", 0), None);
    }

    proptest::proptest! {
        /// Line breaks of both kinds, a lone `\r`, two- and three-byte characters, any line count
        /// and any cut: the same text and line count as joining the lines.
        #[test]
        fn the_visible_text_is_the_joined_lines_cut(
            text in "[ab\r\n\u{e9}\u{4e2d}]{0,40}",
            lines in 0..12usize,
            chars in 0..30usize,
        ) {
            proptest::prop_assert_eq!(visible(&text, lines, chars), visible_by_joining(&text, lines, chars));
        }

        /// Lines of any length over several windows, some windows without a break.
        #[test]
        fn the_nth_line_break_is_the_nth_found_walking(
            text in "(a{0,90}\n|a{0,600}){0,40}",
            n in 0..45usize,
        ) {
            let walked = memchr::memchr_iter(b'\n', text.as_bytes()).nth(n);
            proptest::prop_assert_eq!(nth_line_break(text.as_bytes(), n), walked);
        }

        /// From the text's start, and from the block before the line in an index of any
        /// block size.
        #[test]
        fn from_line_goes_on_as_skipping_lines_does(
            text in "[ab\r\n]{0,30}",
            skip in 0..12usize,
            block in 1..8usize,
        ) {
            let skipped: Vec<&str> = text.lines().skip(skip).collect();
            let from: Vec<&str> = from_line(&text, skip, None).lines().collect();
            proptest::prop_assert_eq!(&from, &skipped);
            let index = FileTrigrams::in_blocks([("f", text.as_str())], block);
            let known = index.block_before_line("f", &text, skip);
            proptest::prop_assert!(known.is_some());
            let from: Vec<&str> = from_line(&text, skip, known).lines().collect();
            proptest::prop_assert_eq!(&from, &skipped);
        }
    }
}
