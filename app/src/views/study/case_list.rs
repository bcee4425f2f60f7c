//! The drill-down's list of cases: what a number opens. Each case of the subset (or of one
//! repository) with every chosen arm's per-case value of the paired metric at k, and the paired
//! comparison's difference and side; sortable by any column, filtered by repository and by side
//! ("better on N, worse on M, same on K" are links here), all in the permalink. The list itself is
//! the engine's (`case_list`).

use leptos::prelude::*;
use routelens_engine::scoring::case_list::{case_list, CaseListQuery, Side};
use routelens_engine::stable_sort;
use routelens_engine::{PairedMetric, Study, Subset};

use super::params::{chosen_arms, StudyViewParamsStoreFields};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// The list, its filters and its counts.
#[component]
pub fn CaseList() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let views = s.study_views();
    let body = move || {
        state.with_study(|study| {
            let arms = chosen_arms(&views.arms().get(), study);
            let pair = match (
                study.arm_index(&views.left().get()),
                study.arm_index(&views.right().get()),
            ) {
                (Ok(left), Ok(right)) => Some((left, right)),
                _ => None,
            };
            let query = CaseListQuery {
                arms: arms.clone(),
                k: s.shared().k().get(),
                metric: views.metric().get(),
                subset: views.subset().get(),
                repo: views.repo().get(),
                pair,
                side: views.side().get(),
                sort: views.sort().get(),
            };
            match case_list(study, &query) {
                Ok(rows) => list_view(study, &query, rows).into_any(),
                Err(err) => {
                    view! { <p class="error" data-testid="case-list-error">{err.to_string()}</p> }
                        .into_any()
                }
            }
        })
    };
    view! { <div class="case-list-pane">{body}</div> }
}

fn list_view(
    study: &Study,
    query: &CaseListQuery,
    rows: Vec<routelens_engine::scoring::case_list::CaseListRow>,
) -> impl IntoView {
    let s = AppState::get().settings;
    let views = s.study_views();
    let metric = match query.metric {
        PairedMetric::ArchivedLineRecall => format!("archived line recall@{}", query.k),
        _ => format!("file recall@{}", query.k),
    };
    let pair_name = query
        .pair
        .map(|(l, r)| format!("{} − {}", study.arms[l].name, study.arms[r].name));
    // The counts of each side over the filters but the side.
    let sides = query.pair.and_then(|_| {
        let all = case_list(
            study,
            &CaseListQuery {
                side: None,
                sort: None,
                ..query.clone()
            },
        )
        .ok()?;
        let count = |side| all.iter().filter(|r| r.side() == Some(side)).count();
        Some([Side::Better, Side::Worse, Side::Same].map(|side| (side, count(side))))
    });
    let side_links = sides.map(|sides| {
        let pair_name = pair_name.clone().unwrap_or_default();
        let links = sides
            .into_iter()
            .map(|(side, n)| {
                let chosen = query.side == Some(side);
                view! {
                    " · "
                    <a
                        href="#"
                        data-testid=format!("case-side-{}", side.name())
                        class:chosen=chosen
                        on:click=move |ev| {
                            ev.prevent_default();
                            views.side().set((!chosen).then_some(side));
                        }
                    >
                        {format!("{} on {n}", side.name())}
                    </a>
                }
            })
            .collect_view();
        view! { <span data-testid="case-sides">{pair_name}{links}</span> }
    });
    let repos: Vec<String> = {
        let mut repos: Vec<String> = study.cases.iter().map(|c| c.repo.clone()).collect();
        stable_sort::sort(&mut repos);
        repos.dedup();
        repos
    };
    let repo_now = query.repo.clone().unwrap_or_default();
    let header = |label: String, key: &'static str, column: String| {
        let sorted = query.sort.as_deref() == Some(column.as_str());
        view! {
            <th>
                <button
                    class="sort"
                    class:sorted=sorted
                    data-testid=format!("case-sort-{key}")
                    data-col=column.clone()
                    title="sort by this column"
                    on:click=move |_| views.sort().set(Some(column.clone()))
                >
                    {label}
                    {sorted.then_some(" ▼")}
                </button>
            </th>
        }
    };
    let arm_headers = query
        .arms
        .iter()
        .map(|&arm| {
            let name = study.arms[arm].name.clone();
            header(name.clone(), "arm", name)
        })
        .collect_view();
    let diff_header = query
        .pair
        .map(|_| header("difference".into(), "difference", "difference".into()));
    let body = rows
        .iter()
        .map(|row| {
            let case = &study.cases[row.case];
            let id = case.id.clone();
            let selected = views.issue().get().as_deref() == Some(id.as_str());
            let (clicked_id, data_case) = (id.clone(), id.clone());
            let values = row
                .values
                .iter()
                .map(|v| view! { <td class="num">{v.map_or("–".to_string(), |v| format!("{v:.3}"))}</td> })
                .collect_view();
            let difference = query.pair.map(|_| {
                view! {
                    <td class="num" data-col="difference">
                        {row.difference.map_or("–".to_string(), |d| {
                            if d.abs() < 0.0005 { "0.000".to_string() } else { format!("{d:+.3}") }
                        })}
                    </td>
                }
            });
            view! {
                <tr
                    data-testid="case-row"
                    data-case=data_case
                    class:selected=selected
                    on:click=move |_| views.issue().set(Some(clicked_id.clone()))
                >
                    <td>
                        <a href="#" on:click=|ev| ev.prevent_default()>
                            {id}
                        </a>
                    </td>
                    <td>{case.repo.clone()}</td>
                    <td class="num">{case.gold_files.len()}</td>
                    {values}
                    {difference}
                </tr>
            }
        })
        .collect_view();
    let subset_label = match query.subset {
        Subset::Aligned => "aligned issues",
        _ => "all issues",
    };
    view! {
        <div class="controls">
            <span data-testid="case-count">
                {format!("{} issues ({subset_label}), {metric}", rows.len())}
            </span>
            <label class="control">
                "repository "
                <select
                    data-testid="case-repo-filter"
                    on:change=move |ev| {
                        let repo = event_target_value(&ev);
                        views.repo().set((!repo.is_empty()).then_some(repo));
                    }
                >
                    <option value="" selected=repo_now.is_empty()>"every one"</option>
                    {repos
                        .into_iter()
                        .map(|repo| {
                            let selected = repo == repo_now;
                            view! { <option value=repo.clone() selected=selected>{repo.clone()}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
            {side_links}
        </div>
        <div class="case-list">
            <table data-testid="case-list">
                <thead>
                    <tr>
                        {header("issue".into(), "issue", "issue".into())}
                        {header("repository".into(), "repo", "repo".into())}
                        <th>"gold files"</th>
                        {arm_headers}
                        {diff_header}
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}
