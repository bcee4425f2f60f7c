//! Paired comparisons of two arms over the same cases: mean difference with its
//! repository-cluster bootstrap interval, per-case wins/losses/ties with the exact sign test, and
//! the exact sign-flip test over repository-level contrasts. A positive difference favours the
//! left arm.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::scoring::metrics::case_scores;
use crate::scoring::stats::{
    cluster_bootstrap_with, sign_flip, sign_test, BootstrapConfig, ClusterDraws,
    MAX_SIGN_FLIP_CLUSTERS,
};
use crate::study::Study;

/// The per-case value being compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub enum PairedMetric {
    /// File recall at k, computed from the rankings.
    FileRecall,
    /// Delivered-line recall under the 16K budget, as archived with the study (cases without an
    /// archived value for both arms are left out).
    ArchivedLineRecall,
}

impl PairedMetric {
    /// The name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            PairedMetric::FileRecall => "file_recall",
            PairedMetric::ArchivedLineRecall => "line_recall_16k (archived)",
        }
    }
}

/// Per-case values of one arm for a metric, `None` where the case has no value.
pub fn case_values(
    study: &Study,
    arm: usize,
    k: usize,
    metric: PairedMetric,
) -> Result<Vec<Option<f64>>> {
    match metric {
        PairedMetric::FileRecall => Ok(case_scores(study, arm, k)
            .iter()
            .map(|s| Some(s.recall))
            .collect()),
        PairedMetric::ArchivedLineRecall => study.arms[arm]
            .archived_lines
            .get(&k)
            .map(|rows| rows.iter().map(|row| row.map(|r| r.line_recall)).collect())
            .ok_or_else(|| {
                Error::setting(
                    "metric",
                    format!(
                        "archived line recall of {} at k = {k}",
                        study.arms[arm].name
                    ),
                    "an arm and k the archive has line values for",
                )
            }),
    }
}

/// The paired per-case differences (left − right), grouped by repository in sorted order.
pub fn repo_differences(
    study: &Study,
    left: &str,
    right: &str,
    k: usize,
    metric: PairedMetric,
    subset: &[usize],
) -> Result<BTreeMap<String, Vec<f64>>> {
    Study::check_k(k)?;
    let (l, r) = (study.arm_index(left)?, study.arm_index(right)?);
    let (lv, rv) = (
        case_values(study, l, k, metric)?,
        case_values(study, r, k, metric)?,
    );
    let mut by_repo: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for &case in subset {
        if let (Some(a), Some(b)) = (lv[case], rv[case]) {
            by_repo
                .entry(study.cases[case].repo.clone())
                .or_default()
                .push(a - b);
        }
    }
    Ok(by_repo)
}

/// Reads back what serde_json writes for NaN (null), so a comparison crosses to the page whole.
fn null_as_nan<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    use serde::Deserialize;
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// One paired comparison.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PairedComparison {
    /// The left arm.
    pub left: String,
    /// The right arm.
    pub right: String,
    /// The candidate limit.
    pub k: usize,
    /// What is compared.
    pub metric: String,
    /// The frame (`rankings` for a study of rankings).
    pub frame: String,
    /// Cases compared.
    pub n: usize,
    /// Repositories (clusters) compared.
    pub repos: usize,
    /// Mean of left − right over cases.
    pub mean: f64,
    /// 2.5th percentile of the bootstrap means.
    pub ci_low: f64,
    /// 97.5th percentile of the bootstrap means.
    pub ci_high: f64,
    /// Cases where the left arm is higher.
    pub wins: usize,
    /// Cases where the right arm is higher.
    pub losses: usize,
    /// Cases where they are equal.
    pub ties: usize,
    /// Exact two-sided sign test over the cases that differ.
    pub sign_test_p: f64,
    /// Exact sign-flip test over the repository mean differences; NaN (null in JSON) when there
    /// are more clusters than the exact test enumerates.
    #[serde(deserialize_with = "null_as_nan")]
    pub sign_flip_p: f64,
    /// The left arm's mean over the compared cases.
    pub left_mean: f64,
    /// The right arm's mean over the compared cases.
    pub right_mean: f64,
    /// The comparison in words ([`paired_sentence`]).
    pub sentence: String,
}

/// Compares two arms at `k` on the cases in `subset`.
pub fn compare(
    study: &Study,
    left: &str,
    right: &str,
    k: usize,
    metric: PairedMetric,
    subset: &[usize],
    bootstrap: BootstrapConfig,
) -> Result<PairedComparison> {
    let pair = [(left.to_string(), right.to_string())];
    let mut compared = compare_pairs(study, &pair, k, metric, subset, bootstrap)?;
    Ok(compared.swap_remove(0))
}

/// Compares several pairs of arms at `k` on the cases in `subset`, sharing the bootstrap's draws
/// between pairs over the same number of repositories (the results are those of [`compare`]).
pub fn compare_pairs(
    study: &Study,
    pairs: &[(String, String)],
    k: usize,
    metric: PairedMetric,
    subset: &[usize],
    bootstrap: BootstrapConfig,
) -> Result<Vec<PairedComparison>> {
    Study::check_k(k)?;
    let mut draws: Option<ClusterDraws> = None;
    pairs
        .iter()
        .map(|(left, right)| {
            let (l, r) = (study.arm_index(left)?, study.arm_index(right)?);
            let values = (
                case_values(study, l, k, metric)?,
                case_values(study, r, k, metric)?,
            );
            let clusters = |case: usize| study.cases[case].repo.clone();
            let names = (left.as_str(), right.as_str());
            compare_values(
                names,
                k,
                metric.name(),
                &values,
                &clusters,
                subset,
                bootstrap,
                &mut draws,
            )
        })
        .collect()
}

/// Compares two arms' per-case values (`None` where a case has no value: such cases are left
/// out) over the cases of `subset`, clustered by `cluster_of`, reusing `draws` when they fit.
#[allow(clippy::too_many_arguments)] // Each is one of the comparison's independent inputs.
pub fn compare_values(
    (left, right): (&str, &str),
    k: usize,
    metric: &str,
    (lv, rv): &(Vec<Option<f64>>, Vec<Option<f64>>),
    cluster_of: &dyn Fn(usize) -> String,
    subset: &[usize],
    bootstrap: BootstrapConfig,
    draws: &mut Option<ClusterDraws>,
) -> Result<PairedComparison> {
    let mut by_cluster: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let (mut left_sum, mut right_sum, mut n) = (0.0, 0.0, 0usize);
    for &case in subset {
        if let (Some(a), Some(b)) = (lv[case], rv[case]) {
            by_cluster.entry(cluster_of(case)).or_default().push(a - b);
            left_sum += a;
            right_sum += b;
            n += 1;
        }
    }
    let clusters: Vec<Vec<f64>> = by_cluster.into_values().collect();
    let outcome = Outcome::of(
        &clusters,
        ClusterDraws::shared(draws, clusters.len(), bootstrap)?,
    )?;
    let Outcome {
        interval,
        wins,
        losses,
        ties,
        n: compared,
        sign_test_p,
    } = outcome;
    let contrasts: Vec<f64> = clusters
        .iter()
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let mean_of = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
    let (left_mean, right_mean) = (mean_of(left_sum), mean_of(right_sum));
    let named = if k > 0 && !metric.contains('@') {
        format!("{metric}@{k}")
    } else {
        metric.to_string()
    };
    Ok(PairedComparison {
        left: left.to_string(),
        right: right.to_string(),
        k,
        metric: metric.to_string(),
        frame: "rankings".into(),
        n: compared,
        repos: clusters.len(),
        mean: interval.mean,
        ci_low: interval.low,
        ci_high: interval.high,
        wins,
        losses,
        ties,
        sign_test_p,
        // The exact test enumerates 2^clusters sign vectors: beyond its limit (single cases as
        // clusters, say) it is not computed, and the JSON says null.
        sign_flip_p: if contrasts.len() <= MAX_SIGN_FLIP_CLUSTERS {
            sign_flip(&contrasts)?
        } else {
            f64::NAN
        },
        left_mean,
        right_mean,
        sentence: outcome.sentence(
            (left, left_mean),
            (right, right_mean),
            &named,
            "cases",
            Units::Fraction,
        ),
    })
}

/// Left − right differences, grouped by cluster, through the bootstrap and the sign test: what
/// every paired comparison (of rankings or of score-table columns) reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The mean difference with its interval.
    pub interval: crate::scoring::stats::Interval,
    /// Cases where left is higher.
    pub wins: usize,
    /// Cases where right is higher.
    pub losses: usize,
    /// Cases where they are equal.
    pub ties: usize,
    /// Cases compared.
    pub n: usize,
    /// Exact two-sided sign test over the cases that differ.
    pub sign_test_p: f64,
}

impl Outcome {
    /// The outcome of the differences in `clusters` (clusters in the draws' order).
    pub fn of(clusters: &[Vec<f64>], draws: &ClusterDraws) -> Result<Outcome> {
        let interval = cluster_bootstrap_with(clusters, draws)?;
        let deltas = clusters.iter().flatten();
        let wins = deltas.clone().filter(|d| **d > 0.0).count();
        let losses = deltas.clone().filter(|d| **d < 0.0).count();
        let n = deltas.count();
        Ok(Outcome {
            interval,
            wins,
            losses,
            ties: n - wins - losses,
            n,
            sign_test_p: sign_test(wins, losses),
        })
    }

    /// The outcome in words ([`paired_sentence`]).
    pub fn sentence(
        &self,
        left: (&str, f64),
        right: (&str, f64),
        metric: &str,
        cases_are: &str,
        units: Units,
    ) -> String {
        paired_sentence(
            left,
            right,
            metric,
            &self.interval,
            (self.wins, self.losses, self.ties),
            (cases_are, units),
        )
    }
}

/// A number with its sign written out, as the sentences print differences: `+0.032`, `−0.027`
/// (a true minus sign), at `decimals` digits.
fn signed(value: f64, decimals: usize) -> String {
    let text = format!("{:.decimals$}", value.abs());
    if value < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        format!("−{text}")
    } else {
        format!("+{text}")
    }
}

/// How a metric's means and differences are written: as fractions (`0.714`, `+0.120`, the
/// fastindex paper) or as percentages and percentage points (`71.40%`, `+12.05 pp`, as CodeNib's
/// article prints its Recall@5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Units {
    /// Fractions of one.
    #[default]
    Fraction,
    /// Percentages, differences in percentage points.
    Percent,
}

impl Units {
    /// A mean in a sentence: `0.714` or `71.40%`.
    pub fn mean(self, value: f64) -> String {
        match self {
            Units::Fraction => format!("{value:.3}"),
            Units::Percent => format!("{:.2}%", value * 100.0),
        }
    }

    /// A difference in a sentence: `+0.120` or `+12.05 pp`.
    pub fn difference(self, value: f64) -> String {
        match self {
            Units::Fraction => signed(value, 3),
            Units::Percent => format!("{} pp", signed(value * 100.0, 2)),
        }
    }

    /// A mean in a table: four decimals of a fraction, or two of a percentage.
    pub fn mean_cell(self, value: f64) -> crate::table::Cell {
        match self {
            Units::Fraction => crate::table::Cell::number(value, 4),
            Units::Percent => crate::table::Cell::number(value * 100.0, 2),
        }
    }

    /// A difference in a table, signed.
    pub fn difference_cell(self, value: f64) -> crate::table::Cell {
        match self {
            Units::Fraction => crate::table::Cell::signed(value, 4),
            Units::Percent => crate::table::Cell::signed(value * 100.0, 2),
        }
    }

    /// A column header naming the units: `diff`, or `diff (pp)`.
    pub fn header(self, name: &str, difference: bool) -> String {
        match (self, difference) {
            (Units::Fraction, _) => name.to_string(),
            (Units::Percent, false) => format!("{name} (%)"),
            (Units::Percent, true) => format!("{name} (pp)"),
        }
    }
}

/// A paired comparison in one sentence, the claim resting on its interval: `left` and `right`
/// with their means, the metric, the mean difference's interval, and wins/losses/ties over the
/// cases (`cases_are`: "questions", "issues").
pub fn paired_sentence(
    (left, left_mean): (&str, f64),
    (right, right_mean): (&str, f64),
    metric: &str,
    interval: &crate::scoring::stats::Interval,
    (wins, losses, ties): (usize, usize, usize),
    (cases_are, units): (&str, Units),
) -> String {
    let verdict = if interval.low > 0.0 {
        format!("The interval lies above zero: {left} is ahead at this sample size.")
    } else if interval.high < 0.0 {
        format!("The interval lies below zero: {right} is ahead at this sample size.")
    } else {
        "The interval includes zero, so this is within noise at this sample size.".to_string()
    };
    // "better on 1 question", "better on 2 questions".
    let cases_are = if wins == 1 {
        cases_are.strip_suffix('s').unwrap_or(cases_are)
    } else {
        cases_are
    };
    format!(
        "{left} scores {metric} {} against {} for {right} (difference {}, \
         95% interval {} to {}; better on {wins} {cases_are}, worse on {losses}, same on {ties}). \
         {verdict}",
        units.mean(left_mean),
        units.mean(right_mean),
        units.difference(interval.mean),
        units.difference(interval.low),
        units.difference(interval.high),
    )
}

#[cfg(test)]
mod sentence_tests {
    use super::*;
    use crate::scoring::stats::Interval;

    #[test]
    fn the_sentence_reads_as_the_issue_writes_it() {
        let interval = Interval {
            mean: 0.032,
            low: -0.027,
            high: 0.089,
        };
        assert_eq!(
            paired_sentence(
                ("A", 0.547),
                ("B", 0.515),
                "MRR",
                &interval,
                (11, 4, 21),
                ("questions", Units::Fraction)
            ),
            "A scores MRR 0.547 against 0.515 for B (difference +0.032, 95% interval −0.027 to \
             +0.089; better on 11 questions, worse on 4, same on 21). The interval includes zero, \
             so this is within noise at this sample size."
        );
        let above = Interval {
            mean: 0.12,
            low: 0.05,
            high: 0.19,
        };
        let said = paired_sentence(
            ("A", 0.7),
            ("B", 0.58),
            "R@5",
            &above,
            (3, 1, 0),
            ("issues", Units::Fraction),
        );
        assert!(said.ends_with("The interval lies above zero: A is ahead at this sample size."));
        let below = Interval {
            mean: -0.12,
            low: -0.19,
            high: -0.0004,
        };
        let said = paired_sentence(
            ("A", 0.5),
            ("B", 0.62),
            "R@5",
            &below,
            (1, 3, 0),
            ("issues", Units::Fraction),
        );
        assert!(said.contains("interval −0.190 to +0.000;"), "{said}");
        assert!(said.ends_with("B is ahead at this sample size."));
        let said = paired_sentence(
            ("A", 0.5),
            ("B", 0.62),
            "R@5",
            &below,
            (1, 3, 0),
            ("issues", Units::Percent),
        );
        assert!(
            said.starts_with(
                "A scores R@5 50.00% against 62.00% for B (difference −12.00 pp, \
             95% interval −19.00 pp to −0.04 pp;"
            ),
            "{said}"
        );
    }
}
