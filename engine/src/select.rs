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

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::terms::{extract_terms, token_runs};

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

/// The issue's query terms, ready for scoring lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerms {
    terms: Vec<String>,
    index: FxHashMap<Vec<u8>, u32>,
    /// `lengths[b]` has bit `min(len, 63)` set when a term of that length starts with byte `b`:
    /// most tokens are turned away by one look-up, without hashing.
    lengths: Box<[u64; 256]>,
}

impl QueryTerms {
    /// The terms of the full issue text ([`extract_terms`]).
    pub fn from_issue(issue_text: &str) -> Self {
        Self::from_terms(extract_terms(issue_text))
    }

    /// Terms given directly. A line token matches a term when they are equal, so only lower-case
    /// `[a-z0-9_]+` terms can ever match; duplicates count once.
    pub fn from_terms(mut terms: Vec<String>) -> Self {
        terms.sort();
        terms.dedup();
        let index = terms
            .iter()
            .enumerate()
            .map(|(i, term)| (term.as_bytes().to_vec(), i as u32))
            .collect();
        let mut lengths = Box::new([0u64; 256]);
        for term in &terms {
            if let Some(&first) = term.as_bytes().first() {
                lengths[usize::from(first)] |= length_bit(term.len());
            }
        }
        QueryTerms {
            terms,
            index,
            lengths,
        }
    }

    /// The terms, sorted.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether there are no terms (every file is then offered whole).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether some term starts with `first` and is `len` bytes long (or both are at least 63).
    fn may_match(&self, first: u8, len: usize) -> bool {
        self.lengths[usize::from(first)] & length_bit(len) != 0
    }

    fn lookup(&self, token: &[u8]) -> Option<u32> {
        let &first = token.first()?;
        if !self.may_match(first, token.len()) {
            return None;
        }
        self.index.get(token).copied()
    }
}

fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// `TOKEN_LOWER[b]` is the lower-cased byte when `b` is in `[A-Za-z0-9_]`, else 0.
static TOKEN_LOWER: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let lower = (b as u8).to_ascii_lowercase();
        // `terms::is_token_byte`, which is not a `const fn` (a unit test checks they agree).
        if lower.is_ascii_lowercase() || lower.is_ascii_digit() || lower == b'_' {
            table[b] = lower;
        }
        b += 1;
    }
    table
};

/// Byte classes of the one-pass scan: `[A-Za-z0-9_]`, an ASCII byte that may end a line, a
/// non-ASCII byte (which may also begin U+0085, U+2028 or U+2029), anything else.
const OTHER: u8 = 0;
const TOKEN: u8 = 1;
const ASCII_END: u8 = 2;
const HIGH: u8 = 3;

static CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if b >= 0x80 {
            HIGH
        } else if matches!(b as u8, b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e) {
            ASCII_END
        } else if TOKEN_LOWER[b] != 0 {
            TOKEN
        } else {
            OTHER
        };
        b += 1;
    }
    table
};

/// The length of the line end starting at `bytes[i]`, or 0 when none starts there.
fn line_end_len(bytes: &[u8], i: usize) -> usize {
    match bytes[i] {
        b'\n' | 0x0b | 0x0c | 0x1c..=0x1e => 1,
        b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
        b'\r' => 1,
        // U+0085 is C2 85 in UTF-8.
        0xC2 if bytes.get(i + 1) == Some(&0x85) => 2,
        // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
        0xE2 if bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

/// The lines of `text` with their line ends, split where Python's `str.splitlines(keepends=True)`
/// splits (see the module doc). The last line may have no line end; an empty text has no lines.
///
/// ```
/// use routelens_engine::select::split_lines;
/// let lines: Vec<&str> = split_lines("a\r\nb\rc\n\nd").collect();
/// assert_eq!(lines, ["a\r\n", "b\r", "c\n", "\n", "d"]);
/// ```
pub fn split_lines(text: &str) -> SplitLines<'_> {
    SplitLines { rest: text }
}

/// The number of lines of `text` as [`split_lines`] counts them (Python's
/// `len(text.splitlines())`).
pub fn count_lines(text: &str) -> usize {
    split_lines(text).count()
}

/// The iterator of [`split_lines`].
#[derive(Debug, Clone)]
pub struct SplitLines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for SplitLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = line_end(self.rest.as_bytes()).unwrap_or(self.rest.len());
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(line)
    }
}

/// The byte offset just past the first line end of `bytes`, if it has one.
fn line_end(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        if matches!(CLASS[usize::from(bytes[i])], ASCII_END | HIGH) {
            let len = line_end_len(bytes, i);
            if len > 0 {
                return Some(i + len);
            }
        }
        i += 1;
    }
    None
}

/// Splits `text` into lines and scores them in one pass. `each(end, score)` is called for every
/// line in order with the byte offset just past the line (its end included) and its score.
fn scan_lines(terms: &QueryTerms, text: &str, mut each: impl FnMut(usize, u32)) {
    let bytes = text.as_bytes();
    let mut scorer = LineScorer::new(terms);
    let mut line_start = 0;
    // ASCII lines are scored as they are scanned: lower-casing each `[A-Za-z0-9_]` run on its
    // own is the same as lower-casing the line first. A line with a non-ASCII byte is scored
    // again from its text, lower-cased as Python's `str.lower` does.
    let mut non_ascii = false;
    let mut score = 0;
    scorer.next_line();
    let mut i = 0;
    while i < bytes.len() {
        let class = CLASS[usize::from(bytes[i])];
        if class == TOKEN {
            let start = i;
            i += 1;
            while i < bytes.len() && CLASS[usize::from(bytes[i])] == TOKEN {
                i += 1;
            }
            if !non_ascii {
                score += scorer.ascii_token(&bytes[start..i]);
            }
            continue;
        }
        if class == OTHER {
            i += 1;
            continue;
        }
        non_ascii |= class == HIGH;
        let len = line_end_len(bytes, i);
        if len == 0 {
            i += 1;
            continue;
        }
        i += len;
        let line_score = if non_ascii {
            scorer.unicode_line(&text[line_start..i])
        } else {
            score
        };
        each(i, line_score);
        line_start = i;
        non_ascii = false;
        score = 0;
        scorer.next_line();
    }
    if line_start < bytes.len() {
        let line_score = if non_ascii {
            scorer.unicode_line(&text[line_start..])
        } else {
            score
        };
        each(bytes.len(), line_score);
    }
}

/// Scores lines by their distinct terms, reusing its buffers across lines.
struct LineScorer<'t> {
    terms: &'t QueryTerms,
    /// `seen[term] == stamp` when the term was already counted on the current line.
    seen: Vec<u32>,
    stamp: u32,
    token: Vec<u8>,
}

impl<'t> LineScorer<'t> {
    fn new(terms: &'t QueryTerms) -> Self {
        LineScorer {
            terms,
            seen: vec![0; terms.terms.len()],
            stamp: 0,
            token: Vec::new(),
        }
    }

    /// Starts a new line: no term counted yet.
    fn next_line(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
    }

    /// 1 when the ASCII token run `run` is a term not yet counted on this line.
    fn ascii_token(&mut self, run: &[u8]) -> u32 {
        let first = TOKEN_LOWER[usize::from(run[0])];
        if !self.terms.may_match(first, run.len()) {
            return 0;
        }
        self.token.clear();
        self.token
            .extend(run.iter().map(|&b| TOKEN_LOWER[usize::from(b)]));
        let term = self.terms.lookup(&self.token);
        self.count(term)
    }

    /// The score of a whole line that holds non-ASCII text.
    fn unicode_line(&mut self, line: &str) -> u32 {
        self.next_line();
        let lower = line.to_lowercase();
        token_runs(&lower)
            .map(|run| {
                let term = self.terms.lookup(run.as_bytes());
                self.count(term)
            })
            .sum()
    }

    /// 1 when `term` matched and was not yet counted on this line.
    fn count(&mut self, term: Option<u32>) -> u32 {
        match term {
            Some(t) if self.seen[t as usize] != self.stamp => {
                self.seen[t as usize] = self.stamp;
                1
            }
            _ => 0,
        }
    }
}

/// Every line's score: the number of distinct terms among its tokens, in line order.
pub fn score_lines(terms: &QueryTerms, text: &str) -> Vec<u32> {
    let mut scores = Vec::new();
    scan_lines(terms, text, |_, score| scores.push(score));
    scores
}

/// A line that anchors a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Anchor {
    /// The 1-based line number.
    pub line: u32,
    /// The number of distinct terms on it.
    pub score: u32,
}

/// A range of lines offered to the packer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Window {
    /// The first line, 1-based.
    pub start_line: u32,
    /// The last line, inclusive (`start_line - 1` for the empty file's window).
    pub end_line: u32,
    /// The best anchor score inside the window; 0 for a file offered whole.
    pub score: u32,
}

impl Window {
    /// The number of lines in the window.
    pub fn line_count(&self) -> u32 {
        let lines = (u64::from(self.end_line) + 1).saturating_sub(u64::from(self.start_line));
        u32::try_from(lines).unwrap_or(u32::MAX)
    }

    /// Whether `line` (1-based) is in the window.
    pub fn contains(&self, line: u32) -> bool {
        self.start_line <= line && line <= self.end_line
    }
}

/// One retrieved file after selection: its anchors and windows, borrowing the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSelection<'a> {
    /// The file's repository-relative path.
    pub path: &'a str,
    text: &'a str,
    starts: Vec<usize>,
    /// The anchor lines, best first (higher score, then earlier line); empty when the file is
    /// offered whole.
    pub anchors: Vec<Anchor>,
    /// The windows in packing order: score descending, then start line.
    pub windows: Vec<Window>,
}

impl<'a> FileSelection<'a> {
    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The number of lines ([`count_lines`]).
    pub fn line_count(&self) -> u32 {
        to_u32(self.starts.len() - 1)
    }

    /// Whether no line matched, so the file is offered whole.
    pub fn is_whole_file(&self) -> bool {
        self.anchors.is_empty()
    }

    /// Line `number` (1-based) with its line end, if the file has it.
    pub fn line(&self, number: u32) -> Option<&'a str> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        let (start, end) = (*self.starts.get(index)?, *self.starts.get(index + 1)?);
        Some(&self.text[start..end])
    }

    /// The lines of `window` (clamped to the file), with their 1-based numbers.
    pub fn window_lines(&self, window: &Window) -> impl Iterator<Item = (u32, &'a str)> + '_ {
        let last = window.end_line.min(self.line_count());
        (window.start_line.max(1)..=last).filter_map(move |n| Some((n, self.line(n)?)))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Selects the windows of one file (the module doc gives the procedure).
///
/// ```
/// use routelens_engine::select::{select_file, QueryTerms, SelectConfig, Window};
/// let terms = QueryTerms::from_issue("The parser drops the cache");
/// let text = "fn a() {}\nfn parser() { cache() }\nfn b() {}\n";
/// let config = SelectConfig { radius_lines: 0, ..SelectConfig::default() };
/// let selection = select_file(&terms, "src/lib.rs", text, &config);
/// assert_eq!(selection.windows, [Window { start_line: 2, end_line: 2, score: 2 }]);
/// ```
pub fn select_file<'a>(
    terms: &QueryTerms,
    path: &'a str,
    text: &'a str,
    config: &SelectConfig,
) -> FileSelection<'a> {
    let mut starts = vec![0];
    // The best lines so far, kept sorted by (score descending, line ascending): lines arrive in
    // order, so a later line enters only with a strictly higher score than the one it displaces.
    let anchors_per_file = config.anchors_per_file;
    let mut best: Vec<(u32, usize)> = Vec::with_capacity(anchors_per_file.min(64) + 1);
    scan_lines(terms, text, |end, score| {
        let index = starts.len() - 1;
        starts.push(end);
        if score == 0
            || anchors_per_file == 0
            || (best.len() == anchors_per_file && best.last().is_some_and(|&(s, _)| s >= score))
        {
            return;
        }
        let at = best.partition_point(|&(s, _)| s >= score);
        best.insert(at, (score, index));
        best.truncate(anchors_per_file);
    });
    let line_count = starts.len() - 1;
    let anchors: Vec<Anchor> = best
        .iter()
        .map(|&(score, index)| Anchor {
            line: to_u32(index + 1),
            score,
        })
        .collect();
    let windows = if best.is_empty() {
        vec![Window {
            start_line: 1,
            end_line: to_u32(line_count),
            score: 0,
        }]
    } else {
        merge_windows(&best, config.radius_lines, line_count)
    };
    FileSelection {
        path,
        text,
        starts,
        anchors,
        windows,
    }
}

/// Expands anchors `(score, 0-based line index)` into half-open line ranges, merges ranges that
/// overlap or touch, and orders the result by score descending, then start.
fn merge_windows(anchors: &[(u32, usize)], radius: usize, line_count: usize) -> Vec<Window> {
    let mut ranges: Vec<(usize, usize, u32)> = anchors
        .iter()
        .map(|&(score, index)| {
            (
                index.saturating_sub(radius),
                index
                    .saturating_add(radius)
                    .saturating_add(1)
                    .min(line_count),
                score,
            )
        })
        .collect();
    ranges.sort_unstable_by_key(|&(begin, end, score)| (begin, end, std::cmp::Reverse(score)));
    let mut merged: Vec<(usize, usize, u32)> = Vec::with_capacity(ranges.len());
    for (begin, end, score) in ranges {
        match merged.last_mut() {
            // Half-open: `begin <= previous end` is overlap or adjacency.
            Some(last) if begin <= last.1 => {
                last.1 = last.1.max(end);
                last.2 = last.2.max(score);
            }
            _ => merged.push((begin, end, score)),
        }
    }
    let mut windows: Vec<Window> = merged
        .into_iter()
        .map(|(begin, end, score)| Window {
            start_line: to_u32(begin + 1),
            end_line: to_u32(end),
            score,
        })
        .collect();
    windows.sort_unstable_by_key(|w| (std::cmp::Reverse(w.score), w.start_line));
    windows
}

/// Selects every file of a ranking, in rank order. A path that occurs again is skipped (the
/// paper's code de-duplicated the ranking first, keeping the first occurrence).
pub fn select_files<'a>(
    terms: &QueryTerms,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    config: &SelectConfig,
) -> Vec<FileSelection<'a>> {
    let mut seen = std::collections::HashSet::new();
    files
        .into_iter()
        .filter(|(path, _)| seen.insert(*path))
        .map(|(path, text)| select_file(terms, path, text, config))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::is_token_byte;
    use proptest::prelude::*;

    /// A file of `lines` lines where line `n` (1-based) holds `words[n]` if given, else filler
    /// without any term.
    fn synthetic(lines: usize, words: &[(usize, &str)]) -> String {
        (1..=lines)
            .map(|n| {
                let body = words
                    .iter()
                    .find(|(line, _)| *line == n)
                    .map_or_else(|| format!("    x = {n}  # filler"), |(_, w)| w.to_string());
                body + "\n"
            })
            .collect()
    }

    fn w(start_line: u32, end_line: u32, score: u32) -> Window {
        Window {
            start_line,
            end_line,
            score,
        }
    }

    #[test]
    fn worked_example_idefics() {
        // selector-examples.md, issue b01e9113: modeling_idefics.py (1,579 lines), top four lines
        // 1463:2, 1464:2, 2:1, 20:1 → 1263–1579, then 1–220. Lines 600 and 900 also score 1 but
        // lose the tie to the earlier lines 2 and 20.
        let terms = QueryTerms::from_issue("IdeficsAttention mask padding");
        let text = synthetic(
            1579,
            &[
                (2, "import mask"),
                (20, "PADDING = 0"),
                (600, "mask = None"),
                (900, "return padding"),
                (1463, "def mask(padding):"),
                (1464, "    padding = mask"),
            ],
        );
        let selection = select_file(
            &terms,
            "modeling_idefics.py",
            &text,
            &SelectConfig::default(),
        );
        assert_eq!(selection.line_count(), 1579);
        assert_eq!(
            selection.anchors,
            [(1463, 2), (1464, 2), (2, 1), (20, 1)].map(|(line, score)| Anchor { line, score })
        );
        assert_eq!(selection.windows, [w(1263, 1579, 2), w(1, 220, 1)]);
    }

    #[test]
    fn worked_example_no_match_offers_whole_file() {
        // selector-examples.md, issue 37b10945: constants.py (6 lines), no matching line.
        let terms = QueryTerms::from_issue("IdeficsAttention mask padding");
        let text = "A = 1\nB = 2\nC = 3\nD = 4\nE = 5\nF = 6\n";
        let selection = select_file(&terms, "constants.py", text, &SelectConfig::default());
        assert!(selection.is_whole_file());
        assert_eq!(selection.windows, [w(1, 6, 0)]);
    }

    #[test]
    fn touching_windows_merge_and_a_gap_keeps_them_apart() {
        let terms = QueryTerms::from_terms(vec!["hit".into()]);
        let config = SelectConfig::default();
        // Anchors 100 and 501: 1–300 and 301–701 touch (no line between them) → one window.
        let text = synthetic(1000, &[(100, "hit"), (501, "hit")]);
        let selection = select_file(&terms, "a", &text, &config);
        assert_eq!(selection.windows, [w(1, 701, 1)]);
        // Anchors 100 and 502: 1–300 and 302–702 leave line 301 out → two windows.
        let text = synthetic(1000, &[(100, "hit"), (502, "hit")]);
        let selection = select_file(&terms, "a", &text, &config);
        assert_eq!(selection.windows, [w(1, 300, 1), w(302, 702, 1)]);
        // Radius 0: adjacent anchor lines merge.
        let config = SelectConfig {
            radius_lines: 0,
            ..config
        };
        let text = synthetic(10, &[(4, "hit"), (5, "hit"), (7, "hit")]);
        let selection = select_file(&terms, "a", &text, &config);
        assert_eq!(selection.windows, [w(4, 5, 1), w(7, 7, 1)]);
    }

    #[test]
    fn merged_window_keeps_its_best_score_and_windows_sort_by_score_then_start() {
        let terms = QueryTerms::from_terms(vec!["one".into(), "two".into(), "three".into()]);
        let config = SelectConfig {
            radius_lines: 1,
            ..SelectConfig::default()
        };
        let text = synthetic(
            30,
            &[
                (3, "one"),
                (4, "one two three"),
                (10, "one"),
                (20, "two one"),
            ],
        );
        let selection = select_file(&terms, "a", &text, &config);
        assert_eq!(selection.windows, [w(2, 5, 3), w(19, 21, 2), w(9, 11, 1)]);
    }

    #[test]
    fn scores_count_distinct_terms_case_insensitively() {
        let terms = QueryTerms::from_issue("Parser cache_key MAX_DEPTH");
        let scores = score_lines(
            &terms,
            "parser parser PARSER\nCache_Key max_depth; parser\nparse cache key\nÉparser\n",
        );
        // "Éparser": É is not a token character, so "parser" is a token of its own.
        assert_eq!(scores, [1, 3, 0, 1]);
    }

    #[test]
    fn byte_tables_agree_with_the_definitions() {
        for b in 0..=255u8 {
            let lower = b.to_ascii_lowercase();
            let expected = if is_token_byte(lower) { lower } else { 0 };
            assert_eq!(TOKEN_LOWER[usize::from(b)], expected, "{b:#x}");
            let text = [b, b'x'];
            if let Ok(text) = std::str::from_utf8(&text) {
                let ends_early = line_end(text.as_bytes()) == Some(1);
                assert_eq!(
                    ends_early,
                    b"\n\r\x0b\x0c\x1c\x1d\x1e".contains(&b),
                    "{b:#x}"
                );
            }
        }
    }

    #[test]
    fn lines_split_like_python_splitlines() {
        let text = "a\nb\r\nc\rd\x0be\x0cf\x1cg\x1dh\x1ei\u{85}j\u{2028}k\u{2029}l";
        let lines: Vec<&str> = split_lines(text).collect();
        assert_eq!(
            lines,
            [
                "a\n",
                "b\r\n",
                "c\r",
                "d\x0b",
                "e\x0c",
                "f\x1c",
                "g\x1d",
                "h\x1e",
                "i\u{85}",
                "j\u{2028}",
                "k\u{2029}",
                "l"
            ]
        );
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("\n"), 1);
        assert_eq!(count_lines("a\n\n"), 2);
        assert_eq!(count_lines("a\n\nb"), 3);
        // Other non-ASCII characters (including U+2027 and U+2030 beside the separators) are text.
        assert_eq!(count_lines("\u{2027}\u{2030}é\u{a0}"), 1);
    }

    #[test]
    fn empty_file_and_no_terms() {
        let terms = QueryTerms::from_issue("the and of");
        assert!(terms.is_empty());
        let selection = select_file(&terms, "a", "x\ny\n", &SelectConfig::default());
        assert_eq!(selection.windows, [w(1, 2, 0)]);
        let terms = QueryTerms::from_issue("parser");
        let selection = select_file(&terms, "empty", "", &SelectConfig::default());
        assert_eq!(selection.line_count(), 0);
        assert_eq!(selection.windows, [w(1, 0, 0)]);
        assert_eq!(selection.windows[0].line_count(), 0);
        assert_eq!(selection.window_lines(&selection.windows[0]).count(), 0);
    }

    #[test]
    fn line_access() {
        let terms = QueryTerms::from_issue("parser");
        let selection = select_file(&terms, "a", "a\nparser\r\nc", &SelectConfig::default());
        assert_eq!(selection.line(0), None);
        assert_eq!(selection.line(2), Some("parser\r\n"));
        assert_eq!(selection.line(3), Some("c"));
        assert_eq!(selection.line(4), None);
        let lines: Vec<_> = selection.window_lines(&w(2, 9, 0)).collect();
        assert_eq!(lines, [(2, "parser\r\n"), (3, "c")]);
    }

    #[test]
    fn duplicate_paths_are_selected_once() {
        let terms = QueryTerms::from_issue("parser");
        let selections = select_files(
            &terms,
            [("a", "parser"), ("b", "x"), ("a", "other")],
            &SelectConfig::default(),
        );
        let paths: Vec<&str> = selections.iter().map(|s| s.path).collect();
        assert_eq!(paths, ["a", "b"]);
        assert_eq!(selections[0].text(), "parser");
    }

    #[test]
    fn config_check_refuses_zero_anchors() {
        assert!(SelectConfig::default().check().is_ok());
        let zero = SelectConfig {
            anchors_per_file: 0,
            ..SelectConfig::default()
        };
        assert_eq!(
            zero.check().unwrap_err().to_string(),
            "anchors = 0 is out of range (1 or more)"
        );
        // Unchecked, zero anchors offers every file whole and does not panic.
        let terms = QueryTerms::from_issue("parser");
        assert_eq!(
            select_file(&terms, "a", "parser\n", &zero).windows,
            [w(1, 1, 0)]
        );
    }

    #[test]
    fn huge_settings_do_not_overflow() {
        let terms = QueryTerms::from_issue("parser");
        let config = SelectConfig {
            anchors_per_file: usize::MAX,
            radius_lines: usize::MAX,
        };
        let selection = select_file(&terms, "a", "a\nparser\nb\n", &config);
        assert_eq!(selection.windows, [w(1, 3, 1)]);
        let top = w(1, u32::MAX, 0);
        assert_eq!(top.line_count(), u32::MAX);
    }

    /// A small-alphabet text so that lines often hold terms and line ends of every kind occur.
    fn text_strategy() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("ab".to_string()),
                Just("abc".to_string()),
                Just("xyz".to_string()),
                Just("Abc_1".to_string()),
                Just(" ".to_string()),
                Just("\n".to_string()),
                Just("\r\n".to_string()),
                Just("\r".to_string()),
                Just("\u{2028}".to_string()),
                Just("é".to_string()),
                Just("\u{212A}yz".to_string()),
                Just("\x0c".to_string()),
                Just("\u{85}".to_string()),
            ],
            0..400,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn windows_are_disjoint_inside_the_file_and_cover_every_anchor(
            text in text_strategy(),
            anchors in 1usize..6,
            radius in 0usize..12,
        ) {
            let terms = QueryTerms::from_terms(vec!["abc".into(), "xyz".into(), "abc_1".into()]);
            let config = SelectConfig { anchors_per_file: anchors, radius_lines: radius };
            let selection = select_file(&terms, "f", &text, &config);
            let n = selection.line_count();
            prop_assert_eq!(n as usize, count_lines(&text));
            prop_assert!(!selection.windows.is_empty());
            prop_assert!(selection.anchors.len() <= anchors);
            let scores = score_lines(&terms, &text);
            // The one-pass scan agrees with the plain definition: split, lower-case, tokenize,
            // count distinct terms.
            let reference: Vec<u32> = split_lines(&text)
                .map(|line| {
                    let lower = line.to_lowercase();
                    let found: std::collections::BTreeSet<&str> = token_runs(&lower)
                        .filter(|t| terms.terms().iter().any(|term| term == t))
                        .collect();
                    found.len() as u32
                })
                .collect();
            prop_assert_eq!(&scores, &reference);
            if selection.anchors.is_empty() {
                prop_assert!(scores.iter().all(|&s| s == 0));
                prop_assert_eq!(&selection.windows, &vec![w(1, n, 0)]);
            } else {
                for window in &selection.windows {
                    prop_assert!(1 <= window.start_line && window.start_line <= window.end_line);
                    prop_assert!(window.end_line <= n);
                }
                let mut by_start = selection.windows.clone();
                by_start.sort_by_key(|w| w.start_line);
                for pair in by_start.windows(2) {
                    // Disjoint and not touching (touching windows merge).
                    prop_assert!(pair[0].end_line + 1 < pair[1].start_line);
                }
                for anchor in &selection.anchors {
                    prop_assert_eq!(scores[anchor.line as usize - 1], anchor.score);
                    prop_assert!(anchor.score > 0);
                    let covering: Vec<_> =
                        selection.windows.iter().filter(|w| w.contains(anchor.line)).collect();
                    prop_assert_eq!(covering.len(), 1);
                    prop_assert!(covering[0].score >= anchor.score);
                    let r = radius as u32;
                    prop_assert!(covering[0].start_line <= anchor.line.saturating_sub(r).max(1));
                    prop_assert!(covering[0].end_line >= (anchor.line.saturating_add(r)).min(n));
                }
                // The anchors are the best lines: no other line beats the weakest anchor, and
                // ties with it are later lines.
                let weakest = selection.anchors.last().unwrap();
                for (i, &score) in scores.iter().enumerate() {
                    let line = i as u32 + 1;
                    if selection.anchors.iter().any(|a| a.line == line) {
                        continue;
                    }
                    if selection.anchors.len() < anchors {
                        // Fewer matching lines than anchors: every matching line is an anchor.
                        prop_assert_eq!(score, 0);
                    } else {
                        prop_assert!(
                            score < weakest.score
                                || (score == weakest.score && line > weakest.line)
                        );
                    }
                }
                for pair in selection.windows.windows(2) {
                    prop_assert!(
                        (pair[0].score, std::cmp::Reverse(pair[0].start_line))
                            > (pair[1].score, std::cmp::Reverse(pair[1].start_line))
                    );
                }
            }
        }
    }
}
