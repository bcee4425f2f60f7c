//! Line level recomputed: delivered-line recall of every arm over every issue whose files are in
//! the loaded bundle, at the Context view's settings (k, budget, radius, anchors). For the
//! bundle's own questions (the live study) the arms are the live ones; for an open study, its
//! arms over those of its cases the bundle has (see [`recompute_study`], used by the Lines view).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::context::{recomputed_lines_table, ContextSettings};
use routelens_engine::lexical::live::snapshot_mismatch;
use routelens_engine::live_session::LineJob;
use routelens_engine::{GoldSpan, Study, Table};

use super::load::{self, LoadedBundle};
use crate::components::TableView;
use crate::state::{AppState, SettingsStoreFields};

/// The Context view's settings.
pub fn settings_now(app: AppState) -> ContextSettings {
    let s = app.settings;
    ContextSettings {
        k: s.k().get_untracked(),
        anchors_per_file: s.anchors().get_untracked(),
        radius_lines: s.radius().get_untracked(),
        budget_tokens: s.budget().get_untracked(),
    }
}

/// Whether every gold span's file is in the bundle.
fn files_available(bundle: &LoadedBundle, gold: &[GoldSpan]) -> bool {
    !gold.is_empty() && gold.iter().all(|span| bundle.paths.contains(&span.path))
}

/// The cases of a study the loaded bundle can recompute, and those it must not.
#[derive(Default)]
pub struct Available {
    /// Each case's index, issue text and gold spans.
    pub cases: Vec<(usize, String, Vec<GoldSpan>)>,
    /// One sentence per case the bundle has a question for but that was cut at another commit
    /// or ranked under another file policy: its gold lines and the bundle's files would belong
    /// to different snapshots, so it is shown, never recomputed.
    pub mismatched: Vec<String>,
}

/// The cases of `study` whose files are in `bundle`: the bundle has a question with the case's id
/// (its issue text) and every gold span's file, and the bundle is of the case's commit and the
/// study's file policy. Gold spans are the case's, else the question's.
pub fn available_cases(study: &Study, bundle: &LoadedBundle) -> Available {
    let snapshot = bundle.snapshot();
    let mut available = Available::default();
    for (index, case) in study.cases.iter().enumerate() {
        let Some(question) = bundle.questions.iter().find(|q| q.id == case.id) else {
            continue;
        };
        if let Some(why) = snapshot_mismatch(study, case, snapshot) {
            available.mismatched.push(why);
            continue;
        }
        let gold = if case.gold_spans.is_empty() {
            question.gold_lines.clone()
        } else {
            case.gold_spans.clone()
        };
        if files_available(bundle, &gold) {
            available
                .cases
                .push((index, question.question.clone(), gold));
        }
    }
    available
}

/// Recomputes the study's arms over its available cases (see [`available_cases`]).
pub async fn recompute_study(
    study: &Study,
    bundle: &LoadedBundle,
    settings: ContextSettings,
    progress: impl Fn(String) + 'static,
) -> Result<Table, String> {
    let jobs = available_cases(study, bundle)
        .cases
        .into_iter()
        .map(|(index, text, gold)| LineJob {
            index,
            text,
            gold,
            rankings: study
                .arms
                .iter()
                .map(|arm| {
                    let ranking = arm.rankings.get(index).cloned().unwrap_or_default();
                    (arm.name.clone(), ranking)
                })
                .collect(),
        })
        .collect();
    let rows = bundle.line_scores(jobs, settings, progress).await?;
    Ok(recomputed_lines_table(
        &format!("Delivered lines at k = {} (recomputed)", settings.k),
        &rows,
        Some(study),
    ))
}

/// The live study's line level: the bundle's questions with gold lines, every live arm.
#[component]
pub fn LineLevel(
    /// The loaded bundle's name.
    bundle: String,
) -> impl IntoView {
    let app = AppState::get();
    let table = RwSignal::new(None::<Result<Table, String>>);
    let progress = RwSignal::new(None::<String>);
    let start = move |_| {
        let Some(bundle) = load::loaded(&bundle) else {
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
            {move || table.get().map(|result| match result {
                Ok(table) => view! { <TableView table testid="table-recomputed-lines" /> }.into_any(),
                Err(err) => view! { <p class="error">{err}</p> }.into_any(),
            })}
        </section>
    }
}

async fn live_lines(
    bundle: Rc<LoadedBundle>,
    settings: ContextSettings,
    progress: impl Fn(String) + 'static,
) -> Result<Table, String> {
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
        return Err("no question of this bundle has gold line spans on its files".into());
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
