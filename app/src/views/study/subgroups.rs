//! The paper's prespecified subgroups: issues whose text names a gold path or basename (a flag
//! the archive carries, since the texts are not archived) and issues whose gold files span more
//! than one directory (computed from the gold paths). Below the paper's table, the chosen metric
//! in each subgroup with its 95% interval.

use leptos::prelude::*;
use routelens_engine::{
    scoring::metric_tables::subgroup_metric_table, scoring::tables::subgroup_table,
};

use super::params::{chosen_arms, StudyViewParamsStoreFields};
use crate::components::{
    shown_errors, ArmToggles, ClusterSelect, KSelect, RelevanceSelect, TableView, ViewMetricSelect,
};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// The subgroups view.
#[component]
pub fn SubgroupsView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let table = move || {
        let k = s.shared().k().get();
        state
            .with_study(|study| {
                subgroup_table(study, &chosen_arms(&s.study_views().arms().get(), study), k)
            })
            .map(|table| view! { <TableView table testid="table-subgroups" /> })
    };
    let with_intervals = move || {
        let metric = state.view_metric();
        state.with_study(|study| {
            subgroup_metric_table(
                study,
                &chosen_arms(&s.study_views().arms().get(), study),
                metric,
                &state.metric_setup(study),
            )
            .map(|table| view! { <TableView table testid="table-subgroups-metric" /> })
            .map_err(crate::error::Error::from)
        })
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=s.shared().k() label="k" testid="k-select" />
            </div>
            <ArmToggles chosen=s.study_views().arms() />
            <p class="note">
                "File recall at k within each subgroup. A subgroup the study carries no label for is empty."
            </p>
            {table}
            <h3>"With 95% intervals"</h3>
            <div class="controls">
                <ViewMetricSelect testid="subgroup-metric" />
                <RelevanceSelect />
                <ClusterSelect testid="subgroup-cluster" />
            </div>
            <ErrorBoundary fallback=shown_errors>{with_intervals}</ErrorBoundary>
        </section>
    }
}
