//! The paper page: every number the study's paper prints beside its recomputation from the
//! study's own data, in the paper's order and grouped by where it is printed, with a ✓ where the
//! digits agree at the printed precision, a ✗ with the difference and why where known, and a –
//! with what the data lacks. The check is the engine's (`check`), run here in the page on the
//! study as loaded (before any fusion the reader adds), so it is the same check as `routelens
//! check`.

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::check::printed::PrintedFile;
use routelens_engine::check::{check, CheckReport, Outcome, Source, Verdict};

use crate::api;
use crate::params::page::{PageParamsStoreFields, StudyRef};
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// Which numbers the page lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    All,
    NotReproduced,
}

/// The paper page.
#[component]
pub fn PaperView() -> impl IntoView {
    let state = AppState::get();
    let report = Memo::new(move |_| {
        let printed: Result<Arc<PrintedFile>, String> = state.printed.get()?;
        Some(printed.map(|file| {
            let base = state.base.get();
            let scores = state.scores.get();
            match (base, scores) {
                (Some(study), _) => Some(check(&file, Source::Study(&study))),
                (None, Some(table)) => Some(check(&file, Source::Scores(&table))),
                (None, None) => None,
            }
        }))
    });
    let name = move || match state.settings.page().study().get() {
        StudyRef::Served(id) => id,
        _ => "this study".into(),
    };
    let shown = RwSignal::new(Shown::All);
    let body = move || match report.get() {
        None => view! { <p class="muted">"This study carries no printed numbers."</p> }.into_any(),
        Some(Err(err)) => view! {
            <p class="error" data-testid="paper-error">
                {format!("The paper's printed numbers could not be read: {err}")}
            </p>
        }
        .into_any(),
        Some(Ok(None)) => view! { <p class="muted">"Checking…"</p> }.into_any(),
        Some(Ok(Some(report))) => render(report, name(), shown).into_any(),
    };
    view! { <section class="paper">{body}</section> }
}

/// The summary line, the legend, the filter and the numbers, section by section.
fn render(report: CheckReport, name: String, shown: RwSignal<Shown>) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let table = report.table();
    let download = move |_| error.set(api::download_csv(&table).err().map(|e| e.to_string()));
    let sections = sections(&report.verdicts);
    let listed = move || {
        let filter = shown.get();
        sections
            .iter()
            .filter_map(|(section, verdicts)| {
                let rows: Vec<&Verdict> = verdicts
                    .iter()
                    .filter(|v| filter == Shown::All || v.outcome != Outcome::Reproduced)
                    .collect();
                (!rows.is_empty()).then(|| section_view(section, &rows))
            })
            .collect_view()
    };
    view! {
        <h3 class="paper-title">{report.paper.clone()}</h3>
        <p class="summary" data-testid="paper-summary">
            {report.summary(&name)}
        </p>
        <p class="muted legend" data-testid="paper-legend">
            "Each number is recomputed now, in your browser, from the study's own data, and \
             written as the paper writes it. ✓ the same digits as printed · ✗ other digits: the \
             difference, and why where it is known · – the data cannot yield it: what is missing."
        </p>
        <div class="controls">
            <label class="control">
                "show "
                <select
                    data-testid="paper-filter"
                    on:change=move |ev| {
                        shown.set(match event_target_value(&ev).as_str() {
                            "not-reproduced" => Shown::NotReproduced,
                            _ => Shown::All,
                        })
                    }
                >
                    <option value="all">"every printed number"</option>
                    <option value="not-reproduced">"only those not reproduced"</option>
                </select>
            </label>
            <button data-testid="csv-download" on:click=download>
                "Download CSV"
            </button>
            {move || error.get().map(|e| view! { <span class="error">{e}</span> })}
        </div>
        {listed}
    }
}

/// The verdicts grouped by where the paper prints them (the place's part before its first
/// comma: "Abstract", "Table 2", "4.4 Post-review controls"), in the paper's order.
fn sections(verdicts: &[Verdict]) -> Vec<(String, Vec<Verdict>)> {
    let mut sections: Vec<(String, Vec<Verdict>)> = Vec::new();
    for verdict in verdicts {
        let section = verdict
            .place
            .split_once(", ")
            .map_or(verdict.place.as_str(), |(section, _)| section);
        match sections.last_mut() {
            Some((last, list)) if last == section => list.push(verdict.clone()),
            _ => sections.push((section.to_string(), vec![verdict.clone()])),
        }
    }
    sections
}

fn section_view(section: &str, verdicts: &[&Verdict]) -> impl IntoView {
    let rows = verdicts
        .iter()
        .map(|verdict| {
            let what = verdict
                .place
                .split_once(", ")
                .map_or("", |(_, what)| what)
                .to_string();
            let (mark, outcome, label) = match verdict.outcome {
                Outcome::Reproduced => ("✓", "reproduced", "reproduced"),
                Outcome::Differs => ("✗", "differs", "differs"),
                Outcome::Failed => ("✗", "failed", "recomputation failed"),
                Outcome::NotComputable => ("–", "not_computable", "not computable"),
            };
            let note = match (verdict.difference, verdict.note.clone()) {
                (Some(difference), Some(note)) => format!("differs by {difference:+.4}: {note}"),
                (Some(difference), None) => format!("differs by {difference:+.4}"),
                (None, note) => note.unwrap_or_default(),
            };
            view! {
                <tr data-testid="paper-number" data-outcome=outcome>
                    <td class="where">{what}</td>
                    <td class="num" data-col="printed">{verdict.printed.clone()}</td>
                    <td class="num" data-col="recomputed">
                        {verdict.recomputed.clone().unwrap_or_else(|| "–".into())}
                    </td>
                    <td class=format!("mark {outcome}") title=label aria-label=label>
                        {mark}
                    </td>
                    <td class="note">{note}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-view paper-section" data-testid="paper-section">
            <h4>{section.to_string()}</h4>
            <table>
                <thead>
                    <tr>
                        <th>"where"</th>
                        <th>"printed"</th>
                        <th>"recomputed"</th>
                        <th>
                            <span class="visually-hidden">"agrees"</span>
                        </th>
                        <th>"note"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
