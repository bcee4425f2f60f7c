//! Ranking metrics beyond the paper's file recall, for rankings of files or of spans (a file's
//! line range), as the CodeAtlas and CodeNib seeds score them. Each metric has a worked example in
//! the tests; names on the command line and in JSON are [`Metric::name`]s, and ir_measures' names
//! are accepted where the definitions agree (on file rankings with binary file gold).
//!
//! For a ranking `R` (best first), gold files `G` and the first `k` units `R(k)`:
//!
//! - `file_recall@k`: distinct gold files among the files of `R(k)`, over `|G|` (0 without gold).
//!   ir_measures `R@k`.
//! - `full@k`: 1 when every gold file is among them, else 0.
//! - `hit@k`: 1 when any unit of `R(k)` is relevant, else 0. ir_measures `Success@k`.
//! - `precision@k`: relevant units of `R(k)` over `k` (trec_eval's `P@k`: a short ranking is
//!   not rewarded for stopping early; the paper's own precision divides by `|R(k)|` and stays in
//!   Table 2). ir_measures `P@k`.
//! - `mrr`: `1 / rank` of the first relevant unit anywhere in `R`, 0 when there is none.
//!   ir_measures `RR`.
//! - `ndcg@k`: CodeAtlas's rule: a gain of 1 for each gold file at its first unit in `R(k)`
//!   (later units of the same file gain nothing), discounted by `log2(rank + 1)`, over the ideal
//!   `Σ_{i=1..min(|G|, k)} 1 / log2(i + 1)`. ir_measures `nDCG@k` (binary gain, file units).
//! - `span_recall@k`, `span_mrr`: CodeNib's. Units that overlap an earlier kept unit of the same
//!   file are dropped first (the first wins); then the share of gold spans overlapped (same file,
//!   line ranges intersecting) by a unit of the first `k`, and `1 / rank` of the first unit that
//!   overlaps any gold span.
//!
//! Relevance of a unit for `hit`, `precision`, `mrr`: under [`Relevance::File`] a unit is relevant
//! when its file is gold (CodeAtlas, fastindex); under [`Relevance::Span`] when it overlaps a gold
//! span of its file (CodeNib).

use crate::scoring::stats::{BootstrapConfig, ClusterDraws};
use crate::stable_sort::Sorted;
use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::study::{GoldSpan, MAX_METRIC_K};

/// When a unit counts as relevant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Relevance {
    /// Its file is a gold file.
    #[default]
    File,
    /// It overlaps a gold span of its file.
    Span,
}

/// A metric and its cut-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// `file_recall@k`.
    FileRecall(usize),
    /// `full@k`.
    Full(usize),
    /// `hit@k`.
    Hit(usize),
    /// `precision@k`.
    Precision(usize),
    /// `mrr`.
    Mrr,
    /// `ndcg@k`.
    Ndcg(usize),
    /// `span_recall@k`.
    SpanRecall(usize),
    /// `span_mrr`.
    SpanMrr,
}

impl Metric {
    /// Reads a metric name: ours (`hit@5`) or ir_measures' alias (`Success@5`, `P@5`, `R@5`, `RR`,
    /// `nDCG@10`). The error lists the names.
    pub fn parse(name: &str) -> Result<Metric> {
        let bad = || {
            Error::setting(
                "metric",
                name,
                "file_recall@k, full@k, hit@k, precision@k, mrr, ndcg@k, span_recall@k, \
                 span_mrr (or ir_measures' R@k, Success@k, P@k, RR, nDCG@k), k from 1 to 1,000",
            )
        };
        match name {
            "mrr" | "RR" => return Ok(Metric::Mrr),
            "span_mrr" => return Ok(Metric::SpanMrr),
            _ => {}
        }
        let (base, k) = name.split_once('@').ok_or_else(bad)?;
        let k: usize = k.parse().map_err(|_| bad())?;
        if !(1..=MAX_METRIC_K).contains(&k) {
            return Err(bad());
        }
        Ok(match base {
            "file_recall" | "R" => Metric::FileRecall(k),
            "full" => Metric::Full(k),
            "hit" | "Success" => Metric::Hit(k),
            "precision" | "P" => Metric::Precision(k),
            "ndcg" | "nDCG" => Metric::Ndcg(k),
            "span_recall" => Metric::SpanRecall(k),
            _ => return Err(bad()),
        })
    }

    /// The metric's own name (`hit@5`).
    pub fn name(&self) -> String {
        match self {
            Metric::FileRecall(k) => format!("file_recall@{k}"),
            Metric::Full(k) => format!("full@{k}"),
            Metric::Hit(k) => format!("hit@{k}"),
            Metric::Precision(k) => format!("precision@{k}"),
            Metric::Mrr => "mrr".into(),
            Metric::Ndcg(k) => format!("ndcg@{k}"),
            Metric::SpanRecall(k) => format!("span_recall@{k}"),
            Metric::SpanMrr => "span_mrr".into(),
        }
    }

    /// Whether the metric needs span units and span gold.
    pub fn needs_spans(&self) -> bool {
        matches!(self, Metric::SpanRecall(_) | Metric::SpanMrr)
    }
}

/// The value of a file-level metric for a ranking of file paths (each path once) against the
/// gold files; a span metric is refused (a file ranking has no line ranges).
pub fn score_files(metric: Metric, ranking: &[String], gold_files: &[String]) -> Result<f64> {
    let units: Vec<GoldSpan> = ranking
        .iter()
        .map(|path| GoldSpan {
            path: path.clone(),
            start_line: 0,
            end_line: 0,
        })
        .collect();
    if metric.needs_spans() {
        return Err(Error::setting(
            "metric",
            metric.name(),
            "a metric of file rankings (span metrics need span units and span gold)",
        ));
    }
    Ok(score_units(
        metric,
        &units,
        gold_files,
        &[],
        Relevance::File,
    ))
}

/// The value of `metric` for a ranking of units (file units have lines 0–0 and overlap nothing)
/// against gold files and gold spans, with `relevance` deciding which units count for `hit`,
/// `precision` and `mrr`.
pub fn score_units(
    metric: Metric,
    units: &[GoldSpan],
    gold_files: &[String],
    gold_spans: &[GoldSpan],
    relevance: Relevance,
) -> f64 {
    let gold: BTreeSet<&str> = gold_files.iter().map(String::as_str).sorted_set();
    let relevant = |unit: &GoldSpan| match relevance {
        Relevance::File => gold.contains(unit.path.as_str()),
        Relevance::Span => gold_spans.iter().any(|g| overlaps(unit, g)),
    };
    let first = |k: usize| &units[..k.min(units.len())];
    let files_in =
        |k: usize| -> BTreeSet<&str> { first(k).iter().map(|u| u.path.as_str()).sorted_set() };
    let ratio = |found: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            found as f64 / of as f64
        }
    };
    match metric {
        Metric::FileRecall(k) => ratio(files_in(k).intersection(&gold).count(), gold.len()),
        Metric::Full(k) => {
            let files = files_in(k);
            f64::from(u8::from(
                !gold.is_empty() && gold.iter().all(|g| files.contains(g)),
            ))
        }
        Metric::Hit(k) => f64::from(u8::from(first(k).iter().any(relevant))),
        Metric::Precision(k) => ratio(first(k).iter().filter(|u| relevant(u)).count(), k),
        Metric::Mrr => reciprocal_rank(units.iter().position(relevant)),
        Metric::Ndcg(k) => {
            let mut seen = BTreeSet::new();
            let dcg: f64 = first(k)
                .iter()
                .enumerate()
                .filter(|(_, u)| gold.contains(u.path.as_str()) && seen.insert(u.path.as_str()))
                .map(|(at, _)| discount(at + 1))
                .sum();
            let ideal: f64 = (1..=gold.len().min(k)).map(discount).sum();
            if ideal == 0.0 {
                0.0
            } else {
                dcg / ideal
            }
        }
        Metric::SpanRecall(k) => {
            let shown = kept_spans(units, k, &|_| false);
            let hit = gold_spans
                .iter()
                .filter(|g| shown.iter().any(|u| overlaps(u, g)))
                .count();
            ratio(hit, gold_spans.len())
        }
        Metric::SpanMrr => {
            let relevant = |u: &GoldSpan| gold_spans.iter().any(|g| overlaps(u, g));
            let kept = kept_spans(units, usize::MAX, &relevant);
            reciprocal_rank(kept.last().filter(|u| relevant(u)).map(|_| kept.len() - 1))
        }
    }
}

fn discount(rank: usize) -> f64 {
    1.0 / (rank as f64 + 1.0).log2()
}

fn reciprocal_rank(at: Option<usize>) -> f64 {
    at.map_or(0.0, |at| 1.0 / (at + 1) as f64)
}

/// Whether two spans share a file and at least one line (file units, lines 0–0, never overlap).
pub fn overlaps(a: &GoldSpan, b: &GoldSpan) -> bool {
    a.path == b.path
        && a.start_line > 0
        && b.start_line > 0
        && a.start_line <= b.end_line
        && b.start_line <= a.end_line
}

/// The units with every unit that overlaps an earlier kept unit of its file dropped (the first
/// wins), in rank order, up to the `limit`th kept unit or the first kept unit that `stop`
/// accepts. File units are all kept. A span metric reads only its first `k` kept units, or up
/// to its first relevant one, and each unit is compared with every unit kept before it:
/// deduplicating a grid's deep rankings whole was a tenth of its time in the worker. (`stop` is
/// a `dyn` so that the page's module holds one copy.)
pub fn kept_spans<'u>(
    units: &'u [GoldSpan],
    limit: usize,
    stop: &dyn Fn(&GoldSpan) -> bool,
) -> Vec<&'u GoldSpan> {
    let mut kept: Vec<&GoldSpan> = Vec::new();
    for unit in units {
        if kept.len() == limit {
            break;
        }
        if !kept.iter().any(|k| overlaps(k, unit)) {
            kept.push(unit);
            if stop(unit) {
                break;
            }
        }
    }
    kept
}

/// What an interval resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clustering {
    /// Whole repositories (fastindex, CodeNib).
    #[default]
    Repo,
    /// Single cases (CodeAtlas's questions).
    Case,
}

/// One arm's mean of one metric over a study's cases, with its 95% percentile bootstrap interval.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetricSummary {
    /// The arm.
    pub arm: String,
    /// The metric's name.
    pub metric: String,
    /// The frame (a study of rankings has one: `rankings`).
    pub frame: String,
    /// The cut-off, when the metric has one.
    pub k: Option<usize>,
    /// The mean over cases.
    pub mean: f64,
    /// 2.5th percentile of the resampled means.
    pub ci_low: f64,
    /// 97.5th percentile of the resampled means.
    pub ci_high: f64,
    /// Cases.
    pub n: usize,
}

impl Metric {
    /// The cut-off, when the metric has one.
    pub fn k(&self) -> Option<usize> {
        match *self {
            Metric::FileRecall(k)
            | Metric::Full(k)
            | Metric::Hit(k)
            | Metric::Precision(k)
            | Metric::Ndcg(k)
            | Metric::SpanRecall(k) => Some(k),
            Metric::Mrr | Metric::SpanMrr => None,
        }
    }
}

/// One case's value of `metric` for `arm`: over its span units when the arm ranks spans (under
/// `relevance`), else over its file ranking (span metrics refused there, naming the arm).
pub fn case_value(
    arm: &crate::study::Arm,
    case_index: usize,
    case: &crate::study::Case,
    metric: Metric,
    relevance: Relevance,
) -> Result<f64> {
    match arm.units.get(case_index) {
        Some(units) if !arm.units.is_empty() => Ok(score_units(
            metric,
            units,
            &case.gold_files,
            &case.gold_spans,
            relevance,
        )),
        _ => score_files(metric, &arm.rankings[case_index], &case.gold_files).map_err(|_| {
            Error::setting(
                "metric",
                metric.name(),
                &format!(
                    "a file-level metric for arm {} (it ranks files, not spans)",
                    arm.name
                ),
            )
        }),
    }
}

/// Every arm × metric of a study, each with its interval over `clustering`'s clusters (one set
/// of draws for all); arms of span units are scored under `relevance`.
pub fn summarize_metrics(
    study: &crate::study::Study,
    metrics: &[Metric],
    clustering: Clustering,
    relevance: Relevance,
    bootstrap: BootstrapConfig,
) -> Result<Vec<MetricSummary>> {
    summarize_metrics_drawn(
        study,
        metrics,
        (clustering, relevance),
        bootstrap,
        &mut None,
    )
}

/// As [`summarize_metrics`], drawing from `draws` when they fit (the same clusters and
/// bootstrap) and leaving there the draws it used, so that a caller's later summaries and
/// comparisons over the same clusters do not draw again (drawing is most of a bootstrap).
pub fn summarize_metrics_drawn(
    study: &crate::study::Study,
    metrics: &[Metric],
    (clustering, relevance): (Clustering, Relevance),
    bootstrap: BootstrapConfig,
    draws: &mut Option<ClusterDraws>,
) -> Result<Vec<MetricSummary>> {
    let cluster_of = |case: &crate::study::Case| match clustering {
        Clustering::Repo => case.repo.clone(),
        Clustering::Case => case.id.clone(),
    };
    let names: BTreeSet<String> = study.cases.iter().map(cluster_of).sorted_set();
    let names: Vec<String> = names.into_iter().collect();
    let draws = ClusterDraws::shared(draws, names.len(), bootstrap)?;
    let mut out = Vec::new();
    for arm in &study.arms {
        for metric in metrics {
            let mut clusters = vec![Vec::new(); names.len()];
            for (at, case) in study.cases.iter().enumerate() {
                let value = case_value(arm, at, case, *metric, relevance)?;
                let at = names.binary_search(&cluster_of(case)).unwrap_or_default();
                clusters[at].push(value);
            }
            let interval = crate::scoring::stats::cluster_bootstrap_with(&clusters, draws)?;
            out.push(MetricSummary {
                arm: arm.name.clone(),
                metric: metric.name(),
                frame: "rankings".into(),
                k: metric.k(),
                mean: interval.mean,
                ci_low: interval.low,
                ci_high: interval.high,
                n: study.cases.len(),
            });
        }
    }
    Ok(out)
}

/// Paired comparisons of arms on one metric over the cases of `subset` (left − right),
/// clustered by `clustering`, each with its sentence; pairs share their draws.
pub fn compare_metric_pairs(
    study: &crate::study::Study,
    pairs: &[(String, String)],
    metric: Metric,
    (clustering, relevance): (Clustering, Relevance),
    subset: &[usize],
    bootstrap: BootstrapConfig,
) -> Result<Vec<crate::scoring::paired::PairedComparison>> {
    let pairs_of = (study, pairs, metric);
    compare_metric_pairs_drawn(
        pairs_of,
        (clustering, relevance),
        subset,
        bootstrap,
        &mut None,
    )
}

/// As [`compare_metric_pairs`], sharing `draws` as [`summarize_metrics_drawn`] does.
pub fn compare_metric_pairs_drawn(
    (study, pairs, metric): (&crate::study::Study, &[(String, String)], Metric),
    (clustering, relevance): (Clustering, Relevance),
    subset: &[usize],
    bootstrap: BootstrapConfig,
    draws: &mut Option<ClusterDraws>,
) -> Result<Vec<crate::scoring::paired::PairedComparison>> {
    let values = |name: &str| -> Result<Vec<Option<f64>>> {
        let arm = study.arm(name)?;
        study
            .cases
            .iter()
            .enumerate()
            .map(|(at, case)| case_value(arm, at, case, metric, relevance).map(Some))
            .collect()
    };
    let cluster_of = |case: usize| match clustering {
        Clustering::Repo => study.cases[case].repo.clone(),
        Clustering::Case => study.cases[case].id.clone(),
    };
    pairs
        .iter()
        .map(|(left, right)| {
            let both = (values(left)?, values(right)?);
            crate::scoring::paired::compare_values(
                (left, right),
                metric.k().unwrap_or(0),
                &metric.name(),
                &both,
                &cluster_of,
                subset,
                bootstrap,
                draws,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(path: &str, start: u32, end: u32) -> GoldSpan {
        GoldSpan {
            path: path.into(),
            start_line: start,
            end_line: end,
        }
    }

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| p.to_string()).collect()
    }

    fn files(metric: &str, ranking: &[&str], gold: &[&str]) -> f64 {
        score_files(
            Metric::parse(metric).unwrap(),
            &paths(ranking),
            &paths(gold),
        )
        .unwrap()
    }

    #[test]
    fn file_metrics_by_hand() {
        // Gold {a, b}; ranking x, a, y, b, z.
        let ranking = ["x", "a", "y", "b", "z"];
        let gold = ["a", "b"];
        assert_eq!(files("file_recall@2", &ranking, &gold), 0.5);
        assert_eq!(files("file_recall@4", &ranking, &gold), 1.0);
        assert_eq!(files("full@3", &ranking, &gold), 0.0);
        assert_eq!(files("full@4", &ranking, &gold), 1.0);
        assert_eq!(files("hit@1", &ranking, &gold), 0.0);
        assert_eq!(files("hit@2", &ranking, &gold), 1.0);
        // Two relevant among the first 5, and among the first 10 of a 5-long ranking.
        assert_eq!(files("precision@5", &ranking, &gold), 0.4);
        assert_eq!(files("precision@10", &ranking, &gold), 0.2);
        assert_eq!(files("mrr", &ranking, &gold), 0.5);
        assert_eq!(files("mrr", &["x"], &gold), 0.0);
        // DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3).
        let expected = (1.0 / 3f64.log2() + 1.0 / 5f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((files("ndcg@10", &ranking, &gold) - expected).abs() < 1e-15);
        assert_eq!(files("ndcg@10", &["a", "b"], &gold), 1.0);
        assert_eq!(
            files("ndcg@1", &["a"], &gold),
            1.0,
            "the ideal is cut at k too"
        );
        assert_eq!(files("hit@5", &ranking, &[]), 0.0);
        assert_eq!(files("file_recall@5", &ranking, &[]), 0.0);
    }

    #[test]
    fn ndcg_gains_a_file_once_at_its_first_unit() {
        // Span units: a.rs twice (ranks 1 and 2), then b.rs (rank 3); gold files {a.rs, b.rs}.
        let units = [span("a.rs", 1, 9), span("a.rs", 20, 29), span("b.rs", 1, 5)];
        let gold = paths(&["a.rs", "b.rs"]);
        let value = score_units(Metric::Ndcg(10), &units, &gold, &[], Relevance::File);
        let expected = (1.0 + 1.0 / 4f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((value - expected).abs() < 1e-15);
        // Under file relevance both a.rs units count for precision.
        let precision = score_units(Metric::Precision(2), &units, &gold, &[], Relevance::File);
        assert_eq!(precision, 1.0);
        assert_eq!(
            score_units(Metric::FileRecall(2), &units, &gold, &[], Relevance::File),
            0.5
        );
    }

    #[test]
    fn span_metrics_by_hand() {
        // Gold blocks: a.rs 10–20, a.rs 50–60, b.rs 1–5.
        let gold = [
            span("a.rs", 10, 20),
            span("a.rs", 50, 60),
            span("b.rs", 1, 5),
        ];
        let gold_files = paths(&["a.rs", "b.rs"]);
        // c.rs misses; a.rs 15–30 hits the first block; a.rs 18–40 overlaps the kept 15–30 and
        // is dropped; b.rs 4–9 hits the third block; a.rs 100–110 misses.
        let units = [
            span("c.rs", 1, 50),
            span("a.rs", 15, 30),
            span("a.rs", 18, 40),
            span("b.rs", 4, 9),
            span("a.rs", 100, 110),
        ];
        let kept: Vec<GoldSpan> = kept_spans(&units, usize::MAX, &|_| false)
            .into_iter()
            .cloned()
            .collect();
        assert_eq!(kept.len(), 4);
        let again = kept_spans(&kept, usize::MAX, &|_| false);
        assert!(again.into_iter().eq(&kept), "deduplication is idempotent");
        assert_eq!(
            kept_spans(&units, 2, &|_| false).len(),
            2,
            "at most the limit"
        );
        let b = |u: &GoldSpan| u.path == "b.rs";
        assert_eq!(
            kept_spans(&units, usize::MAX, &b).len(),
            3,
            "up to the first b.rs"
        );
        let value = |m: Metric, rel| score_units(m, &units, &gold_files, &gold, rel);
        assert_eq!(value(Metric::SpanRecall(1), Relevance::Span), 0.0);
        assert!((value(Metric::SpanRecall(2), Relevance::Span) - 1.0 / 3.0).abs() < 1e-15);
        // The third kept unit is b.rs 4–9: two of three blocks within the first 3.
        assert!((value(Metric::SpanRecall(3), Relevance::Span) - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(value(Metric::SpanMrr, Relevance::Span), 0.5);
        assert_eq!(value(Metric::Hit(1), Relevance::Span), 0.0);
        assert_eq!(value(Metric::Hit(2), Relevance::Span), 1.0);
        // Under span relevance a.rs 100–110 is not relevant; under file relevance it is.
        assert_eq!(value(Metric::Precision(5), Relevance::Span), 0.6);
        assert_eq!(value(Metric::Precision(5), Relevance::File), 0.8);
        assert_eq!(value(Metric::FileRecall(2), Relevance::Span), 0.5);
    }

    #[test]
    fn names_and_ir_measures_aliases() {
        for (name, metric) in [
            ("hit@5", Metric::Hit(5)),
            ("Success@5", Metric::Hit(5)),
            ("P@10", Metric::Precision(10)),
            ("R@1000", Metric::FileRecall(1000)),
            ("RR", Metric::Mrr),
            ("nDCG@10", Metric::Ndcg(10)),
            ("span_recall@5", Metric::SpanRecall(5)),
            ("span_mrr", Metric::SpanMrr),
            ("full@16", Metric::Full(16)),
        ] {
            assert_eq!(Metric::parse(name).unwrap(), metric, "{name}");
            assert_eq!(Metric::parse(&metric.name()).unwrap(), metric);
        }
        for bad in ["hit@0", "hit@1001", "hit", "map", "ndcg@x"] {
            let error = Metric::parse(bad).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("metric = {bad} is out of range")),
                "{error}"
            );
        }
        assert!(score_files(Metric::SpanMrr, &[], &[]).is_err());
    }
}
