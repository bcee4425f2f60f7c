//! Reusable pieces: a table renderer with CSV download, the controls the views share, the
//! bundle and question pickers, and the error boundaries' fallback.

mod bundle_select;
mod controls;
mod errors;
mod table_view;

pub use bundle_select::{bundle_select, question_select};
pub use controls::{ArmSelect, ArmToggles, KSelect, NumberInput};
pub use errors::shown_errors;
pub use table_view::TableView;
