//! Fitting chunks to the token budget: runs of whole lines that fit, and the window baseline
//! built from them (the structural chunks' parts and merges are in `structural`).
//!
//! Tokens are counted line by line ([`Measured`]): a chunk's `tokens` is its prefix's count plus,
//! for each of its lines, the line's own count and what its newline adds
//! ([`TokenCounter::newline_tokens`]). Under the default counter, the embedder's WordPiece
//! tokenizer (`corpus::wordpiece`), that is the exact count of the chunk's `embed_text`, since no
//! piece crosses whitespace. Under cl100k_base a line's pieces do not reach across its newline
//! either, except that the newline may join the next line's indentation into fewer tokens, so the
//! sum bounds the joined text's count from above (checked on every sample and generated file in
//! `engine/tests/code_chunks.rs`). Each line is counted once for every chunker, and a range's
//! count is a difference of prefix sums, so packing and merging never re-encode text.

use std::collections::HashMap;

use super::chunk::{prefix, ChunkConfig, CodeChunk};
use crate::corpus::tokens::TokenCounter;
use crate::error::Result;

/// A file's lines and their token counts, counted once.
pub struct Measured<'t> {
    /// The lines, without their newlines.
    pub lines: Vec<&'t str>,
    /// `sums[i]`: tokens of lines `0..i`, each with what its newline adds.
    sums: Vec<usize>,
    /// Prefixes counted so far.
    prefixes: HashMap<String, usize>,
}

impl<'t> Measured<'t> {
    /// Counts every line of `text`.
    pub fn new(text: &'t str, counter: &mut dyn TokenCounter) -> Result<Measured<'t>> {
        let lines: Vec<&str> = text.lines().collect();
        let newline = counter.newline_tokens();
        let mut sums = Vec::with_capacity(lines.len() + 1);
        sums.push(0);
        for line in &lines {
            let tokens = if line.is_empty() {
                0
            } else {
                counter.count_tokens(line)?
            };
            sums.push(sums[sums.len() - 1] + tokens + newline);
        }
        Ok(Measured {
            lines,
            sums,
            prefixes: HashMap::new(),
        })
    }

    /// Tokens of lines `start..end` under this prefix.
    pub(super) fn tokens(
        &mut self,
        counter: &mut dyn TokenCounter,
        prefix: &str,
        (start, end): (usize, usize),
    ) -> Result<usize> {
        let head = match self.prefixes.get(prefix) {
            Some(&tokens) => tokens,
            None => {
                let tokens = counter.count_tokens(prefix)?;
                self.prefixes.insert(prefix.to_string(), tokens);
                tokens
            }
        };
        Ok(head + self.sums[end] - self.sums[start])
    }

    /// The end (exclusive) of the longest run of lines from `start`, at most to `limit`, that
    /// fits `budget` under this prefix, at least one line; and its tokens.
    pub(super) fn fitting_run(
        &mut self,
        counter: &mut dyn TokenCounter,
        prefix: &str,
        (start, limit): (usize, usize),
        budget: usize,
    ) -> Result<(usize, usize)> {
        let head = self.tokens(counter, prefix, (start, start))?;
        let allowed = self.sums[start] + budget.saturating_sub(head);
        // The last line end whose prefix sum stays within the budget.
        let fits = self.sums[start + 1..=limit].partition_point(|&sum| sum <= allowed);
        let end = start + fits.max(1);
        Ok((end, self.tokens(counter, prefix, (start, end))?))
    }
}

/// Windows over the whole file: lines packed to the budget (prefix: the path), each window
/// starting a quarter of the previous window's lines before its end.
pub fn window_chunks(
    path: &str,
    measured: &mut Measured,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<CodeChunk>> {
    let head = prefix(path, "");
    let lines = measured.lines.len();
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < lines {
        let (end, tokens) = measured.fitting_run(counter, &head, (start, lines), config.budget)?;
        chunks.push(chunk(path, (start, end), "window", "", tokens));
        if end == lines {
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
