//! Delivered context for one issue and one ranking: the selector ([`crate::select`]), the packer
//! ([`crate::pack`]) and line scoring ([`crate::linescore`]) in one call, the same for the
//! `routelens pack` command and the app's Context view.
//!
//! Inputs are the issue text, a ranking (paths, best first), the files' texts (looked up by path,
//! e.g. from a bundle's verified chunks), optional gold spans and a token counter. Only the first
//! [`ContextSettings::k`] ranked paths are packed. A ranked path the lookup does not know (the
//! ranking came from another snapshot, or the bundle's policy left the file out) is not an error:
//! it is reported in [`ContextReport::missing`] with its rank and packing goes on without it, as
//! an agent would get nothing for a file it cannot open. Gold spans must name files the lookup
//! knows (their line counts clip the spans); one that does not is an [`Error::Gold`].
//!
//! The two input formats of the command line are parsed here too: a ranking file
//! ([`parse_ranking`], one path per line) and a gold file ([`parse_gold`], JSON
//! `[{"path", "start_line", "end_line"}...]`).
//!
//! ```
//! use routelens_engine::context::{build_context, ContextSettings};
//! use routelens_engine::tokens::TokenCounter;
//! use routelens_engine::{GoldSpan, Result};
//!
//! struct Words;
//! impl TokenCounter for Words {
//!     fn count_tokens(&mut self, text: &str) -> Result<usize> {
//!         Ok(text.split_whitespace().count())
//!     }
//! }
//! let text = "fn parse_header() {}\nfn other() {}\n";
//! let ranking = vec!["src/a.rs".to_string(), "src/gone.rs".to_string()];
//! let gold = [GoldSpan { path: "src/a.rs".into(), start_line: 1, end_line: 1 }];
//! let report = build_context(
//!     "the parse_header function fails",
//!     &ranking,
//!     &ContextSettings::default(),
//!     |path| (path == "src/a.rs").then_some(text),
//!     Some(&gold),
//!     &mut Words,
//! )
//! .unwrap();
//! assert_eq!(report.pack.blocks.len(), 1);
//! assert_eq!(report.missing[0].path, "src/gone.rs");
//! assert_eq!(report.score.as_ref().unwrap().line_recall, 1.0);
//! ```

use std::collections::{BTreeMap, HashSet};

use crate::error::{Error, Result};
use crate::linescore::{clip_gold, overlap, score_lines, union, ClippedSpan, LineScore};
use crate::pack::{pack, Pack, PackConfig, PackedBlock, DEFAULT_BUDGET_TOKENS};
use crate::select::{
    count_lines, select_files, QueryTerms, SelectConfig, DEFAULT_ANCHORS_PER_FILE,
    DEFAULT_RADIUS_LINES,
};
use crate::study::GoldSpan;
use crate::tokens::TokenCounter;

/// The ranked files packed by default: the paper's k = 8.
pub const DEFAULT_CONTEXT_K: usize = 8;

/// Every setting of one delivered context; the defaults are the paper's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ContextSettings {
    /// How many ranked paths are packed, from the top (default [`DEFAULT_CONTEXT_K`], 8).
    pub k: usize,
    /// Anchor lines per file (default 4).
    pub anchors_per_file: usize,
    /// Lines around each anchor (default 200).
    pub radius_lines: usize,
    /// The token budget (default 16,000).
    pub budget_tokens: usize,
}

impl Default for ContextSettings {
    fn default() -> Self {
        ContextSettings {
            k: DEFAULT_CONTEXT_K,
            anchors_per_file: DEFAULT_ANCHORS_PER_FILE,
            radius_lines: DEFAULT_RADIUS_LINES,
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

impl ContextSettings {
    /// Checks the settings: k and anchors at least 1 ([`Error::Setting`] names the setting).
    pub fn check(self) -> Result<Self> {
        if self.k == 0 {
            return Err(Error::setting("k", 0, "1 or more"));
        }
        self.select_config().check()?;
        Ok(self)
    }

    /// The selector's part.
    pub fn select_config(&self) -> SelectConfig {
        SelectConfig {
            anchors_per_file: self.anchors_per_file,
            radius_lines: self.radius_lines,
        }
    }

    /// The packer's part.
    pub fn pack_config(&self) -> PackConfig {
        PackConfig {
            budget_tokens: self.budget_tokens,
        }
    }
}

/// A ranked path within the top k that the file lookup did not know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MissingFile {
    /// The path as ranked.
    pub path: String,
    /// Its 1-based rank.
    pub rank: usize,
}

/// A delivered context and, with gold, its line scores.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ContextReport {
    /// The settings packed with.
    pub settings: ContextSettings,
    /// The issue's query terms (sorted).
    pub terms: Vec<String>,
    /// The packed paths, in rank order (the top k, less the missing ones).
    pub files: Vec<String>,
    /// Top-k paths the lookup did not know.
    pub missing: Vec<MissingFile>,
    /// Every block considered, in pack order, with tokens and skip reasons.
    pub pack: Pack,
    /// Line recall and the rest, when gold was given.
    pub score: Option<LineScore>,
    /// The gold spans after clipping to their files (empty without gold).
    pub gold: Vec<GoldSpan>,
}

/// Gold lines of one file, split into delivered and missed (for a side-by-side comparison).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GoldDelivery {
    /// The gold file.
    pub path: String,
    /// Gold line ranges covered by included blocks (inclusive, sorted, disjoint).
    pub delivered: Vec<(u32, u32)>,
    /// Gold line ranges not covered.
    pub missed: Vec<(u32, u32)>,
}

impl ContextReport {
    /// The gold line ranges (inclusive, sorted, disjoint) of `path` within lines
    /// `start_line..=end_line`: what a view highlights in a block.
    pub fn gold_in(&self, path: &str, start_line: u32, end_line: u32) -> Vec<(u32, u32)> {
        let spans = self
            .gold
            .iter()
            .filter(|span| span.path == path)
            .map(|span| (span.start_line, span.end_line))
            .collect();
        union(spans)
            .into_iter()
            .filter_map(|(start, end)| {
                let (s, e) = (start.max(start_line), end.min(end_line));
                (s <= e).then_some((s, e))
            })
            .collect()
    }

    /// Gold lines of this block, counted.
    pub fn gold_lines_in(&self, block: &PackedBlock) -> u64 {
        self.gold_in(&block.path, block.start_line, block.end_line)
            .iter()
            .map(|&(s, e)| u64::from(e - s) + 1)
            .sum()
    }

    /// Per gold file (sorted by path), its gold lines delivered and missed.
    pub fn gold_delivery(&self) -> Vec<GoldDelivery> {
        let mut gold: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
        for span in &self.gold {
            gold.entry(span.path.as_str())
                .or_default()
                .push((span.start_line, span.end_line));
        }
        let mut delivered: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
        for block in self.pack.included() {
            delivered
                .entry(block.path.as_str())
                .or_default()
                .push((block.start_line, block.end_line));
        }
        gold.into_iter()
            .map(|(path, ranges)| {
                let gold = union(ranges);
                let covered = union(delivered.get(path).cloned().unwrap_or_default());
                let (hit, missed) = split_ranges(&gold, &covered);
                GoldDelivery {
                    path: path.to_string(),
                    delivered: hit,
                    missed,
                }
            })
            .collect()
    }

    /// The spans whose ends were clipped to their files (empty without gold).
    pub fn clipped(&self) -> &[ClippedSpan] {
        self.score.as_ref().map_or(&[], |score| &score.clipped)
    }
}

/// Inclusive line ranges, sorted and disjoint.
type Ranges = Vec<(u32, u32)>;

/// Splits `gold` (sorted, disjoint) into the parts inside and outside `covered` (sorted,
/// disjoint).
fn split_ranges(gold: &[(u32, u32)], covered: &[(u32, u32)]) -> (Ranges, Ranges) {
    let mut hit = Vec::new();
    let mut missed = Vec::new();
    for &(start, end) in gold {
        let mut next = start;
        for &(c_start, c_end) in covered {
            if c_end < next || c_start > end {
                continue;
            }
            if c_start > next {
                missed.push((next, c_start - 1));
            }
            let stop = c_end.min(end);
            hit.push((c_start.max(next), stop));
            if stop == end {
                next = end.saturating_add(1);
                break;
            }
            next = stop + 1;
        }
        if next <= end {
            missed.push((next, end));
        }
    }
    debug_assert_eq!(
        overlap(gold, covered),
        hit.iter().map(|&(s, e)| u64::from(e - s) + 1).sum::<u64>()
    );
    (hit, missed)
}

/// Selects and packs the top `settings.k` paths of `ranking` for `issue`, reading texts through
/// `text_of`, and scores the pack against `gold` when given (see the module doc). The counter is
/// borrowed so that a [`TokenCache`](crate::tokens::TokenCache) can outlive one call: re-packing
/// at another budget then encodes nothing again.
pub fn build_context<'a, C: TokenCounter + ?Sized>(
    issue: &str,
    ranking: &'a [String],
    settings: &ContextSettings,
    text_of: impl Fn(&str) -> Option<&'a str>,
    gold: Option<&[GoldSpan]>,
    counter: &mut C,
) -> Result<ContextReport> {
    let settings = settings.check()?;
    let terms = QueryTerms::from_issue(issue);
    let mut files: Vec<(&'a str, &'a str)> = Vec::new();
    let mut missing = Vec::new();
    let mut seen = HashSet::new();
    for (index, path) in ranking.iter().take(settings.k).enumerate() {
        if !seen.insert(path.as_str()) {
            continue;
        }
        match text_of(path) {
            Some(text) => files.push((path.as_str(), text)),
            None => missing.push(MissingFile {
                path: path.clone(),
                rank: index + 1,
            }),
        }
    }
    let selections = select_files(&terms, files.iter().copied(), &settings.select_config());
    let packed = pack(&selections, &settings.pack_config(), counter)?;
    let (score, clipped_gold) = match gold {
        None => (None, Vec::new()),
        Some(gold) => {
            for span in gold {
                if text_of(&span.path).is_none() {
                    return Err(Error::Gold {
                        path: span.path.clone(),
                        start_line: span.start_line,
                        end_line: span.end_line,
                        message: "the file is not among the files supplied (not in the bundle)"
                            .to_string(),
                    });
                }
            }
            let line_count = |path: &str| text_of(path).map(|text| to_u32(count_lines(text)));
            let score = score_lines(&packed, gold, line_count)?;
            let (spans, _) = clip_gold(gold, line_count)?;
            (Some(score), spans)
        }
    };
    Ok(ContextReport {
        settings,
        terms: terms.terms().to_vec(),
        files: files.iter().map(|(path, _)| path.to_string()).collect(),
        missing,
        pack: packed,
        score,
        gold: clipped_gold,
    })
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Recomputed line scores of one arm at one k: `(case index, score)` for every case whose files
/// were available (in a loaded bundle).
#[derive(Debug, Clone, PartialEq)]
pub struct RecomputedLines {
    /// The arm's name.
    pub arm: String,
    /// The k packed.
    pub k: usize,
    /// Per available case (its index in the study, or in the question set).
    pub scores: Vec<(usize, LineScore)>,
}

/// The line-level table with recomputed values, and the archived ones beside them where the
/// study archives the arm at that k (averaged over the same cases, so the two compare): one row
/// per arm and k over every available case, and, when the study carries the gold audit
/// (`gold_text_aligned`), a second row `<arm> (aligned)` over the fully aligned cases alone, as
/// the paper reports both. Columns: `L (recomputed)`, `complete (recomputed)`,
/// `tokens (recomputed)`, `issues` (recomputed), `L (archived)`, `complete (archived)` (dashes
/// when not archived).
pub fn recomputed_lines_table(
    title: &str,
    rows: &[RecomputedLines],
    archived: Option<&crate::study::Study>,
) -> crate::table::Table {
    use crate::table::Table;
    let mut table = Table::new(
        title,
        &[
            "arm",
            "k",
            "subset",
            "L (recomputed)",
            "complete (recomputed)",
            "tokens (recomputed)",
            "issues",
            "L (archived)",
            "complete (archived)",
        ],
    );
    let aligned = |case: usize| {
        archived
            .and_then(|study| study.cases.get(case))
            .and_then(|case| case.flags.gold_text_aligned)
    };
    let audited = archived.is_some_and(|study| {
        study
            .cases
            .iter()
            .any(|case| case.flags.gold_text_aligned.is_some())
    });
    for row in rows {
        let all: Vec<&(usize, LineScore)> = row.scores.iter().collect();
        table
            .rows
            .push(recomputed_row(&row.arm, row, "all", &all, archived));
        if audited {
            let subset: Vec<&(usize, LineScore)> = row
                .scores
                .iter()
                .filter(|(case, _)| aligned(*case) == Some(true))
                .collect();
            let label = format!("{} (aligned)", row.arm);
            table
                .rows
                .push(recomputed_row(&label, row, "aligned", &subset, archived));
        }
    }
    table
}

/// One row of [`recomputed_lines_table`] over `scores` (a subset of `row.scores`).
fn recomputed_row(
    label: &str,
    row: &RecomputedLines,
    subset: &str,
    scores: &[&(usize, LineScore)],
    archived: Option<&crate::study::Study>,
) -> Vec<crate::table::Cell> {
    use crate::table::Cell;
    let n = scores.len();
    let mean = |f: &dyn Fn(&LineScore) -> f64| {
        scores.iter().map(|(_, s)| f(s)).sum::<f64>() / n.max(1) as f64
    };
    let complete = scores.iter().filter(|(_, s)| s.complete).count();
    let archived_values = archived
        .and_then(|study| study.arms.iter().find(|arm| arm.name == row.arm))
        .and_then(|arm| arm.archived_lines.get(&row.k))
        .map(|values| {
            scores
                .iter()
                .filter_map(|&&(case, _)| values.get(case).cloned().flatten())
                .collect::<Vec<_>>()
        })
        .filter(|got| !got.is_empty());
    let (archived_mean, archived_complete) = match &archived_values {
        Some(got) => (
            Cell::number(
                got.iter().map(|v| v.line_recall).sum::<f64>() / got.len() as f64,
                3,
            ),
            Cell {
                text: format!(
                    "{}/{}",
                    got.iter().filter(|v| v.complete_lines).count(),
                    got.len()
                ),
                value: Some(got.iter().filter(|v| v.complete_lines).count() as f64),
            },
        ),
        None => (Cell::missing(), Cell::missing()),
    };
    vec![
        Cell::text(label),
        Cell::count(row.k),
        Cell::text(subset),
        if n == 0 {
            Cell::missing()
        } else {
            Cell::number(mean(&|s| s.line_recall), 3)
        },
        Cell {
            text: format!("{complete}/{n}"),
            value: Some(complete as f64),
        },
        if n == 0 {
            Cell::missing()
        } else {
            Cell::number(mean(&|s| s.tokens_used as f64), 0)
        },
        Cell::count(n),
        archived_mean,
        archived_complete,
    ]
}

/// Parses a ranking file: one path per line, best first; surrounding whitespace is trimmed and
/// blank lines are skipped. A path listed twice is refused, naming both lines.
pub fn parse_ranking(file: &str, text: &str) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let path = line.trim();
        if path.is_empty() {
            continue;
        }
        if let Some(first) = seen.insert(path, index + 1) {
            return Err(Error::line(
                file,
                index + 1,
                format!("{path:?} is already ranked on line {first}"),
            ));
        }
        paths.push(path.to_string());
    }
    Ok(paths)
}

/// Parses a gold file: JSON `[{"path", "start_line", "end_line"}...]`, lines 1-based and
/// inclusive. Errors name the file and the entry's field (`gold.json: field [2].end_line: …`).
pub fn parse_gold(file: &str, text: &str) -> Result<Vec<GoldSpan>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let spans: Vec<GoldSpan> =
        serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let field = err.path().to_string();
            let inner = err.into_inner();
            if field == "." || inner.is_syntax() || inner.is_eof() {
                Error::line(file, inner.line(), inner.to_string())
            } else {
                Error::field(file, field, inner.to_string())
            }
        })?;
    for (index, span) in spans.iter().enumerate() {
        if span.start_line == 0 {
            return Err(Error::field(
                file,
                format!("[{index}].start_line"),
                "line numbers start at 1",
            ));
        }
        if span.end_line < span.start_line {
            return Err(Error::field(
                file,
                format!("[{index}].end_line"),
                format!("{} is before start_line {}", span.end_line, span.start_line),
            ));
        }
    }
    Ok(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::TokenCache;

    /// One token per line of the block, header included.
    struct PerLine;

    impl TokenCounter for PerLine {
        fn count_tokens(&mut self, text: &str) -> Result<usize> {
            Ok(text.matches('\n').count())
        }
    }

    fn file(lines: usize, hits: &[usize]) -> String {
        (1..=lines)
            .map(|n| {
                if hits.contains(&n) {
                    format!("let router = {n};\n")
                } else {
                    format!("let x = {n};\n")
                }
            })
            .collect()
    }

    #[test]
    fn ranked_files_are_packed_in_order_and_missing_ones_reported() {
        let a = file(1000, &[500]);
        let b = file(50, &[]);
        let ranking: Vec<String> = ["a.rs", "gone.rs", "b.rs", "c.rs"]
            .map(String::from)
            .to_vec();
        let settings = ContextSettings {
            k: 3,
            budget_tokens: 420,
            radius_lines: 200,
            ..ContextSettings::default()
        };
        let text_of = |path: &str| match path {
            "a.rs" => Some(a.as_str()),
            "b.rs" => Some(b.as_str()),
            _ => None,
        };
        let gold = [
            GoldSpan {
                path: "a.rs".into(),
                start_line: 490,
                end_line: 510,
            },
            GoldSpan {
                path: "b.rs".into(),
                start_line: 40,
                end_line: 60,
            },
        ];
        let report = build_context(
            "the router is slow",
            &ranking,
            &settings,
            text_of,
            Some(&gold),
            &mut PerLine,
        )
        .unwrap();
        assert_eq!(report.files, ["a.rs", "b.rs"]);
        assert_eq!(
            report.missing,
            [MissingFile {
                path: "gone.rs".into(),
                rank: 2
            }]
        );
        // a.rs: lines 300-700 (401 lines + the header's 2 newlines = 403 tokens) fit 420; b.rs
        // whole (52) does not fit the 17 left.
        let blocks = &report.pack.blocks;
        assert_eq!((blocks[0].start_line, blocks[0].end_line), (300, 700));
        assert!(blocks[0].included && !blocks[1].included);
        assert_eq!(report.pack.tokens_used, 403);
        let score = report.score.as_ref().unwrap();
        // b.rs's span is clipped to 50: 21 + 11 gold lines, 21 delivered.
        assert_eq!((score.delivered_gold_lines, score.gold_lines), (21, 32));
        assert_eq!(report.clipped().len(), 1);
        assert_eq!(report.gold_in("a.rs", 300, 495), [(490, 495)]);
        assert_eq!(report.gold_lines_in(&blocks[1]), 11);
        let delivery = report.gold_delivery();
        assert_eq!(delivery[0].delivered, [(490, 510)]);
        assert_eq!(delivery[1].missed, [(40, 50)]);
    }

    #[test]
    fn a_bigger_budget_repacks_without_counting_again() {
        let a = file(3000, &[100, 2900]);
        let ranking = vec!["a.rs".to_string()];
        let mut cache = TokenCache::new(PerLine);
        let mut run = |budget_tokens| {
            let settings = ContextSettings {
                budget_tokens,
                ..ContextSettings::default()
            };
            build_context(
                "router",
                &ranking,
                &settings,
                |_| Some(&a),
                None,
                &mut cache,
            )
            .unwrap()
        };
        let small = run(310);
        let large = run(16_000);
        assert_eq!(small.pack.included().count(), 1);
        assert_eq!(large.pack.included().count(), 2);
        assert_eq!((cache.misses(), cache.hits()), (2, 2));
    }

    #[test]
    fn gold_outside_the_files_and_bad_settings_are_refused() {
        let a = file(10, &[]);
        let ranking = vec!["a.rs".to_string()];
        let gold = [GoldSpan {
            path: "elsewhere.rs".into(),
            start_line: 1,
            end_line: 2,
        }];
        let settings = ContextSettings::default();
        let error = build_context(
            "x",
            &ranking,
            &settings,
            |_| None,
            Some(&gold),
            &mut PerLine,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("elsewhere.rs:1-2"), "{error}");
        let zero = ContextSettings { k: 0, ..settings };
        let error = build_context("x", &ranking, &zero, |_| Some(&a), None, &mut PerLine)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("k = 0"), "{error}");
    }

    #[test]
    fn the_recomputed_table_averages_and_shows_archived_beside() {
        use crate::study::{ArchivedLines, Arm, ArmOrigin, Case, Study};
        let score = |recall: f64, tokens| LineScore {
            gold_lines: 10,
            delivered_gold_lines: (recall * 10.0) as u64,
            line_recall: recall,
            complete: recall == 1.0,
            tokens_used: tokens,
            gold_files: 1,
            delivered_gold_files: 1,
            delivered_file_recall: Some(1.0),
            files: Vec::new(),
            clipped: Vec::new(),
        };
        let rows = [RecomputedLines {
            arm: "fts5".into(),
            k: 8,
            scores: vec![(0, score(1.0, 100)), (2, score(0.5, 300))],
        }];
        let table = recomputed_lines_table("t", &rows, None);
        let texts: Vec<&str> = table.rows[0].iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            ["fts5", "8", "all", "0.750", "1/2", "200", "2", "–", "–"]
        );
        assert_eq!(table.rows.len(), 1, "no gold audit, no aligned row");
        let mut cases: Vec<Case> = (0..3)
            .map(|i| Case::from_spans(format!("c{i}"), "r".into(), Vec::new()))
            .collect();
        // The audit: cases 0 and 1 aligned, case 2 not.
        for (case, aligned) in cases.iter_mut().zip([true, true, false]) {
            case.flags.gold_text_aligned = Some(aligned);
        }
        let mut arm = Arm::new("fts5", "fts5", ArmOrigin::Archived, vec![Vec::new(); 3]);
        let value = |line_recall| {
            Some(ArchivedLines {
                line_recall,
                complete_lines: line_recall == 1.0,
                context_tokens: None,
                context_file_recall: None,
            })
        };
        // Case 1 is not recomputed, so its archived value stays out of the average.
        arm.archived_lines
            .insert(8, vec![value(0.2), value(0.0), value(1.0)]);
        let study = Study {
            title: "s".into(),
            cases,
            arms: vec![arm],
        };
        let table = recomputed_lines_table("t", &rows, Some(&study));
        assert_eq!(table.rows[0][7].text, "0.600");
        assert_eq!(table.rows[0][8].text, "1/2");
        // The aligned row: case 0 alone (case 2 is recomputed but not aligned).
        let aligned: Vec<&str> = table.rows[1].iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            aligned,
            [
                "fts5 (aligned)",
                "8",
                "aligned",
                "1.000",
                "1/1",
                "100",
                "1",
                "0.200",
                "0/1"
            ]
        );
    }

    #[test]
    fn split_ranges_cover_every_gold_line_once() {
        let (hit, missed) = split_ranges(&[(1, 10), (20, 30)], &[(3, 4), (8, 22), (29, 40)]);
        assert_eq!(hit, [(3, 4), (8, 10), (20, 22), (29, 30)]);
        assert_eq!(missed, [(1, 2), (5, 7), (23, 28)]);
        let (hit, missed) = split_ranges(&[(5, 6)], &[]);
        assert!(hit.is_empty());
        assert_eq!(missed, [(5, 6)]);
    }

    #[test]
    fn rankings_and_gold_files_parse_and_errors_name_the_place() {
        let ranking = parse_ranking("r.txt", "a.rs\n\n  b.rs \r\n").unwrap();
        assert_eq!(ranking, ["a.rs", "b.rs"]);
        let error = parse_ranking("r.txt", "a.rs\nb.rs\na.rs\n")
            .unwrap_err()
            .to_string();
        assert_eq!(error, "r.txt:3: \"a.rs\" is already ranked on line 1");
        let gold = parse_gold(
            "g.json",
            r#"[{"path": "a.rs", "start_line": 2, "end_line": 4}]"#,
        )
        .unwrap();
        assert_eq!(gold[0].end_line, 4);
        let error = parse_gold(
            "g.json",
            r#"[{"path": "a.rs", "start_line": 2, "end_line": 4}, {"path": "b.rs", "start_line": 1}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(error.starts_with("g.json: field [1]"), "{error}");
        assert!(error.contains("end_line"), "{error}");
        let error = parse_gold(
            "g.json",
            r#"[{"path": "a.rs", "start_line": 5, "end_line": 4}]"#,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "g.json: field [0].end_line: 4 is before start_line 5"
        );
        let error = parse_gold("g.json", "[\n{").unwrap_err().to_string();
        assert!(error.starts_with("g.json:2:"), "{error}");
    }
}
