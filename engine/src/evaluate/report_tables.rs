//! The grid's report as tables — what the page shows and what `--format csv` writes.

use super::grid::{GridReport, SHIPPED};
use crate::scoring::metric_tables::{clustering_name, relevance_name};
use crate::scoring::tables::paired_table;
use crate::scoring::unit_metrics::{Clustering, Relevance};
use crate::table::{Cell, Table};

/// The metrics CodeAtlas's own table shows, in its order (recall is file recall); every other
/// metric is in the full table.
pub const HEADLINE_METRICS: [&str; 3] = ["hit@5", "file_recall@5", "mrr"];

/// CodeAtlas's table layout: a row per configuration, hit@5, recall@5 and MRR with their
/// intervals (the ones of [`HEADLINE_METRICS`] the grid computed), the shipped configuration
/// named in its row.
pub fn headline_table(report: &GridReport) -> Table {
    let metrics: Vec<&str> = HEADLINE_METRICS
        .into_iter()
        .filter(|m| report.metric_names.iter().any(|n| n == m))
        .collect();
    let mut table = Table {
        title: "CodeAtlas's columns, with 95% intervals (every metric: the table below)".into(),
        headers: std::iter::once("configuration")
            .chain(metrics.iter().copied())
            .map(String::from)
            .collect(),
        rows: Vec::new(),
    };
    for config in &report.configurations {
        let mut row = vec![Cell::text(shown_name(config))];
        row.extend(
            metrics
                .iter()
                .map(|metric| estimate(report, config, metric)),
        );
        table.rows.push(row);
    }
    table
}

/// One metric of every configuration, for the grid's dot chart: the label column names the
/// shipped configuration.
pub fn metric_column(report: &GridReport, metric: &str) -> Table {
    Table {
        title: format!("{metric} with 95% intervals"),
        headers: vec!["configuration".into(), metric.into()],
        rows: report
            .configurations
            .iter()
            .map(|config| {
                vec![
                    Cell::text(shown_name(config)),
                    estimate(report, config, metric),
                ]
            })
            .collect(),
    }
}

/// A configuration's name, the shipped one marked.
fn shown_name(config: &str) -> String {
    if config == SHIPPED.name() {
        format!("{config} (shipped)")
    } else {
        config.to_string()
    }
}

/// `config`'s `metric` with its interval, or an empty cell.
fn estimate(report: &GridReport, config: &str, metric: &str) -> Cell {
    report
        .metrics
        .iter()
        .find(|s| s.arm == config && s.metric == metric)
        .map_or_else(Cell::missing, |s| {
            Cell::estimate(s.mean, s.ci_low, s.ci_high, 3)
        })
}

/// The report as tables: the grid (every configuration's every metric with its interval), the
/// pairs, the split (when there are caps) and the failure analysis — what the page shows and
/// what `--format csv` writes.
pub fn grid_tables(report: &GridReport) -> Vec<Table> {
    let mut grid = Table {
        title: format!(
            "Metrics with 95% intervals ({} questions, by {}, {} relevance)",
            report.questions,
            clustering_name(match report.cluster.as_str() {
                "project" => Clustering::Repo,
                _ => Clustering::Case,
            }),
            relevance_name(match report.relevance.as_str() {
                "span" => Relevance::Span,
                _ => Relevance::File,
            })
        ),
        headers: std::iter::once("configuration".to_string())
            .chain(report.metric_names.iter().cloned())
            .collect(),
        rows: Vec::new(),
    };
    for config in &report.configurations {
        let mut row = vec![Cell::text(config)];
        for metric in &report.metric_names {
            row.push(estimate(report, config, metric));
        }
        grid.rows.push(row);
    }
    let mut pairs = paired_table(&report.paired);
    pairs.title = "Paired differences (left − right)".into();
    let mut tables = vec![grid, pairs];
    if let Some(split) = &report.split {
        let mut table = Table::new(
            &format!(
                "Caps chosen on the dev half ({} dev, {} test questions) by {}",
                split.dev.len(),
                split.test.len(),
                split.selection_metric
            ),
            &["configuration", "chosen", "dev", "test", "all questions"],
        );
        for c in &split.chosen {
            table.rows.push(vec![
                Cell::text(&c.base),
                Cell::text(&c.chosen),
                Cell::number(c.dev_mean, 3),
                Cell::number(c.test_mean, 3),
                c.all.as_ref().map_or_else(Cell::missing, |s| {
                    Cell::estimate(s.mean, s.ci_low, s.ci_high, 3)
                }),
            ]);
        }
        tables.push(table);
    }
    let mut failures = Table::new(
        "Failure analysis: what fills the top k of the misses, against the hits",
        &[
            "configuration",
            "k",
            "misses",
            "hits",
            "share",
            "misses mean",
            "hits mean",
            "difference",
        ],
    );
    for f in &report.failures {
        for share in &f.shares {
            failures.rows.push(vec![
                Cell::text(&f.arm),
                Cell::count(f.k),
                Cell::count(f.misses),
                Cell::count(f.hits),
                Cell::text(&share.share),
                Cell::number(share.misses_mean, 3),
                Cell::number(share.hits_mean, 3),
                match (share.ci_low, share.ci_high) {
                    (Some(low), Some(high)) => Cell::estimate(share.difference, low, high, 3),
                    _ => Cell::signed(share.difference, 3),
                },
            ]);
        }
    }
    tables.push(failures);
    tables
}
