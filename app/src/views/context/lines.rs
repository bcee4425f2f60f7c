//! The Context view's line level: delivered-line recall of every live arm over the bundle's
//! questions with gold lines, recomputed at the view's settings ([`crate::packing::recompute`]
//! does the same for an open study, in the Lines view).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::delivery::context::{recomputed_lines_table, ContextSettings};
use routelens_engine::live::live_session::LineJob;
use routelens_engine::Table;

use crate::components::{shown_errors, TableView};
use crate::error::{Error, Result};
use crate::packing::recompute::{files_available, settings_now};
use crate::packing::LoadedBundle;
use crate::state::AppState;

/// The live study's line level: the bundle's questions with gold lines, every live arm.
#[component]
pub fn LineLevel(
    /// The loaded bundle's name.
    bundle: String,
) -> impl IntoView {
    let app = AppState::get();
    let table = RwSignal::new(None::<Result<Table>>);
    let progress = RwSignal::new(None::<String>);
    let start = move |_| {
        let Some(bundle) = app.packed_bundle(&bundle) else {
            return;
        };
        let settings = settings_now(app);
        spawn_local(async move {
            let result = live_lines(bundle, settings, move |text| progress.set(Some(text))).await;
            progress.set(None);
            table.set(Some(result));
        });
    };
    view! {
        <section class="line-level">
            <h3>"Line level over the bundle's questions (recomputed)"</h3>
            <p class="muted">
                "Every question with gold line spans, every live arm, at this view's k, budget, "
                "radius and anchors. These issues' files are in the loaded bundle, so the values "
                "are recomputed here; there are no archived values for a live study."
            </p>
            <button data-testid="context-lines-run" on:click=start>
                "Recompute line level"
            </button>
            {move || progress.get().map(|p| view! { <p class="progress">{p}</p> })}
            <ErrorBoundary fallback=shown_errors>
                {move || table.get().map(|result| result.map(|table| view! {
                    <TableView table testid="table-recomputed-lines" />
                }))}
            </ErrorBoundary>
        </section>
    }
}

async fn live_lines(
    bundle: Rc<LoadedBundle>,
    settings: ContextSettings,
    progress: impl Fn(String) + 'static,
) -> Result<Table> {
    let mut jobs: Vec<LineJob> = Vec::new();
    for (index, q) in bundle.questions.iter().enumerate() {
        if !files_available(&bundle, &q.gold_lines) {
            continue;
        }
        progress(format!("running the arms for {}", q.id));
        jobs.push(LineJob {
            index,
            text: q.question.clone(),
            gold: q.gold_lines.clone(),
            rankings: bundle.rankings(&q.question).await?.as_ref().clone(),
        });
    }
    if jobs.is_empty() {
        return Err(Error::refused(
            "no question of this bundle has gold line spans on its files",
        ));
    }
    let rows = bundle.line_scores(jobs, settings, progress).await?;
    Ok(recomputed_lines_table(
        &format!(
            "{}: delivered lines at k = {} (recomputed)",
            bundle.entry.name, settings.k
        ),
        &rows,
        None,
    ))
}
