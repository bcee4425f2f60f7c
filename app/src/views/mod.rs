//! The views: the paper page (`paper/`: its printed numbers checked), the study views (`study/`, one engine table or plot each), a score table's view
//! (`scores/`), the home page, and the live views over a bundle (`search/`, `context/`,
//! `route/`, `chunks/`, `evaluate/`, `rerank/`), each a folder with its own state. Each view's
//! settings and URL keys are its `params.rs`, which the store (`crate::params`) and the
//! permalink reach; the rest of a view is its own. Each reads the store from context and renders
//! engine results; the active view alone is mounted, so only its computations run. No view
//! imports another view's internals: what two views share lives outside `views/`
//! (`components/`, `bundles/`, `packing/`, `params/`, `live.rs`).

pub mod chunks;
pub mod context;
pub mod evaluate;
mod home;
pub mod paper;
pub mod rerank;
pub mod route;
pub mod scores;
pub mod search;
pub mod study;

pub use chunks::ChunksView;
pub use context::ContextView;
pub use evaluate::EvaluateView;
pub use home::HomeView;
pub use paper::PaperView;
pub use rerank::RerankView;
pub use route::RouteView;
pub use scores::ScoresView;
pub use search::SearchView;
pub use study::{
    BenchView, CasesView, FusionView, LinesView, OperationsView, PairedView, ReposView,
    SubgroupsView, Table2View,
};
