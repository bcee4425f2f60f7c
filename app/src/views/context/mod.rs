//! The Context view: what an agent would receive for one issue from one arm's ranking over a
//! bundle: the selector's windows packed into the token budget, every block with its cl100k_base
//! cost, skipped blocks with the reason, gold lines highlighted, and the line-recall figures.
//! A second arm can be packed beside the first, with both arms' delivered gold lines side by side.
//!
//! The issue is a question of the bundle's set (or typed issue text, without gold); the arms are
//! the seven lexical arms run live over the bundle (the same rankings as the Search view), the
//! fusion of fts5 and rg, and, when a study is open whose case has the question's id, that
//! study's arms. Every control (arm, comparison arm, k, budget, radius, anchors) is a permalinked
//! setting, and changing one re-packs at once: the engine's `build_context` does the work in the
//! live worker ([`crate::live`]), and its token memo means only blocks never seen before are
//! encoded.
//!
//! Loading: the bundle (manifest and questions here, index and chunks in the worker) when the
//! view opens with a bundle chosen; the cl100k_base rank table (1.7 MB, `/cl100k_base.tiktoken`)
//! on the first pack, with progress, so the app itself never carries the vocabulary.

mod bench;
mod lines;
pub mod params;
mod render;
mod state;

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::delivery::context::ContextSettings;
use routelens_engine::live::live_session::{AnswerBody, CallBody};
use routelens_engine::live::snapshot::snapshot_mismatch;
use routelens_engine::load::question_set::Question;

use crate::api::BundleEntry;
use crate::bundles::BundleStore;
use crate::components::{bundle_select, KSelect, NumberInput};
use crate::error::Error;
use crate::live;
use crate::packing::params::PackParamsStoreFields;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use params::ContextParamsStoreFields;

use crate::packing::{self as load, LoadedBundle};
use state::{Issue, Packed};

/// The view's loading state, kept in signals (the data itself lives in [`load`]).
#[derive(Clone, Copy)]
struct ContextState {
    /// The page's bundle store.
    store: BundleStore,
    /// The bundle loaded for packing, kept by the app across tab switches.
    packing: StoredValue<Option<Rc<LoadedBundle>>, LocalStorage>,
    bundles: LocalResource<Result<Vec<BundleEntry>, Error>>,
    /// The name of the loaded bundle (its data: `AppState::packing`).
    loaded: RwSignal<Option<String>>,
    /// Whether the cl100k_base counter is built.
    counter_ready: RwSignal<bool>,
    counter_loading: RwSignal<bool>,
    progress: RwSignal<Option<String>>,
    error: RwSignal<Option<Error>>,
}

/// The Context view.
#[component]
pub fn ContextView() -> impl IntoView {
    let app = AppState::get();
    let s = app.settings;
    let c = ContextState {
        store: app.bundles,
        packing: app.packing,
        bundles: LocalResource::new(move || app.bundles.list()),
        loaded: RwSignal::new(None),
        counter_ready: RwSignal::new(false),
        counter_loading: RwSignal::new(false),
        progress: RwSignal::new(None),
        error: RwSignal::new(None),
    };
    spawn_local(async move {
        // The resource's list, once it is in: the permalink's bundle opens.
        let _ = c.bundles.await;
        if let Some(name) = s.shared().bundle().get_untracked() {
            match app.bundles.find(&name).await {
                Ok(entry) => open_bundle(c, entry).await,
                Err(err) => c.error.set(Some(err)),
            }
        }
    });

    let bundle = move || c.loaded.get().and_then(|name| app.packed_bundle(&name));
    let issue = Memo::new(move |_| {
        let query = s.shared().query().get()?;
        c.loaded.get()?;
        let bundle = bundle()?;
        Some(match bundle.questions.iter().find(|q| q.id == query) {
            Some(q) => question_issue(q),
            None => Issue {
                id: None,
                text: query,
                gold_lines: Vec::new(),
            },
        })
    });
    // The first pack needs the counter: fetch the rank table once an issue is chosen.
    Effect::new(move |_| {
        if issue.get().is_some() && !c.counter_ready.get() && !c.counter_loading.get_untracked() {
            c.counter_loading.set(true);
            spawn_local(async move {
                match load::load_counter(move |text| c.progress.set(Some(text))).await {
                    Ok(()) => c.counter_ready.set(true),
                    Err(err) => c.error.set(Some(err)),
                }
                c.counter_loading.set(false);
            });
        }
    });

    // The live arms' rankings for the issue, run in the worker (once per issue text).
    let live_rankings = LocalResource::new(move || {
        let (bundle, issue) = (bundle(), issue.get());
        async move {
            let (bundle, issue) = (bundle?, issue?);
            Some(bundle.rankings(&issue.text).await)
        }
    });
    // Every arm offered for the issue: the live ones, then the open study's.
    let arms = move || -> Result<Vec<NamedRanking>, Error> {
        let (Some(bundle), Some(issue)) = (bundle(), issue.get()) else {
            return Ok(Vec::new());
        };
        let Some(Some(live)) = live_rankings.get() else {
            return Ok(Vec::new());
        };
        Ok(arms_for(app, &bundle, &issue, &live?))
    };
    let arm_names = move || -> Vec<String> {
        arms()
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    };

    let packs = LocalResource::new(move || {
        let inputs = (bundle(), issue.get(), arms());
        let ready = c.counter_ready.get();
        let settings = ContextSettings {
            k: s.shared().k().get(),
            anchors_per_file: s.packing().anchors().get(),
            radius_lines: s.packing().radius().get(),
            budget_tokens: s.packing().budget().get(),
        };
        let mut wanted = vec![s.context().arm().get()];
        if let Some(vs) = s.context().vs().get().filter(|vs| *vs != wanted[0]) {
            wanted.push(vs);
        }
        async move {
            let (Some(bundle), Some(issue), Ok(arms)) = inputs else {
                return Vec::new();
            };
            if !ready || arms.is_empty() {
                return Vec::new();
            }
            pack_arms(&bundle, &issue, &arms, &wanted, settings).await
        }
    });

    let bundle_select = move || {
        let chosen = s.shared().bundle().get_untracked().unwrap_or_default();
        let pick = move |entry: BundleEntry| {
            s.shared().bundle().set(Some(entry.name.clone()));
            spawn_local(open_bundle(c, entry));
        };
        bundle_select(
            c.bundles.get(),
            chosen,
            "context-bundle",
            "context-error",
            pick,
        )
    };

    let question_select = move || {
        let bundle = bundle()?;
        let options = bundle
            .questions
            .iter()
            .map(|q| {
                let id = q.id.clone();
                let label = if q.gold_lines.is_empty() {
                    id.clone()
                } else {
                    format!("{id} (gold lines)")
                };
                view! {
                    <option value=id.clone() prop:selected=move || s.shared().query().get().as_deref() == Some(id.as_str())>
                        {label}
                    </option>
                }
            })
            .collect_view();
        Some(view! {
            <label class="control">
                "issue "
                <select
                    data-testid="context-question"
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        s.shared().query().set((!id.is_empty()).then_some(id));
                    }
                >
                    <option value="" prop:selected=move || s.shared().query().get().is_none()>
                        "(choose a question)"
                    </option>
                    {options}
                </select>
            </label>
        })
    };

    let arm_select = move |testid: &'static str, label: &'static str, optional: bool| {
        let names = arm_names();
        let current = move || {
            if optional {
                s.context().vs().get().unwrap_or_default()
            } else {
                s.context().arm().get()
            }
        };
        let options = names
            .into_iter()
            .map(|name| {
                let selected = {
                    let name = name.clone();
                    move || current() == name
                };
                view! { <option value=name.clone() prop:selected=selected>{name.clone()}</option> }
            })
            .collect_view();
        view! {
            <label class="control">
                {label}
                <select
                    data-testid=testid
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        if optional {
                            s.context().vs().set((!name.is_empty()).then_some(name));
                        } else {
                            s.context().arm().set(name);
                        }
                    }
                >
                    {optional.then(|| view! { <option value="" prop:selected=move || current().is_empty()>"(none)"</option> })}
                    {options}
                </select>
            </label>
        }
    };

    view! {
        <section class="context">
            <p class="muted">
                "The lines an agent would receive: each ranked file's best lines (the issue's terms) "
                "widened into windows, packed in rank order into the token budget (cl100k_base). "
                "Gold lines are marked; line recall counts the gold lines inside included blocks."
            </p>
            <div class="controls">{bundle_select} {question_select}</div>
            {move || c.progress.get().map(|p| view! { <p class="progress" data-testid="context-progress">{p}</p> })}
            {move || c.error.get().map(|e| view! { <p class="error" data-testid="context-error">{e.to_string()}</p> })}
            {move || {
                let (bundle, issue) = (bundle()?, issue.get()?);
                let why = study_arms_for(app, &bundle, &issue)?.err()?;
                Some(view! {
                    <p class="notice" data-testid="context-study-mismatch">
                        {format!("The open study's arms are not offered for this issue: {why}")}
                    </p>
                })
            }}
            {move || issue.get().is_some().then(|| view! {
                <div class="controls">
                    {arm_select("context-arm", "arm ", false)}
                    {arm_select("context-vs", "compare with ", true)}
                    <KSelect value=s.shared().k() label="k " testid="context-k" />
                    <NumberInput
                        value=Signal::derive(move || s.packing().budget().get())
                        set=Callback::new(move |v| s.packing().budget().set(v))
                        label="budget (tokens) "
                        testid="context-budget-input"
                    />
                    <NumberInput
                        value=Signal::derive(move || s.packing().radius().get())
                        set=Callback::new(move |v| s.packing().radius().set(v))
                        label="radius (lines) "
                        testid="context-radius"
                    />
                    <NumberInput
                        value=Signal::derive(move || s.packing().anchors().get())
                        set=Callback::new(move |v: usize| s.packing().anchors().set(v.max(1)))
                        label="anchors "
                        testid="context-anchors"
                    />
                </div>
            })}
            {move || arms().err().map(|e| view! { <p class="error" data-testid="context-error">{e.to_string()}</p> })}
            {move || {
                let packs = packs.get()?;
                (!packs.is_empty()).then(|| render::packs_view(packs))
            }}
            {move || c.loaded.get().map(|name| view! { <lines::LineLevel bundle=name /> })}
            <bench::PackBench />
        </section>
    }
}

/// The issue of a question.
fn question_issue(q: &Question) -> Issue {
    Issue {
        id: Some(q.id.clone()),
        text: q.question.clone(),
        gold_lines: q.gold_lines.clone(),
    }
}

/// An arm's name and its ranking for one issue.
type NamedRanking = (String, Vec<String>);

/// The arms offered for an issue: the live arms over the bundle (and their fusion), then the
/// open study's arms when it has a case with the question's id and the bundle is of that case's
/// commit and the study's file policy.
fn arms_for(
    app: AppState,
    bundle: &LoadedBundle,
    issue: &Issue,
    live: &[NamedRanking],
) -> Vec<NamedRanking> {
    let mut arms: Vec<NamedRanking> = live.to_vec();
    if let Some(Ok(study_arms)) = study_arms_for(app, bundle, issue) {
        arms.extend(study_arms);
    }
    arms
}

/// The open study's arms for the issue's case (named `study:<arm>`), `Err` with the reason when
/// the bundle is not of the case's snapshot (another commit or file policy: its rankings must
/// not be packed over these files), `None` when the study has no such case.
fn study_arms_for(
    app: AppState,
    bundle: &LoadedBundle,
    issue: &Issue,
) -> Option<Result<Vec<NamedRanking>, String>> {
    let id = issue.id.as_ref()?;
    let snapshot = bundle.snapshot();
    app.with_study(|study| {
        let index = study.cases.iter().position(|case| case.id == *id)?;
        if let Some(why) = snapshot_mismatch(study, &study.cases[index], snapshot) {
            return Some(Err(why));
        }
        Some(Ok(study
            .arms
            .iter()
            .map(|arm| {
                (
                    format!("study:{}", arm.name),
                    arm.rankings.get(index).cloned().unwrap_or_default(),
                )
            })
            .collect()))
    })
    .flatten()
}

/// Selects and packs the `wanted` arms' rankings in the worker, each timed; an arm not offered
/// for the issue, or one the worker could not pack, is shown with why.
async fn pack_arms(
    bundle: &LoadedBundle,
    issue: &Issue,
    arms: &[NamedRanking],
    wanted: &[String],
    settings: ContextSettings,
) -> Vec<Packed> {
    let failed = |arm: &str, why: String| Packed {
        arm: arm.to_string(),
        result: Err(why),
        texts: Rc::default(),
    };
    let rankings: Vec<NamedRanking> = wanted
        .iter()
        .filter_map(|arm| arms.iter().find(|(name, _)| name == arm).cloned())
        .collect();
    let call = CallBody::Pack {
        bundle: bundle.entry.name.clone(),
        issue: issue.text.clone(),
        rankings,
        settings,
        gold: issue.gold_lines.clone(),
    };
    let answers = match live::call(call, |_| {}).await {
        Ok(AnswerBody::Packed { packs }) => Ok(packs),
        Ok(other) => Err(live::unexpected(&other)),
        Err(err) => Err(err),
    };
    wanted
        .iter()
        .map(|arm| {
            let answer = match &answers {
                Err(err) => return failed(arm, err.to_string()),
                Ok(packs) => packs.iter().find(|p| p.arm == *arm),
            };
            match answer.map(|p| p.result.clone()) {
                None => failed(arm, format!("no arm {arm:?} for this issue")),
                Some(Err(why)) => failed(arm, why),
                Some(Ok(packed)) => Packed {
                    arm: arm.clone(),
                    result: Ok((Rc::new(packed.report), packed.ms)),
                    texts: Rc::new(packed.texts),
                },
            }
        })
        .collect()
}

/// Loads a bundle, reporting progress; the view re-renders when it is in.
async fn open_bundle(c: ContextState, entry: BundleEntry) {
    c.error.set(None);
    c.loaded.set(None);
    let kept = c.packing.get_value().filter(|b| b.entry == entry);
    if kept.is_some() {
        return c.loaded.set(Some(entry.name));
    }
    match load::load_bundle(c.store, entry, move |text| c.progress.set(Some(text))).await {
        Ok(bundle) => {
            c.packing.set_value(Some(bundle.clone()));
            c.loaded.set(Some(bundle.entry.name.clone()));
        }
        Err(err) => {
            c.progress.set(None);
            c.error.set(Some(err));
        }
    }
}
