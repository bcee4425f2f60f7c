//! File-level metrics of one ranking against a gold file set, and their aggregates over cases.
//!
//! Definitions follow the paper (seed 000, section 3.3): for gold set G and the first k returned
//! files R(k), recall = |G ∩ R(k)| / |G|, precision = |G ∩ R(k)| / |R(k)| (0 when nothing is
//! returned), and a case is *complete* when G ⊆ R(k). The main aggregate is the unweighted mean over
//! cases (macro); the micro aggregate weights every gold-file occurrence equally. A case whose gold
//! set is larger than k can never be complete: those cases form the *ceiling* count.

use crate::stable_sort;
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
    let mut gold = gold.to_vec();
    stable_sort::sort(&mut gold);
    gold.dedup();
    score_positions(
        &gold_positions(&gold, ranking),
        gold.len(),
        ranking.len(),
        k,
    )
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

/// The 0-based positions, ascending, at which a ranking holds gold files. `gold` must be sorted
/// and free of duplicates, as [`crate::Case::gold_files`] is. Computing these once per case lets
/// every k be scored by counting, which is what makes the k = 1..16 sweeps cheap.
fn gold_positions(gold: &[String], ranking: &[String]) -> Vec<usize> {
    ranking
        .iter()
        .enumerate()
        .filter(|(_, path)| gold.binary_search(path).is_ok())
        .map(|(position, _)| position)
        .collect()
}

fn score_positions(positions: &[usize], gold: usize, ranking_len: usize, k: usize) -> CaseScore {
    let found = positions.iter().take_while(|&&p| p < k).count();
    let returned = ranking_len.min(k);
    let ratio = |num: usize, den: usize| {
        if den == 0 {
            0.0
        } else {
            num as f64 / den as f64
        }
    };
    CaseScore {
        found,
        gold,
        returned,
        recall: ratio(found, gold),
        precision: ratio(found, returned),
        complete: found == gold,
    }
}

/// Per-case scores of arm `arm` at `k`, in case order.
pub fn case_scores(study: &Study, arm: usize, k: usize) -> Vec<CaseScore> {
    study
        .cases
        .iter()
        .zip(&study.arms[arm].rankings)
        .map(|(case, ranking)| {
            let positions = gold_positions(&case.gold_files, ranking);
            score_positions(&positions, case.gold_files.len(), ranking.len(), k)
        })
        .collect()
}

/// Aggregates arm `arm` at each of `ks` over the cases whose indices are in `subset`.
pub fn summarize_ks(study: &Study, arm: usize, ks: &[usize], subset: &[usize]) -> Vec<ArmSummary> {
    let rankings = &study.arms[arm].rankings;
    let cases: Vec<(Vec<usize>, usize, usize)> = subset
        .iter()
        .map(|&i| {
            let gold = &study.cases[i].gold_files;
            (
                gold_positions(gold, &rankings[i]),
                gold.len(),
                rankings[i].len(),
            )
        })
        .collect();
    ks.iter()
        .map(|&k| {
            let scores: Vec<CaseScore> = cases
                .iter()
                .map(|(positions, gold, len)| score_positions(positions, *gold, *len, k))
                .collect();
            aggregate(&study.arms[arm].name, k, &scores)
        })
        .collect()
}

/// Aggregates arm `arm` at `k` over the cases whose indices are in `subset`.
pub fn summarize(study: &Study, arm: usize, k: usize, subset: &[usize]) -> ArmSummary {
    let mut summaries = summarize_ks(study, arm, &[k], subset);
    summaries.swap_remove(0)
}

fn aggregate(arm: &str, k: usize, scores: &[CaseScore]) -> ArmSummary {
    let n = scores.len();
    let mean = |f: fn(&CaseScore) -> f64| {
        if n == 0 {
            0.0
        } else {
            scores.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let found = scores.iter().map(|s| s.found).sum();
    let gold = scores.iter().map(|s| s.gold).sum();
    ArmSummary {
        arm: arm.to_string(),
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
    let ks: Vec<usize> = (1..=MAX_K).collect();
    summarize_ks(study, arm, &ks, &all)
        .iter()
        .map(|s| s.file_recall)
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

    proptest::proptest! {
        /// Recall and precision stay in [0, 1]; found, recall and completeness never fall as k
        /// grows; a complete case has recall 1; the scored prefix is never longer than k.
        #[test]
        fn bounded_and_monotone_in_k(
            gold in proptest::collection::btree_set("[a-f]", 1..5),
            ranking in proptest::collection::btree_set("[a-j]", 0..10),
        ) {
            let gold: Vec<String> = gold.into_iter().collect();
            let ranking: Vec<String> = ranking.into_iter().rev().collect();
            let mut previous: Option<CaseScore> = None;
            for k in 1..=MAX_K {
                let score = score_ranking(&gold, &ranking, k);
                proptest::prop_assert!((0.0..=1.0).contains(&score.recall));
                proptest::prop_assert!((0.0..=1.0).contains(&score.precision));
                proptest::prop_assert!(score.returned <= k && score.found <= score.returned);
                proptest::prop_assert_eq!(score.complete, score.recall == 1.0);
                if let Some(before) = previous {
                    proptest::prop_assert!(score.found >= before.found && score.recall >= before.recall);
                    proptest::prop_assert!(score.complete || !before.complete);
                }
                previous = Some(score);
            }
        }
    }
}
