//! Table 2: every arm's file recall at two k, side by side (default 8 and 16, any 1–16).

use leptos::prelude::*;
use routelens_engine::tables::file_recall_table;

use crate::components::{KSelect, TableView};
use crate::state::{AppState, SettingsStoreFields};

/// Table 2 with its two k selectors.
#[component]
pub fn Table2View() -> impl IntoView {
    let state = AppState::get();
    let settings = state.settings;
    let table = move || {
        let ks = [settings.k_left().get(), settings.k_right().get()];
        state
            .with_study(|study| file_recall_table(study, &ks))
            .map(|table| view! { <TableView table testid="table-file-recall" /> })
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=settings.k_left() label="left k" testid="k-left" />
                <KSelect value=settings.k_right() label="right k" testid="k-right" />
            </div>
            <p class="note">
                "File@k: mean over issues of the share of gold files in the first k. Full@k: issues with "
                "every gold file in the first k. Ceiling@k: issues whose gold set fits in k at all, the "
                "most Full@k can reach. Micro@k: gold files found over all gold files. P@k: precision."
            </p>
            {table}
        </section>
    }
}
