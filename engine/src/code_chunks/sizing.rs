//! Fitting chunks to the token budget: runs of whole lines that fit, and the window baseline
//! built from them (the structural chunks' parts and merges are in `structural`).
//!
//! Counts are exact: every chunk's `tokens` is the counter's count of its prefix and text (its
//! lines joined by newlines). Packing estimates with per-line counts (a line's tokens plus one
//! for its newline, close to additive under cl100k_base) and then checks the exact count,
//! giving back lines until the chunk fits.

use super::{prefix, ChunkConfig, CodeChunk};
use crate::error::Result;
use crate::tokens::TokenCounter;

/// The text of lines `start..end`, as a chunk holds it.
fn text_of(lines: &[&str], start: usize, end: usize) -> String {
    lines[start..end].join("\n")
}

/// Exact tokens of a chunk of lines `start..end` with this prefix.
pub(super) fn exact(
    counter: &mut dyn TokenCounter,
    prefix: &str,
    lines: &[&str],
    (start, end): (usize, usize),
) -> Result<usize> {
    counter.count_tokens(&format!("{prefix}{}", text_of(lines, start, end)))
}

/// The end (exclusive) of the longest run of lines from `start` that fits the budget with this
/// prefix, at least one line; and its exact token count.
pub(super) fn fitting_run(
    counter: &mut dyn TokenCounter,
    prefix: &str,
    lines: &[&str],
    (start, limit): (usize, usize),
    budget: usize,
) -> Result<(usize, usize)> {
    let mut estimate = counter.count_tokens(prefix)?;
    let mut end = start;
    while end < limit {
        let line = counter.count_tokens(lines[end])? + 1;
        if end > start && estimate + line > budget {
            break;
        }
        estimate += line;
        end += 1;
    }
    loop {
        let tokens = exact(counter, prefix, lines, (start, end))?;
        if tokens <= budget || end - start == 1 {
            return Ok((end, tokens));
        }
        end -= 1;
    }
}

/// Windows over the whole file: lines packed to the budget (prefix: the path), each window
/// starting a quarter of the previous window's lines before its end.
pub fn window_chunks(
    path: &str,
    lines: &[&str],
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<CodeChunk>> {
    let head = prefix(path, "");
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let (end, tokens) =
            fitting_run(counter, &head, lines, (start, lines.len()), config.budget)?;
        chunks.push(chunk(path, (start, end), "window", "", tokens));
        if end == lines.len() {
            break;
        }
        let overlap = (end - start) / 4;
        start = (end - overlap).max(start + 1);
    }
    Ok(chunks)
}

pub(super) fn chunk(
    path: &str,
    (start, end): (usize, usize),
    kind: &str,
    name: &str,
    tokens: usize,
) -> CodeChunk {
    CodeChunk {
        path: path.to_string(),
        start_line: (start + 1) as u32,
        end_line: end as u32,
        kind: kind.to_string(),
        name: name.to_string(),
        tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
    }
}
