//! `routelens evaluate`: the CodeAtlas harness over a bundle's chunkings — the engine's
//! [`GridRun`] driven to the end over the bundle's opened chunkings, then printed. Every
//! combination of chunker × retriever × cap is an arm of one study of the question set; every
//! metric gets its interval, every pair its sentence; with caps, the dev half chooses each
//! chunker's cap and the choice is reported on all questions; the failure analysis says what
//! fills the misses' top k. A question set that pins its corpus is checked against the bundle
//! first.

use std::io::Write;

use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::evaluate::adjudication_report::{self, gold_agreement, SecondGold};
use routelens_engine::evaluate::{
    counted, grid_tables, GridReport, GridRun, GridSettings, Retriever,
};
use routelens_engine::load::question_set::parse_question_set;
use routelens_engine::scoring::unit_metrics::Clustering;
use routelens_engine::{BootstrapConfig, PairedComparison, Table};

use routelens_engine::retrieval::chunk_search::ChunkRankings;
use routelens_engine::retrieval::cross_encoder::model::ChunkTexts;

use crate::cli::{
    parse_chunker, parse_rerank_input, parse_retriever, ClusterArg, EvaluateArgs, Format,
};
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::model::{load_cross_encoder, ModelChoice};
use crate::render::text_table;

/// What `evaluate --format json` prints: the bundle, then the engine's report.
#[derive(Debug, serde::Serialize)]
struct Printed<'r> {
    bundle: String,
    #[serde(flatten)]
    report: &'r GridReport,
    /// The same grid against `--also-questions`' gold, and how far the two golds agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    also: Option<&'r SecondGold>,
}

/// The engine's settings from the command line.
fn settings(args: &EvaluateArgs) -> Result<GridSettings, Failure> {
    let chunkers = args
        .chunkers
        .iter()
        .map(|n| parse_chunker(n))
        .collect::<Result<Vec<Chunker>, _>>()?;
    let retrievers = args
        .retrievers
        .iter()
        .map(|n| parse_retriever(n))
        .collect::<Result<Vec<_>, _>>()?;
    let capped = args
        .capped
        .iter()
        .map(|n| parse_retriever(n))
        .collect::<Result<Vec<_>, _>>()?;
    let rerankers = args
        .rerankers
        .iter()
        .map(|n| parse_rerank_input(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(GridSettings {
        chunkers,
        retrievers,
        caps: args.caps.clone(),
        capped,
        rerankers,
        rerank_top: args.rerank_top,
        reranker_model: None,
        k: args.k.clone(),
        metrics: args.metrics.clone(),
        pairs: args
            .pair
            .iter()
            .map(|p| (p.left.clone(), p.right.clone()))
            .collect(),
        select_by: args.select_by.clone(),
        failures: args.failures.clone(),
        clustering: match args.cluster {
            ClusterArg::Case => Clustering::Case,
            ClusterArg::Repo => Clustering::Repo,
        },
        depth: args.depth,
        resamples: args.resamples,
        seed: args.seed,
    })
}

/// Runs `evaluate`.
pub fn run(args: &EvaluateArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut settings = settings(args)?;
    let name = args.questions.display().to_string();
    let set = parse_question_set(&name, &read_text(&args.questions)?)?;
    let folder = BundleFolder::open(&args.bundle)?;
    if let Some(pinned) = &set.corpus {
        folder.verify_pinned(pinned)?;
    }
    let available: Vec<Chunker> = folder
        .manifest
        .chunkings
        .iter()
        .map(|c| c.chunker)
        .collect();
    if settings.retrievers.is_empty() {
        // Every retriever when every chunking evaluated has vectors.
        let chosen = if settings.chunkers.is_empty() {
            &available
        } else {
            &settings.chunkers
        };
        let embedded = chosen.iter().all(|&c| {
            folder
                .manifest
                .chunking(c)
                .is_some_and(|entry| entry.vectors.is_some())
        });
        settings.retrievers = if embedded {
            Retriever::ALL.to_vec()
        } else {
            vec![Retriever::Bm25]
        };
    }
    // The cross-encoder is loaded only for reranker rows; without a folder they are listed.
    let cross_encoder = match (&args.reranker_model, settings.rerankers.is_empty()) {
        (Some(dir), false) => Some(load_cross_encoder(dir, args.reranker_name.as_deref())?),
        _ => None,
    };
    settings.reranker_model = cross_encoder.as_ref().map(|m| m.identity().clone());
    let texts: Vec<String> = set.questions.iter().map(|q| q.question.clone()).collect();
    let also = match &args.also_questions {
        Some(path) => Some(same_questions(path, &set)?),
        None => None,
    };
    let report_questions = set.questions.clone();
    let grid = GridRun::new(&name, set, settings.clone(), &available)?;
    let dense = grid.needs_retriever(Retriever::Dense) || grid.needs_retriever(Retriever::Hybrid);
    let mut chunkings = folder.open_chunkings(grid.chunkers())?;
    if dense {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        folder.open_vectors(
            &mut chunkings,
            grid.chunkers(),
            (
                &texts,
                ModelChoice {
                    folder: args.model.as_deref(),
                    mantissa_bits: None,
                },
            ),
        )?;
    }
    // The reranked chunks' files, read once: every file of the chunkings evaluated.
    let files = match &cross_encoder {
        Some(_) if grid.needs_reranker() => {
            let mut paths = std::collections::BTreeSet::new();
            for &chunker in grid.chunkers() {
                paths.extend(chunkings.table(chunker)?.iter().map(|c| c.path.clone()));
            }
            folder.read_files(paths.iter().map(String::as_str))?
        }
        _ => Default::default(),
    };
    let text_of = |path: &str| files.get(path).map(String::as_str);
    let run = |grid: GridRun| -> Result<GridReport, Failure> {
        Ok(match &cross_encoder {
            Some(model) if grid.needs_reranker() => {
                let reranker = ChunkTexts {
                    model,
                    text_of: &text_of,
                };
                grid.run_with(&chunkings, Some(&reranker))?
            }
            _ => grid.run(&chunkings)?,
        })
    };
    let report = run(grid)?;
    // The same grid against a second gold (the adjudicated one), side by side.
    let also = match also {
        Some((file, set)) => {
            let gold_agreement = gold_agreement(
                &report_questions,
                &set.questions,
                BootstrapConfig {
                    resamples: settings.resamples,
                    seed: settings.seed,
                },
            )?;
            let grid = GridRun::new(&file, set, settings, &available)?;
            Some(SecondGold {
                questions: file,
                report: run(grid)?,
                gold_agreement,
            })
        }
        None => None,
    };
    let tables = grid_tables(&report);
    let text = match args.format {
        Format::Json => {
            let printed = Printed {
                bundle: args.bundle.display().to_string(),
                report: &report,
                also: also.as_ref(),
            };
            serde_json::to_string_pretty(&printed).map_err(|e| Failure::Io {
                context: "writing JSON".into(),
                source: std::io::Error::other(e),
            })? + "\n"
        }
        Format::Table => {
            let mut text = table_text(&report, &tables[0]);
            if let Some(also) = &also {
                text += &format!("\n== Against the gold of {}\n\n", also.questions);
                text += &table_text(&also.report, &grid_tables(&also.report)[0]);
                text += "\nThe first gold against the second, over the files gold in either:\n";
                for statistic in &also.gold_agreement.statistics {
                    text += &format!("  {}\n", statistic.sentence);
                }
            }
            text
        }
        Format::Csv => {
            let mut all = tables;
            if let Some(also) = &also {
                all.extend(grid_tables(&also.report));
            }
            all.iter().map(Table::to_csv).collect::<Vec<_>>().join("\n")
        }
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// The question set at `path`, which must hold the same questions as `set` (ids and texts, in
/// order): only the gold may differ.
fn same_questions(
    path: &std::path::Path,
    set: &routelens_engine::load::question_set::QuestionSet,
) -> Result<(String, routelens_engine::load::question_set::QuestionSet), Failure> {
    let file = path.display().to_string();
    let other = parse_question_set(&file, &read_text(path)?)?;
    adjudication_report::same_questions(set, &other, &file)
        .map_err(|e| Failure::Usage(format!("--also-questions {e}")))?;
    Ok((file, other))
}

fn table_text(report: &GridReport, grid: &Table) -> String {
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
    if let Some(model) = &report.reranker_model {
        text += &format!(
            "\nReranker rows: hybrid's top {} reordered by {} (model.safetensors {}).\n",
            report.rerank_top.unwrap_or_default(),
            model.name,
            model
                .sha256
                .get("model.safetensors")
                .map_or("?", String::as_str)
        );
    }
    if !report.needs_model.is_empty() {
        text += &format!(
            "\nNot scored, they need a cross-encoder (--reranker-model DIR): {}\n",
            report.needs_model.join(", ")
        );
    }
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
