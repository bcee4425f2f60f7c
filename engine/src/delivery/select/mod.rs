//! The shared line selector: which lines of a retrieved file are offered to the packer.
//!
//! Every arm's ranking goes through the same selector (the paper's section 3.3 and
//! `paper/selector-examples.md`), which receives only the issue text and the retrieved files:
//!
//! 1. **Terms**: [`QueryTerms::from_issue`] takes the full issue text through the lexical arms'
//!    term extraction ([`extract_terms`]: lower-cased `[a-z0-9_]+` tokens, no stop words, longer
//!    than two characters).
//! 2. **Lines**: a file is split into lines keeping their ends, as Python's
//!    `str.splitlines(keepends=True)` splits ([`split_lines`]).
//! 3. **Scores**: a line's score is the number of distinct terms among its tokens (the same
//!    tokens, lower-cased `[a-z0-9_]+` runs) ([`score_lines`]).
//! 4. **Anchors**: the [`SelectConfig::anchors_per_file`] best lines with a score above zero,
//!    higher score first, the earlier line first on a tie.
//! 5. **Windows**: each anchor is expanded by [`SelectConfig::radius_lines`] lines both ways,
//!    clamped to the file; the windows are sorted by start and merged when they overlap or touch;
//!    a merged window keeps its best score.
//! 6. **Order**: a file's windows by score, descending, then by start line.
//!
//! A file with no matching line (or an issue without terms) is offered whole, as one window of
//! score 0.
//!
//! ## Line numbers and "touch"
//!
//! Windows are reported in 1-based inclusive line numbers. The paper's code works on 0-based
//! half-open ranges `[max(0, i - radius), min(n, i + radius + 1))` of the line index `i` and merges
//! a range into the previous one when `begin <= previous end`. In 1-based inclusive numbers that is
//! `start_line <= previous end_line + 1`: windows merge when they share a line **or** when the next
//! one starts on the line right after the previous one ends. With radius 200, anchors on lines 100
//! and 501 give windows 1–300 and 301–701, which touch and merge into 1–701; anchors on lines 100
//! and 502 give 1–300 and 302–702, which leave line 301 out and stay apart. The worked example of
//! `selector-examples.md` (anchors 1463, 1464, 2 and 20 in a 1,579-line file → 1263–1579, then
//! 1–220) holds under either reading; the unit tests pin both it and the adjacency rule.
//!
//! ## Line ends
//!
//! Lines end where Python's `str.splitlines` ends them: at `\n`, `\r\n`, `\r`, `\x0b`, `\x0c`,
//! `\x1c`, `\x1d`, `\x1e`, U+0085, U+2028 and U+2029. This reproduces the paper's line numbers
//! exactly; for the rare file that contains one of the characters other than `\n` and `\r\n`, a
//! line number here differs from a count of `\n` (as in the bundle manifest's `lines`). Use
//! [`count_lines`] for a file's line count wherever it meets the selector (gold clipping does).
//!
//! An empty file has no lines; it is offered whole as the window 1–0, which the packer renders
//! as the block header alone (the paper's code does the same).
//!
//! [`extract_terms`]: crate::terms::extract_terms

mod lines;
mod query;
mod score;
mod window;

#[cfg(test)]
mod tests;

pub use lines::{count_lines, split_lines, SplitLines};
pub use query::QueryTerms;
pub use score::score_lines;
pub use window::{select_file, select_files, Anchor, FileSelection, Window};

use crate::error::{Error, Result};

/// The number of anchor lines per file, by default: the paper's four.
pub const DEFAULT_ANCHORS_PER_FILE: usize = 4;

/// The lines added on each side of an anchor, by default: the paper's 200.
pub const DEFAULT_RADIUS_LINES: usize = 200;

/// The selector's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectConfig {
    /// How many of a file's best lines anchor windows (default [`DEFAULT_ANCHORS_PER_FILE`], 4).
    pub anchors_per_file: usize,
    /// Lines added before and after each anchor (default [`DEFAULT_RADIUS_LINES`], 200).
    pub radius_lines: usize,
}

impl Default for SelectConfig {
    fn default() -> Self {
        SelectConfig {
            anchors_per_file: DEFAULT_ANCHORS_PER_FILE,
            radius_lines: DEFAULT_RADIUS_LINES,
        }
    }
}

impl SelectConfig {
    /// Checks the settings: at least one anchor per file (with none, every file would be offered
    /// whole, which is the `whole` packing, not the selector).
    pub fn check(self) -> Result<Self> {
        if self.anchors_per_file == 0 {
            return Err(Error::setting("anchors", 0, "1 or more"));
        }
        Ok(self)
    }
}
