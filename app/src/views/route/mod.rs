//! The Route view: the paper's tree router (or the flat tournament) walking a bundle's folder
//! tree live, through the engine's step machine ([`Session`]).
//!
//! Choose a bundle (as in the Search view), type an issue or pick a question, choose the decider
//! (`offline`: the engine's lexical scorer, no key; `http`: the decision API or a gateway from
//! the browser, with a key typed into the page; `proxy`: `routelens serve`'s same-origin proxy,
//! which adds the key itself; `replay`: a recorded run file), and run. The walk fills in as each
//! answer arrives ([`walk`]); "Cancel" stops it after the call in flight, keeping the
//! partial run. The run is scored against the question's gold, downloads as a run file (every
//! request and response, never the key), and a downloaded file replays to the same walk.
//! "Add as arm" routes every question of the set and adds the rankings as an arm of the live
//! study (as the Search view's "Add as arm" does), shown as Table 2.

pub mod params;
mod run;
mod state;
mod walk;

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::live::evidence::{BundleRef, LiveStudyExport};
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::route::{Replayer, Run, RunFile, Session, Strategy};
use routelens_engine::scoring::tables::file_recall_table;
use routelens_engine::MAX_K;
use web_sys::HtmlInputElement;

use crate::api::{self, BundleEntry};
use crate::bundles::fetch_bundle;
use crate::components::{bundle_select, question_select, TableView};
use crate::decisions::{DeciderKind, Transport, PROXY_URL};
use crate::error::Error;
use crate::key_store;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use params::RouteParams;
use state::{RouteBundle, RouteState, Shown};
use walk::walk_view;

/// The Route view.
#[component]
pub fn RouteView() -> impl IntoView {
    let app = AppState::get();
    let remembered = key_store::remembered_key();
    let rs = RouteState {
        bundles: LocalResource::new(move || app.bundles.list()),
        open: RwSignal::new(None),
        text: RwSignal::new(String::new()),
        question: RwSignal::new(None),
        remember: RwSignal::new(remembered.is_some()),
        key: RwSignal::new(remembered.unwrap_or_default()),
        replay: RwSignal::new(None),
        shown: RwSignal::new(None),
        file: RwSignal::new(None),
        busy: RwSignal::new(false),
        cancel: RwSignal::new(false),
        progress: RwSignal::new(None),
        error: RwSignal::new(None),
        live: RwSignal::new(None),
        k: app.settings.shared().k().into(),
    };
    spawn_local(async move {
        // The resource's list, once it is in: the permalink's bundle opens.
        let _ = rs.bundles.await;
        if let Some(name) = app.settings.shared().bundle().get_untracked() {
            match app.bundles.find(&name).await {
                Ok(entry) => open_bundle(app, rs, entry).await,
                Err(err) => rs.error.set(Some(err)),
            }
        }
    });
    let route = app.settings.route();
    let api_base = app.settings.shared().api_base();

    let bundle_select = move || {
        let chosen = app
            .settings
            .shared()
            .bundle()
            .get_untracked()
            .unwrap_or_default();
        let pick = move |entry| spawn_local(open_bundle(app, rs, entry));
        bundle_select(
            rs.bundles.get(),
            chosen,
            "route-bundle-select",
            "bundles-absent",
            pick,
        )
    };

    let question_select = move || {
        let open = rs.open.get().filter(|o| !o.questions.is_empty())?;
        let pick = move |q: Option<&Question>| match q {
            Some(q) => {
                rs.text.set(q.question.clone());
                rs.question.set(Some(q.id.clone()));
                app.settings.shared().query().set(Some(q.id.clone()));
            }
            None => rs.question.set(None),
        };
        Some(question_select(
            open.questions.clone(),
            rs.question.into(),
            "route-question-select",
            pick,
        ))
    };

    let decider_options = DeciderKind::ALL
        .into_iter()
        .map(|kind| {
            view! {
                <option value=kind.name() prop:selected=move || route.get().decider == kind>
                    {kind.name()}
                </option>
            }
        })
        .collect_view();
    let http_fields = move || {
        (route.get().decider == DeciderKind::Http).then(|| {
            view! {
                <label class="control">
                    "base URL "
                    <input
                        data-testid="route-base"
                        size="32"
                        prop:value=move || api_base.get()
                        on:change=move |ev| {
                            api_base.set(event_target_value(&ev).trim().trim_end_matches('/').to_string());
                        }
                    />
                </label>
                <label class="control">
                    "API key "
                    <input
                        type="password"
                        autocomplete="off"
                        data-testid="route-key"
                        prop:value=move || rs.key.get()
                        on:input=move |ev| rs.key.set(event_target_value(&ev))
                    />
                </label>
                <label class="toggle">
                    <input
                        type="checkbox"
                        data-testid="route-remember"
                        prop:checked=move || rs.remember.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            rs.remember.set(on);
                            key_store::remember_key(&rs.key.get_untracked(), on);
                        }
                    />
                    "remember on this device"
                </label>
            }
        })
    };
    let replay_field = move || {
        (route.get().decider == DeciderKind::Replay).then(|| {
            view! {
                <label class="control">
                    "run file "
                    <input
                        type="file"
                        accept=".json,application/json"
                        data-testid="route-replay-file"
                        on:change=move |ev| {
                            let input: HtmlInputElement = event_target(&ev);
                            if let Some(file) = input.files().and_then(|l| l.item(0)) {
                                spawn_local(read_run_file(rs, file));
                            }
                        }
                    />
                </label>
                {move || rs.replay.get().map(|f| view! {
                    <span class="muted" data-testid="route-replay-summary">
                        {format!(
                            "recorded by {}: {} exchanges, {} paths",
                            f.decider,
                            f.exchanges.len(),
                            f.run.paths.len()
                        )}
                    </span>
                })}
            }
        })
    };
    let number = move |testid: &'static str,
                       get: fn(&RouteParams) -> usize,
                       set: fn(&mut RouteParams, usize)| {
        view! {
            <input
                type="number"
                min="1"
                max="10000"
                data-testid=testid
                prop:value=move || get(&route.get()).to_string()
                on:change=move |ev| {
                    if let Ok(n @ 1..=10_000) = event_target_value(&ev).parse::<usize>() {
                        route.update(|r| set(r, n));
                    }
                }
            />
        }
    };
    let k_options = (1..=MAX_K)
        .map(|k| view! { <option value=k.to_string() prop:selected=move || rs.k.get() == k>{k}</option> })
        .collect_view();
    let download = move |_| {
        let Some(file) = rs.file.get_untracked() else {
            return;
        };
        let name = format!(
            "route-{}-{}.json",
            file.strategy.name(),
            file.decider.replace(' ', "-")
        );
        rs.error
            .set(api::download_text(&name, "application/json", &file.to_json()).err());
    };
    let export = move |_| {
        let (Some(study), Some(open)) = (rs.live.get_untracked(), rs.open.get_untracked()) else {
            return;
        };
        let name = format!("{}-live-study.json", open.entry.name);
        let written = LiveStudyExport::new(&study, &open.questions, open.snapshot.clone())
            .map_err(Error::from)
            .and_then(|export| api::download_text(&name, "application/json", &export.to_json()));
        rs.error.set(written.err());
    };

    view! {
        <section class="route">
            <div class="controls">{bundle_select} {question_select}</div>
            {move || rs.open.get().map(|o| view! {
                <p class="muted" data-testid="route-bundle-summary">
                    {format!("{}: {} files, {} questions", o.entry.name, o.files, o.questions.len())}
                </p>
            })}
            <textarea
                data-testid="route-query"
                rows="4"
                cols="100"
                placeholder="Type or paste an issue"
                prop:value=move || rs.text.get()
                on:input=move |ev| {
                    rs.text.set(event_target_value(&ev));
                    rs.question.set(None);
                }
            ></textarea>
            <div class="controls">
                <label class="control">
                    "strategy "
                    <select
                        data-testid="route-strategy"
                        on:change=move |ev| {
                            let flat = event_target_value(&ev) == "flat";
                            route.update(|r| r.strategy = if flat { Strategy::Flat } else { Strategy::Tree });
                        }
                    >
                        <option value="tree" prop:selected=move || route.get().strategy == Strategy::Tree>"tree"</option>
                        <option value="flat" prop:selected=move || route.get().strategy == Strategy::Flat>"flat"</option>
                    </select>
                </label>
                <label class="control">
                    "decider "
                    <select
                        data-testid="route-decider-select"
                        on:change=move |ev| {
                            if let Some(kind) = DeciderKind::from_name(&event_target_value(&ev)) {
                                route.update(|r| r.decider = kind);
                            }
                        }
                    >
                        {decider_options}
                    </select>
                </label>
                <label class="control">
                    "model "
                    <input
                        data-testid="route-model"
                        size="12"
                        prop:value=move || route.get().model
                        on:change=move |ev| {
                            let model = event_target_value(&ev).trim().to_string();
                            if !model.is_empty() {
                                route.update(|r| r.model = model);
                            }
                        }
                    />
                </label>
                <label class="control">"max files " {number("route-max-files", |r| r.max_files, |r, n| r.max_files = n)}</label>
                <label class="control">"max calls " {number("route-max-calls", |r| r.max_calls, |r, n| r.max_calls = n)}</label>
            </div>
            <div class="controls">{http_fields} {replay_field}</div>
            {move || (route.get().decider == DeciderKind::Proxy).then(|| view! {
                <p class="muted">
                    {format!("Calls go to this server's {} (routelens serve adds TYPESAFE_API_KEY from its environment); the page holds no key.", PROXY_URL)}
                </p>
            })}
            <div class="controls">
                <button
                    data-testid="route-run-button"
                    disabled=move || rs.open.with(Option::is_none) || rs.busy.get()
                    on:click=move |_| spawn_local(run_single(app, rs))
                >
                    "Route"
                </button>
                <button
                    data-testid="route-cancel"
                    disabled=move || !rs.busy.get()
                    on:click=move |_| rs.cancel.set(true)
                >
                    "Cancel"
                </button>
                <label class="control">
                    "k "
                    <select
                        data-testid="route-k"
                        on:change=move |ev| {
                            if let Ok(k) = event_target_value(&ev).parse() {
                                rs.k.set(k);
                            }
                        }
                    >
                        {k_options}
                    </select>
                </label>
                <button
                    data-testid="route-download"
                    disabled=move || rs.file.with(Option::is_none)
                    on:click=download
                >
                    "Download run file"
                </button>
                <button
                    data-testid="route-add-arm"
                    disabled=move || {
                        rs.open.with(|o| o.as_ref().is_none_or(|o| o.questions.is_empty())) || rs.busy.get()
                    }
                    title="Route every question of the bundle's set with this decider and add the rankings as an arm of the live study"
                    on:click=move |_| spawn_local(run::run_all(app, rs))
                >
                    "Add as arm (all questions)"
                </button>
                <button
                    data-testid="route-open-live"
                    disabled=move || rs.live.with(Option::is_none) || rs.busy.get()
                    on:click=move |_| run::open_live_study(app, rs)
                >
                    "Open as study"
                </button>
                <button
                    data-testid="route-export-study"
                    disabled=move || rs.live.with(Option::is_none) || rs.busy.get()
                    title="The live study with every run file, to open again or to replay offline with routelens replay-study"
                    on:click=export
                >
                    "Download study with runs"
                </button>
            </div>
            {move || rs.progress.get().map(|p| view! { <p class="progress" data-testid="route-progress">{p}</p> })}
            {move || rs.error.get().map(|e| view! { <p class="error" data-testid="route-error">{e.to_string()}</p> })}
            {move || rs.shown.get().map(|shown| walk_view(shown, rs.k.get()))}
            {move || rs.live.get().map(|live| {
                let study = &live.study;
                let table = file_recall_table(study, &[rs.k.get(), MAX_K]);
                view! {
                    <div data-testid="route-live-study">
                        <p class="muted">
                            {format!("Live study {:?}: {} questions, {} arms", study.title, study.cases.len(), study.arms.len())}
                        </p>
                        <TableView table testid="table-route-live-recall" />
                    </div>
                }
            })}
        </section>
    }
}

/// Fetches a bundle's manifest and question set and builds its tree.
async fn open_bundle(app: AppState, rs: RouteState, entry: BundleEntry) {
    app.settings.shared().bundle().set(Some(entry.name.clone()));
    rs.open.set(None);
    rs.live.set(None);
    rs.error.set(None);
    let fetched = match fetch_bundle(
        app.bundles,
        app.base.get_untracked(),
        &app.issue_texts.get_untracked(),
        &entry,
        |p| rs.progress.set(Some(p)),
    )
    .await
    {
        Ok(fetched) => fetched,
        Err(err) => {
            rs.progress.set(None);
            rs.error.set(Some(err));
            return;
        }
    };
    let paths = fetched.manifest.paths();
    rs.progress.set(Some(fetched.summary(&entry.name)));
    if let Some(query) = app.settings.shared().query().get_untracked() {
        match fetched.questions.iter().find(|q| q.id == query) {
            Some(q) => {
                rs.text.set(q.question.clone());
                rs.question.set(Some(q.id.clone()));
            }
            None => rs.text.set(query),
        }
    }
    rs.open.set(Some(Arc::new(RouteBundle {
        snapshot: BundleRef::of(&entry.name, &fetched.manifest),
        entry,
        tree: fetched.manifest.tree(),
        files: paths.len(),
        questions: fetched.questions,
    })));
}

/// Reads a picked run file and shows the run it recorded (replaying it is "Route").
async fn read_run_file(rs: RouteState, file: web_sys::File) {
    let name = file.name();
    let parsed = api::read_text(&file)
        .await
        .and_then(|text| RunFile::from_json(&name, &text).map_err(Error::from));
    match parsed {
        Ok(run_file) => {
            rs.error.set(None);
            rs.shown.set(Some(Shown {
                run: run_file.run.clone(),
                settings: run_file.settings.clone(),
                qid: None,
                gold: None,
                source: format!("recorded run in {name} (not replayed yet)"),
            }));
            rs.replay.set(Some(Arc::new(run_file)));
        }
        Err(err) => {
            rs.replay.set(None);
            rs.error.set(Some(err));
        }
    }
}

/// Routes the shown issue (or replays the picked run file) and shows it live.
async fn run_single(app: AppState, rs: RouteState) {
    let Some(open) = rs.open.get_untracked() else {
        return;
    };
    let setup = app.settings.route().get_untracked();
    let key = rs.key.get_untracked();
    rs.error.set(None);
    let prepared = if setup.decider == DeciderKind::Replay {
        match rs.replay.get_untracked() {
            None => Err(Error::refused("pick a recorded run file to replay")),
            Some(file) => Session::replay(&file, &open.tree)
                .map(|session| {
                    let transport = Transport::Replay(Box::new(Replayer::new(&file)));
                    (
                        session,
                        transport,
                        file.issue.clone(),
                        file.settings.clone(),
                    )
                })
                .map_err(Error::from),
        }
    } else if rs.text.get_untracked().trim().is_empty() {
        Err(Error::refused(
            "nothing to route yet: choose a question of the bundle's set, or type or paste an \
             issue, then Run",
        ))
    } else {
        let issue = rs.text.get_untracked();
        // A picked question (or study case) orders the flat tournament by its id, as the paper
        // ordered by case id; typed text has none.
        let issue_id = rs.question.get_untracked().unwrap_or_default();
        let settings = run::settings_of(&setup);
        let base = app.settings.shared().api_base().get_untracked();
        Transport::for_kind(setup.decider, &base, &key).and_then(|transport| {
            Session::new(
                setup.strategy,
                &open.tree,
                &issue_id,
                &issue,
                settings.clone(),
                setup.decider.name(),
            )
            .map(|session| (session, transport, issue, settings))
            .map_err(Error::from)
        })
    };
    let (mut session, mut transport, issue, settings) = match prepared {
        Ok(prepared) => prepared,
        Err(err) => return rs.error.set(Some(err)),
    };
    if setup.decider == DeciderKind::Http {
        key_store::remember_key(&key, rs.remember.get_untracked());
    }
    let question = open
        .questions
        .iter()
        .find(|q| Some(&q.id) == rs.question.get_untracked().as_ref() || q.question == issue)
        .cloned();
    if setup.decider != DeciderKind::Replay {
        app.settings.shared().query().set(Some(match &question {
            Some(q) => q.id.clone(),
            None => issue.clone(),
        }));
    }
    let source = if setup.decider == DeciderKind::Replay {
        "replay"
    } else {
        "live run"
    };
    rs.busy.set(true);
    rs.cancel.set(false);
    rs.file.set(None);
    rs.shown.set(None);
    rs.progress.set(Some(format!(
        "routing with the {} decider…",
        setup.decider.name()
    )));
    let show = |run: &Run| {
        rs.shown
            .set(Some(run::shown(run, &settings, question.as_ref(), source)));
    };
    run::drive(rs, &mut session, &mut transport, show).await;
    let run = session.run();
    rs.progress.set(Some(format!(
        "{source} done: {} files nominated in {} calls",
        run.paths.len(),
        run.calls
    )));
    rs.file.set(Some(Arc::new(session.file())));
    rs.busy.set(false);
}
