//! The fusion builder: reciprocal-rank fusion of two or more archived arms, added to the study
//! as a new arm that every view then shows.

use leptos::prelude::*;
use routelens_engine::{scoring::tables::file_recall_table, ArmOrigin};

use super::params::StudyViewParamsStoreFields;
use crate::components::{NumberInput, TableView};
use crate::params::fusion::FusionParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// The fusion builder.
#[component]
pub fn FusionView() -> impl IntoView {
    let state = AppState::get();
    let settings = state.settings;
    let picked = RwSignal::new(Vec::<String>::new());
    let message = RwSignal::new(None::<String>);
    // Only archived arms are offered: a fusion's name joins its parts with `+`, so a fusion of a
    // fusion could not be told apart from a three-way fusion in the permalink.
    let archived = move || {
        state
            .with_study(|study| {
                study
                    .arms
                    .iter()
                    .filter(|arm| arm.origin == ArmOrigin::Archived)
                    .map(|arm| (arm.name.clone(), arm.label.clone()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let boxes = move || {
        archived()
            .into_iter()
            .map(|(name, label)| {
                let (checked, toggled) = (name.clone(), name.clone());
                view! {
                    <label class="toggle" title=label>
                        <input
                            type="checkbox"
                            data-testid=format!("fusion-arm-{name}")
                            prop:checked=move || picked.with(|p| p.contains(&checked))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                picked.update(|p| {
                                    p.retain(|a| *a != toggled);
                                    if on {
                                        p.push(toggled.clone());
                                    }
                                });
                            }
                        />
                        {name}
                    </label>
                }
            })
            .collect_view()
    };
    let add = move |_| {
        // Parts in the order they were ticked: the name reads as the user built it (`rg+fts5`).
        // Fusion does not depend on that order (ties go by path), so a reordering is a duplicate.
        let arms: Vec<String> = archived().into_iter().map(|(name, _)| name).collect();
        let parts: Vec<String> = picked
            .get_untracked()
            .into_iter()
            .filter(|name| arms.contains(name))
            .collect();
        if parts.len() < 2 {
            message.set(Some("Choose two or more arms to fuse.".into()));
            return;
        }
        let name = parts.join("+");
        let same = |other: &Vec<String>| {
            other.len() == parts.len() && other.iter().all(|arm| parts.contains(arm))
        };
        if let Some(existing) = settings
            .fusion()
            .fusions()
            .with_untracked(|f| f.iter().find(|o| same(o)).cloned())
        {
            message.set(Some(format!(
                "{name} is already added as {}.",
                existing.join("+")
            )));
            return;
        }
        settings.fusion().fusions().update(|f| f.push(parts));
        message.set(Some(format!(
            "Added {name}: it is now an arm in every view."
        )));
    };
    let added = move || {
        settings
            .fusion()
            .fusions()
            .get()
            .into_iter()
            .map(|parts| {
                let name = parts.join("+");
                let removed = parts.clone();
                view! {
                    <li data-testid="fusion-item" data-fusion=name.clone()>
                        <code>{name.clone()}</code>
                        " "
                        <button
                            data-testid=format!("fusion-remove-{name}")
                            on:click=move |_| settings.fusion().fusions().update(|f| f.retain(|p| *p != removed))
                        >
                            "Remove"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    let errors = move || {
        state
            .study
            .with(|loaded| loaded.as_ref().map(|l| l.fusion_errors.clone()))
            .unwrap_or_default()
            .into_iter()
            .map(|e| view! { <p class="error" data-testid="fusion-error">{e}</p> })
            .collect_view()
    };
    let table = move || {
        let ks = [
            settings.study_views().k_left().get(),
            settings.study_views().k_right().get(),
        ];
        state
            .with_study(|study| file_recall_table(study, &ks))
            .map(|table| view! { <TableView table testid="table-fusion-recall" /> })
    };
    view! {
        <section>
            <fieldset class="arm-toggles">
                <legend>"Arms to fuse"</legend>
                {boxes}
            </fieldset>
            <div class="controls">
                <NumberInput
                    value=Signal::derive(move || settings.fusion().rank_constant().get())
                    set=Callback::new(move |v| settings.fusion().rank_constant().set(v))
                    label="rank constant"
                    testid="fusion-rrf-k"
                />
                <NumberInput
                    value=Signal::derive(move || settings.fusion().depth().get())
                    set=Callback::new(move |v| settings.fusion().depth().set(v))
                    label="depth per arm"
                    testid="fusion-depth"
                />
                <button data-testid="fusion-add" on:click=add>
                    "Add fusion"
                </button>
            </div>
            {move || message.get().map(|m| view! { <p data-testid="fusion-message">{m}</p> })}
            <p class="note">
                "Each arm's first `depth` paths score 1/(rank constant + rank); paths are ordered by "
                "total score, then truncated to k. " <strong>"Ties are broken by path, ascending"</strong>
                ": that rule reproduces the paper exactly (tree+FTS5 File@8 = 0.491, 23 complete); "
                "breaking ties by first-seen order gives 0.4928 and 24 instead. The rank constant and "
                "depth apply to every fusion added here, and changing them recomputes them all. The "
                "archive's own tree+fts5 is the paper's fusion (60, 16); adding tree+fts5 here replaces it."
            </p>
            <ul class="fusions">{added}</ul>
            {errors}
            {table}
        </section>
    }
}
