//! # routelens rounds
//!
//! The second labelling round CodeAtlas specified (`../shared/seeds/004_*.txt`, its first
//! limitation) in the browser: the labelling page (`view=label`, [`label`]) and the adjudication
//! page (`view=adjudicate`, [`adjudicate`]). A wasm module of its own, loaded by the app's
//! `main` only when the URL names one of these pages (`app/src/rounds.rs`), so that the study
//! views' first load does not carry it, and so that a labeller's page has no tab or link to the
//! views that show gold. The rules and formats are the engine's (`load::labels`,
//! `scoring::agreement`, `evaluate::adjudication`); the pages hold views and state only.
//!
//! ## Settings in the URL
//!
//! `task` (the task's URL), `bundle` (a site bundle's name; default the one at the task's
//! commit), `labeller`, `slot` (which of the task's labeller orders, from 1), `cut` (the binary
//! cut, default 2), and on the adjudication page `adjudicator`, `resamples` (10000), `seed` (0).
//! Grades, notes and decisions never enter the URL.
//!
//! ## `data-testid`s (stable; the browser end-to-end tests use them)
//!
//! Both pages: `task-url`, `task-open`, `task-pick`, `task-summary`, `bundle-error`,
//! `view-about`, the file pane `file-view` (`data-path`; the question's terms in `<mark>`),
//! `file-loading`, `file-error`.
//!
//! Label: `labeller-id`, `labeller-slot`, `label-cut`, `label-start`, `label-import`,
//! `label-error`, `label-bar` holding `label-progress` ("judged 3 / 12"), `label-where`,
//! `label-prev`, `label-next`, `label-export`; `label-save-error`; `label-question`
//! (`data-question`), `label-question-text`, `label-candidates` with `label-candidate` rows
//! (`data-path`, `data-position`, `data-grade`, class `current`) holding `label-show`,
//! `grade-0` … `grade-3` (`aria-pressed`), `label-unsure`, `label-note`; `label-add-filter`,
//! `label-add-option` (`data-path`).
//!
//! Adjudicate: `labels-a`, `labels-b`, `adjudicate-error`, `agreement-cut`,
//! `agreement-resamples`, `agreement-seed`, `agreement-report` (the text `routelens agreement`
//! prints), `adjudicator-id`, `adjudicator-flag`, `adjudication-import`, `dispute-count`,
//! `dispute` rows (`data-question`, `data-path`, `data-decided`) holding `dispute-show`,
//! `dispute-grades`, `dispute-notes`, `decision-grade`, `decision-reason`, `decision-note`,
//! `decision-record`; `adjudication-export`, `adjudication-questions`, `adjudication-outcome`
//! (the text `routelens adjudicate --log` prints), `download-qrels`, `download-questions`.

use leptos::prelude::*;

pub mod adjudicate;
mod file_pane;
mod journal;
pub mod label;
mod query;
mod task;

/// The round's page the URL names.
#[component]
pub fn Rounds() -> impl IntoView {
    if let Some(line) = leptos::prelude::document().get_element_by_id("rounds-loading") {
        line.remove();
    }
    let page = match query::get("view").as_deref() {
        Some("adjudicate") => view! { <adjudicate::AdjudicatePage /> }.into_any(),
        _ => view! { <label::LabelPage /> }.into_any(),
    };
    view! {
        <header class="top">
            <h1>"routelens"</h1>
            <span class="tagline">"the second labelling round"</span>
        </header>
        <main>
            <div class="view">{page}</div>
        </main>
    }
}
