//! What [`build_context`](super::build_context) returns: the pack, the missing files, the line
//! scores, and the views' questions about gold lines (which lines of a block are gold, which gold
//! lines were delivered and which missed).

use std::collections::BTreeMap;

use super::ContextSettings;
use crate::delivery::linescore::{overlap, union, ClippedSpan, LineScore};
use crate::delivery::pack::{Pack, PackedBlock};
use crate::study::GoldSpan;

/// A ranked path within the top k that the file lookup did not know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MissingFile {
    /// The path as ranked.
    pub path: String,
    /// Its 1-based rank.
    pub rank: usize,
}

/// A delivered context and, with gold, its line scores.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContextReport {
    /// The settings packed with.
    pub settings: ContextSettings,
    /// The query terms (sorted).
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
pub(super) fn split_ranges(gold: &[(u32, u32)], covered: &[(u32, u32)]) -> (Ranges, Ranges) {
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
