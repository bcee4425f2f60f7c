//! The bundle and question pickers of the views that work on a bundle (Search, Context, Route).

use leptos::prelude::*;
use routelens_engine::load::question_set::Question;

use crate::api::BundleEntry;
use crate::error::Error;

/// The bundle `<select>` over the server's list (or what to say while it is asked for, or why
/// there is none). `chosen` is preselected; `on_pick` gets the entry the user chooses.
/// `testid` names the select, `error_testid` the message when the list is absent.
pub fn bundle_select(
    bundles: Option<Result<Vec<BundleEntry>, Error>>,
    chosen: String,
    testid: &'static str,
    error_testid: &'static str,
    on_pick: impl Fn(BundleEntry) + 'static,
) -> AnyView {
    let list = match bundles {
        None => return view! { <p>"Asking this server which bundles it serves…"</p> }.into_any(),
        Some(Err(err)) => {
            return view! { <p class="error" data-testid=error_testid>{err.to_string()}</p> }
                .into_any()
        }
        Some(Ok(list)) => list,
    };
    let options = list
        .iter()
        .map(|entry| {
            let selected = entry.name == chosen;
            view! { <option value=entry.name.clone() selected=selected>{entry.name.clone()}</option> }
        })
        .collect_view();
    view! {
        <label class="control">
            "bundle "
            <select
                data-testid=testid
                on:change=move |ev| {
                    let name = event_target_value(&ev);
                    if let Some(entry) = list.iter().find(|e| e.name == name).cloned() {
                        on_pick(entry);
                    }
                }
            >
                <option value="" selected=chosen.is_empty()>"(choose a bundle)"</option>
                {options}
            </select>
        </label>
    }
    .into_any()
}

/// The question `<select>` of a bundle's question set, with "(type an issue)" first: `selected`
/// tells which id is shown as chosen, `on_pick` gets the chosen question (`None` for typing).
pub fn question_select(
    questions: Vec<Question>,
    selected: Signal<Option<String>>,
    testid: &'static str,
    on_pick: impl Fn(Option<&Question>) + 'static,
) -> impl IntoView {
    let options = questions
        .iter()
        .map(|q| {
            let id = q.id.clone();
            let is_selected = move || selected.get().as_deref() == Some(id.as_str());
            view! { <option value=q.id.clone() prop:selected=is_selected>{q.id.clone()}</option> }
        })
        .collect_view();
    view! {
        <label class="control">
            "question "
            <select
                data-testid=testid
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    on_pick(questions.iter().find(|q| q.id == id));
                }
            >
                <option value="" prop:selected=move || selected.get().is_none()>
                    "(type an issue)"
                </option>
                {options}
            </select>
        </label>
    }
}
