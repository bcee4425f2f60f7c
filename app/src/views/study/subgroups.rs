//! The paper's prespecified subgroups: issues whose text names a gold path or basename (a flag
//! the archive carries, since the texts are not archived) and issues whose gold files span more
//! than one directory (computed from the gold paths).

use leptos::prelude::*;
use routelens_engine::tables::subgroup_table;

use crate::components::{ArmToggles, KSelect, TableView};
use crate::state::{AppState, SettingsStoreFields};

/// The subgroups view.
#[component]
pub fn SubgroupsView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let table = move || {
        let k = s.k().get();
        state
            .with_study(|study| subgroup_table(study, &state.chosen_arms(study), k))
            .map(|table| view! { <TableView table testid="table-subgroups" /> })
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=s.k() label="k" testid="k-select" />
            </div>
            <ArmToggles />
            <p class="note">
                "File recall at k within each subgroup. A subgroup the study carries no label for is empty."
            </p>
            {table}
        </section>
    }
}
