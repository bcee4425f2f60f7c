//! The controls several views share: a k selector, arm selectors and a number input. Each takes
//! its `data-testid` from the caller, so one page never holds two controls with the same id.

use std::str::FromStr;

use leptos::prelude::*;
use reactive_stores::Field;
use routelens_engine::MAX_K;

use crate::state::AppState;

/// A `<select>` of k from 1 to 16.
#[component]
pub fn KSelect(
    /// The setting it edits.
    #[prop(into)]
    value: Field<usize>,
    /// Label text.
    label: &'static str,
    /// The select's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    let options = (1..=MAX_K)
        .map(|k| {
            view! {
                <option value=k.to_string() prop:selected=move || value.get() == k>
                    {k}
                </option>
            }
        })
        .collect_view();
    view! {
        <label class="control">
            {label}
            <select
                data-testid=testid
                on:change=move |ev| {
                    if let Ok(k) = event_target_value(&ev).parse() {
                        value.set(k);
                    }
                }
            >
                {options}
            </select>
        </label>
    }
}

/// A `<select>` of the study's arms (fusions included).
#[component]
pub fn ArmSelect(
    /// The setting it edits.
    #[prop(into)]
    value: Field<String>,
    /// Label text.
    label: &'static str,
    /// The select's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    let state = AppState::get();
    let options = move || {
        state
            .arm_names()
            .into_iter()
            .map(|name| {
                let (selected, option_value) = (name.clone(), name.clone());
                view! {
                    <option value=option_value prop:selected=move || value.get() == selected>
                        {name}
                    </option>
                }
            })
            .collect_view()
    };
    view! {
        <label class="control">
            {label}
            <select data-testid=testid on:change=move |ev| value.set(event_target_value(&ev))>
                {options}
            </select>
        </label>
    }
}

/// One checkbox per arm, editing a chosen-arms setting (empty means all arms).
/// Each box has `data-testid="arm-toggle-<arm>"`.
#[component]
pub fn ArmToggles(
    /// The setting it edits.
    #[prop(into)]
    chosen: Field<Vec<String>>,
) -> impl IntoView {
    let state = AppState::get();
    let toggle = move |name: String, on: bool| {
        let all = state.arm_names();
        let mut now = chosen.get_untracked();
        if now.is_empty() {
            now = all.clone();
        }
        now.retain(|arm| *arm != name);
        if on {
            now.push(name);
        }
        // Keep the study's arm order; all arms chosen is stored as "all" (empty).
        let ordered: Vec<String> = all.iter().filter(|a| now.contains(a)).cloned().collect();
        chosen.set(if ordered.len() == all.len() {
            Vec::new()
        } else {
            ordered
        });
    };
    let boxes = move || {
        state
            .arm_names()
            .into_iter()
            .map(|name| {
                let (checked_name, toggled_name) = (name.clone(), name.clone());
                view! {
                    <label class="toggle">
                        <input
                            type="checkbox"
                            data-testid=format!("arm-toggle-{name}")
                            prop:checked=move || {
                                let chosen = chosen.get();
                                chosen.is_empty() || chosen.contains(&checked_name)
                            }
                            on:change=move |ev| toggle(toggled_name.clone(), event_target_checked(&ev))
                        />
                        {name}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <fieldset class="arm-toggles">
            <legend>"Arms"</legend>
            {boxes}
        </fieldset>
    }
}

/// A text input for a number, committed on change; text that does not parse is named in place
/// and leaves the setting as it was (range checks are the engine's, shown where results go).
#[component]
pub fn NumberInput<T>(
    /// The current value.
    #[prop(into)]
    value: Signal<T>,
    /// Called with a parsed value.
    #[prop(into)]
    set: Callback<T>,
    /// Label text.
    label: &'static str,
    /// The input's `data-testid`.
    testid: &'static str,
) -> impl IntoView
where
    T: FromStr + ToString + Clone + Send + Sync + 'static,
{
    let error = RwSignal::new(None::<String>);
    view! {
        <label class="control">
            {label}
            <input
                type="text"
                inputmode="decimal"
                size="8"
                data-testid=testid
                prop:value=move || value.get().to_string()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    match text.trim().parse::<T>() {
                        Ok(parsed) => {
                            error.set(None);
                            set.run(parsed);
                        }
                        Err(_) => error.set(Some(format!("{label}: {text:?} is not a number"))),
                    }
                }
            />
            {move || error.get().map(|e| view! { <span class="error">{e}</span> })}
        </label>
    }
}
