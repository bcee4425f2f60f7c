//! The Rerank view's own settings, each written only when not the default (CodeNib's): the pool,
//! `pool=bm25|grep|union`, the reranker, `reranker=none|offline|jev`, the Jev judge's
//! `judge=http|proxy|replay` and `jmodel=`, and the planner's `planner=offline|http|replay`,
//! `pbase=` and `pmodel=`. Its question (`q`), bundle, chunking (`chunker`) and the judge's API
//! base (`base`, the Route view's too) are shared (`crate::params`); the plan it runs is typed in
//! the page, not linked, and no key is ever in the link.

use reactive_stores::Store;
use routelens_engine::remote::rerank::chat_planner::{DEFAULT_PLANNER_BASE, DEFAULT_PLANNER_MODEL};
use routelens_engine::remote::rerank::jev::DEFAULT_JEV_MODEL;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::settings::RerankerChoice;

use crate::decisions::DeciderKind;
use crate::params::part::{set, Claim, Params};

/// The Rerank view's part of the settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct RerankParams {
    /// The candidate pool (default bm25).
    pub pool: Route,
    /// The reranker (default offline).
    pub reranker: RerankerChoice,
    /// The live planner and Jev judge.
    pub remote: RerankRemote,
}

impl Default for RerankParams {
    fn default() -> Self {
        RerankParams {
            pool: Route::Bm25,
            reranker: RerankerChoice::Offline,
            remote: RerankRemote::default(),
        }
    }
}

/// Who plans in the Rerank view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlannerKind {
    /// The engine's offline planner (in the worker).
    #[default]
    Offline,
    /// A model over an OpenAI-compatible chat-completions endpoint, with a key typed in.
    Http,
    /// A rerank run file's recorded planning.
    Replay,
}

impl PlannerKind {
    /// Every kind, in menu order.
    pub const ALL: [PlannerKind; 3] =
        [PlannerKind::Offline, PlannerKind::Http, PlannerKind::Replay];

    /// The name used in the permalink (`planner=`).
    pub fn name(self) -> &'static str {
        match self {
            PlannerKind::Offline => "offline",
            PlannerKind::Http => "http",
            PlannerKind::Replay => "replay",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<PlannerKind> {
        PlannerKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// The Rerank view's remote settings (all in the permalink; never a key). Defaults are
/// CodeNib's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct RerankRemote {
    /// Who answers the Jev judge's calls: http, proxy (default) or replay; its base URL is the
    /// shared `base`.
    pub judge: DeciderKind,
    /// The judge's model (default `jev-1.13`).
    pub jev_model: String,
    /// Who plans (default offline).
    pub planner: PlannerKind,
    /// The live planner's base URL (default OpenRouter's).
    pub planner_base: String,
    /// The live planner's model (default `anthropic/claude-sonnet-4.6`).
    pub planner_model: String,
}

impl Default for RerankRemote {
    fn default() -> Self {
        RerankRemote {
            judge: DeciderKind::Proxy,
            jev_model: DEFAULT_JEV_MODEL.into(),
            planner: PlannerKind::Offline,
            planner_base: DEFAULT_PLANNER_BASE.into(),
            planner_model: DEFAULT_PLANNER_MODEL.into(),
        }
    }
}

impl Params for RerankParams {
    fn keys(&self) -> &'static [&'static str] {
        &[
            "pool", "reranker", "judge", "jmodel", "planner", "pbase", "pmodel",
        ]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        let defaults = RerankParams::default();
        if self.pool != defaults.pool {
            pairs.push(("pool", self.pool.name().into()));
        }
        if self.reranker != defaults.reranker {
            pairs.push(("reranker", self.reranker.name().into()));
        }
        let (remote, defaults) = (&self.remote, defaults.remote);
        if remote.judge != defaults.judge {
            pairs.push(("judge", remote.judge.name().into()));
        }
        if remote.jev_model != defaults.jev_model {
            pairs.push(("jmodel", remote.jev_model.clone()));
        }
        if remote.planner != defaults.planner {
            pairs.push(("planner", remote.planner.name().into()));
        }
        if remote.planner_base != defaults.planner_base {
            pairs.push(("pbase", remote.planner_base.clone()));
        }
        if remote.planner_model != defaults.planner_model {
            pairs.push(("pmodel", remote.planner_model.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        let remote = &mut self.remote;
        match key {
            "pool" => set(
                &mut self.pool,
                Route::from_name(value).ok_or_else(|| "expected bm25, grep or union".into()),
            ),
            "reranker" => set(
                &mut self.reranker,
                RerankerChoice::from_name(value)
                    .ok_or_else(|| "expected none, offline or jev".into()),
            ),
            "judge" => set(
                &mut remote.judge,
                DeciderKind::from_name(value)
                    .filter(|kind| *kind != DeciderKind::Offline)
                    .ok_or_else(|| "expected http, proxy or replay".into()),
            ),
            "jmodel" => set(&mut remote.jev_model, Ok(value.to_string())),
            "planner" => set(
                &mut remote.planner,
                PlannerKind::from_name(value)
                    .ok_or_else(|| "expected offline, http or replay".into()),
            ),
            "pbase" => set(&mut remote.planner_base, Ok(value.to_string())),
            "pmodel" => set(&mut remote.planner_model, Ok(value.to_string())),
            _ => Claim::Unknown,
        }
    }
}
