//! Reusable pieces: a table renderer with CSV download, and the controls the views share.

mod controls;
mod table_view;

pub use controls::{ArmSelect, ArmToggles, KSelect, NumberInput};
pub use table_view::TableView;
