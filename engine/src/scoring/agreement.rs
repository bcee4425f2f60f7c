//! Agreement between two labellers who graded the same (question, file) pairs on TREC's graded
//! scale (0 not relevant, 1 related, 2 answers part, 3 answers it), as CodeAtlas's specified
//! second labelling round asks: coverage, the confusion matrix of grades, and each statistic with
//! a 95% bootstrap interval over questions.
//!
//! - **Percent agreement** at the binary cut (relevant when the grade is at least `cut`), and
//!   **grade agreement** (the same grade).
//! - **Cohen's κ** at the cut and **linear-weighted κ** over the four grades: 1 − Σ w·O / Σ w·E
//!   with O the confusion counts and E the product of the margins over n, w = [i ≠ j] or |i − j|
//!   (scikit-learn's `cohen_kappa_score`, with `labels=[0, 1, 2, 3]` for the grades: its default
//!   weights by position among the grades seen, which would shrink a 0-against-3 distance when a
//!   grade is absent).
//! - **Krippendorff's α**, nominal and ordinal, with missing judgments (a pair judged once is not
//!   pairable and is left out): α = 1 − (n − 1)·Σ o·δ² / Σ n_c·n_k·δ² over the coincidence matrix
//!   o, δ² = [c ≠ k], or (Σ_{g=c..k} n_g − (n_c + n_k)/2)² for ordinal (the `krippendorff`
//!   package's definitions, whose own default level is interval).
//! - **Positive specific agreement** 2a / (2a + b + c) over the pairs both judged (a: both
//!   relevant; b, c: one), which equals the mean pairwise F1 when negatives are not counted.
//! - **Jaccard** of the two relevant sets per question, averaged over the questions where either
//!   labeller found something relevant.
//!
//! A statistic whose denominator is zero (every judgment the same, nothing judged by both) is
//! undefined, with the reason in words, never 0. Resamples where it is undefined are counted and
//! the interval is read off the others (the order statistics at ⌊0.025·R⌋ and ⌊0.975·R⌋ − 1 of
//! the defined ones, as the paper's bootstrap); with none defined there is no interval.

use serde::{Deserialize, Serialize};

use super::stats::{BootstrapConfig, PyRandom};
use crate::error::{Error, Result};

/// The highest grade of the scale (0 to 3).
pub const TOP_GRADE: u8 = 3;
/// The default binary cut: a file is relevant when it answers at least part of the question.
pub const DEFAULT_CUT: u8 = 2;

/// One (question, file) pair and each labeller's grade (none: not judged by that labeller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The question's id.
    pub question: String,
    /// The file.
    pub path: String,
    /// The first labeller's grade.
    pub a: Option<u8>,
    /// The second labeller's grade.
    pub b: Option<u8>,
}

/// Who judged what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Coverage {
    /// Pairs both judged.
    pub both: usize,
    /// Pairs only the first judged.
    pub only_a: usize,
    /// Pairs only the second judged.
    pub only_b: usize,
    /// Pairs neither judged.
    pub neither: usize,
}

/// One statistic over the items, with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementStatistic {
    /// Its name (`cohen_kappa`, …).
    pub name: String,
    /// Its value, when defined.
    pub value: Option<f64>,
    /// Why it is undefined ("undefined (all judgments 0)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
    /// The 2.5th percentile of the defined resamples.
    pub low: Option<f64>,
    /// The 97.5th percentile of the defined resamples.
    pub high: Option<f64>,
    /// Resamples where it was undefined.
    pub undefined_resamples: usize,
    /// The statistic as a sentence.
    pub sentence: String,
}

/// Everything two labellers' agreement says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementReport {
    /// The binary cut.
    pub cut: u8,
    /// Questions (the bootstrap's units).
    pub questions: usize,
    /// Who judged what.
    pub coverage: Coverage,
    /// Grades of the pairs both judged: row the first labeller's grade, column the second's.
    pub confusion: [[usize; 4]; 4],
    /// Pairs both judged on which they differ at the cut.
    pub disagree_at_cut: usize,
    /// Pairs both judged given different grades.
    pub disagree_on_grade: usize,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Each statistic, in the order of [`STATISTICS`].
    pub statistics: Vec<AgreementStatistic>,
}

/// The statistics, in report order: name, how a sentence names it, and whether it reads the
/// binary judgment at the cut (else the grades).
pub const STATISTICS: [(&str, &str, bool); 8] = [
    ("percent_agreement", "Percent agreement at the cut", true),
    ("grade_agreement", "Agreement on the grade", false),
    ("cohen_kappa", "Cohen's κ at the cut", true),
    ("weighted_kappa", "Linear-weighted κ over the grades", false),
    ("alpha_nominal", "Krippendorff's α (nominal, grades)", false),
    ("alpha_ordinal", "Krippendorff's α (ordinal, grades)", false),
    ("positive_agreement", "Positive specific agreement", true),
    (
        "mean_jaccard",
        "Mean per-question Jaccard of the relevant sets",
        true,
    ),
];

/// A statistic's value, or why it has none.
type Value = std::result::Result<f64, String>;

/// The report of the items (grouped into questions by `question`, in first-seen order).
pub fn agreement(items: &[Item], cut: u8, bootstrap: BootstrapConfig) -> Result<AgreementReport> {
    if !(1..=TOP_GRADE).contains(&cut) {
        return Err(Error::setting("cut", cut, "a grade from 1 to 3"));
    }
    if let Some(bad) = items
        .iter()
        .find(|i| [i.a, i.b].into_iter().flatten().any(|g| g > TOP_GRADE))
    {
        return Err(Error::field(
            &bad.question,
            &bad.path,
            "a grade above 3 (the scale is 0 to 3)",
        ));
    }
    let bootstrap = bootstrap.validated()?;
    let mut questions: Vec<&str> = Vec::new();
    let mut by_question: Vec<Vec<&Item>> = Vec::new();
    for item in items {
        match questions.iter().position(|q| *q == item.question) {
            Some(at) => by_question[at].push(item),
            None => {
                questions.push(&item.question);
                by_question.push(vec![item]);
            }
        }
    }
    let mut coverage = Coverage::default();
    let mut confusion = [[0usize; 4]; 4];
    for item in items {
        match (item.a, item.b) {
            (Some(a), Some(b)) => {
                coverage.both += 1;
                confusion[a as usize][b as usize] += 1;
            }
            (Some(_), None) => coverage.only_a += 1,
            (None, Some(_)) => coverage.only_b += 1,
            (None, None) => coverage.neither += 1,
        }
    }
    let both: Vec<(u8, u8)> = items.iter().filter_map(|i| Some((i.a?, i.b?))).collect();
    let relevant = |g: u8| g >= cut;
    let disagree_at_cut = both
        .iter()
        .filter(|(a, b)| relevant(*a) != relevant(*b))
        .count();
    let disagree_on_grade = both.iter().filter(|(a, b)| a != b).count();
    let whole = values(&by_question.iter().collect::<Vec<_>>(), cut);
    let mut resampled: Vec<Vec<f64>> = vec![Vec::new(); STATISTICS.len()];
    let mut undefined = vec![0usize; STATISTICS.len()];
    if !questions.is_empty() {
        let mut random = PyRandom::new(bootstrap.seed);
        for _ in 0..bootstrap.resamples {
            let drawn: Vec<&Vec<&Item>> = (0..questions.len())
                .map(|_| &by_question[random.choice_index(questions.len())])
                .collect();
            for (at, value) in values(&drawn, cut).into_iter().enumerate() {
                match value {
                    Ok(v) => resampled[at].push(v),
                    Err(_) => undefined[at] += 1,
                }
            }
        }
    }
    let statistics = STATISTICS
        .iter()
        .zip(whole)
        .zip(resampled.iter_mut().zip(undefined))
        .map(|(((name, label, at_cut), value), (samples, undefined))| {
            let (low, high) = order_statistics(samples);
            let disagree = if *at_cut {
                disagree_at_cut
            } else {
                disagree_on_grade
            };
            let sentence = sentence(label, &value, (low, high), (both.len(), disagree));
            AgreementStatistic {
                name: name.to_string(),
                value: value.as_ref().ok().copied(),
                undefined: value.err(),
                low,
                high,
                undefined_resamples: undefined,
                sentence,
            }
        })
        .collect();
    Ok(AgreementReport {
        cut,
        questions: questions.len(),
        coverage,
        confusion,
        disagree_at_cut,
        disagree_on_grade,
        resamples: bootstrap.resamples,
        seed: bootstrap.seed,
        statistics,
    })
}

/// Every statistic over the items of `questions` (a question drawn twice counts twice).
fn values(questions: &[&Vec<&Item>], cut: u8) -> Vec<Value> {
    let both: Vec<(u8, u8)> = questions
        .iter()
        .flat_map(|q| q.iter().filter_map(|i| Some((i.a?, i.b?))))
        .collect();
    let binary: Vec<(u8, u8)> = both
        .iter()
        .map(|&(a, b)| (u8::from(a >= cut), u8::from(b >= cut)))
        .collect();
    let units: Vec<Vec<u8>> = questions
        .iter()
        .flat_map(|q| q.iter().map(|i| i.a.into_iter().chain(i.b).collect()))
        .collect();
    vec![
        share_equal(&binary),
        share_equal(&both),
        kappa(&binary, 2, false).map_err(|why| why_binary(&binary, why)),
        kappa(&both, 4, true),
        alpha(&units, false),
        alpha(&units, true),
        positive_agreement(&binary),
        mean_jaccard(questions, cut),
    ]
}

/// Why a statistic at the cut is undefined, in the reader's words.
fn why_binary(binary: &[(u8, u8)], why: String) -> String {
    if binary.is_empty() {
        why
    } else if binary.iter().all(|&(a, b)| a == 0 && b == 0) {
        "undefined (all judgments 0)".into()
    } else if binary.iter().all(|&(a, b)| a == 1 && b == 1) {
        "undefined (every judgment relevant)".into()
    } else {
        why
    }
}

const NOTHING_BY_BOTH: &str = "undefined (no question–file pair judged by both)";

/// The share of pairs with equal values.
fn share_equal(pairs: &[(u8, u8)]) -> Value {
    if pairs.is_empty() {
        return Err(NOTHING_BY_BOTH.into());
    }
    Ok(pairs.iter().filter(|(a, b)| a == b).count() as f64 / pairs.len() as f64)
}

/// Cohen's κ over `k` categories, linear weights or none.
fn kappa(pairs: &[(u8, u8)], k: usize, linear: bool) -> Value {
    if pairs.is_empty() {
        return Err(NOTHING_BY_BOTH.into());
    }
    let n = pairs.len() as f64;
    let mut observed = vec![vec![0.0; k]; k];
    let (mut rows, mut cols) = (vec![0.0; k], vec![0.0; k]);
    for &(a, b) in pairs {
        observed[a as usize][b as usize] += 1.0;
        rows[a as usize] += 1.0;
        cols[b as usize] += 1.0;
    }
    let (mut seen, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let w = if linear {
                i.abs_diff(j) as f64
            } else {
                f64::from(u8::from(i != j))
            };
            seen += w * observed[i][j];
            expected += w * rows[i] * cols[j] / n;
        }
    }
    if expected == 0.0 {
        return Err(all_same(pairs));
    }
    Ok(1.0 - seen / expected)
}

/// "undefined (all judgments g)" when every value is g, else the general reason.
fn all_same(pairs: &[(u8, u8)]) -> String {
    match pairs.first() {
        Some(&(g, _)) if pairs.iter().all(|&(a, b)| a == g && b == g) => {
            format!("undefined (all judgments {g})")
        }
        _ => "undefined (no variation to agree beyond chance on)".into(),
    }
}

/// Krippendorff's α over units of values (each unit's values from whoever judged it).
fn alpha(units: &[Vec<u8>], ordinal: bool) -> Value {
    let mut o = [[0.0f64; 4]; 4];
    for unit in units.iter().filter(|u| u.len() >= 2) {
        let m = unit.len() as f64;
        for (i, &c) in unit.iter().enumerate() {
            for (j, &k) in unit.iter().enumerate() {
                if i != j {
                    o[c as usize][k as usize] += 1.0 / (m - 1.0);
                }
            }
        }
    }
    let n_c: Vec<f64> = o.iter().map(|row| row.iter().sum()).collect();
    let n: f64 = n_c.iter().sum();
    if n == 0.0 {
        return Err(NOTHING_BY_BOTH.into());
    }
    let delta = |c: usize, k: usize| -> f64 {
        if c == k {
            return 0.0;
        }
        if !ordinal {
            return 1.0;
        }
        let (lo, hi) = (c.min(k), c.max(k));
        let between: f64 = n_c[lo..=hi].iter().sum();
        (between - (n_c[c] + n_c[k]) / 2.0).powi(2)
    };
    let (mut seen, mut expected) = (0.0, 0.0);
    for c in 0..4 {
        for k in 0..4 {
            let d = delta(c, k);
            seen += o[c][k] * d;
            expected += n_c[c] * n_c[k] * d;
        }
    }
    if expected == 0.0 {
        let values: Vec<usize> = (0..4).filter(|&c| n_c[c] > 0.0).collect();
        return Err(match values.as_slice() {
            [only] => format!("undefined (all judgments {only})"),
            _ => "undefined (no variation to agree beyond chance on)".into(),
        });
    }
    Ok(1.0 - (n - 1.0) * seen / expected)
}

/// 2a / (2a + b + c) at the cut.
fn positive_agreement(binary: &[(u8, u8)]) -> Value {
    if binary.is_empty() {
        return Err(NOTHING_BY_BOTH.into());
    }
    let a = binary.iter().filter(|&&(x, y)| x == 1 && y == 1).count() as f64;
    let one = binary.iter().filter(|&&(x, y)| x != y).count() as f64;
    if 2.0 * a + one == 0.0 {
        return Err("undefined (all judgments 0)".into());
    }
    Ok(2.0 * a / (2.0 * a + one))
}

/// The mean over questions of |A ∩ B| / |A ∪ B| of the files each found relevant among those
/// both judged; questions where neither found one are left out.
fn mean_jaccard(questions: &[&Vec<&Item>], cut: u8) -> Value {
    let mut total = 0.0;
    let mut counted = 0usize;
    let mut any_both = false;
    for items in questions {
        let (mut both, mut either) = (0usize, 0usize);
        for item in items.iter() {
            let (Some(a), Some(b)) = (item.a, item.b) else {
                continue;
            };
            any_both = true;
            let (a, b) = (a >= cut, b >= cut);
            both += usize::from(a && b);
            either += usize::from(a || b);
        }
        if either > 0 {
            total += both as f64 / either as f64;
            counted += 1;
        }
    }
    match (counted, any_both) {
        (0, false) => Err(NOTHING_BY_BOTH.into()),
        (0, true) => Err("undefined (all judgments 0)".into()),
        _ => Ok(total / counted as f64),
    }
}

/// The interval's order statistics over the defined resamples (none without any).
fn order_statistics(samples: &mut [f64]) -> (Option<f64>, Option<f64>) {
    if samples.is_empty() {
        return (None, None);
    }
    samples.sort_by(f64::total_cmp);
    let r = samples.len() as f64;
    let low = samples[((0.025 * r) as usize).min(samples.len() - 1)];
    let high = samples[((0.975 * r) as usize)
        .saturating_sub(1)
        .min(samples.len() - 1)];
    (Some(low), Some(high))
}

/// "Cohen's κ at the cut 0.62 (95% interval 0.48 to 0.74) over 412 question–file pairs; the
/// labellers disagree on 37."
fn sentence(
    label: &str,
    value: &Value,
    (low, high): (Option<f64>, Option<f64>),
    (n, disagree): (usize, usize),
) -> String {
    let over = format!(
        "over {n} question–file pair{} judged by both; the labellers disagree on {disagree}",
        if n == 1 { "" } else { "s" }
    );
    match (value, low, high) {
        (Ok(v), Some(lo), Some(hi)) => {
            format!("{label} {v:.2} (95% interval {lo:.2} to {hi:.2}) {over}.")
        }
        (Ok(v), _, _) => {
            format!("{label} {v:.2} (no interval: undefined in every resample) {over}.")
        }
        (Err(why), _, _) => format!("{label}: {why}, {over}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(q: &str, p: &str, a: Option<u8>, b: Option<u8>) -> Item {
        Item {
            question: q.into(),
            path: p.into(),
            a,
            b,
        }
    }

    fn value(report: &AgreementReport, name: &str) -> Option<f64> {
        report
            .statistics
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .value
    }

    fn config() -> BootstrapConfig {
        BootstrapConfig {
            resamples: 200,
            seed: 0,
        }
    }

    /// Worked by hand: four pairs graded (3, 3), (2, 0), (0, 0), (1, 2), one judged by the first
    /// labeller only, at the cut 2.
    #[test]
    fn a_small_set_worked_by_hand() {
        let items = [
            item("q1", "a.rs", Some(3), Some(3)),
            item("q1", "b.rs", Some(2), Some(0)),
            item("q2", "c.rs", Some(0), Some(0)),
            item("q2", "d.rs", Some(1), Some(2)),
            item("q2", "e.rs", Some(1), None),
        ];
        let r = agreement(&items, 2, config()).unwrap();
        assert_eq!(
            r.coverage,
            Coverage {
                both: 4,
                only_a: 1,
                only_b: 0,
                neither: 0
            }
        );
        assert_eq!(r.confusion[2][0], 1);
        // Binary: (1,1), (1,0), (0,0), (0,1): 2 of 4 agree.
        assert_eq!(value(&r, "percent_agreement"), Some(0.5));
        assert_eq!(value(&r, "grade_agreement"), Some(0.5));
        // Margins 2/4 and 2/4: pe = 0.5, κ = (0.5 − 0.5) / 0.5 = 0.
        assert_eq!(value(&r, "cohen_kappa"), Some(0.0));
        // Linear weights: observed Σw·O = |2−0| + |1−2| = 3; rows (the first's grades) one
        // each, columns (the second's) 0:2 2:1 3:1; expected Σ|i−j|·r_i·c_j / 4 = (5 + 5 + 5 +
        // 7) / 4 = 5.5.
        let expected: f64 = [
            (0, [2.0, 0.0, 1.0, 1.0]),
            (1, [2.0, 0.0, 1.0, 1.0]),
            (2, [2.0, 0.0, 1.0, 1.0]),
            (3, [2.0, 0.0, 1.0, 1.0]),
        ]
        .iter()
        .map(|(i, cols)| {
            cols.iter()
                .enumerate()
                .map(|(j, c)| (*i as f64 - j as f64).abs() * c / 4.0)
                .sum::<f64>()
        })
        .sum();
        assert_eq!(expected, 5.5);
        assert!((value(&r, "weighted_kappa").unwrap() - (1.0 - 3.0 / 5.5)).abs() < 1e-12);
        // α nominal: 8 pairable values, n_0 = 3, n_1 = 1, n_2 = 2, n_3 = 2; observed
        // disagreements (2,0),(0,2),(1,2),(2,1) = 4; Σ n_c n_k [c≠k] = 64 − (9+1+4+4) = 46;
        // α = 1 − 7·4/46.
        assert!((value(&r, "alpha_nominal").unwrap() - (1.0 - 28.0 / 46.0)).abs() < 1e-12);
        // Positive agreement: a = 1, b + c = 2: 2/4.
        assert_eq!(value(&r, "positive_agreement"), Some(0.5));
        // Jaccard: q1 {a} ∩ {a, b}... first finds a, b; second finds a: 1/2; q2: first none,
        // second d: 0/1; mean 0.25.
        assert_eq!(value(&r, "mean_jaccard"), Some(0.25));
        assert_eq!(r.disagree_at_cut, 2);
        let kappa = r
            .statistics
            .iter()
            .find(|s| s.name == "cohen_kappa")
            .unwrap();
        assert!(
            kappa
                .sentence
                .starts_with("Cohen's κ at the cut 0.00 (95% interval"),
            "{}",
            kappa.sentence
        );
        assert!(kappa
            .sentence
            .ends_with("over 4 question–file pairs judged by both; the labellers disagree on 2."));
    }

    #[test]
    fn ordinal_alpha_weighs_distance_by_the_grades_between() {
        // Two units (0, 3) and (1, 2): n_g = 1 each. δ²(0,3) = (4 − 1)² = 9, δ²(1,2) = (2 − 1)² = 1.
        let items = [
            item("q", "a", Some(0), Some(3)),
            item("q", "b", Some(1), Some(2)),
        ];
        let r = agreement(&items, 2, config()).unwrap();
        // Σ o·δ² = 2·9 + 2·1 = 20; Σ n_c n_k δ² over ordered c ≠ k: 6·1 + 4·4 + 2·9 = 40;
        // α = 1 − 3·20/40 = −0.5.
        let n = [1.0f64; 4];
        let delta = |c: usize, k: usize| {
            let (lo, hi) = (c.min(k), c.max(k));
            (n[lo..=hi].iter().sum::<f64>() - 1.0).powi(2)
        };
        let expected: f64 = (0..4)
            .flat_map(|c| (0..4).map(move |k| (c, k)))
            .filter(|(c, k)| c != k)
            .map(|(c, k)| delta(c, k))
            .sum();
        assert_eq!(expected, 40.0);
        assert!((value(&r, "alpha_ordinal").unwrap() + 0.5).abs() < 1e-12);
    }

    #[test]
    fn identical_judgments_and_nothing_judged_by_both_are_undefined_never_zero() {
        let zeros = [
            item("q1", "a", Some(0), Some(0)),
            item("q2", "b", Some(0), Some(0)),
        ];
        let r = agreement(&zeros, 2, config()).unwrap();
        assert_eq!(value(&r, "percent_agreement"), Some(1.0));
        for name in [
            "cohen_kappa",
            "weighted_kappa",
            "alpha_nominal",
            "alpha_ordinal",
            "positive_agreement",
            "mean_jaccard",
        ] {
            let s = r.statistics.iter().find(|s| s.name == name).unwrap();
            assert_eq!(s.value, None, "{name}");
            assert_eq!(
                s.undefined.as_deref(),
                Some("undefined (all judgments 0)"),
                "{name}"
            );
            assert_eq!(s.undefined_resamples, 200, "{name}");
            assert!(
                s.sentence.contains("undefined (all judgments 0)"),
                "{}",
                s.sentence
            );
        }
        let apart = [
            item("q1", "a", Some(3), None),
            item("q1", "b", None, Some(1)),
        ];
        let r = agreement(&apart, 2, config()).unwrap();
        assert!(r
            .statistics
            .iter()
            .all(|s| s.value.is_none() && s.undefined.as_deref() == Some(NOTHING_BY_BOTH)));
        assert!(agreement(&apart, 0, config()).is_err());
        assert!(agreement(&[item("q", "a", Some(4), Some(0))], 2, config()).is_err());
    }

    #[test]
    fn the_interval_resamples_questions_and_counts_undefined_ones() {
        // q1 agrees on a relevant file, q2 disagrees on one: a resample of only q1 (twice) has
        // every judgment relevant and κ undefined, about a quarter of them.
        let items = [
            item("q1", "a", Some(3), Some(3)),
            item("q2", "b", Some(0), Some(0)),
            item("q2", "c", Some(3), Some(0)),
        ];
        let r = agreement(&items, 2, config()).unwrap();
        let kappa = r
            .statistics
            .iter()
            .find(|s| s.name == "cohen_kappa")
            .unwrap();
        assert!(kappa.undefined_resamples > 0 && kappa.undefined_resamples < 200);
        assert!(kappa.low.unwrap() <= kappa.value.unwrap());
    }
}
