//! Reusable pieces: a table renderer with CSV download, the controls the views share, and the
//! bundle and question pickers.

mod bundle_select;
mod controls;
mod table_view;

pub use bundle_select::{bundle_select, question_select};
pub use controls::{ArmSelect, ArmToggles, KSelect, NumberInput};
pub use table_view::TableView;
