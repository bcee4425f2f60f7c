//! `routelens evaluate`: the CodeAtlas harness over a bundle's chunkings. Every combination of
//! chunker × retriever × cap is an arm of one study of the question set (engine `evaluate`);
//! every metric gets its interval, every pair its sentence; with caps, the dev half chooses each
//! chunker's cap and the choice is reported on all questions; the failure analysis says what
//! fills the misses' top k. A question set that pins its corpus is checked against the bundle
//! first.

use std::collections::BTreeMap;
use std::io::Write;

use routelens_engine::code_chunks::{Chunker, CodeChunk};
use routelens_engine::evaluate::{
    choose_on_dev, counted, dev_test_split, evaluation_study, failure_analysis, mean_over,
    relevance_of, Configuration, FailureAnalysis, Ranked, Retriever,
};
use routelens_engine::metric_tables::{metric_table, MetricSetup};
use routelens_engine::question_set::{parse_question_set, verify_corpus};
use routelens_engine::tables::paired_table;
use routelens_engine::unit_metrics::{
    compare_metric_pairs, summarize_metrics, Clustering, Metric, MetricSummary, Relevance,
};
use routelens_engine::{BootstrapConfig, PairedComparison, Table};

use crate::cli::{parse_chunker, ClusterArg, EvaluateArgs, Format};
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::render::text_table;

/// Matches fetched before a cap reorders a ranking (the cap moves chunks up from below).
const CAPPED_POOL: usize = 1_000;

/// The cap chosen on the dev half for one chunker and retriever.
#[derive(Debug, serde::Serialize)]
struct Chosen {
    /// The configuration without a cap.
    base: String,
    /// The configuration chosen (possibly the uncapped one).
    chosen: String,
    /// Its dev mean of the selection metric.
    dev_mean: f64,
    /// Its mean on the test half.
    test_mean: f64,
    /// Its mean on all questions, with the interval.
    all: Option<MetricSummary>,
}

/// The dev/test split and what it chose.
#[derive(Debug, serde::Serialize)]
struct Split {
    dev: Vec<String>,
    test: Vec<String>,
    selection_metric: String,
    chosen: Vec<Chosen>,
}

/// What `evaluate --format json` prints.
#[derive(Debug, serde::Serialize)]
struct Report {
    bundle: String,
    questions: usize,
    relevance: &'static str,
    cluster: &'static str,
    resamples: usize,
    seed: u64,
    depth: usize,
    selection_metric: String,
    configurations: Vec<String>,
    metrics: Vec<MetricSummary>,
    paired: Vec<PairedComparison>,
    #[serde(skip_serializing_if = "Option::is_none")]
    split: Option<Split>,
    failures: Vec<FailureAnalysis>,
}

/// Runs `evaluate`.
pub fn run(args: &EvaluateArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let bootstrap = BootstrapConfig {
        resamples: args.resamples,
        seed: args.seed,
    }
    .validated()?;
    if args.depth == 0 {
        return Err(Failure::Usage("--depth must be at least 1".into()));
    }
    let name = args.questions.display().to_string();
    let set = parse_question_set(&name, &read_text(&args.questions)?)?;
    if set.questions.is_empty() {
        return Err(Failure::Usage(format!("{name}: no questions")));
    }
    let folder = BundleFolder::open(&args.bundle)?;
    if let Some(pinned) = &set.corpus {
        verify_corpus(pinned, &folder.manifest, &args.bundle.display().to_string())?;
    }
    let chunkers: Vec<Chunker> = if args.chunkers.is_empty() {
        folder
            .manifest
            .chunkings
            .iter()
            .map(|c| c.chunker)
            .collect()
    } else {
        args.chunkers
            .iter()
            .map(|n| parse_chunker(n))
            .collect::<Result<_, _>>()?
    };
    if chunkers.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: the bundle has no chunkings; rebuild it with `routelens bundle`",
            args.bundle.display()
        )));
    }
    let retrievers: Vec<Retriever> = if args.retrievers.is_empty() {
        Retriever::ALL.to_vec()
    } else {
        args.retrievers
            .iter()
            .map(|n| {
                Retriever::from_name(n).ok_or_else(|| {
                    Failure::Usage(format!(
                        "--retriever: unknown retriever {n:?}; expected bm25"
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    if args.caps.contains(&0) {
        return Err(Failure::Usage("--cap must be at least 1".into()));
    }
    // Each chunking's table and, per question, its uncapped ranking.
    let mut tables: BTreeMap<Chunker, (Vec<CodeChunk>, Vec<Vec<usize>>)> = BTreeMap::new();
    let pool = if args.caps.is_empty() {
        args.depth
    } else {
        args.depth.max(CAPPED_POOL)
    };
    for &chunker in &chunkers {
        let table = folder.open_chunking(chunker)?;
        let index = folder.open_chunk_index(chunker, &table)?;
        let rankings = set
            .questions
            .iter()
            .map(|q| {
                index
                    .search(&q.question, pool)
                    .map(|hits| hits.into_iter().map(|h| h.chunk).collect())
            })
            .collect::<Result<Vec<Vec<usize>>, _>>()?;
        tables.insert(chunker, (table, rankings));
    }
    let mut configs = Vec::new();
    for &chunker in &chunkers {
        for &retriever in &retrievers {
            for cap in std::iter::once(None).chain(args.caps.iter().map(|&c| Some(c))) {
                configs.push(Configuration {
                    chunker,
                    retriever,
                    cap,
                });
            }
        }
    }
    let ranked: Vec<Ranked> = configs
        .iter()
        .map(|config| {
            let (table, rankings) = &tables[&config.chunker];
            (*config, table.as_slice(), rankings.as_slice())
        })
        .collect();
    let project_of = |path: &str| set.project_of(path);
    let study = evaluation_study(&set.questions, &project_of, &ranked, args.depth)?;
    let relevance = relevance_of(&set.questions);
    let clustering = match args.cluster {
        ClusterArg::Case => Clustering::Case,
        ClusterArg::Repo => Clustering::Repo,
    };
    let metrics = metrics(args, relevance)?;
    let summaries = summarize_metrics(&study, &metrics, clustering, relevance, bootstrap)?;
    let pairs = pairs(args, &configs);
    let all: Vec<usize> = (0..study.cases.len()).collect();
    let mut paired = Vec::new();
    for &metric in &metrics {
        paired.extend(compare_metric_pairs(
            &study,
            &pairs,
            metric,
            (clustering, relevance),
            &all,
            bootstrap,
        )?);
    }
    let select_by = Metric::parse(&args.select_by)?;
    let split = if args.caps.is_empty() {
        None
    } else {
        let (dev, test) = dev_test_split(&study);
        let selected = summarize_metrics(&study, &[select_by], clustering, relevance, bootstrap)?;
        let mut chosen = Vec::new();
        for config in configs.iter().filter(|c| c.cap.is_none()) {
            let candidates: Vec<String> = configs
                .iter()
                .filter(|c| c.uncapped() == *config)
                .map(Configuration::name)
                .collect();
            let (best, dev_mean) = choose_on_dev(&study, &candidates, select_by, relevance, &dev)?;
            let test_mean = mean_over(&study, &best, select_by, relevance, &test)?;
            let all = selected.iter().find(|s| s.arm == best).cloned();
            chosen.push(Chosen {
                base: config.name(),
                chosen: best,
                dev_mean,
                test_mean,
                all,
            });
        }
        let ids = |cases: &[usize]| cases.iter().map(|&c| study.cases[c].id.clone()).collect();
        Some(Split {
            dev: ids(&dev),
            test: ids(&test),
            selection_metric: select_by.name(),
            chosen,
        })
    };
    let at_k = args.k.iter().copied().max().unwrap_or(10);
    let analysed: Vec<String> = match &args.failures {
        Some(name) => {
            study.arm(name)?;
            vec![name.clone()]
        }
        None => configs.iter().map(Configuration::name).collect(),
    };
    let failures = analysed
        .iter()
        .map(|arm| failure_analysis(&study, arm, at_k, relevance, &project_of, bootstrap))
        .collect::<Result<Vec<_>, _>>()?;
    let report = Report {
        bundle: args.bundle.display().to_string(),
        questions: study.cases.len(),
        relevance: match relevance {
            Relevance::File => "file",
            Relevance::Span => "span",
        },
        cluster: match clustering {
            Clustering::Case => "case",
            Clustering::Repo => "project",
        },
        resamples: bootstrap.resamples,
        seed: bootstrap.seed,
        depth: args.depth,
        selection_metric: select_by.name(),
        configurations: configs.iter().map(Configuration::name).collect(),
        metrics: summaries,
        paired,
        split,
        failures,
    };
    let setup = MetricSetup {
        relevance,
        clustering,
        bootstrap,
    };
    let arms: Vec<usize> = (0..study.arms.len()).collect();
    let grid = metric_table(&study, &arms, &metrics, &setup)?;
    let text = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(&report).map_err(|e| Failure::Io {
                context: "writing JSON".into(),
                source: std::io::Error::other(e),
            })? + "\n"
        }
        Format::Table => table_text(&report, &grid),
        Format::Csv => [grid, paired_table(&report.paired)]
            .iter()
            .map(Table::to_csv)
            .collect::<Vec<_>>()
            .join("\n"),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// The metrics asked for, or the defaults for `--k` and the relevance.
fn metrics(args: &EvaluateArgs, relevance: Relevance) -> Result<Vec<Metric>, Failure> {
    if !args.metrics.is_empty() {
        return Ok(args
            .metrics
            .iter()
            .map(|n| Metric::parse(n))
            .collect::<Result<_, _>>()?);
    }
    let mut metrics = Vec::new();
    for &k in &args.k {
        Metric::parse(&format!("hit@{k}"))?;
        metrics.extend([Metric::Hit(k), Metric::FileRecall(k)]);
    }
    metrics.extend([Metric::Mrr, Metric::Ndcg(10)]);
    if relevance == Relevance::Span {
        let k = args.k.iter().copied().max().unwrap_or(10);
        metrics.extend([Metric::SpanRecall(k), Metric::SpanMrr]);
    }
    Ok(metrics)
}

/// The pairs asked for, or the defaults: for each retriever and cap, structural against window
/// and against structural-unmerged; and each capped configuration against its uncapped one.
fn pairs(args: &EvaluateArgs, configs: &[Configuration]) -> Vec<(String, String)> {
    if !args.pair.is_empty() {
        return args
            .pair
            .iter()
            .map(|p| (p.left.clone(), p.right.clone()))
            .collect();
    }
    let mut out = Vec::new();
    for config in configs.iter().filter(|c| c.chunker == Chunker::Structural) {
        for other in [Chunker::Window, Chunker::StructuralUnmerged] {
            let right = Configuration {
                chunker: other,
                ..*config
            };
            if configs.contains(&right) {
                out.push((config.name(), right.name()));
            }
        }
    }
    for config in configs.iter().filter(|c| c.cap.is_some()) {
        out.push((config.name(), config.uncapped().name()));
    }
    out
}

fn table_text(report: &Report, grid: &Table) -> String {
    let mut text = format!(
        "{} questions, {} configurations; {} relevance, intervals by {} ({} resamples, seed {}), \
         rankings cut at {}\n\n",
        report.questions,
        report.configurations.len(),
        report.relevance,
        report.cluster,
        report.resamples,
        report.seed,
        report.depth
    );
    text += &text_table(grid);
    // Every pair on every metric is in the JSON; the text gives the selection metric's.
    let shown: Vec<&PairedComparison> = report
        .paired
        .iter()
        .filter(|row| row.metric == report.selection_metric)
        .collect();
    if !shown.is_empty() {
        text += &format!(
            "\nPairs on {} (every metric's in --format json):\n",
            report.selection_metric
        );
        for row in shown {
            text += &format!("{}\n", row.sentence);
        }
    }
    if let Some(split) = &report.split {
        text += &format!(
            "\nDev/test split by question id: {} dev, {} test; caps chosen on dev by {}:\n",
            split.dev.len(),
            split.test.len(),
            split.selection_metric
        );
        for c in &split.chosen {
            let all = c.all.as_ref().map_or_else(String::new, |s| {
                format!(
                    "; all questions {:.3} [{:.3}, {:.3}]",
                    s.mean, s.ci_low, s.ci_high
                )
            });
            text += &format!(
                "  {}: {} (dev {:.3}, test {:.3}{all})\n",
                c.base, c.chosen, c.dev_mean, c.test_mean
            );
        }
    }
    if !report.failures.is_empty() {
        text += "\nFailure analysis (what fills the top k of the misses, against the hits):\n";
        for f in &report.failures {
            text += &format!(
                "  {} at {}: {}, {}\n",
                f.arm,
                f.k,
                counted(f.misses, "miss", "misses"),
                counted(f.hits, "hit", "hits")
            );
            for share in &f.shares {
                text += &format!("    {}\n", share.sentence);
            }
        }
    }
    text
}
