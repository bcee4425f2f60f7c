//! What the Rerank view's files share: where a run is, the signals, and one question's outcome.

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::live::evidence::LiveStudy;
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::rerank::chat_planner::PlannerAccounting;
use routelens_engine::remote::rerank::record::RerankRunFile;
use routelens_engine::remote::rerank::settings::QuestionRun;

/// One question through both stages and the judge.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Outcome {
    /// The worker's run, its Jev arms judged.
    pub run: Box<QuestionRun>,
    /// Both stages' time in the worker.
    pub ms: f64,
    /// The live planner's cost, when it planned.
    pub planner: Option<PlannerAccounting>,
    /// Why the live planner gave no plan (the grep pool is then empty).
    pub plan_error: Option<String>,
}

/// Where the view's run is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ran {
    Idle,
    Running(String),
    Done {
        outcome: Outcome,
        gold: Option<Question>,
    },
    Failed(String),
}

/// The view's signals.
#[derive(Debug, Clone, Copy)]
pub(super) struct RerankState {
    /// The question's text.
    pub text: RwSignal<String>,
    /// The plan, as typed or as the planner gave it.
    pub plan_text: RwSignal<String>,
    pub ran: RwSignal<Ran>,
    /// The decision API key for the judge's http transport (memory only).
    pub judge_key: RwSignal<String>,
    /// The live planner's key (memory only).
    pub planner_key: RwSignal<String>,
    /// A picked rerank run file to replay.
    pub replay: RwSignal<Option<Arc<RerankRunFile>>>,
    /// The last run's exchanges, to download.
    pub record: RwSignal<Option<Arc<RerankRunFile>>>,
    /// Set by Cancel, read before every call.
    pub cancel: RwSignal<bool>,
    /// The live study of the bundle's question set, once an arm is added.
    pub live: RwSignal<Option<Arc<LiveStudy>>>,
    /// What "Add as arm" did.
    pub arm_note: RwSignal<Option<String>>,
}

impl RerankState {
    pub fn new() -> RerankState {
        RerankState {
            text: RwSignal::new(String::new()),
            plan_text: RwSignal::new(String::new()),
            ran: RwSignal::new(Ran::Idle),
            judge_key: RwSignal::new(String::new()),
            planner_key: RwSignal::new(String::new()),
            replay: RwSignal::new(None),
            record: RwSignal::new(None),
            cancel: RwSignal::new(false),
            live: RwSignal::new(None),
            arm_note: RwSignal::new(None),
        }
    }
}
