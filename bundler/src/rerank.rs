//! `routelens rerank`: CodeNib's two stages over a bundle's chunking (engine `rerank`). For each
//! question, a pool per route — chunk BM25 over the issue (top `--pool`), the grep plan's
//! matches mapped to their enclosing chunks, or both interleaved — then each reranker's order of
//! it, the top `--top` printed. With `--questions`, every question is a case of one study whose
//! arms are route × reranker, scored over the whole reranked pool (a candidate counts only
//! inside its visible lines) with intervals.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use routelens_engine::corpus::code_chunks::CodeChunk;
use routelens_engine::corpus::file_texts::FileTexts;
use routelens_engine::evaluate::relevance_of;
use routelens_engine::load::question_set::{parse_questions, Question};
use routelens_engine::remote::rerank::chat_planner::{
    overview, PlannerAccounting, PlannerSettings, OVERVIEW_CHARS,
};
use routelens_engine::remote::rerank::grep_pool::GrepPool;
use routelens_engine::remote::rerank::jev::JevSettings;
use routelens_engine::remote::rerank::plan::{parse_plan, Plan};
use routelens_engine::remote::rerank::pools::{Candidate, PoolSettings, Route};
use routelens_engine::remote::rerank::reranker::JudgeAccounting;
use routelens_engine::remote::rerank::run::{
    rerank_question, PreparedTexts, RerankArm, RerankSettings, RerankerChoice,
};
use routelens_engine::retrieval::chunk_search::ChunkRankings;
use routelens_engine::retrieval::cross_encoder::model::{ChunkTexts, CrossEncoder};
use routelens_engine::retrieval::cross_encoder::{ChunkReranker, CrossEncoderIdentity};
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;
use routelens_engine::scoring::unit_metrics::{
    summarize_metrics, Clustering, Metric, MetricSummary, Relevance,
};
use routelens_engine::{Arm, ArmOrigin, BootstrapConfig, Case, Cell, GoldSpan, Study, Table};

use crate::cli::{parse_chunker, OutputFormat, RerankArgs};
use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::interrupt;
use crate::model::load_cross_encoder;
use crate::render::text_table;
use crate::rerank_calls::{interrupted, Remote};
use crate::rerank_coverage::{audit, coverage_tables};

/// One result as printed.
#[derive(Debug, serde::Serialize)]
struct ResultShown {
    path: String,
    start_line: u32,
    end_line: u32,
    name: String,
    score: Option<f64>,
    pool_rank: usize,
}

/// One action's outcome as printed.
#[derive(Debug, serde::Serialize)]
struct ActionShown {
    pattern: String,
    glob: String,
    case_sensitive: bool,
    lines: usize,
    chunks: usize,
    outside: usize,
    truncated: bool,
    error: Option<String>,
}

/// One route × reranker over one question.
#[derive(Debug, serde::Serialize)]
struct ArmShown {
    route: &'static str,
    reranker: String,
    pool: usize,
    results: Vec<ResultShown>,
    failed_batches: Vec<(usize, String)>,
    all_failed: bool,
    /// The Jev judge's calls, tokens, cost and time.
    #[serde(skip_serializing_if = "Option::is_none")]
    accounting: Option<JudgeAccounting>,
    /// A cross-encoder's name and the SHA-256 of each of its files.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<CrossEncoderIdentity>,
}

/// One question's stages.
#[derive(Debug, serde::Serialize)]
struct Shown {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<Plan>,
    /// Why the live planner gave no plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_error: Option<String>,
    /// What the live planner's calls cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    planner: Option<PlannerAccounting>,
    actions: Vec<ActionShown>,
    arms: Vec<ArmShown>,
    /// Both stages' time for this question, in ms (the bundle already open).
    ms: f64,
}

/// Runs `rerank`.
pub fn run(args: &RerankArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let (mut settings, judge) = settings(args)?;
    if args.planner != "offline" && settings.plan.is_some() {
        return Err(Failure::Usage(
            "--plan and a live or replayed --planner both give the plan: choose one".into(),
        ));
    }
    let (questions, from_set) = questions(args)?;
    if settings.plan.is_some() && questions.len() > 1 {
        return Err(Failure::Usage(
            "--plan holds one question's plan; with --questions the planner plans".into(),
        ));
    }
    let folder = BundleFolder::open(&args.bundle)?;
    let open = folder.open_chunkings(&[settings.chunker])?;
    let table = open.table(settings.chunker)?;
    let paths = folder.manifest.paths();
    let texts = FileTexts::from(folder.read_files(paths.iter().map(String::as_str))?);
    let terms = PreparedTexts::new(&texts);
    let mut remote = Remote::new(
        judge.as_deref(),
        &args.planner,
        (
            &args.base,
            JevSettings {
                model: args.jev_model.clone(),
                ..JevSettings::default()
            },
        ),
        PlannerSettings {
            base: args.planner_base.clone(),
            model: args.planner_model.clone(),
            retry_base_ms: args.planner_retry_ms,
            ..PlannerSettings::default()
        },
        settings.batch,
        Duration::from_millis(args.timeout_ms.max(1)),
        args.record.clone(),
    )?;
    settings.batch = remote.batch();
    let repo = args
        .repo
        .clone()
        .unwrap_or_else(|| repo_name(&folder.manifest.source));
    let needs_grep = settings.routes.iter().any(|r| *r != Route::Bm25);
    let cross_encoder = cross_encoder(args, &settings)?;
    let result = run_questions(
        (
            &questions,
            &mut settings,
            &mut remote,
            cross_encoder.as_ref(),
        ),
        (&open, table, &texts, &terms),
        (&repo, &paths, needs_grep, args.top),
        Duration::from_millis(args.pause_ms),
    );
    let (shown, units) = match result {
        Ok(done) => {
            remote.save(false, None)?;
            done
        }
        Err(failure) => {
            remote.save(true, Some(failure.to_string()))?;
            return Err(match failure {
                Failure::Interrupted(why) if remote.records() => Failure::Interrupted(format!(
                    "{why}; the run file keeps what was done, marked partial"
                )),
                failure => failure,
            });
        }
    };
    let metrics = if from_set {
        Some(summaries(args, &questions, units)?)
    } else {
        None
    };
    let audits = match &args.coverage {
        Some(depths) if from_set => {
            let plans: Vec<Option<Plan>> = shown.iter().map(|s| s.plan.clone()).collect();
            Some(audit(
                &questions,
                &plans,
                &settings,
                (&open, &texts, &terms),
                depths,
            )?)
        }
        Some(_) => {
            return Err(Failure::Usage(
                "--coverage audits a question set: give --questions".into(),
            ))
        }
        None => None,
    };
    let text = match args.format {
        OutputFormat::Json => {
            let value = match &metrics {
                Some(metrics) => serde_json::json!({
                    "questions": shown, "metrics": metrics, "coverage": audits,
                }),
                None => serde_json::to_value(&shown[0]).unwrap_or_default(),
            };
            serde_json::to_string_pretty(&value).map_err(|e| Failure::Io {
                context: "writing JSON".into(),
                source: std::io::Error::other(e),
            })? + "\n"
        }
        OutputFormat::Table => {
            let mut text = table_text(&shown, metrics.as_deref());
            for table in coverage_tables(audits.as_deref().unwrap_or_default()) {
                text += "\n";
                text += &text_table(&table);
            }
            text
        }
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// Per arm name, per question, the reranked pool as units.
type Units = BTreeMap<String, Vec<Vec<GoldSpan>>>;

/// Both stages for every question: the plan (the live or replayed planner's, when one plans),
/// the pools and rerankers, the Jev judge's pending pools.
fn run_questions(
    (questions, settings, remote, cross_encoder): (
        &[Question],
        &mut RerankSettings,
        &mut Remote,
        Option<&CrossEncoder>,
    ),
    (open, table, texts, terms): (&OpenChunkings, &[CodeChunk], &FileTexts, &PreparedTexts),
    (repo, paths, needs_grep, top): (&str, &[String], bool, usize),
    pause: Duration,
) -> Result<(Vec<Shown>, Units), Failure> {
    let mut shown = Vec::new();
    let mut units: Units = BTreeMap::new();
    for question in questions {
        if interrupt::requested() {
            return Err(interrupted(&question.id));
        }
        let (mut planner, mut plan_error) = (None, None);
        if needs_grep {
            let planned = remote.plan(&question.id, &question.question, || {
                overview(
                    repo,
                    &question.question,
                    paths.iter().map(String::as_str),
                    OVERVIEW_CHARS,
                )
            })?;
            if let Some((plan, error, accounting)) = planned {
                settings.plan = Some(plan);
                plan_error = error;
                planner = Some(accounting);
            }
        }
        if !pause.is_zero() {
            std::thread::sleep(pause);
            if interrupt::requested() {
                return Err(interrupted(&question.id));
            }
        }
        let started = Instant::now();
        let text_of = |path: &str| texts.get(path);
        let scorer = cross_encoder.map(|model| ChunkTexts {
            model,
            text_of: &text_of,
        });
        let mut run = rerank_question(
            &question.question,
            open,
            texts,
            terms,
            (settings, scorer.as_ref().map(|s| s as &dyn ChunkReranker)),
        )?;
        let ms = elapsed_ms(started);
        remote.judge(&question.id, &question.question, &mut run.arms)?;
        for arm in &run.arms {
            units
                .entry(arm.name())
                .or_default()
                .push(arm.ordered().map(span).collect());
        }
        shown.push(Shown {
            id: question.id.clone(),
            actions: match (&run.plan, &run.grep) {
                (Some(plan), Some(grep)) => actions_shown(plan, grep),
                _ => Vec::new(),
            },
            arms: run
                .arms
                .iter()
                .map(|a| arm(a, table, top, cross_encoder.map(CrossEncoder::identity)))
                .collect(),
            plan: run.plan,
            plan_error,
            planner,
            ms,
        });
    }
    Ok((shown, units))
}

/// The repository's name for the planner: the bundle's source, its last path component.
fn repo_name(source: &str) -> String {
    source
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(source)
        .to_string()
}

/// The cross-encoder of `--reranker-model`, loaded when a cross-encoder reranker is asked for
/// (one without the other is refused).
fn cross_encoder(
    args: &RerankArgs,
    settings: &RerankSettings,
) -> Result<Option<CrossEncoder>, Failure> {
    let asked = settings
        .rerankers
        .iter()
        .find(|r| r.cross_encoder_input().is_some());
    match (asked, &args.reranker_model) {
        (Some(_), Some(dir)) => Ok(Some(load_cross_encoder(
            dir,
            args.reranker_name.as_deref(),
        )?)),
        (Some(choice), None) => Err(Failure::Usage(format!(
            "--reranker {}: give the cross-encoder's folder with --reranker-model DIR",
            choice.name()
        ))),
        (None, Some(_)) => Err(Failure::Usage(
            "--reranker-model: no cross-encoder reranker asked for (--reranker cross-encoder:text \
             or cross-encoder:prefixed)"
                .into(),
        )),
        (None, None) => Ok(None),
    }
}

/// The engine's settings from the command line.
fn settings(args: &RerankArgs) -> Result<(RerankSettings, Option<String>), Failure> {
    for (name, value) in [
        ("--pool", args.pool),
        ("--top", args.top),
        ("--batch", args.batch),
    ] {
        if value == 0 {
            return Err(Failure::Usage(format!("{name} must be at least 1")));
        }
    }
    let routes = args
        .routes
        .iter()
        .map(|n| {
            Route::from_name(n).ok_or_else(|| {
                Failure::Usage(format!(
                    "--route: unknown route {n:?}; expected bm25, grep or union"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // http and replay:FILE are the Jev judge, over the API or from a run file: one of them.
    let mut judge: Option<String> = None;
    let mut rerankers = Vec::new();
    for name in &args.rerankers {
        let choice = match name.as_str() {
            "http" => RerankerChoice::Jev,
            other if other.starts_with("replay:") => RerankerChoice::Jev,
            other => RerankerChoice::from_name(other)
                .filter(|c| *c != RerankerChoice::Jev)
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "--reranker: unknown reranker {other:?}; expected none, offline, http, \
                         replay:FILE, cross-encoder:text or cross-encoder:prefixed"
                    ))
                })?,
        };
        if choice == RerankerChoice::Jev {
            if judge.as_ref().is_some_and(|j| j != name) {
                return Err(Failure::Usage(
                    "--reranker: one Jev judge per run (http or one replay:FILE)".into(),
                ));
            }
            judge = Some(name.clone());
        }
        if !rerankers.contains(&choice) {
            rerankers.push(choice);
        }
    }
    let plan = match &args.plan {
        Some(path) => Some(parse_plan(&path.display().to_string(), &read_text(path)?)?),
        None => None,
    };
    let settings = RerankSettings {
        chunker: parse_chunker(&args.chunker)?,
        routes,
        rerankers,
        plan,
        pool: PoolSettings {
            depth: args.pool,
            ..PoolSettings::default()
        },
        batch: args.batch,
        ..RerankSettings::default()
    };
    Ok((settings, judge))
}

/// The questions, and whether they came from a set.
fn questions(args: &RerankArgs) -> Result<(Vec<Question>, bool), Failure> {
    let one = |text: String| Question {
        id: "query".into(),
        question: text,
        gold: Vec::new(),
        gold_lines: Vec::new(),
    };
    if let Some(text) = &args.input.query {
        return Ok((vec![one(text.clone())], false));
    }
    if let Some(path) = &args.input.query_file {
        return Ok((vec![one(read_text(path)?)], false));
    }
    let path = args.input.questions.as_ref().ok_or_else(|| {
        Failure::Usage("one of --query, --query-file or --questions is needed".into())
    })?;
    let set = parse_questions(&path.display().to_string(), &read_text(path)?)?;
    if set.is_empty() {
        return Err(Failure::Usage(format!("{}: no questions", path.display())));
    }
    Ok((set, true))
}

/// A candidate as a ranked unit: its visible lines.
fn span(c: &Candidate) -> GoldSpan {
    GoldSpan {
        path: c.file.clone(),
        start_line: c.start_line,
        end_line: c.end_line,
    }
}

fn arm(
    run: &RerankArm,
    table: &[CodeChunk],
    top: usize,
    model: Option<&CrossEncoderIdentity>,
) -> ArmShown {
    let (reranked, seen) = (&run.reranked, &run.candidates);
    ArmShown {
        route: run.route.name(),
        reranker: reranked.reranker.clone(),
        pool: seen.len(),
        results: reranked
            .order
            .iter()
            .take(top)
            .map(|&at| {
                let c = &seen[at];
                ResultShown {
                    path: c.file.clone(),
                    start_line: c.start_line,
                    end_line: c.end_line,
                    name: table[c.chunk].name.clone(),
                    score: reranked.judged[at].score,
                    pool_rank: at + 1,
                }
            })
            .collect(),
        failed_batches: reranked.failed_batches.clone(),
        all_failed: reranked.all_failed,
        accounting: reranked.accounting.clone(),
        model: RerankerChoice::ALL
            .into_iter()
            .find(|c| c.name() == reranked.reranker)
            .and_then(RerankerChoice::cross_encoder_input)
            .and(model.cloned()),
    }
}

fn actions_shown(plan: &Plan, pool: &GrepPool) -> Vec<ActionShown> {
    plan.actions
        .iter()
        .zip(&pool.actions)
        .map(|(action, a)| ActionShown {
            pattern: action.pattern.clone(),
            glob: action.glob.clone(),
            case_sensitive: action.case_sensitive,
            lines: a.lines.len(),
            chunks: a.chunks.len(),
            outside: a.outside,
            truncated: a.truncated,
            error: a.error.clone(),
        })
        .collect()
}

/// Every arm's metrics over the questions: span recall@1/5/10, file recall@5 and span MRR with
/// gold spans, else file recall@1/5/10 and MRR; intervals resample questions.
fn summaries(
    args: &RerankArgs,
    questions: &[Question],
    units: BTreeMap<String, Vec<Vec<GoldSpan>>>,
) -> Result<Vec<MetricSummary>, Failure> {
    let bootstrap = BootstrapConfig {
        resamples: args.resamples,
        seed: args.seed,
    }
    .validated()?;
    let cases = questions
        .iter()
        .map(|q| {
            let mut case = Case::from_spans(q.id.clone(), q.id.clone(), q.gold_lines.clone());
            let mut gold = q.gold.clone();
            gold.sort();
            gold.dedup();
            case.gold_files = gold;
            case
        })
        .collect();
    let mut study = Study {
        title: "retrieve, then rerank".into(),
        cases,
        arms: Vec::new(),
        policy: None,
        issue_source: None,
    };
    for (name, ranked) in units {
        study.add_arm(Arm::of_units(&name, &name, ArmOrigin::Archived, ranked))?;
    }
    let relevance = relevance_of(questions);
    let metrics = match relevance {
        Relevance::Span => vec![
            Metric::SpanRecall(1),
            Metric::SpanRecall(5),
            Metric::SpanRecall(10),
            Metric::FileRecall(5),
            Metric::SpanMrr,
        ],
        Relevance::File => vec![
            Metric::FileRecall(1),
            Metric::FileRecall(5),
            Metric::FileRecall(10),
            Metric::Mrr,
        ],
    };
    Ok(summarize_metrics(
        &study,
        &metrics,
        Clustering::Case,
        relevance,
        bootstrap,
    )?)
}

fn table_text(shown: &[Shown], metrics: Option<&[MetricSummary]>) -> String {
    let mut text = String::new();
    for question in shown {
        if shown.len() > 1 {
            text += &format!("== {}\n", question.id);
        }
        if let Some(p) = &question.planner {
            text += &format!(
                "planner {}: {} request(s), {} retries, {} input and {} output tokens, ${:.6}, {} ms\n",
                p.model, p.requests, p.retries, p.input_tokens, p.output_tokens, p.cost_usd, p.latency_ms
            );
        }
        if let Some(why) = &question.plan_error {
            text += &format!("the planner gave no plan (the grep pool is empty): {why}\n");
        }
        if !question.actions.is_empty() {
            text += "Plan:\n";
            for found in &question.actions {
                let outcome = match &found.error {
                    Some(why) => format!("failed: {why}"),
                    None => format!(
                        "{} lines, {} chunks{}",
                        found.lines,
                        found.chunks,
                        if found.truncated {
                            " (cut at a limit)"
                        } else {
                            ""
                        }
                    ),
                };
                text += &format!(
                    "  /{}/{} in {}: {outcome}\n",
                    found.pattern,
                    if found.case_sensitive { "" } else { "i" },
                    found.glob
                );
            }
        }
        for arm in &question.arms {
            let mut table = Table::new(
                &format!(
                    "{} pool of {}, reranked by {}{}",
                    arm.route,
                    arm.pool,
                    arm.reranker,
                    if arm.all_failed {
                        " (every batch failed: the pool's order)"
                    } else {
                        ""
                    }
                ),
                &["rank", "score", "path", "lines", "name", "pool rank"],
            );
            for (rank, r) in arm.results.iter().enumerate() {
                table.rows.push(vec![
                    Cell::count(rank + 1),
                    r.score.map_or_else(Cell::missing, |s| Cell::number(s, 3)),
                    Cell::text(&r.path),
                    Cell::text(format!("{}-{}", r.start_line, r.end_line)),
                    Cell::text(&r.name),
                    Cell::count(r.pool_rank),
                ]);
            }
            text += &text_table(&table);
            if let Some(a) = &arm.accounting {
                text += &format!(
                    "judge {}: {} call(s), {} retries, {} input and {} output tokens, ${:.6}, {} ms\n",
                    a.model, a.calls, a.retries, a.input_tokens, a.output_tokens, a.cost_usd, a.decider_ms
                );
            }
            for (batch, why) in &arm.failed_batches {
                text += &format!(
                    "batch {} failed (its candidates follow every scored one): {why}\n",
                    batch + 1
                );
            }
        }
    }
    if let Some(metrics) = metrics {
        let mut table = Table::new(
            "Metrics with 95% intervals over the questions",
            &["arm", "metric", "mean", "interval"],
        );
        for m in metrics {
            table.rows.push(vec![
                Cell::text(&m.arm),
                Cell::text(&m.metric),
                Cell::number(m.mean, 3),
                Cell::text(format!("[{:.3}, {:.3}]", m.ci_low, m.ci_high)),
            ]);
        }
        text += "\n";
        text += &text_table(&table);
    }
    text
}
