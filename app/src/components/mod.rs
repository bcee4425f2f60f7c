//! Reusable pieces: a table renderer with CSV download, the controls the views share (metric
//! controls among them), the bundle and question pickers, where the cross-encoder comes from, the forest plot of paired
//! comparisons and Table 2's dot chart with the text layout every plot shares, the legend of gold
//! marks, and the error boundaries' fallback.

mod bundle_select;
mod controls;
mod cross_encoder;
mod dot_chart;
mod errors;
mod forest;
mod legend;
mod metric_controls;
pub mod plot;
mod table_view;

pub use bundle_select::{bundle_select, question_select};
pub use controls::{ArmSelect, ArmToggles, KSelect, NumberInput};
pub use cross_encoder::{chosen_cross_encoder, CrossEncoderControls};
pub use dot_chart::DotChart;
pub use errors::shown_errors;
pub use forest::{ForestPlot, ForestRow};
pub use legend::GoldLegend;
pub use metric_controls::{ClusterSelect, MetricListInput, RelevanceSelect, ViewMetricSelect};
pub use table_view::{cases_link, TableView};
