//! What a retrieve-then-rerank run is asked and what it gives back, as plain data: the CLI, the
//! worker and the page (which has no `lexical` feature) share these types.

use serde::{Deserialize, Serialize};

use super::grep_pool::{GrepLimits, GrepPool};
use super::plan::Plan;
use super::pools::{Candidate, PoolSettings, Route};
use super::reranker::{Reranked, DEFAULT_BATCH};
use crate::corpus::code_chunks::Chunker;
use crate::retrieval::cross_encoder::RerankInput;

/// Which reranker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RerankerChoice {
    /// The pool's own order.
    None,
    /// The offline lexical judge.
    Offline,
    /// The Jev Score judge over the decision API: its calls go out through the caller's
    /// transport (`super::jev`), so a run leaves its arms pending for the caller to judge.
    Jev,
    /// A cross-encoder the user brings, shown each candidate chunk's lines.
    #[serde(rename = "cross-encoder:text")]
    CrossEncoderText,
    /// A cross-encoder shown `path :: name`, then the chunk's lines.
    #[serde(rename = "cross-encoder:prefixed")]
    CrossEncoderPrefixed,
}

impl RerankerChoice {
    /// Every choice this build has.
    pub const ALL: [RerankerChoice; 5] = [
        RerankerChoice::None,
        RerankerChoice::Offline,
        RerankerChoice::Jev,
        RerankerChoice::CrossEncoderText,
        RerankerChoice::CrossEncoderPrefixed,
    ];

    /// Its name (`none`, `offline`, `jev`).
    pub fn name(self) -> &'static str {
        match self {
            RerankerChoice::None => "none",
            RerankerChoice::Offline => "offline",
            RerankerChoice::Jev => "jev",
            RerankerChoice::CrossEncoderText => "cross-encoder:text",
            RerankerChoice::CrossEncoderPrefixed => "cross-encoder:prefixed",
        }
    }

    /// What a cross-encoder choice shows the model of a chunk (none for the other judges).
    pub fn cross_encoder_input(self) -> Option<RerankInput> {
        match self {
            RerankerChoice::CrossEncoderText => Some(RerankInput::Text),
            RerankerChoice::CrossEncoderPrefixed => Some(RerankInput::Prefixed),
            _ => None,
        }
    }

    /// The choice with this name.
    pub fn from_name(name: &str) -> Option<RerankerChoice> {
        RerankerChoice::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// What a run does. Defaults are CodeNib's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RerankSettings {
    /// The chunking the pools are drawn from.
    pub chunker: Chunker,
    /// The pools.
    pub routes: Vec<Route>,
    /// The rerankers, each over every pool.
    pub rerankers: Vec<RerankerChoice>,
    /// The grep plan (none: the offline planner plans).
    pub plan: Option<Plan>,
    /// Pool size and visible characters.
    pub pool: PoolSettings,
    /// Grep limits (their `candidates` is the pool size).
    pub limits: GrepLimits,
    /// Candidates per judging batch.
    pub batch: usize,
}

impl Default for RerankSettings {
    fn default() -> Self {
        RerankSettings {
            chunker: Chunker::Codenib,
            routes: vec![Route::Bm25],
            rerankers: vec![RerankerChoice::Offline],
            plan: None,
            pool: PoolSettings::default(),
            limits: GrepLimits::default(),
            batch: DEFAULT_BATCH,
        }
    }
}

/// One route × reranker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerankArm {
    /// The pool's route.
    pub route: Route,
    /// The pool's candidates, in first-stage order.
    pub candidates: Vec<Candidate>,
    /// The reranker's order and judgments.
    pub reranked: Reranked,
    /// The Jev judge has yet to judge this pool (its order is the pool's until it does).
    #[serde(default)]
    pub judge_pending: bool,
}

impl RerankArm {
    /// `route/reranker`, e.g. `grep/offline`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.route.name(), self.reranked.reranker)
    }

    /// The candidates in the reranked order.
    pub fn ordered(&self) -> impl Iterator<Item = &Candidate> {
        self.reranked.order.iter().map(|&at| &self.candidates[at])
    }
}

/// One question's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRun {
    /// The plan grep ran (none when no route needed grep, or the planner found nothing).
    pub plan: Option<Plan>,
    /// What each action matched.
    pub grep: Option<GrepPool>,
    /// Every route × reranker, routes first.
    pub arms: Vec<RerankArm>,
}
