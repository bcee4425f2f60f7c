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
use crate::components::cases_link;
use crate::open_cases::cases_of_quantity;
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
            let report = match (base, scores) {
                (Some(study), _) => check(&file, Source::Study(&study)),
                (None, Some(table)) => check(&file, Source::Scores(&table)),
                (None, None) => return None,
            };
            Some((report, file))
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
        Some(Ok(Some((report, file)))) => render(report, &file, name(), shown).into_any(),
    };
    view! { <section class="paper">{body}</section> }
}

/// The summary line, the legend, the filter and the numbers, section by section.
fn render(
    report: CheckReport,
    file: &PrintedFile,
    name: String,
    shown: RwSignal<Shown>,
) -> impl IntoView {
    // A number of a study of rankings links to the cases behind it.
    let settings = AppState::get().settings;
    let rankings = AppState::get().base.with_untracked(Option::is_some);
    let links: Vec<Option<Callback<()>>> = file
        .numbers
        .iter()
        .map(|number| {
            let quantity = number.compute.as_ref().filter(|_| rankings)?;
            cases_of_quantity(settings, quantity)
        })
        .collect();
    let error = RwSignal::new(None::<String>);
    let table = report.table();
    let download = move |_| error.set(api::download_csv(&table).err().map(|e| e.to_string()));
    let sections = sections(&report.verdicts, &links);
    let listed = move || {
        let filter = shown.get();
        sections
            .iter()
            .filter_map(|(section, verdicts)| {
                let rows: Vec<&(Verdict, Option<Callback<()>>)> = verdicts
                    .iter()
                    .filter(|(v, _)| filter == Shown::All || v.outcome != Outcome::Reproduced)
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
             difference, and why where it is known · – the data cannot yield it: what is missing. A \
             linked number opens the issues it is computed over."
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

/// A section of the paper: its name and its numbers, each with its way to its cases.
type Section = (String, Vec<(Verdict, Option<Callback<()>>)>);

/// The verdicts grouped by where the paper prints them (the place's part before its first
/// comma: "Abstract", "Table 2", "4.4 Post-review controls"), in the paper's order.
fn sections(verdicts: &[Verdict], links: &[Option<Callback<()>>]) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for (verdict, link) in verdicts.iter().zip(links) {
        let verdict = (verdict.clone(), *link);
        let section = verdict
            .0
            .place
            .split_once(", ")
            .map_or(verdict.0.place.as_str(), |(section, _)| section)
            .to_string();
        match sections.last_mut() {
            Some((last, list)) if *last == section => list.push(verdict),
            _ => sections.push((section, vec![verdict])),
        }
    }
    sections
}

fn section_view(section: &str, verdicts: &[&(Verdict, Option<Callback<()>>)]) -> impl IntoView {
    let rows = verdicts
        .iter()
        .map(|(verdict, link)| {
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
                        {match (verdict.recomputed.clone(), *link) {
                            (Some(text), Some(open)) => {
                                cases_link(text.into_any(), move || open.run(()))
                            }
                            (text, _) => text.unwrap_or_else(|| "–".into()).into_any(),
                        }}
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
