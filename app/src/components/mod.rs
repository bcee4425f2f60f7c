//! Reusable pieces: a table renderer with CSV download, the controls the views share (metric
//! controls among them), the bundle and question pickers, the forest plot of paired
//! comparisons, the legend of gold marks, and the error boundaries' fallback.

mod bundle_select;
mod controls;
mod errors;
mod forest;
mod legend;
mod metric_controls;
mod table_view;

pub use bundle_select::{bundle_select, question_select};
pub use controls::{ArmSelect, ArmToggles, KSelect, NumberInput};
pub use errors::shown_errors;
pub use forest::{ForestPlot, ForestRow};
pub use legend::GoldLegend;
pub use metric_controls::{ClusterSelect, MetricListInput, RelevanceSelect, ViewMetricSelect};
pub use table_view::TableView;
