//! Line-level scoring of a pack against gold spans: which annotated lines reached the context.
//!
//! Gold enters only here, after packing. The measures are the paper's (`contextbench_context.py`
//! with `span_set_metrics`):
//!
//! - **Clipping**: a gold span's end beyond its file's last line is clipped to the last line and
//!   reported ([`ClippedSpan`]); a span that starts after the last line, or names a file whose
//!   line count is not supplied, is an error ([`Error::Gold`]). Line counts are
//!   [`count_lines`](crate::delivery::select::count_lines) counts, the selector's numbering.
//! - **Line recall**: delivered gold lines / gold lines, over the union of the (clipped) gold
//!   spans per file, where a line is delivered when an included block covers it.
//! - **Complete line coverage**: line recall is exactly 1.
//! - **Tokens used**: the pack's.
//! - **Delivered-file recall**: gold files with at least one included block / gold files.
//!
//! Degenerate cases follow the paper's code: with no gold span at all, line recall is 1 when no
//! block was included and 0 otherwise; with gold spans but no gold line (every span empty,
//! `end_line < start_line`), it is 0. Delivered-file recall is `None` without gold files.

use std::collections::BTreeMap;

use crate::delivery::pack::Pack;
use crate::error::{Error, Result};
use crate::study::GoldSpan;

/// A gold span whose end was clipped to its file's last line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClippedSpan {
    /// The file.
    pub path: String,
    /// The span's first line.
    pub start_line: u32,
    /// The span's annotated last line, beyond the file.
    pub end_line: u32,
    /// The file's last line: the span's end after clipping.
    pub file_lines: u32,
}

/// One gold file's lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileLines {
    /// The file.
    pub path: String,
    /// Distinct gold lines in the file.
    pub gold_lines: u64,
    /// Those covered by an included block.
    pub delivered_gold_lines: u64,
    /// Whether any block of the file was included.
    pub delivered: bool,
}

/// The line-level scores of one pack.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LineScore {
    /// Distinct gold lines over all files.
    pub gold_lines: u64,
    /// Those delivered.
    pub delivered_gold_lines: u64,
    /// `delivered_gold_lines / gold_lines` (see the module doc for the degenerate cases).
    pub line_recall: f64,
    /// Line recall is exactly 1.
    pub complete: bool,
    /// The pack's tokens.
    pub tokens_used: usize,
    /// Distinct gold files.
    pub gold_files: usize,
    /// Gold files with at least one included block.
    pub delivered_gold_files: usize,
    /// `delivered_gold_files / gold_files`; `None` without gold files.
    pub delivered_file_recall: Option<f64>,
    /// Per gold file, sorted by path.
    pub files: Vec<FileLines>,
    /// The spans whose ends were clipped.
    pub clipped: Vec<ClippedSpan>,
}

/// Clips gold spans to their files' line counts (`line_count(path)`, as
/// [`count_lines`](crate::delivery::select::count_lines) counts). Returns the clipped spans in input order
/// and the clipped ends.
pub fn clip_gold(
    gold: &[GoldSpan],
    line_count: impl Fn(&str) -> Option<u32>,
) -> Result<(Vec<GoldSpan>, Vec<ClippedSpan>)> {
    let mut spans = Vec::with_capacity(gold.len());
    let mut clipped = Vec::new();
    for span in gold {
        let bad = |message: String| Error::Gold {
            path: span.path.clone(),
            start_line: span.start_line,
            end_line: span.end_line,
            message,
        };
        let lines = line_count(&span.path)
            .ok_or_else(|| bad("the file's line count was not supplied".to_string()))?;
        if span.start_line == 0 {
            return Err(bad("line numbers start at 1".to_string()));
        }
        if span.start_line > lines {
            return Err(bad(format!("starts after the file's last line ({lines})")));
        }
        if span.end_line > lines {
            clipped.push(ClippedSpan {
                path: span.path.clone(),
                start_line: span.start_line,
                end_line: span.end_line,
                file_lines: lines,
            });
        }
        spans.push(GoldSpan {
            end_line: span.end_line.min(lines),
            ..span.clone()
        });
    }
    Ok((spans, clipped))
}

/// Sorted, disjoint, non-adjacent inclusive ranges covering the same lines as `ranges`.
pub(crate) fn union(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.retain(|&(start, end)| start <= end);
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if u64::from(start) <= u64::from(last.1) + 1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

fn line_total(ranges: &[(u32, u32)]) -> u64 {
    ranges
        .iter()
        .map(|&(start, end)| u64::from(end) - u64::from(start) + 1)
        .sum()
}

/// Lines in both unions (each sorted and disjoint).
pub(crate) fn overlap(a: &[(u32, u32)], b: &[(u32, u32)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let start = a[i].0.max(b[j].0);
        let end = a[i].1.min(b[j].1);
        if start <= end {
            total += u64::from(end) - u64::from(start) + 1;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// Scores `pack` against `gold`, clipping the spans first ([`clip_gold`]).
///
/// ```
/// use routelens_engine::delivery::linescore::score_lines;
/// use routelens_engine::delivery::pack::{Pack, PackedBlock};
/// use routelens_engine::GoldSpan;
/// let block = |start_line, end_line, included| PackedBlock {
///     path: "a.py".into(), start_line, end_line, tokens: 10, included, score: 1,
///     skip_reason: None,
/// };
/// let pack = Pack { blocks: vec![block(1, 20, true), block(40, 60, false)], tokens_used: 10,
///                   budget_tokens: 16_000 };
/// let gold = [GoldSpan { path: "a.py".into(), start_line: 11, end_line: 50 }];
/// let score = score_lines(&pack, &gold, |_| Some(100)).unwrap();
/// assert_eq!((score.delivered_gold_lines, score.gold_lines), (10, 40));
/// assert_eq!(score.line_recall, 0.25);
/// ```
pub fn score_lines(
    pack: &Pack,
    gold: &[GoldSpan],
    line_count: impl Fn(&str) -> Option<u32>,
) -> Result<LineScore> {
    let (spans, clipped) = clip_gold(gold, line_count)?;
    let mut gold_by_file: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
    for span in &spans {
        gold_by_file
            .entry(span.path.as_str())
            .or_default()
            .push((span.start_line, span.end_line));
    }
    let mut delivered_by_file: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
    for block in pack.included() {
        delivered_by_file
            .entry(block.path.as_str())
            .or_default()
            .push((block.start_line, block.end_line));
    }
    let mut files = Vec::with_capacity(gold_by_file.len());
    for (path, ranges) in gold_by_file {
        let gold = union(ranges);
        let delivered = delivered_by_file.get(path);
        let delivered_lines = delivered.map_or(0, |ranges| overlap(&gold, &union(ranges.clone())));
        files.push(FileLines {
            path: path.to_string(),
            gold_lines: line_total(&gold),
            delivered_gold_lines: delivered_lines,
            delivered: delivered.is_some(),
        });
    }
    let gold_lines: u64 = files.iter().map(|f| f.gold_lines).sum();
    let delivered_gold_lines: u64 = files.iter().map(|f| f.delivered_gold_lines).sum();
    let line_recall = if gold.is_empty() {
        if pack.included().next().is_none() {
            1.0
        } else {
            0.0
        }
    } else if gold_lines == 0 {
        0.0
    } else {
        delivered_gold_lines as f64 / gold_lines as f64
    };
    let delivered_gold_files = files.iter().filter(|f| f.delivered).count();
    Ok(LineScore {
        gold_lines,
        delivered_gold_lines,
        line_recall,
        complete: line_recall == 1.0,
        tokens_used: pack.tokens_used,
        gold_files: files.len(),
        delivered_gold_files,
        delivered_file_recall: (!files.is_empty())
            .then(|| delivered_gold_files as f64 / files.len() as f64),
        files,
        clipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::pack::PackedBlock;

    fn block(path: &str, start_line: u32, end_line: u32, included: bool) -> PackedBlock {
        PackedBlock {
            path: path.into(),
            start_line,
            end_line,
            tokens: 100,
            included,
            score: 1,
            skip_reason: None,
        }
    }

    fn pack(blocks: Vec<PackedBlock>) -> Pack {
        let tokens_used = blocks.iter().filter(|b| b.included).map(|b| b.tokens).sum();
        Pack {
            blocks,
            tokens_used,
            budget_tokens: 16_000,
        }
    }

    fn span(path: &str, start_line: u32, end_line: u32) -> GoldSpan {
        GoldSpan {
            path: path.into(),
            start_line,
            end_line,
        }
    }

    fn lines(path: &str) -> Option<u32> {
        match path {
            "a.py" => Some(100),
            "b.py" => Some(30),
            "c.py" => Some(10),
            _ => None,
        }
    }

    #[test]
    fn recall_over_the_union_of_gold_spans_by_hand() {
        // a.py gold: 10–19 and 15–24 overlap → 10–24, 15 lines; 25–26 touches → 10–26, 17 lines.
        // b.py gold: 5–8, 4 lines. c.py gold: 1–2, 2 lines. Total 23 gold lines.
        let gold = [
            span("a.py", 10, 19),
            span("a.py", 15, 24),
            span("a.py", 25, 26),
            span("b.py", 5, 8),
            span("c.py", 1, 2),
        ];
        // Included: a.py 1–12 (10, 11, 12: 3 lines) and 20–40 (20–26: 7 lines); b.py 8–30
        // (line 8: 1 line); c.py only a skipped block.
        let result = pack(vec![
            block("a.py", 20, 40, true),
            block("a.py", 1, 12, true),
            block("b.py", 8, 30, true),
            block("c.py", 1, 10, false),
            block("z.py", 1, 10, true),
        ]);
        let score = score_lines(&result, &gold, lines).unwrap();
        assert_eq!(score.gold_lines, 23);
        assert_eq!(score.delivered_gold_lines, 11);
        assert_eq!(score.line_recall, 11.0 / 23.0);
        assert!(!score.complete);
        assert_eq!(score.tokens_used, 400);
        assert_eq!((score.delivered_gold_files, score.gold_files), (2, 3));
        assert_eq!(score.delivered_file_recall, Some(2.0 / 3.0));
        assert_eq!(
            score.files,
            [
                FileLines {
                    path: "a.py".into(),
                    gold_lines: 17,
                    delivered_gold_lines: 10,
                    delivered: true
                },
                FileLines {
                    path: "b.py".into(),
                    gold_lines: 4,
                    delivered_gold_lines: 1,
                    delivered: true
                },
                FileLines {
                    path: "c.py".into(),
                    gold_lines: 2,
                    delivered_gold_lines: 0,
                    delivered: false
                },
            ]
        );
        assert!(score.clipped.is_empty());
    }

    #[test]
    fn complete_coverage_and_overlapping_blocks_count_once() {
        let gold = [span("a.py", 5, 9)];
        let result = pack(vec![block("a.py", 1, 7, true), block("a.py", 6, 9, true)]);
        let score = score_lines(&result, &gold, lines).unwrap();
        assert_eq!((score.delivered_gold_lines, score.gold_lines), (5, 5));
        assert!(score.complete);
        assert_eq!(score.line_recall, 1.0);
    }

    #[test]
    fn clips_ends_and_reports_them() {
        let gold = [span("b.py", 25, 40), span("c.py", 3, 10)];
        let (spans, clipped) = clip_gold(&gold, lines).unwrap();
        assert_eq!(spans, [span("b.py", 25, 30), span("c.py", 3, 10)]);
        assert_eq!(
            clipped,
            [ClippedSpan {
                path: "b.py".into(),
                start_line: 25,
                end_line: 40,
                file_lines: 30
            }]
        );
        let result = pack(vec![block("b.py", 1, 30, true)]);
        let score = score_lines(&result, &gold[..1], lines).unwrap();
        assert!(score.complete);
        assert_eq!(score.gold_lines, 6);
        assert_eq!(score.clipped.len(), 1);
    }

    #[test]
    fn refuses_spans_that_do_not_fit() {
        let error = |gold: GoldSpan| clip_gold(&[gold], lines).unwrap_err().to_string();
        assert_eq!(
            error(span("c.py", 11, 12)),
            "gold span c.py:11-12: starts after the file's last line (10)"
        );
        assert_eq!(
            error(span("c.py", 0, 2)),
            "gold span c.py:0-2: line numbers start at 1"
        );
        assert_eq!(
            error(span("nope.py", 1, 2)),
            "gold span nope.py:1-2: the file's line count was not supplied"
        );
    }

    #[test]
    fn degenerate_cases_follow_the_paper() {
        let nothing = pack(vec![block("a.py", 1, 5, false)]);
        let something = pack(vec![block("a.py", 1, 5, true)]);
        let none = score_lines(&nothing, &[], lines).unwrap();
        assert_eq!((none.line_recall, none.complete), (1.0, true));
        assert_eq!(none.delivered_file_recall, None);
        assert_eq!(
            score_lines(&something, &[], lines).unwrap().line_recall,
            0.0
        );
        // A span with end before start holds no line.
        let empty = score_lines(&something, &[span("a.py", 5, 4)], lines).unwrap();
        assert_eq!((empty.gold_lines, empty.line_recall), (0, 0.0));
        assert_eq!(empty.delivered_file_recall, Some(1.0));
        // Line numbers at the top of the u32 range do not overflow.
        let huge = |_: &str| Some(u32::MAX);
        let top = pack(vec![block("a.py", u32::MAX - 1, u32::MAX, true)]);
        let score = score_lines(&top, &[span("a.py", u32::MAX - 2, u32::MAX)], huge).unwrap();
        assert_eq!((score.delivered_gold_lines, score.gold_lines), (2, 3));
    }
}
