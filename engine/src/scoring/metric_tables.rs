//! Tables of any ranking metric ([`Metric`]) with their 95% bootstrap intervals, for the study
//! views beside the paper's own tables (which stay exactly as the paper printed them): every arm
//! × metric, one metric per repository or per prespecified subgroup, one case's values, and one
//! case's ranked units with the gold they hit.
//!
//! An interval resamples the clusters of [`Clustering`] among the cases a cell covers. Inside one
//! repository, resampling repositories would draw the same repository every time, so the
//! per-repository table resamples its cases. A metric a ranking cannot have (a span metric of an
//! arm of files) is a missing cell, not an error: a study may mix arms of files and of spans.

use std::collections::{hash_map::Entry, BTreeMap, HashMap};

use crate::error::Result;
use crate::scoring::stats::{cluster_bootstrap_with, BootstrapConfig, ClusterDraws, Interval};
use crate::scoring::unit_metrics::{case_value, overlaps, Clustering, Metric, Relevance};
use crate::study::subset::Subset;
use crate::study::{Arm, Study};
use crate::table::{Cell, Table};

/// Decimals of a metric cell.
const DECIMALS: usize = 3;

/// How the metric tables score: relevance, clustering and the bootstrap's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricSetup {
    /// When a unit counts as relevant.
    pub relevance: Relevance,
    /// What the intervals resample.
    pub clustering: Clustering,
    /// Resamples and seed.
    pub bootstrap: BootstrapConfig,
}

/// Whether the study can be scored by spans: an arm ranks spans and a case has gold spans.
pub fn has_spans(study: &Study) -> bool {
    study.arms.iter().any(|arm| !arm.units.is_empty())
        && study.cases.iter().any(|case| !case.gold_spans.is_empty())
}

/// The relevance a study is scored under unless the reader chooses: by span when it
/// [`has_spans`] (CodeNib), else by file (fastindex, CodeAtlas).
pub fn default_relevance(study: &Study) -> Relevance {
    if has_spans(study) {
        Relevance::Span
    } else {
        Relevance::File
    }
}

/// The metrics shown unless the reader chooses: the paper's file recall at 8 and 16, CodeAtlas's
/// hit@1, hit@5, MRR and nDCG@10, and for a span study CodeNib's span recall@5 and span MRR.
pub fn default_metrics(study: &Study) -> Vec<Metric> {
    let mut metrics = vec![
        Metric::FileRecall(8),
        Metric::FileRecall(16),
        Metric::Hit(1),
        Metric::Hit(5),
        Metric::Mrr,
        Metric::Ndcg(10),
    ];
    if has_spans(study) {
        metrics.extend([Metric::SpanRecall(5), Metric::SpanMrr]);
    }
    metrics
}

/// Draws shared by every cell over the same number of clusters.
#[derive(Default)]
struct Draws(HashMap<usize, ClusterDraws>);

impl Draws {
    fn for_clusters(&mut self, n: usize, bootstrap: BootstrapConfig) -> Result<&ClusterDraws> {
        match self.0.entry(n) {
            Entry::Occupied(drawn) => Ok(drawn.into_mut()),
            Entry::Vacant(slot) => Ok(slot.insert(ClusterDraws::new(n, bootstrap)?)),
        }
    }
}

/// Whether `arm` can be scored by `metric` at all.
fn defined(arm: &Arm, metric: Metric) -> bool {
    !metric.needs_spans() || !arm.units.is_empty()
}

/// The mean of `metric` for `arm` over `cases` with its interval, or `None` when the metric is
/// not defined for the arm or there are no cases.
fn estimate(
    study: &Study,
    arm: &Arm,
    metric: Metric,
    cases: &[usize],
    clustering: Clustering,
    setup: (Relevance, BootstrapConfig),
    draws: &mut Draws,
) -> Result<Option<Interval>> {
    if !defined(arm, metric) || cases.is_empty() {
        return Ok(None);
    }
    let mut clusters: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for &at in cases {
        let case = &study.cases[at];
        let key = match clustering {
            Clustering::Repo => case.repo.as_str(),
            Clustering::Case => case.id.as_str(),
        };
        let value = case_value(arm, at, case, metric, setup.0)?;
        clusters.entry(key).or_default().push(value);
    }
    let clusters: Vec<Vec<f64>> = clusters.into_values().collect();
    let draws = draws.for_clusters(clusters.len(), setup.1)?;
    cluster_bootstrap_with(&clusters, draws).map(Some)
}

fn estimate_cell(interval: Option<Interval>) -> Cell {
    interval.map_or_else(Cell::missing, |i| {
        Cell::estimate(i.mean, i.low, i.high, DECIMALS)
    })
}

/// Every arm's mean of every metric over all cases, each with its interval.
pub fn metric_table(
    study: &Study,
    arms: &[usize],
    metrics: &[Metric],
    setup: &MetricSetup,
) -> Result<Table> {
    let mut headers = vec!["arm".to_string(), "label".to_string()];
    headers.extend(metrics.iter().map(Metric::name));
    let all: Vec<usize> = (0..study.cases.len()).collect();
    let mut draws = Draws::default();
    let mut rows = Vec::new();
    for &at in arms {
        let arm = &study.arms[at];
        let mut row = vec![Cell::text(&arm.name), Cell::text(&arm.label)];
        for &metric in metrics {
            let interval = estimate(
                study,
                arm,
                metric,
                &all,
                setup.clustering,
                (setup.relevance, setup.bootstrap),
                &mut draws,
            )?;
            row.push(estimate_cell(interval));
        }
        rows.push(row);
    }
    Ok(Table {
        title: format!(
            "Metrics with 95% intervals ({} cases, by {}, {} relevance)",
            study.cases.len(),
            clustering_name(setup.clustering),
            relevance_name(setup.relevance)
        ),
        headers,
        rows,
    })
}

/// The plain name of a clustering, as the page and the table titles say it.
pub fn clustering_name(clustering: Clustering) -> &'static str {
    match clustering {
        Clustering::Repo => "repository",
        Clustering::Case => "case",
    }
}

/// The plain name of a relevance rule.
pub fn relevance_name(relevance: Relevance) -> &'static str {
    match relevance {
        Relevance::File => "file",
        Relevance::Span => "span",
    }
}

/// One metric of each arm in each group of cases (a row per group, with its case count), each
/// cell with its interval over `clustering`'s clusters inside the group.
#[allow(clippy::too_many_arguments)] // Each is one of the table's independent inputs.
fn grouped_table(
    study: &Study,
    arms: &[usize],
    metric: Metric,
    groups: &[(String, Vec<usize>)],
    first_header: &str,
    clustering: Clustering,
    setup: &MetricSetup,
    title: String,
) -> Result<Table> {
    let mut headers = vec![first_header.to_string(), "n".to_string()];
    headers.extend(
        arms.iter()
            .map(|&a| format!("{} {}", study.arms[a].name, metric.name())),
    );
    let mut draws = Draws::default();
    let mut rows = Vec::new();
    for (label, cases) in groups {
        let mut row = vec![Cell::text(label), Cell::count(cases.len())];
        for &a in arms {
            let interval = estimate(
                study,
                &study.arms[a],
                metric,
                cases,
                clustering,
                (setup.relevance, setup.bootstrap),
                &mut draws,
            )?;
            row.push(estimate_cell(interval));
        }
        rows.push(row);
    }
    Ok(Table {
        title,
        headers,
        rows,
    })
}

/// `metric` per repository, one column per arm; each interval resamples the repository's cases.
pub fn repo_metric_table(
    study: &Study,
    arms: &[usize],
    metric: Metric,
    setup: &MetricSetup,
) -> Result<Table> {
    let groups: Vec<(String, Vec<usize>)> = study
        .repos()
        .into_iter()
        .map(|repo| {
            let cases = Subset::Repo(repo.clone()).indices(study);
            (repo, cases)
        })
        .collect();
    let title = format!(
        "{} by repository (95% intervals over each repository's cases)",
        metric.name()
    );
    grouped_table(
        study,
        arms,
        metric,
        &groups,
        "repository",
        Clustering::Case,
        setup,
        title,
    )
}

/// `metric` in each prespecified subgroup, one column per arm, intervals over the setup's
/// clusters; an empty subgroup has missing cells.
pub fn subgroup_metric_table(
    study: &Study,
    arms: &[usize],
    metric: Metric,
    setup: &MetricSetup,
) -> Result<Table> {
    let groups: Vec<(String, Vec<usize>)> = Subset::prespecified()
        .into_iter()
        .map(|subset| (subset.label(), subset.indices(study)))
        .collect();
    let title = format!(
        "{} in the prespecified subgroups (95% intervals by {})",
        metric.name(),
        clustering_name(setup.clustering)
    );
    grouped_table(
        study,
        arms,
        metric,
        &groups,
        "subgroup",
        setup.clustering,
        setup,
        title,
    )
}

/// One case's value of each metric for each arm (a single case has no interval).
pub fn case_metric_table(
    study: &Study,
    case: usize,
    metrics: &[Metric],
    relevance: Relevance,
) -> Result<Table> {
    let mut headers = vec!["arm".to_string()];
    headers.extend(metrics.iter().map(Metric::name));
    let mut rows = Vec::new();
    for arm in &study.arms {
        let mut row = vec![Cell::text(&arm.name)];
        for &metric in metrics {
            row.push(if defined(arm, metric) {
                Cell::number(
                    case_value(arm, case, &study.cases[case], metric, relevance)?,
                    DECIMALS,
                )
            } else {
                Cell::missing()
            });
        }
        rows.push(row);
    }
    Ok(Table {
        title: format!(
            "Case {}: every metric ({} relevance)",
            study.cases[case].id,
            relevance_name(relevance)
        ),
        headers,
        rows,
    })
}

/// The most units [`case_units_table`] lists; the title says when a ranking is longer.
pub const SHOWN_UNITS: usize = 100;

/// One arm's ranked units for one case: each unit's file and line range, whether its file is
/// gold, the gold spans it hits, and whether CodeNib's deduplication keeps it (a unit that
/// overlaps an earlier kept unit of its file is dropped, naming that unit's rank).
pub fn case_units_table(study: &Study, case: usize, arm: usize) -> Table {
    let (arm, case_ref) = (&study.arms[arm], &study.cases[case]);
    let units: Vec<(String, Option<(u32, u32)>)> = match arm.units.get(case) {
        Some(units) => units
            .iter()
            .map(|u| (u.path.clone(), Some((u.start_line, u.end_line))))
            .collect(),
        None => arm.rankings[case]
            .iter()
            .map(|p| (p.clone(), None))
            .collect(),
    };
    let mut table = Table::new(
        &format!(
            "{}: {} of case {}",
            arm.name,
            if units.len() > SHOWN_UNITS {
                format!("the first {SHOWN_UNITS} of {} units", units.len())
            } else {
                format!("{} units", units.len())
            },
            case_ref.id
        ),
        &["rank", "path", "lines", "gold file", "hits", "kept"],
    );
    // Kept units so far: (rank, path, start, end).
    let mut kept: Vec<(usize, &str, u32, u32)> = Vec::new();
    for (rank, (path, lines)) in units.iter().enumerate().take(SHOWN_UNITS) {
        let gold_file = case_ref.gold_files.contains(path);
        let (lines_cell, hits, kept_cell) = match *lines {
            None => (Cell::text("whole file"), String::new(), Cell::text("yes")),
            Some((start, end)) => {
                let unit = crate::study::GoldSpan {
                    path: path.clone(),
                    start_line: start,
                    end_line: end,
                };
                let hits: Vec<String> = case_ref
                    .gold_spans
                    .iter()
                    .filter(|g| overlaps(&unit, g))
                    .map(|g| format!("L{}–L{}", g.start_line, g.end_line))
                    .collect();
                let earlier = kept
                    .iter()
                    .find(|(_, p, s, e)| *p == path.as_str() && *s <= end && start <= *e);
                let kept_cell = match earlier {
                    Some((at, ..)) => Cell::text(format!("no: overlaps rank {}", at + 1)),
                    None => {
                        kept.push((rank, path.as_str(), start, end));
                        Cell::text("yes")
                    }
                };
                (
                    Cell::text(format!("L{start}–L{end}")),
                    hits.join(", "),
                    kept_cell,
                )
            }
        };
        table.rows.push(vec![
            Cell::count(rank + 1),
            Cell::text(path),
            lines_cell,
            Cell::text(if gold_file { "yes" } else { "" }),
            Cell::text(hits),
            kept_cell,
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::{ArmOrigin, Case, GoldSpan};

    fn span(path: &str, start: u32, end: u32) -> GoldSpan {
        GoldSpan {
            path: path.into(),
            start_line: start,
            end_line: end,
        }
    }

    /// Two repositories: r1 with cases a, b; r2 with case c. Gold spans a.rs 10–20 (a),
    /// b.rs 1–5 (b), c.rs 30–40 (c). One arm of spans, one of files.
    fn study() -> Study {
        let cases = vec![
            Case::from_spans("a".into(), "r1".into(), vec![span("a.rs", 10, 20)]),
            Case::from_spans("b".into(), "r1".into(), vec![span("b.rs", 1, 5)]),
            Case::from_spans("c".into(), "r2".into(), vec![span("c.rs", 30, 40)]),
        ];
        let spans = Arm::of_units(
            "chunks",
            "chunks",
            ArmOrigin::Archived,
            vec![
                vec![
                    span("a.rs", 15, 30),
                    span("a.rs", 18, 40),
                    span("x.rs", 1, 2),
                ],
                vec![span("x.rs", 1, 9), span("b.rs", 6, 9)],
                vec![span("c.rs", 35, 50)],
            ],
        );
        let files = Arm::new(
            "files",
            "files",
            ArmOrigin::Archived,
            vec![
                vec!["a.rs".into()],
                vec!["x.rs".into(), "b.rs".into()],
                vec![],
            ],
        );
        Study {
            title: "t".into(),
            cases,
            arms: vec![spans, files],
            policy: None,
            issue_source: None,
        }
    }

    fn setup(clustering: Clustering) -> MetricSetup {
        MetricSetup {
            relevance: Relevance::Span,
            clustering,
            bootstrap: BootstrapConfig {
                resamples: 200,
                seed: 0,
            },
        }
    }

    #[test]
    fn defaults_follow_the_study() {
        let study = study();
        assert_eq!(default_relevance(&study), Relevance::Span);
        assert!(default_metrics(&study).contains(&Metric::SpanMrr));
        let mut files_only = study.clone();
        files_only.arms.remove(0);
        assert_eq!(default_relevance(&files_only), Relevance::File);
        assert!(!default_metrics(&files_only).contains(&Metric::SpanMrr));
    }

    #[test]
    fn the_metric_table_has_every_mean_with_an_interval_and_a_dash_where_undefined() {
        let study = study();
        let metrics = [Metric::SpanRecall(1), Metric::FileRecall(1)];
        let table = metric_table(&study, &[0, 1], &metrics, &setup(Clustering::Case)).unwrap();
        assert_eq!(
            table.headers,
            ["arm", "label", "span_recall@1", "file_recall@1"]
        );
        // Span recall@1 of the span arm: a hits (15–30 overlaps 10–20), b misses, c hits.
        let cell = &table.rows[0][2];
        assert_eq!(cell.value, Some(2.0 / 3.0));
        let (low, high) = cell.interval.unwrap();
        assert!(low <= 2.0 / 3.0 && 2.0 / 3.0 <= high && (0.0..=1.0).contains(&low));
        assert_eq!(table.rows[1][2], Cell::missing());
        // File recall@1 of the file arm: a yes, b no (x.rs first), c no (empty ranking).
        assert_eq!(table.rows[1][3].value, Some(1.0 / 3.0));
    }

    #[test]
    fn per_repository_cells_resample_the_repository_s_cases() {
        let study = study();
        let table = repo_metric_table(
            &study,
            &[0],
            Metric::SpanRecall(1),
            &setup(Clustering::Repo),
        )
        .unwrap();
        assert_eq!(table.rows[0][0].text, "r1");
        assert_eq!(table.rows[0][1].text, "2");
        // r1: a hits, b misses: the mean is 0.5 and the interval spans both cases' values.
        assert_eq!(table.rows[0][2].value, Some(0.5));
        assert_eq!(table.rows[0][2].interval, Some((0.0, 1.0)));
        // r2 has one case: the interval is the point.
        assert_eq!(table.rows[1][2].interval, Some((1.0, 1.0)));
    }

    #[test]
    fn a_case_s_units_show_lines_hits_and_what_deduplication_drops() {
        let study = study();
        let table = case_units_table(&study, 0, 0);
        assert_eq!(table.title, "chunks: 3 units of case a");
        let texts: Vec<Vec<&str>> = table
            .rows
            .iter()
            .map(|row| row.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(texts[0], ["1", "a.rs", "L15–L30", "yes", "L10–L20", "yes"]);
        assert_eq!(
            texts[1],
            [
                "2",
                "a.rs",
                "L18–L40",
                "yes",
                "L10–L20",
                "no: overlaps rank 1"
            ]
        );
        assert_eq!(texts[2], ["3", "x.rs", "L1–L2", "", "", "yes"]);
        let files = case_units_table(&study, 1, 1);
        assert_eq!(files.rows[1][2].text, "whole file");
        assert_eq!(files.rows[1][3].text, "yes");
    }

    #[test]
    fn a_case_s_metric_values_per_arm() {
        let study = study();
        let table =
            case_metric_table(&study, 1, &[Metric::Mrr, Metric::SpanMrr], Relevance::File).unwrap();
        // Case b under file relevance: b.rs is second in both arms.
        assert_eq!(table.rows[0][1].value, Some(0.5));
        assert_eq!(table.rows[1][1].value, Some(0.5));
        // Span MRR: the span arm's b.rs 6–9 misses gold 1–5; the file arm has no spans.
        assert_eq!(table.rows[0][2].value, Some(0.0));
        assert_eq!(table.rows[1][2], Cell::missing());
    }
}
