//! The Search view: every lexical arm of the paper, live in wasm, over an index bundle the server
//! lists in `site.json` (or the reader opened). The arms run in the live worker ([`crate::live`]), started on the
//! first search.
//!
//! Loading: choosing a bundle fetches its `manifest.json` (and its question set); the first
//! search has the worker fetch the index blob and shows the index and path arms (`fts5`,
//! `fts5-full`, `path-fts5`, `basename`) at once, then fetch the chunks (the `rg` arms search
//! every file's text, so they need every chunk) and fills in the `rg` columns; each chunk and the
//! index are checked against the manifest's SHA-256 by the engine, whose message names the file
//! when they differ. A file click shows the file's text (fetching and verifying just its chunk)
//! with the arm's terms highlighted.
//!
//! Results: one column per arm (ranked paths, scores, query time from `performance.now()`), the
//! RRF of the ticked arms, gold hits and recall@k for a question of the set. "Add as arm" runs
//! every question through every arm (and the fusion) and adds them as arms of a live study of the
//! question set, shown as Table 2; "Export TREC run" downloads the results as a TREC run.

mod arms;
pub mod params;
mod results;
mod sources;
mod state;
mod timing;

use routelens_engine::stable_sort;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::live::evidence::{BundleRef, LiveStudyExport};
use routelens_engine::load::question_set::Question;
use routelens_engine::scoring::tables::file_recall_table;
use routelens_engine::{LexicalArm, MAX_K};

use crate::api::{self, BundleEntry};
use crate::bundles::{fetch_bundle, FetchedBundle};
use crate::components::{bundle_select, question_select, TableView};
use crate::error::Error;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use arms::{export_trec, open_live_study, run_all};
use params::SearchParamsStoreFields;
use results::{file_view, results_view};
use state::{fail, OpenBundle, Results, SearchState};
use timing::TimingPanel;

/// The Search view.
#[component]
pub fn SearchView() -> impl IntoView {
    let app = AppState::get();
    let s = SearchState {
        bundles: LocalResource::new(move || app.bundles.list()),
        open: RwSignal::new(None),
        progress: RwSignal::new(None),
        error: RwSignal::new(None),
        text: RwSignal::new(String::new()),
        question: RwSignal::new(None),
        results: RwSignal::new(None),
        fused: app.settings.search().fused().into(),
        k: app.settings.shared().k().into(),
        file: RwSignal::new(None),
        live: RwSignal::new(None),
        all: RwSignal::new(None),
        busy: RwSignal::new(false),
    };
    // Only the view the page opened on runs its link's search; a later return to the tab keeps
    // what it shows.
    let opened_by_link = !MOUNTED.replace(true);
    spawn_local(async move {
        // The resource's list, once it is in: the permalink's bundle opens, and a link that
        // names a question or issue text shows its results, as it did for whoever shared it.
        let _ = s.bundles.await;
        if let Some(name) = app.settings.shared().bundle().get_untracked() {
            match app.bundles.find(&name).await {
                Ok(entry) => {
                    open_bundle(app, s, entry).await;
                    let asked = app.settings.shared().query().get_untracked();
                    if opened_by_link && asked.is_some() && s.open.get_untracked().is_some() {
                        run_query(app, s).await;
                    }
                }
                Err(err) => s.error.set(Some(err)),
            }
        }
    });

    let bundle_select = move || {
        let chosen = app
            .settings
            .shared()
            .bundle()
            .get_untracked()
            .unwrap_or_default();
        let pick = move |entry| spawn_local(open_bundle(app, s, entry));
        bundle_select(
            s.bundles.get(),
            chosen,
            "bundle-select",
            "bundles-absent",
            pick,
        )
    };

    let summary = move || {
        s.open.get().map(|open| {
            let m = &open.manifest;
            view! {
                <p class="muted" data-testid="bundle-summary">
                    {format!(
                        "{}: {} files, {} bytes raw, {} chunks; manifest {} bytes; {} questions",
                        m.source,
                        m.files.len(),
                        m.raw_bytes(),
                        m.chunks.len(),
                        open.manifest_bytes,
                        open.questions.len(),
                    )}
                </p>
            }
        })
    };

    let question_select = move || {
        s.open
            .get()
            .filter(|open| !open.questions.is_empty())
            .map(|open| {
                let pick = move |q: Option<&Question>| match q {
                    Some(q) => {
                        s.text.set(q.question.clone());
                        s.question.set(Some(q.id.clone()));
                        app.settings.shared().query().set(Some(q.id.clone()));
                    }
                    None => s.question.set(None),
                };
                question_select(
                    open.questions.clone(),
                    s.question.into(),
                    "question-select",
                    pick,
                )
            })
    };

    let run = move |_| spawn_local(run_query(app, s));
    let add_arm = move |_| spawn_local(run_all(app, s));
    let open_study = move |_| open_live_study(app, s);
    let export = move |_| {
        let text = export_trec(s);
        let name = format!(
            "{}-run.trec",
            s.open
                .with_untracked(|o| o.as_ref().map(|o| o.entry.name.clone()))
                .unwrap_or_default()
        );
        s.error
            .set(api::download_text(&name, "text/plain;charset=utf-8", &text).err());
    };
    let export_study = move |_| {
        let (Some(study), Some(open)) = (s.live.get_untracked(), s.open.get_untracked()) else {
            return;
        };
        let name = format!("{}-live-study.json", open.entry.name);
        let bundle = BundleRef::of(&open.entry.name, &open.manifest);
        let written = LiveStudyExport::new(&study, &open.questions, bundle)
            .map_err(Error::from)
            .and_then(|export| api::download_text(&name, "application/json", &export.to_json()));
        s.error.set(written.err());
    };
    let k_options = (1..=MAX_K)
        .map(|k| view! { <option value=k.to_string() prop:selected=move || s.k.get() == k>{k}</option> })
        .collect_view();
    let fuse_boxes = LexicalArm::ALL
        .into_iter()
        .map(|arm| {
            let name = arm.name().to_string();
            let (checked, toggled) = (name.clone(), name.clone());
            view! {
                <label class="toggle">
                    <input
                        type="checkbox"
                        data-testid=format!("search-fuse-{name}")
                        prop:checked=move || s.fused.get().contains(&checked)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            s.fused.update(|fused| {
                                fused.retain(|a| *a != toggled);
                                if on {
                                    fused.push(toggled.clone());
                                }
                                // Keep the arms' own order.
                                stable_sort::by_key(fused, |a| LexicalArm::from_name(a).ok());
                            });
                        }
                    />
                    {name.clone()}
                </label>
            }
        })
        .collect_view();

    view! {
        <section class="search">
            <div class="controls">
                {bundle_select}
                {question_select}
            </div>
            {summary}
            {move || s.progress.get().map(|p| view! { <p class="progress" data-testid="bundle-progress">{p}</p> })}
            {move || s.error.get().map(|e| view! { <p class="error" data-testid="bundle-error">{e.to_string()}</p> })}
            <textarea
                data-testid="search-query"
                rows="5"
                cols="100"
                placeholder="Type or paste an issue"
                prop:value=move || s.text.get()
                on:input=move |ev| {
                    s.text.set(event_target_value(&ev));
                    s.question.set(None);
                }
            ></textarea>
            <div class="controls">
                <button
                    data-testid="search-run"
                    disabled=move || s.open.with(Option::is_none) || s.busy.get()
                    on:click=run
                >
                    "Search"
                </button>
                <label class="control">
                    "k "
                    <select
                        data-testid="search-k"
                        on:change=move |ev| {
                            if let Ok(k) = event_target_value(&ev).parse() {
                                s.k.set(k);
                            }
                        }
                    >
                        {k_options}
                    </select>
                </label>
                <fieldset class="arm-toggles">
                    <legend>"Fuse (RRF)"</legend>
                    {fuse_boxes}
                </fieldset>
                <button
                    data-testid="search-add-arm"
                    disabled=move || {
                        s.open.with(|o| o.as_ref().is_none_or(|o| o.questions.is_empty())) || s.busy.get()
                    }
                    title="Run every question of the bundle's set through every arm and add them to the live study"
                    on:click=add_arm
                >
                    "Add as arm (all questions)"
                </button>
                <button
                    data-testid="search-open-live"
                    disabled=move || s.live.with(Option::is_none) || s.busy.get()
                    title="Make the live study (the question set with the arms added) the study every view shows"
                    on:click=open_study
                >
                    "Open as study"
                </button>
                <button
                    data-testid="search-export-trec"
                    disabled=move || s.results.with(Option::is_none) && s.all.with(Option::is_none)
                    on:click=export
                >
                    "Export TREC run"
                </button>
                <button
                    data-testid="search-export-study"
                    disabled=move || s.live.with(Option::is_none) || s.busy.get()
                    title="The live study with every search's results and query time, to open again or to replay offline with routelens replay-study"
                    on:click=export_study
                >
                    "Download study with runs"
                </button>
            </div>
            {move || results_view(s)}
            {move || file_view(s)}
            {move || {
                s.live.get().map(|live| {
                    let study = &live.study;
                    let table = file_recall_table(study, &[s.k.get(), MAX_K]);
                    view! {
                        <div data-testid="live-study">
                            <p class="muted">
                                {format!(
                                    "Live study {:?}: {} questions, {} arms",
                                    study.title,
                                    study.cases.len(),
                                    study.arms.len(),
                                )}
                            </p>
                            <TableView table testid="table-live-recall" />
                        </div>
                    }
                })
            }}
            <TimingPanel s />
        </section>
    }
}

/// Fetches a bundle's manifest and question set, replacing whatever was open.
async fn open_bundle(app: AppState, s: SearchState, entry: BundleEntry) {
    app.settings.shared().bundle().set(Some(entry.name.clone()));
    s.open.set(None);
    s.results.set(None);
    s.file.set(None);
    s.live.set(None);
    s.all.set(None);
    s.error.set(None);
    let fetched = match fetch_bundle(
        app.bundles,
        app.base.get_untracked(),
        &app.issue_texts.get_untracked(),
        &entry,
        |p| s.progress.set(Some(p)),
    )
    .await
    {
        Ok(fetched) => fetched,
        Err(err) => return fail(s, err),
    };
    s.progress.set(Some(format!(
        "{}; the index loads on the first search",
        fetched.summary(&entry.name)
    )));
    let FetchedBundle {
        manifest,
        manifest_bytes,
        manifest_sha256,
        questions,
        ..
    } = fetched;
    // A permalink's query: a question id of this set, else issue text.
    if let Some(query) = app.settings.shared().query().get_untracked() {
        match questions.iter().find(|q| q.id == query) {
            Some(q) => {
                s.text.set(q.question.clone());
                s.question.set(Some(q.id.clone()));
            }
            None => s.text.set(query),
        }
    }
    s.open.set(Some(Arc::new(OpenBundle {
        entry,
        manifest,
        manifest_bytes,
        manifest_sha256,
        questions,
    })));
}

thread_local! {
    /// Whether the Search view has been shown before on this page (the page is single-threaded).
    static MOUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

async fn run_query(app: AppState, s: SearchState) {
    let Some(open) = s.open.get_untracked() else {
        return;
    };
    let issue = s.text.get_untracked();
    if issue.trim().is_empty() {
        s.error.set(Some(Error::refused(
            "type an issue or pick a question first",
        )));
        return;
    }
    s.busy.set(true);
    s.error.set(None);
    api::next_tick().await;
    let question = s
        .question
        .get_untracked()
        .and_then(|id| open.questions.iter().find(|q| q.id == id).cloned());
    app.settings.shared().query().set(Some(match &question {
        Some(q) => q.id.clone(),
        None => issue.clone(),
    }));
    let show = |columns| {
        s.results.set(Some(Results {
            qid: question.as_ref().map_or("query".into(), |q| q.id.clone()),
            gold: question.as_ref().map(|q| q.gold.clone()),
            columns,
        }))
    };
    // First the arms the index and paths answer (a fraction of the bundle fetched), then the rg
    // arms once every chunk is in.
    let texts = match sources::load(s, false).await {
        Ok(texts) => texts,
        Err(err) => {
            s.busy.set(false);
            return fail(s, err);
        }
    };
    match sources::run_arms(s, &issue, &[]).await {
        Ok(columns) => show(columns),
        Err(err) => fail(s, err),
    }
    if !texts {
        api::next_tick().await;
        let rerun = match sources::load(s, true).await {
            Ok(_) => sources::run_arms(s, &issue, &[]).await,
            Err(err) => Err(err),
        };
        match rerun {
            Ok(columns) => show(columns),
            Err(err) => fail(s, err),
        }
    }
    s.busy.set(false);
}
