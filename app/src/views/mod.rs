//! The views: the study views (`study/`, one engine table or plot each), a score table's view
//! (`scores/`), the home page, and the
//! live views (`search/`, `context/`, `route/`), each a folder with its own state, and a
//! bundle's chunks (`chunks.rs`). Each reads the
//! store from context and renders engine results; the active view alone is mounted, so only its
//! computations run. No view imports another view's internals: what two views share lives
//! outside `views/` (`components/`, `bundles.rs`, `packing/`, `live.rs`).

mod chunks;
mod context;
mod evaluate;
mod home;
mod rerank;
mod route;
mod scores;
mod search;
mod study;

pub use chunks::ChunksView;
pub use context::ContextView;
pub use evaluate::EvaluateView;
pub use home::HomeView;
pub use rerank::RerankView;
pub use route::RouteView;
pub use scores::ScoresView;
pub use search::SearchView;
pub use study::{
    BenchView, CasesView, FusionView, LinesView, OperationsView, PairedView, ReposView,
    SubgroupsView, Table2View,
};
