//! File-level metrics of one ranking against a gold file set, and their aggregates over cases.
//!
//! Definitions follow the paper (seed 000, section 3.3): for gold set G and the first k returned
//! files R(k), recall = |G ∩ R(k)| / |G|, precision = |G ∩ R(k)| / |R(k)| (0 when nothing is
//! returned), and a case is *complete* when G ⊆ R(k). The main aggregate is the unweighted mean over
//! cases (macro); the micro aggregate weights every gold-file occurrence equally. A case whose gold
//! set is larger than k can never be complete: those cases form the *ceiling* count.

use std::collections::BTreeSet;

use crate::study::{Study, MAX_K};

/// How one ranking did on one case at one k.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CaseScore {
    /// Gold files in the first k.
    pub found: usize,
    /// Gold files in all.
    pub gold: usize,
    /// Paths in the first k (fewer than k when the ranking is short).
    pub returned: usize,
    /// found / gold (0 when a case has no gold files).
    pub recall: f64,
    /// found / returned (0 when nothing is returned).
    pub precision: f64,
    /// Every gold file is in the first k.
    pub complete: bool,
}

/// Scores the first `k` paths of `ranking` against `gold`.
pub fn score_ranking(gold: &[String], ranking: &[String], k: usize) -> CaseScore {
    let gold_set: BTreeSet<&str> = gold.iter().map(String::as_str).collect();
    let top = &ranking[..ranking.len().min(k)];
    let found = top
        .iter()
        .filter(|path| gold_set.contains(path.as_str()))
        .count();
    let ratio = |num: usize, den: usize| {
        if den == 0 {
            0.0
        } else {
            num as f64 / den as f64
        }
    };
    CaseScore {
        found,
        gold: gold_set.len(),
        returned: top.len(),
        recall: ratio(found, gold_set.len()),
        precision: ratio(found, top.len()),
        complete: found == gold_set.len(),
    }
}

/// The 1-based rank of the first gold file in `ranking` (at any depth), or `None` when the ranking
/// holds no gold file: the drill-down shows it beside each arm's list.
pub fn first_gold_rank(gold: &[String], ranking: &[String]) -> Option<usize> {
    ranking
        .iter()
        .position(|path| gold.contains(path))
        .map(|index| index + 1)
}

/// An arm's file-level aggregate at one k over a set of cases.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ArmSummary {
    /// The arm's name.
    pub arm: String,
    /// The candidate limit.
    pub k: usize,
    /// Cases aggregated.
    pub n: usize,
    /// Mean recall over cases (the paper's File@k).
    pub file_recall: f64,
    /// Gold-file occurrences found / all gold-file occurrences.
    pub micro_recall: f64,
    /// Gold-file occurrences found.
    pub found: usize,
    /// All gold-file occurrences.
    pub gold: usize,
    /// Cases with every gold file in the first k (the paper's Full@k).
    pub full: usize,
    /// Cases whose gold set is larger than k, so that they cannot be complete.
    pub ceiling: usize,
    /// Mean precision over cases.
    pub precision: f64,
}

impl ArmSummary {
    /// The cases that could be complete at this k: `n - ceiling`.
    pub fn feasible(&self) -> usize {
        self.n - self.ceiling
    }
}

/// Per-case scores of arm `arm` at `k`, in case order.
pub fn case_scores(study: &Study, arm: usize, k: usize) -> Vec<CaseScore> {
    study
        .cases
        .iter()
        .zip(&study.arms[arm].rankings)
        .map(|(case, ranking)| score_ranking(&case.gold_files, ranking, k))
        .collect()
}

/// Aggregates arm `arm` at `k` over the cases whose indices are in `subset`.
pub fn summarize(study: &Study, arm: usize, k: usize, subset: &[usize]) -> ArmSummary {
    let all = case_scores(study, arm, k);
    let scores: Vec<&CaseScore> = subset.iter().map(|&i| &all[i]).collect();
    let n = scores.len();
    let mean = |f: fn(&CaseScore) -> f64| {
        if n == 0 {
            0.0
        } else {
            scores.iter().map(|s| f(s)).sum::<f64>() / n as f64
        }
    };
    let found = scores.iter().map(|s| s.found).sum();
    let gold = scores.iter().map(|s| s.gold).sum();
    ArmSummary {
        arm: study.arms[arm].name.clone(),
        k,
        n,
        file_recall: mean(|s| s.recall),
        micro_recall: if gold == 0 {
            0.0
        } else {
            found as f64 / gold as f64
        },
        found,
        gold,
        full: scores.iter().filter(|s| s.complete).count(),
        ceiling: scores.iter().filter(|s| s.gold > k).count(),
        precision: mean(|s| s.precision),
    }
}

/// Mean recall of an arm for every k from 1 to [`MAX_K`], over all cases: the recall curve.
pub fn recall_curve(study: &Study, arm: usize) -> Vec<f64> {
    let all: Vec<usize> = (0..study.cases.len()).collect();
    (1..=MAX_K)
        .map(|k| summarize(study, arm, k, &all).file_recall)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn recall_precision_and_completeness_by_hand() {
        let gold = paths(&["a", "b"]);
        let score = score_ranking(&gold, &paths(&["x", "a", "y", "b"]), 3);
        assert_eq!((score.found, score.gold, score.returned), (1, 2, 3));
        assert_eq!(score.recall, 0.5);
        assert!((score.precision - 1.0 / 3.0).abs() < 1e-15);
        assert!(!score.complete);
        assert!(score_ranking(&gold, &paths(&["x", "a", "y", "b"]), 4).complete);
    }

    #[test]
    fn short_and_empty_rankings() {
        let gold = paths(&["a"]);
        let score = score_ranking(&gold, &paths(&["a"]), 8);
        assert_eq!(
            (score.returned, score.precision, score.recall),
            (1, 1.0, 1.0)
        );
        let empty = score_ranking(&gold, &[], 8);
        assert_eq!(
            (empty.recall, empty.precision, empty.complete),
            (0.0, 0.0, false)
        );
    }

    #[test]
    fn first_gold_rank_is_one_based() {
        let gold = paths(&["a", "b"]);
        assert_eq!(first_gold_rank(&gold, &paths(&["x", "b", "a"])), Some(2));
        assert_eq!(first_gold_rank(&gold, &paths(&["x", "y"])), None);
        assert_eq!(first_gold_rank(&gold, &[]), None);
    }
}
