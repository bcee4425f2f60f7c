//! `routelens score TABLE.csv`: a per-case score table (engine `score_table`) scored: each
//! requested metric's column means with their cluster-bootstrap intervals, and the paired
//! comparisons with their sentences, as text, CSV or JSON.

use std::io::Write;
use std::path::Path;

use routelens_engine::scoring::score_table::{load_score_table, CellSummary, Mapping, ScorePair};
use routelens_engine::{BootstrapConfig, Table};

use crate::cli::{ClusterArg, Format, ScoreArgs};
use crate::failure::Failure;
use crate::input::read_text;
use crate::render::text_table;

/// The JSON report of a score table.
#[derive(Debug, serde::Serialize)]
struct Report<'a> {
    study: &'a str,
    kind: &'static str,
    cases: usize,
    clusters: usize,
    cluster: &'static str,
    frame: &'a str,
    resamples: usize,
    seed: u64,
    metrics: Vec<CellSummary>,
    paired: Vec<ScorePair>,
}

/// Whether `path` names a score table.
pub fn is_score_table(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("csv"))
}

/// Scores the table at `args.study` and writes the report.
pub fn run(args: &ScoreArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if args.depth.is_some() {
        return Err(Failure::Usage(format!(
            "{}: --depth cuts rankings, and a score table holds values, not rankings",
            args.study.display()
        )));
    }
    let text = read_text(&args.study)?;
    let file = args.study.display().to_string();
    let mapping = mapping(args, &text)?;
    let mut table = load_score_table(&file, &text, &mapping)?;
    if args.cluster == ClusterArg::Case {
        table = table.clustered_by_case();
    }
    let frame = args
        .frame
        .clone()
        .unwrap_or_else(|| mapping.headline_frame().to_string());
    let metrics: Vec<String> = if !args.metrics.is_empty() {
        args.metrics.clone()
    } else if let Some(metric) = &mapping.headline_metric {
        vec![metric.clone()]
    } else {
        table
            .metrics(&frame)
            .iter()
            .map(|m| m.to_string())
            .collect()
    };
    let pairs: Vec<(String, String)> = if args.pair.is_empty() {
        mapping.pairs.clone()
    } else {
        args.pair
            .iter()
            .map(|p| (p.left.clone(), p.right.clone()))
            .collect()
    };
    // The source's own bootstrap settings (CodeNib's 5,000 resamples and seed) unless asked.
    let fallback = table.mapping.bootstrap_config(BootstrapConfig::default());
    let bootstrap = BootstrapConfig {
        resamples: args.resamples.unwrap_or(fallback.resamples),
        seed: args.seed.unwrap_or(fallback.seed),
    };
    let draws = table.draws(bootstrap)?;
    let mut summaries = Vec::new();
    let mut tables = Vec::new();
    for metric in &metrics {
        tables.push(table.metric_table(&frame, metric, &draws)?);
        for column in table.columns_of(&frame, metric) {
            summaries.push(table.summary(column, &draws)?);
        }
    }
    let mut paired = Vec::new();
    for metric in &metrics {
        for (left, right) in &pairs {
            paired.push(table.compare(&frame, left, right, metric, &draws)?);
        }
    }
    let text = match args.format {
        Format::Json => {
            let report = Report {
                study: &file,
                kind: "score-table",
                cases: table.cases.len(),
                clusters: table.cluster_count(),
                cluster: match args.cluster {
                    ClusterArg::Repo => "repo",
                    ClusterArg::Case => "case",
                },
                frame: &frame,
                resamples: bootstrap.resamples,
                seed: bootstrap.seed,
                metrics: summaries,
                paired,
            };
            serde_json::to_string_pretty(&report).map_err(|err| Failure::Io {
                context: "writing JSON".into(),
                source: std::io::Error::other(err),
            })? + "\n"
        }
        Format::Table => {
            let mut text = String::new();
            for shown in &tables {
                text += &text_table(shown);
                text += "\n";
            }
            if !paired.is_empty() {
                text += &text_table(&table.pair_table(&paired));
                text += "\n";
                for pair in &paired {
                    text += &format!("{}\n", pair.sentence);
                }
            }
            text
        }
        Format::Csv => tables
            .iter()
            .chain(std::iter::once(&table.pair_table(&paired)))
            .map(Table::to_csv)
            .collect::<Vec<_>>()
            .join("\n"),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// The mapping `--mapping` names, or CodeNib's for a table with its id and cluster columns.
fn mapping(args: &ScoreArgs, text: &str) -> Result<Mapping, Failure> {
    match args.mapping.as_deref() {
        Some("codenib") => Ok(Mapping::codenib()),
        Some(path) => {
            let path = Path::new(path);
            Ok(Mapping::from_json(
                &path.display().to_string(),
                &read_text(path)?,
            )?)
        }
        None => Mapping::detect(text.lines().next().unwrap_or_default()).ok_or_else(|| {
            Failure::Usage(format!(
                "{}: a score table needs --mapping FILE.json (which columns are the id, the \
                 cluster, the frames; see docs/formats.md, \"Per-case score tables\"), or --mapping codenib",
                args.study.display()
            ))
        }),
    }
}
