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

/// The case's snapshot among the site's bundles, with the run button and its outcome. One line
/// says where things stand (looking, found, running, failed), to keep the page's module small.
#[component]
pub fn CaseSnapshot(case_id: String, text: Option<String>, k: usize) -> impl IntoView {
    let app = AppState::get();
    let status = RwSignal::new("Looking for the case's snapshot among the bundles…".to_string());
    let bundle = RwSignal::new(None::<BundleEntry>);
    let table = RwSignal::new(None::<Table>);
    let has_text = text.is_some();
    let id = case_id.clone();
    spawn_local(async move {
        let said = match find(app, id).await {
            Ok(Some((entry, head))) => {
                let said = format!(
                    "Its snapshot: bundle {} ({} at {}, {} files).{}",
                    entry.name,
                    head.source,
                    head.commit.as_deref().unwrap_or("a working tree"),
                    head.files,
                    if has_text {
                        ""
                    } else {
                        " Load the case's issue text above to run its arms live."
                    }
                );
                bundle.set(Some(entry));
                said
            }
            Ok(None) => "None of the site's bundles is this case's snapshot (its repository at \
                         its base commit, under the study's file policy), so its arms cannot be \
                         run live here."
                .to_string(),
            Err(err) => format!("No snapshot to run the case on: {err}"),
        };
        status.set(said);
    });
    let start = move |_| {
        let (Some(entry), Some(text)) = (bundle.get_untracked(), text.clone()) else {
            return;
        };
        status.set("opening the bundle".into());
        let id = case_id.clone();
        spawn_local(async move {
            match run(app, &entry, (&id, &text), k, status).await {
                Ok(ran) => {
                    table.set(Some(ran));
                    status.set(format!("Ran every lexical arm on bundle {}.", entry.name));
                }
                Err(err) => status.set(err.to_string()),
            }
        });
    };
    view! {
        <section class="case-live">
            <h4>"Live on its snapshot"</h4>
            <p data-testid="case-snapshot" data-bundle=move || bundle.get().map(|b| b.name)>
                {status}
            </p>
            {move || {
                (has_text && bundle.with(Option::is_some))
                    .then(|| {
                        view! {
                            <button data-testid="case-live-run" on:click=start.clone()>
                                "Run every lexical arm live on it"
                            </button>
                        }
                    })
            }}
            {move || table.get().map(|table| view! { <TableView table testid="table-case-live" /> })}
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
    status: RwSignal<String>,
) -> Result<Table> {
    let files = app
        .bundles
        .open(entry, &move |line| status.set(line))
        .await?;
    let load = load_call(entry, &files.manifest_sha256, true, true, &[]);
    match live::call(load, move |line| status.set(line)).await? {
        AnswerBody::Loaded { .. } => {}
        other => return Err(live::unexpected(&other)),
    }
    status.set("running every lexical arm".into());
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
