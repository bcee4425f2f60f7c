//! The page's two keys: which study it shows (`study=`, default none: the home page) and which
//! view (`view=`, default Table 2). `study` is a served id, `pinned`, `picked`, `url:<URL>` or
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

/// The page's part of the settings.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct PageParams {
    /// The study shown (default none: the home page).
    pub study: StudyRef,
    /// The active view (default Table 2).
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
