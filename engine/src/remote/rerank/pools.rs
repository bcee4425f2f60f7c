//! The pools a reranker judges, and what it sees of each candidate. The BM25 pool is the chunk
//! ranking's head (CodeNib: the full text, top 100); the union interleaves BM25 and grep,
//! each chunk once, capped (CodeNib reports it for coverage). A candidate shows its first 3,000
//! characters: its line range is clipped to the lines visible, and a hit counts only inside.

use serde::{Deserialize, Serialize};

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
/// what is visible.
pub fn candidates<'t>(
    pool: &[usize],
    chunks: &[CodeChunk],
    text_of: impl Fn(&str) -> Option<&'t str>,
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
            let lines: Vec<&str> = from_line(text, chunk.start_line)
                .lines()
                .take((chunk.end_line - chunk.start_line + 1) as usize)
                .collect();
            let (content, shown) = visible(&lines, visible_chars);
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

/// The first `chars` characters of the lines joined by newlines, and how many lines they reach
/// into (a line cut part-way counts as visible).
fn visible(lines: &[&str], chars: usize) -> (String, usize) {
    let joined = lines.join("\n");
    match joined.char_indices().nth(chars) {
        None => (joined, lines.len().max(1)),
        Some((cut, _)) => {
            let shown = &joined[..cut];
            (shown.to_string(), shown.matches('\n').count() + 1)
        }
    }
}

/// `text` from the start of its 1-based line `line` on (empty past the last line), as
/// `text.lines().skip(line - 1)` would go on: the line breaks found with memchr, which has a
/// SIMD path in wasm32 (`str::lines` has none).
fn from_line(text: &str, line: u32) -> &str {
    let skip = (line as usize).saturating_sub(1);
    if skip == 0 {
        return text;
    }
    memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(skip - 1)
        .map_or("", |at| &text[at + 1..])
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
        let seen = candidates(&[0], &chunks, |_| Some(text), 7).unwrap();
        // "aaaa\nbb" reaches into line 3.
        assert_eq!(seen[0].content, "aaaa\nbb");
        assert_eq!((seen[0].start_line, seen[0].end_line), (2, 3));
        assert_eq!(seen[0].name, "a.py:2-5");
        let whole = candidates(&[0], &chunks, |_| Some(text), 3_000).unwrap();
        assert_eq!(whole[0].end_line, 5);
        assert!(candidates(&[0], &chunks, |_| None, 10)
            .unwrap_err()
            .to_string()
            .contains("a.py"));
    }

    #[test]
    fn the_union_interleaves_bm25_first_and_caps() {
        assert_eq!(union_pool(&[1, 2, 3], &[3, 4], 4), [1, 3, 2, 4]);
    }

    proptest::proptest! {
        #[test]
        fn from_line_goes_on_as_skipping_lines_does(
            text in "[ab\r\n]{0,30}",
            line in 1..12u32,
        ) {
            let skipped: Vec<&str> = text.lines().skip(line as usize - 1).collect();
            let from: Vec<&str> = from_line(&text, line).lines().collect();
            proptest::prop_assert_eq!(from, skipped);
        }
    }
}
