//! The study views: the paper's tables and plots re-scored from the open study, one engine table
//! or plot per view with its controls (Table 2, fusion, paired tests, per repository, operating
//! points, line level, subgroups, single cases, the re-score benchmark). They need no bundle and
//! never start the live worker.

mod bench;
mod case_list;
mod case_snapshot;
mod cases;
mod fusion;
mod lines;
mod operations;
mod paired;
pub mod params;
mod repos;
mod subgroups;
mod table2;

pub use bench::BenchView;
pub use cases::CasesView;
pub use fusion::FusionView;
pub use lines::LinesView;
pub use operations::OperationsView;
pub use paired::PairedView;
pub use repos::ReposView;
pub use subgroups::SubgroupsView;
pub use table2::Table2View;
