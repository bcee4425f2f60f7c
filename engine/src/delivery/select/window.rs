//! Anchors and windows: the best lines of one file, expanded by the radius and merged, and the
//! selection of every file of a ranking.

use super::score::scan_lines;
use super::{QueryTerms, SelectConfig};

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

    /// The number of lines ([`count_lines`](super::count_lines)).
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
/// use routelens_engine::delivery::select::{select_file, QueryTerms, SelectConfig, Window};
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
