//! A case run live on its own snapshot: the first of the site's bundles built from the case's
//! repository at its commit under the study's file policy (found from their manifests alone),
//! every lexical arm run over it in the live worker once the case's issue text is known, and each
//! arm's live ranking against its archived one (`live::against_archive` in the engine).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::corpus::bundle::ManifestHead;
use routelens_engine::live::against_archive::{
    against_archive, against_archive_table, snapshot_for_case,
};
use routelens_engine::live::live_session::{AnswerBody, CallBody};
use routelens_engine::live::snapshot::BundleSnapshot;
use routelens_engine::table::Table;
use routelens_engine::MAX_K;

use crate::api::BundleEntry;
use crate::bundles::load_call;
use crate::components::TableView;
use crate::error::{Error, Result};
use crate::live;
use crate::state::AppState;

/// The case's snapshot among the site's bundles, with the run button and its outcome.
#[component]
pub fn CaseSnapshot(case_id: String, text: Option<String>, k: usize) -> impl IntoView {
    let app = AppState::get();
    let id = case_id.clone();
    let found = LocalResource::new(move || find(app, id.clone()));
    let outcome = RwSignal::new(None::<std::result::Result<Table, String>>);
    let running = RwSignal::new(None::<String>);
    let shown = move || match found.get() {
        None => view! { <p class="muted">"Looking for the case's snapshot among the bundles…"</p> }
            .into_any(),
        Some(Err(err)) => view! {
            <p class="muted" data-testid="case-snapshot">
                {format!("No snapshot to run the case on: {err}")}
            </p>
        }
        .into_any(),
        Some(Ok(None)) => view! {
            <p class="muted" data-testid="case-snapshot">
                "None of the site's bundles is this case's snapshot (its repository at its base \
                 commit, under the study's file policy), so its arms cannot be run live here."
            </p>
        }
        .into_any(),
        Some(Ok(Some((entry, head)))) => {
            let said = format!(
                "Its snapshot: bundle {} ({} at {}, {} files).",
                entry.name,
                head.source,
                head.commit.as_deref().unwrap_or("a working tree"),
                head.files
            );
            let button = text.clone().map(|text| {
                let (case_id, entry) = (case_id.clone(), entry.clone());
                let start = move |_| {
                    if running.get_untracked().is_some() {
                        return;
                    }
                    running.set(Some("opening the bundle".into()));
                    let (case_id, entry, text) = (case_id.clone(), entry.clone(), text.clone());
                    spawn_local(async move {
                        let done = run(app, &entry, (&case_id, &text), k, running).await;
                        outcome.set(Some(done.map_err(|err| err.to_string())));
                        running.set(None);
                    });
                };
                view! {
                    <button data-testid="case-live-run" on:click=start>
                        "Run every lexical arm live on it"
                    </button>
                }
            });
            let missing = text.is_none().then(|| {
                view! {
                    <span class="muted">
                        " Load the case's issue text above to run its arms live."
                    </span>
                }
            });
            view! {
                <p data-testid="case-snapshot" data-bundle=entry.name.clone()>
                    {said}
                    {missing}
                </p>
                {button}
            }
            .into_any()
        }
    };
    view! {
        <section class="case-live">
            <h4>"Live on its snapshot"</h4>
            {shown}
            {move || running.get().map(|line| view! { <p class="progress">{line}</p> })}
            {move || match outcome.get() {
                None => ().into_any(),
                Some(Ok(table)) => view! { <TableView table testid="table-case-live" /> }.into_any(),
                Some(Err(err)) => {
                    view! { <p class="error" data-testid="case-live-error">{err}</p> }.into_any()
                }
            }}
        </section>
    }
}

/// The first bundle that is case `id`'s snapshot, by repository (the manifest's source or the
/// bundle's name), commit and file policy.
async fn find(app: AppState, id: String) -> Result<Option<(BundleEntry, Rc<ManifestHead>)>> {
    let entries = app.bundles.list().await?;
    let mut heads = Vec::with_capacity(entries.len());
    for entry in entries {
        let head = app.bundles.head(&entry).await?;
        heads.push((entry, head));
    }
    let chosen = app.with_study(|study| {
        let case = study.case_index(&id)?;
        let mut snapshots = Vec::new();
        for (entry, head) in &heads {
            for repo in [head.source.as_str(), entry.name.as_str()] {
                let snapshot = BundleSnapshot {
                    repo,
                    commit: head.commit.as_deref(),
                    policy: &head.policy,
                };
                snapshots.push((entry.name.as_str(), snapshot));
            }
        }
        snapshot_for_case(study, case, &snapshots).map(str::to_string)
    });
    Ok(chosen
        .flatten()
        .and_then(|name| heads.into_iter().find(|(entry, _)| entry.name == name)))
}

/// Loads the bundle's index and texts in the worker, runs every lexical arm over the issue text,
/// and compares each arm the study archives with its archived ranking at `k`.
async fn run(
    app: AppState,
    entry: &BundleEntry,
    (case_id, text): (&str, &str),
    k: usize,
    running: RwSignal<Option<String>>,
) -> Result<Table> {
    let files = app
        .bundles
        .open(entry, &move |line| running.set(Some(line)))
        .await?;
    let load = load_call(entry, &files.manifest_sha256, true, true, &[]);
    match live::call(load, move |line| running.set(Some(line))).await? {
        AnswerBody::Loaded { .. } => {}
        other => return Err(live::unexpected(&other)),
    }
    running.set(Some("running every lexical arm".into()));
    let call = CallBody::RunIssue {
        bundle: entry.name.clone(),
        issue: text.to_string(),
        k: MAX_K,
        fused: Vec::new(),
    };
    let runs = match live::call(call, |_| {}).await? {
        AnswerBody::Ran { runs } => runs,
        other => return Err(live::unexpected(&other)),
    };
    let mut live = Vec::with_capacity(runs.len());
    for run in runs {
        let paths = run
            .output
            .map_err(|err| Error::refused(format!("{}: {err}", run.arm)))?
            .paths();
        live.push((run.arm, paths));
    }
    app.with_study(|study| {
        let case = study
            .case_index(case_id)
            .ok_or_else(|| Error::refused(format!("case {case_id} is not in the open study")))?;
        Ok(against_archive_table(
            &against_archive(study, case, &live, k),
            k,
        ))
    })
    .unwrap_or_else(|| Err(Error::refused("no study is open")))
}
