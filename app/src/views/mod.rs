//! One module per view. Each reads the store from context and renders engine results; the
//! active view alone is mounted, so only its computations run.

mod bench;
mod bundle_open;
mod cases;
mod context;
mod fusion;
mod home;
mod lines;
mod operations;
mod paired;
mod repos;
mod route;
mod search;
mod subgroups;
mod table2;

pub use bench::BenchView;
pub use cases::CasesView;
pub use context::ContextView;
pub use fusion::FusionView;
pub use home::HomeView;
pub use lines::LinesView;
pub use operations::OperationsView;
pub use paired::PairedView;
pub use repos::ReposView;
pub use route::RouteView;
pub use search::SearchView;
pub use subgroups::SubgroupsView;
pub use table2::Table2View;
