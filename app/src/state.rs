//! The app's one store: the loaded study and the settings that shape every view.
//!
//! Settings are a plain struct held in a `reactive_stores::Store`, so a view that reads one field
//! (say `k`) re-renders only when that field changes, while the permalink reads the whole struct
//! and is rewritten on any change. The study the views see is a memo: the study as loaded plus the
//! user's fusions, recomputed by the engine whenever the fusion list or its settings change, so a
//! fusion appears as an arm in every view and a permalink can rebuild it.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use reactive_stores::Store;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::evaluate::GridSettings;
use routelens_engine::remote::rerank::chat_planner::{DEFAULT_PLANNER_BASE, DEFAULT_PLANNER_MODEL};
use routelens_engine::remote::rerank::jev::DEFAULT_JEV_MODEL;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::settings::RerankerChoice;
use routelens_engine::remote::route::{RouteSettings, Strategy};
use routelens_engine::scoring::metric_tables::{self, MetricSetup};
use routelens_engine::scoring::score_table::ScoreTable;
use routelens_engine::scoring::unit_metrics::{Clustering, Metric, Relevance};
use routelens_engine::{
    add_fusion, scoring::stats::DEFAULT_RESAMPLES, scoring::stats::DEFAULT_SEED, BootstrapConfig,
    PairedMetric, RrfConfig, Study, Subset,
};

use crate::api::StudiesList;
use crate::bundles::BundleStore;
use crate::error::Error;
use crate::packing::LoadedBundle;

/// Which study the page shows, as written in the permalink (`study=`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum StudyRef {
    /// Nothing opened yet: the home page.
    #[default]
    None,
    /// A study the site lists in its `site.json`, by id.
    Served(String),
    /// A study the reader opened from a URL (an archive folder's, a `.jsonl` or a live study
    /// export's `.json`); the link opens it again.
    Url(String),
    /// The pinned public copy of the archive.
    Pinned,
    /// Files the user picked; a link cannot bring them back.
    Picked,
    /// The question set of the named bundle with arms run live in the Search view; a link
    /// cannot bring the runs back (they are re-run from the Search view).
    Live(String),
}

/// The study views, one tab each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Table 2: file recall by arm at two k.
    #[default]
    Table2,
    /// The fusion builder.
    Fusion,
    /// Table 4: paired differences.
    Paired,
    /// Per-repository table and Figure 2.
    Repos,
    /// Operating points: calls against recall.
    Operations,
    /// Archived line-level values.
    Lines,
    /// Prespecified subgroups.
    Subgroups,
    /// Per-issue drill-down.
    Cases,
    /// The re-score benchmark.
    Bench,
    /// Live lexical search over an index bundle.
    Search,
    /// The delivered context of one issue and arm over a bundle.
    Context,
    /// Live tree routing (or the flat tournament) over an index bundle.
    Route,
    /// One file of a bundle with its chunk boundaries under each chunking.
    Chunks,
    /// The CodeAtlas grid over a bundle's chunkings and question set.
    Evaluate,
    /// CodeNib's candidate pool and reranker for one question of a bundle.
    Rerank,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 15] = [
        View::Table2,
        View::Fusion,
        View::Paired,
        View::Repos,
        View::Operations,
        View::Lines,
        View::Subgroups,
        View::Cases,
        View::Bench,
        View::Search,
        View::Context,
        View::Route,
        View::Chunks,
        View::Evaluate,
        View::Rerank,
    ];

    /// The name used in the permalink (`view=`) and in the tab's `data-testid` (`tab-<name>`).
    pub fn name(self) -> &'static str {
        match self {
            View::Table2 => "table2",
            View::Fusion => "fusion",
            View::Paired => "paired",
            View::Repos => "repos",
            View::Operations => "operations",
            View::Lines => "lines",
            View::Subgroups => "subgroups",
            View::Cases => "cases",
            View::Bench => "bench",
            View::Search => "search",
            View::Context => "context",
            View::Route => "route",
            View::Chunks => "chunks",
            View::Evaluate => "evaluate",
            View::Rerank => "rerank",
        }
    }

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            View::Table2 => "Table 2: file recall",
            View::Fusion => "Fusion builder",
            View::Paired => "Table 4: paired",
            View::Repos => "Per repository",
            View::Operations => "Operating points",
            View::Lines => "Line level",
            View::Subgroups => "Subgroups",
            View::Cases => "Per issue",
            View::Bench => "Re-score benchmark",
            View::Search => "Search a bundle",
            View::Context => "Delivered context",
            View::Route => "Route a bundle",
            View::Chunks => "Chunks of a file",
            View::Evaluate => "Evaluate chunk retrieval",
            View::Rerank => "Retrieve, then rerank",
        }
    }

    /// The view with this permalink name.
    pub fn from_name(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|view| view.name() == name)
    }

    /// Whether the view works without a study (it reads a bundle instead).
    pub fn needs_no_study(self) -> bool {
        matches!(
            self,
            View::Search
                | View::Context
                | View::Route
                | View::Chunks
                | View::Evaluate
                | View::Rerank
        )
    }
}

/// Who answers the Route view's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeciderKind {
    /// The engine's lexical scorer: no key, no network.
    #[default]
    Offline,
    /// The decision API (or a gateway) from the browser, with a key typed into the page.
    Http,
    /// `routelens serve`'s same-origin proxy, which adds the key; the page holds none.
    Proxy,
    /// A recorded run file, replayed exactly with no network.
    Replay,
}

impl DeciderKind {
    /// Every kind, in menu order.
    pub const ALL: [DeciderKind; 4] = [
        DeciderKind::Offline,
        DeciderKind::Http,
        DeciderKind::Proxy,
        DeciderKind::Replay,
    ];

    /// The name used in the permalink (`decider=`) and in runs.
    pub fn name(self) -> &'static str {
        match self {
            DeciderKind::Offline => "offline",
            DeciderKind::Http => "http",
            DeciderKind::Proxy => "proxy",
            DeciderKind::Replay => "replay",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<DeciderKind> {
        DeciderKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// The Route view's settings (all in the permalink; never the key).
#[derive(Debug, Clone, PartialEq)]
pub struct RouteSetup {
    /// Tree walk or flat tournament (default tree).
    pub strategy: Strategy,
    /// Who answers (default offline, which works on a fresh machine).
    pub decider: DeciderKind,
    /// The API's base URL for the http decider (default `https://api.typesafe.ai`).
    pub base: String,
    /// The model asked (default `jev-1.13.0`).
    pub model: String,
    /// Stop after this many files (default 16).
    pub max_files: usize,
    /// Stop before a call beyond this many (default 32).
    pub max_calls: usize,
}

/// The decision API's public base URL, the http decider's default.
pub const DEFAULT_API_BASE: &str = "https://api.typesafe.ai";

impl Default for RouteSetup {
    fn default() -> Self {
        let defaults = RouteSettings::default();
        RouteSetup {
            strategy: Strategy::Tree,
            decider: DeciderKind::Offline,
            base: DEFAULT_API_BASE.into(),
            model: defaults.model,
            max_files: defaults.max_files,
            max_calls: defaults.max_calls,
        }
    }
}

/// Every setting a view depends on; all of them are in the permalink. Defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct Settings {
    /// The study shown (default none: the home page).
    pub study: StudyRef,
    /// The active view (default Table 2).
    pub view: View,
    /// Table 2's left k (default 8).
    pub k_left: usize,
    /// Table 2's right k (default 16).
    pub k_right: usize,
    /// The k of the single-k views: paired, per repository, operations, subgroups, per issue
    /// (default 8, the paper's primary k).
    pub k: usize,
    /// Fusions added by the user, each two or more archived arm names (default none).
    pub fusions: Vec<Vec<String>>,
    /// RRF rank constant for the user's fusions (default 60).
    pub rank_constant: f64,
    /// RRF depth per fused arm (default 16).
    pub depth: usize,
    /// Bootstrap seed (default 0).
    pub seed: u64,
    /// Bootstrap resamples (default 10,000).
    pub resamples: usize,
    /// The paired comparison's left arm (default `tree`).
    pub left: String,
    /// The paired comparison's right arm (default `fts5`).
    pub right: String,
    /// What the paired comparison compares (default file recall).
    pub metric: PairedMetric,
    /// Which cases the paired comparison uses (default all; or the aligned subset).
    pub subset: Subset,
    /// Arms shown in the per-repository and subgroup tables (default empty, meaning all).
    pub arms: Vec<String>,
    /// The issue open in the drill-down (default none).
    pub issue: Option<String>,
    /// The Search view's bundle, by name in the bundle store: the site's, or `url:…` / `picked:…` for one the reader opened (default none).
    pub bundle: Option<String>,
    /// The Search view's query: a question id of the bundle's set, or issue text (default none).
    pub query: Option<String>,
    /// The lexical arms the Search view fuses, in the engine's arm order (default `fts5`, `rg`).
    pub search_fused: Vec<String>,
    /// The Context view's arm (default `fts5`).
    pub pack_arm: String,
    /// The Context view's second arm, for the side-by-side comparison (default none).
    pub pack_vs: Option<String>,
    /// The Context view's token budget (default 16,000).
    pub budget: usize,
    /// The Context view's lines around each anchor (default 200).
    pub radius: usize,
    /// The Context view's anchor lines per file (default 4).
    pub anchors: usize,
    /// The Route view's strategy, decider and caps.
    pub route: RouteSetup,
    /// A score table's frame (default its mapping's headline frame).
    pub score_frame: Option<String>,
    /// A score table's metric (default its mapping's headline metric, else its first).
    pub score_metric: Option<String>,
    /// What every interval resamples, in a score table and in a study of rankings (default
    /// whole clusters: repositories).
    pub score_cluster: ClusterBy,
    /// A score table's comparisons, left − right (default empty, meaning its mapping's).
    pub score_pairs: Vec<(String, String)>,
    /// The metrics of the metric table beside Table 2, by name (default empty: the engine's
    /// `metric_tables::default_metrics` for the study).
    pub metrics: Vec<String>,
    /// When a ranked unit is relevant (default none: by span for a span study, else by file).
    pub relevance: Option<Relevance>,
    /// The one metric of the per-repository, subgroup, paired and per-case views' interval
    /// tables (default none: file recall at k, the paper's).
    pub view_metric: Option<String>,
    /// The Chunks view's file (default none).
    pub chunk_path: Option<String>,
    /// The Chunks view's chunk search: its chunking (default the bundle's first) and per-file
    /// cap (default none); its question is `query`.
    pub chunk_chunker: Option<Chunker>,
    /// See `chunk_chunker`.
    pub chunk_cap: Option<usize>,
    /// The Evaluate view's grid; its bootstrap is `resamples` and `seed`.
    pub grid: GridSetup,
    /// The Rerank view's pool (default bm25) and reranker (default offline); its question is
    /// `query`, its chunking `chunk_chunker` (default structural-unmerged).
    pub rerank_route: Route,
    /// See `rerank_route`.
    pub reranker: RerankerChoice,
    /// The Rerank view's live planner and Jev judge.
    pub rerank_remote: RerankRemote,
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
    /// Route view's `base`.
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

/// The Evaluate view's grid settings (all in the permalink). Defaults are CodeAtlas's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct GridSetup {
    /// The chunkings (default empty: every one the bundle has).
    pub chunkers: Vec<Chunker>,
    /// Per-file caps beside each uncapped ranking (default none).
    pub caps: Vec<usize>,
    /// Cut-offs of the default metrics (default 1, 5, 10).
    pub k: Vec<usize>,
    /// The metric the dev half chooses caps by (default ndcg@10).
    pub select_by: String,
    /// Chunks scored per ranking (default 100).
    pub depth: usize,
    /// What intervals resample (default single questions, as CodeAtlas).
    pub cluster: Clustering,
}

impl Default for GridSetup {
    fn default() -> Self {
        let engine = GridSettings::default();
        GridSetup {
            chunkers: engine.chunkers,
            caps: engine.caps,
            k: engine.k,
            select_by: engine.select_by,
            depth: engine.depth,
            cluster: engine.clustering,
        }
    }
}

impl GridSetup {
    /// The engine's settings, with the page's bootstrap.
    pub fn settings(&self, resamples: usize, seed: u64) -> GridSettings {
        GridSettings {
            chunkers: self.chunkers.clone(),
            caps: self.caps.clone(),
            k: self.k.clone(),
            select_by: self.select_by.clone(),
            depth: self.depth,
            clustering: self.cluster,
            resamples,
            seed,
            ..GridSettings::default()
        }
    }
}

/// What a score table's bootstrap resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClusterBy {
    /// Whole clusters (the table's cluster column: repositories).
    #[default]
    Repo,
    /// Single cases.
    Case,
}

impl Default for Settings {
    fn default() -> Self {
        let rrf = RrfConfig::default();
        Settings {
            study: StudyRef::None,
            view: View::Table2,
            k_left: 8,
            k_right: 16,
            k: 8,
            fusions: Vec::new(),
            rank_constant: rrf.rank_constant,
            depth: rrf.depth,
            seed: DEFAULT_SEED,
            resamples: DEFAULT_RESAMPLES,
            left: "tree".into(),
            right: "fts5".into(),
            metric: PairedMetric::FileRecall,
            subset: Subset::All,
            arms: Vec::new(),
            issue: None,
            bundle: None,
            query: None,
            search_fused: vec!["fts5".into(), "rg".into()],
            pack_arm: "fts5".into(),
            pack_vs: None,
            budget: routelens_engine::delivery::pack::DEFAULT_BUDGET_TOKENS,
            radius: routelens_engine::delivery::select::DEFAULT_RADIUS_LINES,
            anchors: routelens_engine::delivery::select::DEFAULT_ANCHORS_PER_FILE,
            route: RouteSetup::default(),
            score_frame: None,
            score_metric: None,
            score_cluster: ClusterBy::Repo,
            score_pairs: Vec::new(),
            metrics: Vec::new(),
            relevance: None,
            view_metric: None,
            chunk_path: None,
            chunk_chunker: None,
            chunk_cap: None,
            grid: GridSetup::default(),
            rerank_route: Route::Bm25,
            reranker: RerankerChoice::Offline,
            rerank_remote: RerankRemote::default(),
        }
    }
}

/// The study the views see: as loaded, plus the user's fusions.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The study with the fusions added.
    pub study: Arc<Study>,
    /// Fusions the engine refused (e.g. a permalink naming an arm this study lacks), as messages.
    pub fusion_errors: Vec<String>,
}

impl PartialEq for Loaded {
    /// Two results are the same when they are the same computation: comparing whole studies
    /// would cost more than the memo saves.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.study, &other.study) && self.fusion_errors == other.fusion_errors
    }
}

/// An open study set aside (see [`AppState::previous`]): what it was, as loaded, with the
/// settings it was viewed with.
#[derive(Clone)]
pub struct Previous {
    /// The study as loaded, or the score table.
    pub base: Option<Arc<Study>>,
    /// The score table, when that was what was open.
    pub scores: Option<Arc<ScoreTable>>,
    /// Where it came from.
    pub source: String,
    /// The settings of the moment it was set aside (its reference, view and arms among them).
    pub settings: Settings,
}

/// What the loader is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing in progress.
    Idle,
    /// Loading: what, and how many files of how many are in.
    Loading {
        /// What is being loaded, e.g. "fastindex".
        what: String,
        /// Files done.
        done: usize,
        /// Files in all.
        total: usize,
    },
    /// The last load failed; the message names the file and field.
    Failed(String),
}

/// The one store, provided as context. Every field is a cheap `Copy` handle.
#[derive(Clone, Copy)]
pub struct AppState {
    /// Every setting, field by field reactive; mirrored into the URL.
    pub settings: Store<Settings>,
    /// The study as loaded, before user fusions.
    pub base: RwSignal<Option<Arc<Study>>>,
    /// A score table as loaded (a study of values, not rankings), when that is what is open.
    pub scores: RwSignal<Option<Arc<ScoreTable>>>,
    /// A human description of where the loaded study came from.
    pub source_label: RwSignal<String>,
    /// The study the views see (`base` plus fusions).
    pub study: Memo<Option<Loaded>>,
    /// The server's study list.
    pub studies: RwSignal<StudiesList>,
    /// Loading progress or the last error.
    pub status: RwSignal<Status>,
    /// Bumped by every load, so a slow earlier load never overwrites a later one.
    pub generation: RwSignal<u64>,
    /// Notes for the reader (permalink values that were ignored, picked files not restorable).
    pub notices: RwSignal<Vec<String>>,
    /// Issue texts the user loaded that matched their archived SHA-256, by case id.
    pub issue_texts: RwSignal<BTreeMap<String, String>>,
    /// The bundle list and the bundles' manifests and question sets, fetched once per page.
    pub bundles: BundleStore,
    /// The bundle loaded for packing (the Context and Lines views), kept across tab switches.
    pub packing: StoredValue<Option<Rc<LoadedBundle>>, LocalStorage>,
    /// The study that was open before the reader closed it or began another load, kept whole
    /// until another study has loaded, so that a load that fails loses nothing (the home page
    /// offers it back).
    pub previous: StoredValue<Option<Previous>>,
}

impl AppState {
    /// A store starting from these settings (usually read from the permalink).
    pub fn new(settings: Settings, notices: Vec<String>) -> Self {
        let settings = Store::new(settings);
        let base: RwSignal<Option<Arc<Study>>> = RwSignal::new(None);
        let study = Memo::new(move |_| {
            let base = base.get()?;
            let fusions = settings.fusions().get();
            if fusions.is_empty() {
                return Some(Loaded {
                    study: base,
                    fusion_errors: Vec::new(),
                });
            }
            let config = RrfConfig {
                rank_constant: settings.rank_constant().get(),
                depth: settings.depth().get(),
            };
            let mut study = (*base).clone();
            let mut fusion_errors = Vec::new();
            for parts in &fusions {
                if let Err(err) = add_fusion(&mut study, parts, config) {
                    fusion_errors.push(format!("fusion {}: {err}", parts.join("+")));
                }
            }
            Some(Loaded {
                study: Arc::new(study),
                fusion_errors,
            })
        });
        AppState {
            settings,
            base,
            scores: RwSignal::new(None),
            source_label: RwSignal::new(String::new()),
            study,
            studies: RwSignal::new(StudiesList::Asking),
            status: RwSignal::new(Status::Idle),
            generation: RwSignal::new(0),
            notices: RwSignal::new(notices),
            issue_texts: RwSignal::new(BTreeMap::new()),
            bundles: BundleStore::new(),
            packing: StoredValue::new_local(None),
            previous: StoredValue::new(None),
        }
    }

    /// The bundle loaded for packing, if it is `name`.
    pub fn packed_bundle(&self, name: &str) -> Option<Rc<LoadedBundle>> {
        self.packing
            .get_value()
            .filter(|bundle| bundle.entry.name == name)
    }

    /// The store from context; every view is under `App`, which provides it.
    pub fn get() -> Self {
        expect_context::<AppState>()
    }

    /// Runs `f` on the current study (tracked), or returns `None` when none is loaded.
    pub fn with_study<R>(&self, f: impl FnOnce(&Study) -> R) -> Option<R> {
        self.study
            .with(|loaded| loaded.as_ref().map(|loaded| f(&loaded.study)))
    }

    /// The current study's arm names (tracked); empty when none is loaded.
    pub fn arm_names(&self) -> Vec<String> {
        self.with_study(Study::arm_names).unwrap_or_default()
    }

    /// The metrics of the metric table (tracked): the reader's, else the study's defaults. The
    /// names in the settings were checked when they were set.
    pub fn metrics(&self, study: &Study) -> Vec<Metric> {
        let names = self.settings.metrics().get();
        if names.is_empty() {
            return metric_tables::default_metrics(study);
        }
        names.iter().filter_map(|n| Metric::parse(n).ok()).collect()
    }

    /// The metric of the single-metric views (tracked): the reader's, else file recall at k.
    pub fn view_metric(&self) -> Metric {
        self.settings
            .view_metric()
            .get()
            .and_then(|name| Metric::parse(&name).ok())
            .unwrap_or_else(|| Metric::FileRecall(self.settings.k().get()))
    }

    /// Relevance, clustering and bootstrap of the metric tables (tracked).
    pub fn metric_setup(&self, study: &Study) -> MetricSetup {
        let s = self.settings;
        MetricSetup {
            relevance: s
                .relevance()
                .get()
                .unwrap_or_else(|| metric_tables::default_relevance(study)),
            clustering: match s.score_cluster().get() {
                ClusterBy::Repo => Clustering::Repo,
                ClusterBy::Case => Clustering::Case,
            },
            bootstrap: BootstrapConfig {
                resamples: s.resamples().get(),
                seed: s.seed().get(),
            },
        }
    }

    /// The indices of the arms chosen for the per-repository and subgroup tables (all when none
    /// are chosen); names the study lacks are skipped.
    pub fn chosen_arms(&self, study: &Study) -> Vec<usize> {
        let chosen = self.settings.arms().get();
        if chosen.is_empty() {
            return (0..study.arms.len()).collect();
        }
        (0..study.arms.len())
            .filter(|&index| chosen.contains(&study.arms[index].name))
            .collect()
    }

    /// Starts a load: a new generation, progress at zero, the previous study cleared.
    pub fn begin_load(&self, study: StudyRef, what: &str, total: usize) -> u64 {
        self.set_aside();
        let generation = self.generation.get_untracked() + 1;
        self.generation.set(generation);
        self.base.set(None);
        self.scores.set(None);
        self.settings.study().set(study);
        self.status.set(Status::Loading {
            what: what.to_string(),
            done: 0,
            total,
        });
        generation
    }

    /// Makes a live study (a bundle's question set with arms run live in the Search or Route
    /// view) the open study, so every study view shows it; the permalink names it
    /// `live:<bundle>`, which cannot carry the runs.
    pub fn open_live_study(&self, study: Study, bundle: String) {
        let label = format!(
            "live runs over bundle {bundle:?}: {} questions, {} arms",
            study.cases.len(),
            study.arms.len()
        );
        self.settings.fusions().set(Vec::new());
        let generation = self.begin_load(StudyRef::Live(bundle), &label, 1);
        self.finish_load(generation, label, Ok(study));
        self.settings.view().set(View::Table2);
    }

    /// Reports progress of the load `generation`, unless a later load replaced it.
    pub fn progress(&self, generation: u64, done: usize) {
        if self.generation.get_untracked() == generation {
            self.status.update(|status| {
                if let Status::Loading { done: d, .. } = status {
                    *d = done;
                }
            });
        }
    }

    /// Ends the load `generation` with a score table or the message of what went wrong.
    pub fn finish_scores(
        &self,
        generation: u64,
        source: String,
        result: Result<ScoreTable, Error>,
    ) {
        if self.generation.get_untracked() != generation {
            return;
        }
        match result {
            Ok(table) => {
                self.source_label.set(source);
                self.scores.set(Some(Arc::new(table)));
                self.status.set(Status::Idle);
                self.previous.set_value(None);
            }
            Err(err) => self.status.set(Status::Failed(err.to_string())),
        }
    }

    /// Ends the load `generation` with a study or the message of what went wrong.
    pub fn finish_load(&self, generation: u64, source: String, result: Result<Study, Error>) {
        if self.generation.get_untracked() != generation {
            return;
        }
        match result {
            Ok(study) => {
                // A study without the default arms (TREC, JSON Lines) starts on its own first two.
                let names: Vec<String> = study
                    .arm_names()
                    .into_iter()
                    .chain(
                        self.settings
                            .fusions()
                            .get_untracked()
                            .iter()
                            .map(|p| p.join("+")),
                    )
                    .collect();
                let defaults = Settings::default();
                for (side, field, fallback) in [
                    ("left", self.settings.left(), 0),
                    ("right", self.settings.right(), 1),
                ] {
                    let current = field.get_untracked();
                    if names.contains(&current) {
                        continue;
                    }
                    if let Some(name) = names.get(fallback).or(names.first()) {
                        // Say so unless it was just the paper's default meeting another study.
                        if current != defaults.left && current != defaults.right {
                            self.notices.update(|n| {
                                n.push(format!(
                                    "{side} arm {current:?} is not in this study; showing {name}"
                                ))
                            });
                        }
                        field.set(name.clone());
                    }
                }
                self.issue_texts.set(BTreeMap::new());
                self.source_label.set(source);
                self.base.set(Some(Arc::new(study)));
                self.status.set(Status::Idle);
                self.previous.set_value(None);
            }
            Err(error) => self.status.set(Status::Failed(error.to_string())),
        }
    }

    /// Closes the study and returns to the home page; fusions go too, since they name its arms.
    pub fn close(&self) {
        self.set_aside();
        self.generation.update(|g| *g += 1);
        self.base.set(None);
        self.scores.set(None);
        self.status.set(Status::Idle);
        self.settings.study().set(StudyRef::None);
        self.settings.fusions().set(Vec::new());
        self.settings.issue().set(None);
        self.settings.arms().set(Vec::new());
        self.settings.score_pairs().set(Vec::new());
    }

    /// Keeps the open study (if one is open) as [`AppState::previous`].
    fn set_aside(&self) {
        let (base, scores) = (self.base.get_untracked(), self.scores.get_untracked());
        if base.is_some() || scores.is_some() {
            self.previous.set_value(Some(Previous {
                base,
                scores,
                source: self.source_label.get_untracked(),
                settings: self.settings.get_untracked(),
            }));
        }
    }

    /// Opens the study set aside again, as it was, with the settings it was viewed with.
    pub fn reopen_previous(&self) {
        let Some(previous) = self.previous.get_value() else {
            return;
        };
        self.generation.update(|g| *g += 1);
        self.settings.set(previous.settings);
        self.source_label.set(previous.source);
        self.base.set(previous.base);
        self.scores.set(previous.scores);
        self.status.set(Status::Idle);
        self.previous.set_value(None);
    }
}
