//! The Rerank view: CodeNib's two stages for one question of a bundle, run in the live worker
//! (engine `rerank::run`, as `routelens rerank`): the plan (editable; empty, the planner plans:
//! the offline one in the worker, or a model over chat completions from the page, or a run
//! file's recording), what each action matched, the pool, the reranker (none, the offline judge,
//! or the Jev Score judge over the decision API from the page: HTTP, `routelens serve`'s proxy,
//! or a run file's recording), every candidate's judgment and the top results with gold marked;
//! the run's exchanges download as a rerank run file, which replays here or with
//! `routelens rerank --reranker replay:FILE`; "Add as arm" runs every question of the set.
//!
//! `state.rs` the signals, `run.rs` the driver, `remote.rs` the page's calls, `render.rs` the
//! result.

pub mod params;
mod remote;
mod render;
mod run;
mod state;

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::record::RerankRunFile;
use routelens_engine::remote::rerank::settings::RerankerChoice;
use web_sys::HtmlInputElement;

use self::render::shown;
use self::run::{add_as_arm, run_question, RunSetup};
use self::state::{Ran, RerankState};
use crate::api;
use crate::components::{
    bundle_select, chosen_cross_encoder, question_select, CrossEncoderControls,
};
use crate::decisions::DeciderKind;
use crate::error::Error;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use crate::{decisions, key_store};
use params::{PlannerKind, RerankParamsStoreFields, RerankRemote, RerankRemoteStoreFields};

/// The Rerank view.
#[component]
pub fn RerankView() -> impl IntoView {
    let app = AppState::get();
    let s = app.settings;
    let rs = RerankState::new();
    if let Some(key) = key_store::remembered_key() {
        rs.judge_key.set(key);
    }
    let bundles = LocalResource::new(move || app.bundles.list());
    let questions = LocalResource::new(move || {
        let name = s.shared().bundle().get();
        async move {
            let Some(name) = name else {
                return Ok((Vec::new(), Vec::new()));
            };
            let entry = app.bundles.find(&name).await?;
            let files = app.bundles.open(&entry, &|_| {}).await?;
            let chunkers: Vec<Chunker> =
                files.manifest.chunkings.iter().map(|c| c.chunker).collect();
            Ok::<_, Error>((files.questions.clone(), chunkers))
        }
    });
    let (text, plan_text, ran) = (rs.text, rs.plan_text, rs.ran);
    let picked = RwSignal::new(None);
    // The question a permalink names (an id of the set, or the text itself).
    Effect::new(move || {
        if let Some(Ok((set, _))) = questions.get() {
            let query = s.shared().query().get_untracked().unwrap_or_default();
            let found = set.iter().find(|q| q.id == query);
            text.set(found.map_or(query, |q| q.question.clone()));
        }
    });
    let chunker = move || {
        let have = questions
            .get()
            .and_then(|r| r.ok())
            .map(|(_, c)| c)
            .unwrap_or_default();
        s.shared()
            .chunker()
            .get()
            .filter(|c| have.contains(c))
            .or_else(|| have.iter().copied().find(|c| *c == Chunker::Codenib))
            .or_else(|| {
                have.iter()
                    .copied()
                    .find(|c| *c == Chunker::StructuralUnmerged)
            })
            .or_else(|| have.first().copied())
    };
    let setup = move || -> Result<RunSetup, String> {
        let (Some(bundle), Some(chunker)) = (s.shared().bundle().get_untracked(), chunker()) else {
            return Err("choose a bundle with chunkings first".into());
        };
        // Read and checked by the worker: the page carries no regex or glob compiler.
        let typed = plan_text.get_untracked();
        Ok(RunSetup {
            bundle,
            chunker,
            route: s.rerank().pool().get_untracked(),
            reranker: s.rerank().reranker().get_untracked(),
            remote: s.rerank().remote().get_untracked(),
            api_base: s.shared().api_base().get_untracked(),
            typed_plan: (!typed.trim().is_empty()).then_some(typed),
            cross_encoder: s
                .rerank()
                .reranker()
                .get_untracked()
                .cross_encoder_input()
                .and_then(|_| chosen_cross_encoder(picked.get_untracked())),
        })
    };
    let run = move |_| {
        let setup = match setup() {
            Ok(setup) => setup,
            Err(why) => return ran.set(Ran::Failed(why)),
        };
        let query = text.get_untracked();
        if query.trim().is_empty() {
            ran.set(Ran::Failed("type or pick a question first".into()));
            return;
        }
        let gold = questions
            .get_untracked()
            .and_then(|r| r.ok())
            .and_then(|(set, _)| set.into_iter().find(|q| q.question == query));
        let id = gold.as_ref().map(|q| q.id.clone()).unwrap_or_default();
        rs.cancel.set(false);
        ran.set(Ran::Running(format!(
            "{}: loading the texts and the {} chunking",
            setup.bundle,
            setup.chunker.name()
        )));
        spawn_local(async move {
            let mut record = setup.new_record();
            let result = run_question(app, rs, &setup, (&id, &query), &mut record).await;
            let remote = !record.questions.is_empty();
            if let Err(err) = &result {
                record.partial = true;
                record.stopped_by = Some(err.to_string());
            }
            if remote {
                rs.record.set(Some(Arc::new(record)));
            }
            ran.set(match result {
                Ok(outcome) => {
                    if let Some(plan) = &outcome.run.plan {
                        if !plan.actions.is_empty() {
                            plan_text.set(serde_json::to_string_pretty(plan).unwrap_or_default());
                        }
                    }
                    Ran::Done { outcome, gold }
                }
                Err(err) => Ran::Failed(err.to_string()),
            });
        });
    };
    let add_arm = move |_| {
        let setup = match setup() {
            Ok(setup) => setup,
            Err(why) => return ran.set(Ran::Failed(why)),
        };
        let set = questions
            .get_untracked()
            .and_then(|r| r.ok())
            .map(|(q, _)| q)
            .unwrap_or_default();
        if set.is_empty() {
            return ran.set(Ran::Failed("the bundle has no question set".into()));
        }
        rs.cancel.set(false);
        rs.arm_note.set(None);
        spawn_local(async move {
            match add_as_arm(app, rs, setup, set).await {
                Ok(note) => {
                    rs.arm_note.set(Some(note));
                    ran.set(Ran::Idle);
                }
                Err(err) => ran.set(Ran::Failed(err.to_string())),
            }
        });
    };
    let picker = move || {
        let chosen = s.shared().bundle().get_untracked().unwrap_or_default();
        bundle_select(
            bundles.get(),
            chosen,
            "rerank-bundle-select",
            "bundles-absent",
            move |entry| s.shared().bundle().set(Some(entry.name)),
        )
    };
    let question_picker = move || {
        let set = questions
            .get()
            .and_then(|r| r.ok())
            .map(|(q, _)| q)
            .unwrap_or_default();
        let selected = Signal::derive(move || s.shared().query().get());
        question_select(
            set,
            selected,
            "rerank-question-select",
            move |q: Option<&Question>| {
                if let Some(q) = q {
                    text.set(q.question.clone());
                    s.shared().query().set(Some(q.id.clone()));
                    plan_text.set(String::new());
                }
            },
        )
    };
    let chunker_options = move || {
        let have = questions
            .get()
            .and_then(|r| r.ok())
            .map(|(_, c)| c)
            .unwrap_or_default();
        let current = chunker();
        have.into_iter()
            .map(|c| view! { <option value=c.name() selected=Some(c) == current>{c.name()}</option> })
            .collect_view()
    };
    let busy = move || matches!(ran.get(), Ran::Running(_));
    view! {
        <section>
            <div class="controls">
                {picker}
                {question_picker}
                <label class="control">
                    "pool "
                    <select
                        data-testid="rerank-route"
                        on:change=move |ev| {
                            if let Some(route) = Route::from_name(&event_target_value(&ev)) {
                                s.rerank().pool().set(route);
                            }
                        }
                    >
                        {Route::ALL.map(|r| view! {
                            <option value=r.name() selected=move || s.rerank().pool().get() == r>{r.name()}</option>
                        })}
                    </select>
                </label>
                <label class="control">
                    "reranker "
                    <select
                        data-testid="rerank-reranker"
                        on:change=move |ev| {
                            if let Some(choice) = RerankerChoice::from_name(&event_target_value(&ev)) {
                                s.rerank().reranker().set(choice);
                            }
                        }
                    >
                        {RerankerChoice::ALL.map(|r| view! {
                            <option value=r.name() selected=move || s.rerank().reranker().get() == r>{r.name()}</option>
                        })}
                    </select>
                </label>
                <label class="control">
                    "chunking "
                    <select
                        data-testid="rerank-chunker"
                        on:change=move |ev| s.shared().chunker().set(Chunker::from_name(&event_target_value(&ev)))
                    >
                        {chunker_options}
                    </select>
                </label>
            </div>
            {move || (s.rerank().reranker().get() == RerankerChoice::Jev).then(|| judge_controls(s.shared().api_base().into(), s.rerank().remote().into(), rs))}
            {move || s.rerank().reranker().get().cross_encoder_input().map(|_| view! {
                <CrossEncoderControls picked testid="rerank-cross-encoder" />
            })}
            {move || (s.rerank().pool().get() != Route::Bm25).then(|| planner_controls(s.rerank().remote().into(), rs))}
            {move || {
                let replaying = (s.rerank().reranker().get() == RerankerChoice::Jev
                    && s.rerank().remote().judge().get() == DeciderKind::Replay)
                    || (s.rerank().pool().get() != Route::Bm25
                        && s.rerank().remote().planner().get() == PlannerKind::Replay);
                replaying.then(|| replay_picker(rs))
            }}
            <label class="control wide">
                "question "
                <textarea
                    rows="3"
                    cols="90"
                    data-testid="rerank-query"
                    prop:value=move || text.get()
                    on:change=move |ev| {
                        text.set(event_target_value(&ev));
                        s.shared().query().set(Some(event_target_value(&ev)));
                    }
                ></textarea>
            </label>
            <label class="control wide">
                "grep plan (JSON; empty: the planner plans) "
                <textarea
                    rows="6"
                    cols="90"
                    data-testid="rerank-plan"
                    prop:value=move || plan_text.get()
                    on:change=move |ev| plan_text.set(event_target_value(&ev))
                ></textarea>
            </label>
            <div class="controls">
                <button data-testid="rerank-run" disabled=busy on:click=run>
                    "Retrieve and rerank"
                </button>
                <button data-testid="rerank-cancel" disabled=move || !busy() on:click=move |_| rs.cancel.set(true)>
                    "Cancel"
                </button>
                <button data-testid="rerank-add-arm" disabled=busy on:click=add_arm>
                    "Add as arm (every question of the set)"
                </button>
                {move || rs.record.get().map(|file| view! {
                    <button
                        data-testid="rerank-download-run"
                        on:click=move |_| {
                            if let Err(err) = api::download_text("rerank-run.json", "application/json", &file.to_json()) {
                                ran.set(Ran::Failed(err.to_string()));
                            }
                        }
                    >
                        {format!("Download the run file ({}{})", exchanges(&file), if file.partial { ", partial" } else { "" })}
                    </button>
                })}
            </div>
            {move || rs.arm_note.get().map(|note| view! { <p data-testid="rerank-arm-note">{note}</p> })}
            <p class="note">
                "The pool: chunk BM25 over the question (top 100), the plan's grep matches mapped \
                 to their smallest enclosing chunk (20 lines a file, 500 an action, round-robin, \
                 100 at most), or both interleaved. The reranker sees each candidate's first 3,000 \
                 characters, judges batches of 10 on CodeNib's four levels and sorts by expected \
                 level ÷ 3; a failed batch keeps its candidates in the pool's order after every \
                 scored one. The same run as "
                <code>"routelens rerank"</code>
                "."
            </p>
            {move || shown(ran.get())}
        </section>
    }
    .into_any()
}

/// How many exchanges a run file holds, said.
fn exchanges(file: &RerankRunFile) -> String {
    let planning: usize = file.questions.iter().map(|q| q.planning.len()).sum();
    let judging: usize = file
        .questions
        .iter()
        .flat_map(|q| &q.arms)
        .map(|a| a.exchanges.len())
        .sum();
    format!("{planning} planning and {judging} judging exchanges")
}

/// The Jev judge's transport, API base, key and model.
fn judge_controls(
    api_base: reactive_stores::Field<String>,
    remote: reactive_stores::Field<RerankRemote>,
    rs: RerankState,
) -> AnyView {
    let kinds = [DeciderKind::Proxy, DeciderKind::Http, DeciderKind::Replay];
    view! {
        <div class="controls">
            <label class="control">
                "Jev judge via "
                <select
                    data-testid="rerank-judge-kind"
                    on:change=move |ev| {
                        if let Some(kind) = DeciderKind::from_name(&event_target_value(&ev)) {
                            remote.judge().set(kind);
                        }
                    }
                >
                    {kinds.map(|k| view! {
                        <option value=k.name() selected=move || remote.judge().get() == k>{k.name()}</option>
                    })}
                </select>
            </label>
            <label class="control">
                "model "
                <input
                    data-testid="rerank-jev-model"
                    size="12"
                    prop:value=move || remote.jev_model().get()
                    on:change=move |ev| remote.jev_model().set(event_target_value(&ev).trim().to_string())
                />
            </label>
            {move || (remote.judge().get() == DeciderKind::Http).then(|| view! {
                <label class="control">
                    "API base "
                    <input
                        data-testid="rerank-api-base"
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
                        data-testid="rerank-judge-key"
                        prop:value=move || rs.judge_key.get()
                        on:input=move |ev| rs.judge_key.set(event_target_value(&ev))
                    />
                </label>
            })}
            {move || (remote.judge().get() == DeciderKind::Proxy).then(|| view! {
                <span class="muted">
                    {format!("Calls go to this server's {} (routelens serve adds TYPESAFE_API_KEY); the page holds no key.", decisions::PROXY_URL)}
                </span>
            })}
        </div>
    }
    .into_any()
}

/// The planner's kind, base URL, model and key.
fn planner_controls(remote: reactive_stores::Field<RerankRemote>, rs: RerankState) -> AnyView {
    view! {
        <div class="controls">
            <label class="control">
                "planner "
                <select
                    data-testid="rerank-planner-kind"
                    on:change=move |ev| {
                        if let Some(kind) = PlannerKind::from_name(&event_target_value(&ev)) {
                            remote.planner().set(kind);
                        }
                    }
                >
                    {PlannerKind::ALL.map(|k| view! {
                        <option value=k.name() selected=move || remote.planner().get() == k>{k.name()}</option>
                    })}
                </select>
            </label>
            {move || (remote.planner().get() == PlannerKind::Http).then(|| view! {
                <label class="control">
                    "chat-completions base "
                    <input
                        data-testid="rerank-planner-base"
                        size="32"
                        prop:value=move || remote.planner_base().get()
                        on:change=move |ev| remote.planner_base().set(event_target_value(&ev).trim().trim_end_matches('/').to_string())
                    />
                </label>
                <label class="control">
                    "model "
                    <input
                        data-testid="rerank-planner-model"
                        size="28"
                        prop:value=move || remote.planner_model().get()
                        on:change=move |ev| remote.planner_model().set(event_target_value(&ev).trim().to_string())
                    />
                </label>
                <label class="control">
                    "key "
                    <input
                        type="password"
                        autocomplete="off"
                        data-testid="rerank-planner-key"
                        prop:value=move || rs.planner_key.get()
                        on:input=move |ev| rs.planner_key.set(event_target_value(&ev))
                    />
                </label>
            })}
        </div>
    }
    .into_any()
}

/// The run file a replay reads.
fn replay_picker(rs: RerankState) -> AnyView {
    view! {
        <div class="controls">
            <label class="control">
                "rerank run file "
                <input
                    type="file"
                    accept=".json,application/json"
                    data-testid="rerank-replay-file"
                    on:change=move |ev| {
                        let input: HtmlInputElement = event_target(&ev);
                        if let Some(file) = input.files().and_then(|l| l.item(0)) {
                            spawn_local(read_replay(rs, file));
                        }
                    }
                />
            </label>
            {move || rs.replay.get().map(|f| view! {
                <span class="muted" data-testid="rerank-replay-summary">
                    {format!("recorded by {}: {} question(s), {}{}", f.judge, f.questions.len(), exchanges(&f), if f.partial { ", partial" } else { "" })}
                </span>
            })}
        </div>
    }
    .into_any()
}

/// Reads a picked rerank run file.
async fn read_replay(rs: RerankState, file: web_sys::File) {
    let name = file.name();
    let parsed = api::read_text(&file)
        .await
        .and_then(|text| RerankRunFile::from_json(&name, &text).map_err(Error::from));
    match parsed {
        Ok(file) => rs.replay.set(Some(Arc::new(file))),
        Err(err) => {
            rs.replay.set(None);
            rs.ran.set(Ran::Failed(err.to_string()));
        }
    }
}
