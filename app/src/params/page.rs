//! The page's two keys: which study it shows (`study=`, default none: the home page) and which
//! view (`view=`, default the paper page; a study without printed numbers shows Table 2, a
//! score table its scores). `study` is a served id, `pinned`, `picked`, `url:<URL>` or
//! `live:<bundle>`, written unless none is; `view` is always written.

use reactive_stores::Store;

use super::part::{Claim, Params};

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
    /// The paper page: every printed number beside its recomputation.
    #[default]
    Paper,
    /// Table 2: file recall by arm at two k.
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
    /// A score table's arms and comparisons.
    Scores,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 17] = [
        View::Paper,
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
        View::Scores,
    ];

    /// The views of a study of rankings drawn from its paper, in the paper's order.
    pub const PAPER: [View; 10] = [
        View::Paper,
        View::Table2,
        View::Paired,
        View::Repos,
        View::Lines,
        View::Operations,
        View::Subgroups,
        View::Fusion,
        View::Cases,
        View::Bench,
    ];

    /// The views that run a paper's method live over a bundle.
    pub const LIVE: [View; 6] = [
        View::Search,
        View::Route,
        View::Context,
        View::Chunks,
        View::Evaluate,
        View::Rerank,
    ];

    /// The name used in the permalink (`view=`) and in the tab's `data-testid` (`tab-<name>`).
    pub fn name(self) -> &'static str {
        match self {
            View::Paper => "paper",
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
            View::Scores => "scores",
        }
    }

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            View::Paper => "The paper, checked",
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
            View::Scores => "Scores and comparisons",
        }
    }

    /// For a live view: which paper's method it runs, and what stands in for what the page
    /// cannot reach (a model API) when run offline.
    pub fn about(self) -> Option<&'static str> {
        Some(match self {
            View::Search => {
                "fastindex's lexical arms (SQLite FTS5 as BM25, a ripgrep full-issue query) and \
                 their RRF fusion, run live in your browser over a bundle's index."
            }
            View::Route => {
                "fastindex's name-only directory routing: a model picks directories by name. \
                 Offline, a deterministic decider that scores names by the issue's words stands \
                 in for the model; the http and proxy deciders call TypeSafe's API."
            }
            View::Context => {
                "fastindex's shared line selector and 16K-token packer over an arm's ranked files."
            }
            View::Chunks => "CodeAtlas's chunkings of one file: structural, unmerged and windows.",
            View::Evaluate => {
                "CodeAtlas's grid: chunkings × BM25 with its per-file cap, hit rate, recall, MRR \
                 and nDCG@10 with intervals and paired tests."
            }
            View::Rerank => {
                "CodeNib's route: a BM25 or model-planned grep pool over tree-sitter chunks, \
                 reranked. Offline, a planner built from the issue's words and an offline Jev \
                 judge stand in for the models; the page can call the real ones with a key."
            }
            _ => return None,
        })
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

/// The page's part of the settings.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct PageParams {
    /// The study shown (default none: the home page).
    pub study: StudyRef,
    /// The active view (default the paper page).
    pub view: View,
}

impl Params for PageParams {
    fn keys(&self) -> &'static [&'static str] {
        &["study", "view"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        match &self.study {
            StudyRef::None => {}
            StudyRef::Served(id) => pairs.push(("study", id.clone())),
            StudyRef::Url(url) => pairs.push(("study", format!("url:{url}"))),
            StudyRef::Pinned => pairs.push(("study", "pinned".into())),
            StudyRef::Picked => pairs.push(("study", "picked".into())),
            StudyRef::Live(bundle) => pairs.push(("study", format!("live:{bundle}"))),
        }
        pairs.push(("view", self.view.name().into()));
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "study" => {
                self.study = match value {
                    "" => StudyRef::None,
                    "pinned" => StudyRef::Pinned,
                    "picked" => StudyRef::Picked,
                    live if live.starts_with("live:") => StudyRef::Live(live[5..].to_string()),
                    url if url.starts_with("url:") => StudyRef::Url(url[4..].to_string()),
                    id => StudyRef::Served(id.to_string()),
                };
                Claim::Read
            }
            "view" => match View::from_name(value) {
                Some(view) => {
                    self.view = view;
                    Claim::Read
                }
                None => Claim::Refused("no such view".into()),
            },
            _ => Claim::Unknown,
        }
    }
}
