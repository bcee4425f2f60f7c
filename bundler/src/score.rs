//! `routelens score`: load a study, let the engine score it, print the report.

use std::io::Write;

use routelens_engine::{
    score, scoring::tables, ArmOrigin, BootstrapConfig, Cell, PairedComparison, PairedMetric,
    RrfConfig, ScoreConfig, Study, Table,
};

use routelens_engine::scoring::unit_metrics::{
    compare_metric_pairs, summarize_metrics, Clustering, Metric, MetricSummary, Relevance,
};

use routelens_engine::scoring::stats::{DEFAULT_RESAMPLES, DEFAULT_SEED};

use crate::cli::{ClusterArg, Format, RelevanceArg, ScoreArgs};
use crate::failure::Failure;
use crate::input::load_study;
use crate::render::text_table;

/// Runs `score` and writes the report to `out`.
pub fn run(args: &ScoreArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if crate::score_table::is_score_table(&args.study) {
        return crate::score_table::run(args, out);
    }
    let mut study = load_study(&args.study, args.qrels.as_deref())?;
    if let Some(depth) = args.depth {
        study.cut_to_depth(depth)?;
    }
    let config = config(&study, args);
    let (study, mut report) = score(&study, &config)?;
    let metrics = metric_summaries(&study, args, config.bootstrap)?;
    // Each --metric's paired comparisons join today's file-recall pairs, each with its sentence.
    report
        .paired
        .extend(metric_pairs(&study, args, &config.pairs, config.bootstrap)?);
    let text = match args.format {
        Format::Json => {
            // Today's report, key for key in its order, then the metrics when asked for.
            #[derive(serde::Serialize)]
            struct WithMetrics<'a, R: serde::Serialize> {
                #[serde(flatten)]
                report: &'a R,
                #[serde(skip_serializing_if = "Option::is_none")]
                metrics: Option<&'a [MetricSummary]>,
            }
            let with = WithMetrics {
                report: &report,
                metrics: metrics.as_deref(),
            };
            serde_json::to_string_pretty(&with).map_err(json_failure)? + "\n"
        }
        Format::Table => {
            let mut text = text_table(&tables::file_recall_table(&study, &config.ks));
            if let Some(summaries) = &metrics {
                text += "\n";
                text += &text_table(&metric_table(summaries));
            }
            text += "\n";
            if report.paired.is_empty() {
                text += &no_pair_line(&study);
            } else {
                text += &text_table(&tables::paired_table(&report.paired));
                text += "\n";
            }
            // Today's lines for the file-recall pairs; a --metric pair's sentence says it all.
            for row in &report.paired {
                if row.metric == PairedMetric::FileRecall.name() {
                    text += &sign_flip_line(row);
                } else {
                    text += &format!("{}\n", row.sentence);
                }
            }
            text
        }
        Format::Csv => [
            tables::file_recall_table(&study, &config.ks),
            tables::paired_table(&report.paired),
            sign_flip_table(&report.paired),
        ]
        .into_iter()
        .chain(metrics.as_deref().map(metric_table))
        .collect::<Vec<_>>()
        .iter()
        .map(Table::to_csv)
        .collect::<Vec<_>>()
        .join("\n"),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

fn json_failure(err: serde_json::Error) -> Failure {
    Failure::Io {
        context: "writing JSON".into(),
        source: std::io::Error::other(err),
    }
}

/// The `--metric`s of every arm with their intervals, when any is asked for.
fn metric_summaries(
    study: &Study,
    args: &ScoreArgs,
    bootstrap: BootstrapConfig,
) -> Result<Option<Vec<MetricSummary>>, Failure> {
    if args.metrics.is_empty() {
        return Ok(None);
    }
    let metrics = args
        .metrics
        .iter()
        .map(|name| Metric::parse(name))
        .collect::<Result<Vec<_>, _>>()?;
    let (clustering, relevance) = settings(args);
    Ok(Some(summarize_metrics(
        study, &metrics, clustering, relevance, bootstrap,
    )?))
}

/// The configured pairs compared on every `--metric`.
fn metric_pairs(
    study: &Study,
    args: &ScoreArgs,
    pairs: &[(String, String)],
    bootstrap: BootstrapConfig,
) -> Result<Vec<PairedComparison>, Failure> {
    let all: Vec<usize> = (0..study.cases.len()).collect();
    let mut out = Vec::new();
    for name in &args.metrics {
        let metric = Metric::parse(name)?;
        out.extend(compare_metric_pairs(
            study,
            pairs,
            metric,
            settings(args),
            &all,
            bootstrap,
        )?);
    }
    Ok(out)
}

/// `--cluster` and `--relevance` in the engine's terms.
fn settings(args: &ScoreArgs) -> (Clustering, Relevance) {
    (
        match args.cluster {
            ClusterArg::Repo => Clustering::Repo,
            ClusterArg::Case => Clustering::Case,
        },
        match args.relevance {
            RelevanceArg::File => Relevance::File,
            RelevanceArg::Span => Relevance::Span,
        },
    )
}

/// The metric summaries as a table.
pub fn metric_table(summaries: &[MetricSummary]) -> Table {
    let mut table = Table::new(
        "Metrics by arm, with 95% bootstrap intervals",
        &["arm", "metric", "mean", "95% low", "95% high", "n"],
    );
    for row in summaries {
        table.rows.push(vec![
            Cell::text(&row.arm),
            Cell::text(&row.metric),
            Cell::number(row.mean, 4),
            Cell::number(row.ci_low, 4),
            Cell::number(row.ci_high, 4),
            Cell::count(row.n),
        ]);
    }
    table
}

/// The engine's configuration from the command line.
///
/// The rank constant applies to every fusion in the report: the study's own fusions (the
/// archive's tree+fts5) are re-fused with it, so `--rrf-k 30` never leaves a fusion at 60
/// silently. Re-fusing with unchanged settings gives the same rankings, so the default output is
/// the loader's.
fn config(study: &Study, args: &ScoreArgs) -> ScoreConfig {
    let mut fusions: Vec<Vec<String>> = study
        .arms
        .iter()
        .filter_map(|arm| match &arm.origin {
            ArmOrigin::Fusion { parts, .. } => Some(parts.clone()),
            ArmOrigin::Archived => None,
        })
        .collect();
    for parts in &args.fuse {
        if !fusions.contains(parts) {
            fusions.push(parts.clone());
        }
    }
    // The paper's tree:fts5 only for a study that has both arms; a --pair must name real arms.
    let pairs = if args.pair.is_empty() {
        ScoreConfig::default_pairs(study)
    } else {
        args.pair
            .iter()
            .map(|pair| (pair.left.clone(), pair.right.clone()))
            .collect()
    };
    ScoreConfig {
        ks: args.k.clone(),
        fusions,
        rrf: RrfConfig {
            rank_constant: args.rrf_k,
            ..RrfConfig::default()
        },
        bootstrap: BootstrapConfig {
            resamples: args.resamples.unwrap_or(DEFAULT_RESAMPLES),
            seed: args.seed.unwrap_or(DEFAULT_SEED),
        },
        pairs,
    }
}

/// What the text report says instead of an empty Table 4: the study lacks the paper's arms, and
/// `--pair` compares two of its own.
fn no_pair_line(study: &Study) -> String {
    let (left, right) = routelens_engine::scoring::report::PAPER_PAIR;
    let names = study.arm_names();
    match &names[..] {
        [] => "No paired comparison: this study has no arms\n".into(),
        [one] => format!("No paired comparison: this study has one arm ({one})\n"),
        [first, second, ..] => format!(
            "No paired comparison: the default {left}:{right} needs both arms; name two of this \
             study's arms ({}) with --pair, e.g. --pair {first}:{second}\n",
            names.join(", ")
        ),
    }
}

/// How many of the 2^repos sign assignments were at least as extreme: the exact p's numerator,
/// which is how the paper states it (16/2048).
fn extreme_assignments(row: &PairedComparison) -> (u64, u64) {
    let assignments = 1u64 << row.repos.min(63);
    let extreme = (row.sign_flip_p * assignments as f64).round() as u64;
    (extreme, assignments)
}

/// One sentence per pair, with the exact p (the table rounds it to four decimals).
fn sign_flip_line(row: &PairedComparison) -> String {
    let (extreme, assignments) = extreme_assignments(row);
    format!(
        "Sign-flip test, {} - {} at k = {}: p = {} ({extreme}/{assignments} sign assignments over {} repositories)\n",
        row.left, row.right, row.k, row.sign_flip_p, row.repos
    )
}

/// The sign-flip tests as a table, for CSV.
fn sign_flip_table(rows: &[PairedComparison]) -> Table {
    let mut table = Table::new(
        "Sign-flip tests",
        &[
            "left",
            "right",
            "k",
            "repositories",
            "extreme",
            "assignments",
            "p",
        ],
    );
    for row in rows.iter().filter(|row| row.sign_flip_p.is_finite()) {
        let (extreme, assignments) = extreme_assignments(row);
        table.rows.push(vec![
            Cell::text(&row.left),
            Cell::text(&row.right),
            Cell::count(row.k),
            Cell::count(row.repos),
            Cell::count(extreme as usize),
            Cell::count(assignments as usize),
            Cell {
                text: row.sign_flip_p.to_string(),
                value: Some(row.sign_flip_p),
                interval: None,
            },
        ]);
    }
    table
}
