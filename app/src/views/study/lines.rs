//! Line level: the archived delivered-line recall under the 16K-token budget, per arm, on all
//! issues and on the fully aligned ones, and the values recomputed by the engine's selector and
//! packer for every issue whose files are in the loaded bundle (the Context view loads one,
//! [`crate::packing`]),
//! shown beside the archived values where both exist. The paper's fastindex study names
//! repositories no bundle holds, so it shows archived values only, and says so.

use leptos::prelude::*;
use routelens_engine::stable_sort::Sorted;
use routelens_engine::{scoring::tables::archived_lines_table, Subset};

use leptos::task::spawn_local;

use crate::components::{shown_errors, TableView};
use crate::error::Error;
use crate::packing::recompute as recomputed;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
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
                .sorted_set()
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
    // Which issues can be recomputed: those whose files are in the loaded bundle.
    let bundle_name = state.settings.shared().bundle();
    let available = move || {
        let bundle = bundle_name
            .get()
            .and_then(|name| state.packed_bundle(&name))?;
        let available = state.with_study(|study| recomputed::available_cases(study, &bundle))?;
        Some((
            bundle.entry.name.clone(),
            available.cases.len(),
            available.mismatched,
        ))
    };
    let recomputed_table = RwSignal::new(None::<Result<routelens_engine::Table, Error>>);
    let progress = RwSignal::new(None::<String>);
    let recompute = move |_| {
        let Some(bundle) = bundle_name
            .get_untracked()
            .and_then(|name| state.packed_bundle(&name))
        else {
            return;
        };
        let Some(study) = state.study.get_untracked().map(|loaded| loaded.study) else {
            return;
        };
        let settings = recomputed::settings_now(state);
        spawn_local(async move {
            let result = recomputed::recompute_study(&study, &bundle, settings, move |t| {
                progress.set(Some(t))
            })
            .await;
            progress.set(None);
            recomputed_table.set(Some(result));
        });
    };
    let mismatched = move || {
        let (name, _, mismatched) = available()?;
        let first = mismatched.first()?.clone();
        Some(view! {
            <p class="notice" data-testid="lines-mismatched">
                {format!(
                    "{} of this study's issues are in the loaded bundle {name:?} by id but not by \
                     snapshot, and are not recomputed: {first}",
                    mismatched.len()
                )}
            </p>
        })
    };
    let source = move || {
        match available() {
        Some((name, cases, _)) if cases > 0 => view! {
            <p class="banner" data-testid="lines-source" data-source="recomputed">
                {format!(
                    "{cases} issues have their files in the loaded bundle {name:?}: their values are \
                     recomputed (beside the archived ones where the study has both)."
                )}
                " "
                <button data-testid="lines-recompute" on:click=recompute>"Recompute"</button>
            </p>
        }
        .into_any(),
        _ => view! {
            <p class="banner" data-testid="lines-source" data-source="archived">
                "Archived values only: none of this study's issues has its repository files in a "
                "loaded bundle (the paper's repositories are not available here), so nothing can be "
                "recomputed. A study over a bundle's questions (open it in the Context view first) "
                "is recomputed."
            </p>
        }
        .into_any(),
    }
    };
    view! {
        <section>
            <p class="banner" data-testid="lines-label">
                "Archived values: delivered annotated-line recall under the 16K-token budget, as "
                "stored in study.json and poststudy.json, at every k the archive has them for (8 and "
                "16 for the paper). Arms the archive has no line values for are left out."
            </p>
            {source}
            {mismatched}
            <p>{counts}</p>
            {table}
            {move || progress.get().map(|p| view! { <p class="progress">{p}</p> })}
            <ErrorBoundary fallback=shown_errors>
                {move || recomputed_table.get().map(|result| result.map(|table| view! {
                    <TableView table testid="table-recomputed-lines" />
                }))}
            </ErrorBoundary>
        </section>
    }
}
