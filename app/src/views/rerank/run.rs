//! The Rerank view's driver: one question through the planner (offline in the worker, live or
//! replayed from the page), both stages in the worker, and the Jev judge from the page; and
//! "Add as arm", every question of the bundle's set the same way, joined to the live study.

use routelens_engine::stable_sort::Sorted;
use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::live::evidence::{join_live_arms, LiveArm};
use routelens_engine::live::live_session::{AnswerBody, CallBody, CrossEncoderAt};
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::rerank::chat_planner::{overview, PlannerSettings, OVERVIEW_CHARS};
use routelens_engine::remote::rerank::jev::JevSettings;
use routelens_engine::remote::rerank::plan::Plan;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::record::RerankRunFile;
use routelens_engine::remote::rerank::reranker::DEFAULT_BATCH;
use routelens_engine::remote::rerank::settings::{RerankSettings, RerankerChoice};
use routelens_engine::{Arm, ArmOrigin, GoldSpan};

use super::params::{PlannerKind, RerankRemote};
use super::remote::{judge, plan};
use super::state::{Outcome, RerankState};
use crate::decisions::DeciderKind;
use crate::decisions::Transport;
use crate::error::{Error, Result};
use crate::live;
use crate::state::AppState;

/// What every question of a run is asked.
#[derive(Debug, Clone)]
pub(super) struct RunSetup {
    pub bundle: String,
    pub chunker: Chunker,
    pub route: Route,
    pub reranker: RerankerChoice,
    pub remote: RerankRemote,
    /// The judge's API base (the shared `base`, the Route view's too).
    pub api_base: String,
    /// A plan typed into the page (for one question).
    pub typed_plan: Option<String>,
    /// The cross-encoder of a cross-encoder reranker.
    pub cross_encoder: Option<CrossEncoderAt>,
}

impl RunSetup {
    /// The run file a run of this setup records into.
    pub fn new_record(&self) -> RerankRunFile {
        let mut file = RerankRunFile::new(self.remote.judge.name(), self.jev(), DEFAULT_BATCH);
        if self.remote.planner != PlannerKind::Offline {
            file.planner = Some(self.planner());
        }
        file
    }

    fn jev(&self) -> JevSettings {
        JevSettings {
            model: self.remote.jev_model.clone(),
            ..JevSettings::default()
        }
    }

    fn planner(&self) -> PlannerSettings {
        PlannerSettings {
            base: self.remote.planner_base.clone(),
            model: self.remote.planner_model.clone(),
            ..PlannerSettings::default()
        }
    }

    /// The transport of the judge (none for a replay: it is made per pool from the file).
    fn transport(&self, key: &str) -> Result<Option<Transport>> {
        match (self.reranker, self.remote.judge) {
            (RerankerChoice::Jev, DeciderKind::Replay)
            | (
                RerankerChoice::None
                | RerankerChoice::Offline
                | RerankerChoice::CrossEncoderText
                | RerankerChoice::CrossEncoderPrefixed,
                _,
            ) => Ok(None),
            (RerankerChoice::Jev, kind) => Transport::for_kind(kind, &self.api_base, key).map(Some),
        }
    }
}

/// One question through the planner, both stages and the judge; exchanges go into `record`.
pub(super) async fn run_question(
    app: AppState,
    rs: RerankState,
    setup: &RunSetup,
    (id, query): (&str, &str),
    record: &mut RerankRunFile,
) -> Result<Outcome> {
    let progress = move |line: String| rs.ran.set(super::state::Ran::Running(line));
    app.bundles
        .load_chunkings(
            &setup.bundle,
            true,
            (&[setup.chunker], false),
            std::rc::Rc::new(move |m: live::Meter| progress(m.text)),
        )
        .await?;
    let replay = rs.replay.get_untracked();
    let needs_replay = setup.remote.planner == PlannerKind::Replay
        || (setup.reranker == RerankerChoice::Jev && setup.remote.judge == DeciderKind::Replay);
    if needs_replay && replay.is_none() {
        return Err(Error::refused("pick a rerank run file to replay"));
    }
    let mut settings = RerankSettings {
        chunker: setup.chunker,
        routes: vec![setup.route],
        rerankers: vec![setup.reranker],
        ..RerankSettings::default()
    };
    let (mut planner, mut plan_error, mut plan_text) = (None, None, setup.typed_plan.clone());
    let live_plans = setup.remote.planner != PlannerKind::Offline
        && setup.route != Route::Bm25
        && plan_text.is_none();
    if live_plans {
        let entry = app.bundles.find(&setup.bundle).await?;
        let files = app.bundles.open(&entry, &|_| {}).await?;
        let paths = files.manifest.paths();
        let repo = files
            .manifest
            .source
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let payload = overview(
            &repo,
            query,
            paths.iter().map(String::as_str),
            OVERVIEW_CHARS,
        );
        let from_file = match setup.remote.planner {
            PlannerKind::Replay => replay.as_deref().map(|file| (file, id)),
            _ => None,
        };
        let planned = plan(
            &payload,
            setup.planner(),
            &rs.planner_key.get_untracked(),
            from_file,
            progress,
        )
        .await;
        let question = record.question_mut(id, query);
        question.planning = planned.exchanges;
        question.planner_accounting = Some(planned.accounting.clone());
        planner = Some(planned.accounting);
        // The page reads the plan's shape; the worker checks its globs (the page has no glob
        // compiler). No plan means an empty grep pool, never a refill.
        match planned.text.and_then(|text| {
            serde_json::from_slice::<Plan>(text.as_bytes())
                .map(|_| text)
                .map_err(|e| format!("the planner's reply is not a plan: {e}"))
        }) {
            Ok(text) => plan_text = Some(text),
            Err(why) => {
                settings.plan = Some(Plan {
                    actions: Vec::new(),
                });
                plan_error = Some(why);
            }
        }
        record.question_mut(id, query).plan_error = plan_error.clone();
    }
    let body = CallBody::Rerank {
        bundle: setup.bundle.clone(),
        query: query.to_string(),
        settings,
        plan: plan_text,
        reranker_model: setup.cross_encoder.clone(),
    };
    let (mut run, ms) = match live::call(body, |_| {}).await? {
        AnswerBody::Reranked { run, ms } => (run, ms),
        other => return Err(live::unexpected(&other)),
    };
    if setup.reranker == RerankerChoice::Jev {
        let mut transport = setup.transport(&rs.judge_key.get_untracked())?;
        let from_file = match setup.remote.judge {
            DeciderKind::Replay => replay.as_deref(),
            _ => None,
        };
        judge(
            &mut run.arms,
            (id, query),
            (&setup.jev(), DEFAULT_BATCH),
            (&mut transport, from_file),
            record,
            move || rs.cancel.get_untracked(),
            progress,
        )
        .await?;
    }
    Ok(Outcome {
        run,
        ms,
        planner,
        plan_error,
    })
}

/// Runs every question of the bundle's set and adds the reranked pools (as span units: each
/// candidate's visible lines) as one arm of the live study, and of the open study when it is
/// this question set. Each case keeps the judge's calls, tokens, cost and time.
pub(super) async fn add_as_arm(
    app: AppState,
    rs: RerankState,
    setup: RunSetup,
    questions: Vec<Question>,
) -> Result<String> {
    let mut record = setup.new_record();
    let mut rankings = Vec::new();
    let mut measurements = Vec::new();
    let mut name = String::new();
    for (at, q) in questions.iter().enumerate() {
        if rs.cancel.get_untracked() {
            rs.record
                .set(Some(Arc::new(partial(record, "cancelled by the user"))));
            return Err(Error::refused("cancelled; no arm added"));
        }
        rs.ran.set(super::state::Ran::Running(format!(
            "question {}/{} ({})",
            at + 1,
            questions.len(),
            q.id
        )));
        let setup = RunSetup {
            typed_plan: None,
            ..setup.clone()
        };
        let outcome = match run_question(app, rs, &setup, (&q.id, &q.question), &mut record).await {
            Ok(outcome) => outcome,
            Err(err) => {
                rs.record
                    .set(Some(Arc::new(partial(record, &err.to_string()))));
                return Err(err);
            }
        };
        let arm = outcome
            .run
            .arms
            .first()
            .ok_or_else(|| Error::refused("the run gave no arm"))?;
        name = format!("rerank-{}", arm.name().replace('/', "-"));
        rankings.push(
            arm.ordered()
                .map(|c| GoldSpan {
                    path: c.file.clone(),
                    start_line: c.start_line,
                    end_line: c.end_line,
                })
                .collect::<Vec<_>>(),
        );
        let mut m = [("query_ms".to_string(), outcome.ms)]
            .into_iter()
            .sorted_map();
        if let Some(a) = &arm.reranked.accounting {
            m.insert("model_calls".into(), a.calls as f64);
            m.insert("input_tokens".into(), a.input_tokens as f64);
            m.insert("cost_usd".into(), a.cost_usd);
            m.insert("latency_ms".into(), a.decider_ms as f64);
        }
        measurements.push(m);
    }
    rs.record.set(Some(Arc::new(record)));
    let label = format!(
        "{} pool, {} reranker ({})",
        setup.route.name(),
        setup.reranker.name(),
        setup.chunker.name()
    );
    let mut arm = Arm::of_units(&name, &label, ArmOrigin::Archived, rankings);
    arm.measurements = measurements;
    let base = app.base.get_untracked();
    let joined = join_live_arms(
        rs.live.get_untracked().as_deref(),
        base.as_deref(),
        &setup.bundle,
        &questions,
        vec![LiveArm {
            arm,
            evidence: Vec::new(),
        }],
    )?;
    let into = if joined.open.is_some() {
        "the open study"
    } else {
        "the live study of the bundle's questions"
    };
    if let Some(open) = joined.open {
        app.base.set(Some(Arc::new(open)));
    }
    rs.live.set(Some(Arc::new(joined.live)));
    Ok(format!(
        "arm {name} added to {into}: {} questions, each the reranked pool as span units",
        questions.len()
    ))
}

/// A run file stopped before its end, saying why.
fn partial(mut record: RerankRunFile, why: &str) -> RerankRunFile {
    record.partial = true;
    record.stopped_by = Some(why.to_string());
    record
}
