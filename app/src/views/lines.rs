//! Line level: the archived delivered-line recall under the 16K-token budget, per arm, on all
//! issues and on the fully aligned ones. These are the archive's numbers, not recomputed here.

use leptos::prelude::*;
use routelens_engine::{tables::archived_lines_table, Subset};

use std::collections::BTreeSet;

use crate::components::TableView;
use crate::state::AppState;

/// The archived line-level view.
#[component]
pub fn LinesView() -> impl IntoView {
    let state = AppState::get();
    let counts = move || {
        state
            .with_study(|study| {
                (
                    Subset::All.indices(study).len(),
                    Subset::Aligned.indices(study).len(),
                )
            })
            .map(|(all, aligned)| {
                format!("All {all} issues, and the {aligned} whose gold text aligns with the base commit.")
            })
    };
    // The k the archive has line values for (8 and 16 for the paper): other k would be all dashes.
    let table = move || {
        let ks = state.with_study(|study| {
            study
                .arms
                .iter()
                .flat_map(|arm| arm.archived_lines.keys().copied())
                .collect::<BTreeSet<usize>>()
                .into_iter()
                .collect::<Vec<_>>()
        });
        state.with_study(|study| archived_lines_table(study, &ks.unwrap_or_default())).map(|table| {
            if table.rows.is_empty() {
                view! { <p data-testid="lines-none">"This study archives no line-level values."</p> }
                    .into_any()
            } else {
                view! { <TableView table testid="table-archived-lines" /> }.into_any()
            }
        })
    };
    view! {
        <section>
            <p class="banner" data-testid="lines-label">
                "Archived values (recomputed once the line selector exists): delivered annotated-line "
                "recall under the 16K-token budget, as stored in study.json and poststudy.json, at every k "
                "the archive has them for (8 and 16 for the paper). Arms the archive has no line values "
                "for are left out."
            </p>
            <p>{counts}</p>
            {table}
        </section>
    }
}
