//! The Search view's timing panel: every arm over the bundle's question set, timed call by call
//! in this page, summarised as the native benchmark summarises `routelens search --queries`
//! (the engine's `lexical::timing` says how). A search click times each arm once, right after
//! the page was idle and after the other arms ran; this panel is the like-for-like figure.
//!
//! The clock is `performance.now()`: 5 µs resolution in a cross-origin-isolated page
//! (`routelens serve` sends the headers), 100 µs with jitter otherwise, which the panel says.
//! It yields to the page about every 50 ms, so progress shows and Cancel is heard between calls;
//! the timed region holds only the engine call.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::lexical::timing::{ArmTimes, ArmTiming, TimingPlan};
use routelens_engine::{run_arm, LexicalArm, Sources};

use super::sources::load_all;
use super::state::SearchState;
use crate::api;
use crate::components::NumberInput;

/// How often the loop lets the page paint and hear Cancel, in milliseconds.
const YIELD_EVERY_MS: f64 = 50.0;

/// The panel's state.
#[derive(Debug, Clone, PartialEq)]
enum TimingRun {
    Idle,
    Running {
        done: usize,
        total: usize,
        arm: LexicalArm,
    },
    Done {
        arms: Vec<ArmTiming>,
        cancelled: bool,
    },
    Failed(String),
}

/// "Time the arms": rounds per question, a start and a cancel button, the summary table.
#[component]
pub(super) fn TimingPanel(s: SearchState) -> impl IntoView {
    let rounds = RwSignal::new(5_usize);
    let run = RwSignal::new(TimingRun::Idle);
    let cancel = StoredValue::new(false);
    let start = move |_| {
        if matches!(run.get_untracked(), TimingRun::Running { .. }) {
            return;
        }
        cancel.set_value(false);
        spawn_local(time_arms(s, rounds.get_untracked(), run, cancel));
    };
    let clock = if api::cross_origin_isolated() {
        "clock: performance.now() in a cross-origin-isolated page (5 µs)"
    } else {
        "clock: performance.now() without cross-origin isolation (100 µs steps with jitter)"
    };
    view! {
        <details class="timing" data-testid="search-timing">
            <summary>"Time the arms"</summary>
            <p class="muted">
                "Each arm alone, over every question of the set, several rounds; a question's time \
                 is the median of its rounds, then p50 and p95 over the questions: the native \
                 benchmark's method. "
                {clock}
            </p>
            <div class="controls">
                <NumberInput
                    value=Signal::derive(move || rounds.get())
                    set=Callback::new(move |n: usize| rounds.set(n.max(1)))
                    label="rounds"
                    testid="search-timing-rounds"
                />
                <button
                    data-testid="search-timing-run"
                    disabled=move || {
                        s.open.with(|o| o.as_ref().is_none_or(|o| o.questions.is_empty()))
                            || s.busy.get()
                    }
                    on:click=start
                >
                    "Time every arm"
                </button>
                <button
                    data-testid="search-timing-cancel"
                    disabled=move || !matches!(run.get(), TimingRun::Running { .. })
                    on:click=move |_| cancel.set_value(true)
                >
                    "Cancel"
                </button>
            </div>
            {move || timing_result(run.get())}
        </details>
    }
}

/// Runs the plan, arm by arm, recording each call's time.
async fn time_arms(
    s: SearchState,
    rounds: usize,
    run: RwSignal<TimingRun>,
    cancel: StoredValue<bool>,
) {
    let Some(open) = s.open.get_untracked() else {
        return;
    };
    s.busy.set(true);
    let (index, texts) = match load_all(s).await {
        Ok(ready) => ready,
        Err(err) => {
            s.busy.set(false);
            run.set(TimingRun::Failed(err));
            return;
        }
    };
    let k = s.k.get_untracked();
    let sources = Sources::new(&open.paths)
        .with_index(&index)
        .with_texts(&texts.corpus);
    let plan = TimingPlan::new(&LexicalArm::ALL, open.questions.len(), rounds);
    let mut times = ArmTimes::default();
    let mut painted = api::now_ms();
    let mut cancelled = false;
    for at in 0..plan.len() {
        let Some(step) = plan.step(at) else { break };
        if api::now_ms() - painted > YIELD_EVERY_MS {
            run.set(TimingRun::Running {
                done: at,
                total: plan.len(),
                arm: step.arm,
            });
            api::next_tick().await;
            if cancel.get_value() {
                cancelled = true;
                break;
            }
            painted = api::now_ms();
        }
        let question = &open.questions[step.question].question;
        let started = api::now_ms();
        let output = run_arm(step.arm, &sources, question, k);
        let ms = api::now_ms() - started;
        if let Err(err) = output {
            s.busy.set(false);
            run.set(TimingRun::Failed(format!("{}: {err}", step.arm.name())));
            return;
        }
        times.record(step, ms);
    }
    s.busy.set(false);
    run.set(TimingRun::Done {
        arms: times.summary(),
        cancelled,
    });
}

/// The progress line or the summary table.
fn timing_result(run: TimingRun) -> AnyView {
    match run {
        TimingRun::Idle => ().into_any(),
        TimingRun::Running { done, total, arm } => view! {
            <p class="progress" data-testid="search-timing-progress">
                {format!("timing {}: call {done} of {total}", arm.name())}
            </p>
        }
        .into_any(),
        TimingRun::Failed(err) => {
            view! { <p class="error" data-testid="search-timing-error">{err}</p> }.into_any()
        }
        TimingRun::Done { arms, cancelled } => {
            let rows = arms
                .into_iter()
                .map(|t| {
                    view! {
                        <tr data-testid="search-timing-row" data-arm=t.arm.name()>
                            <td>{t.arm.name()}</td>
                            <td data-testid="timing-p50">{format!("{:.3}", t.p50_ms)}</td>
                            <td data-testid="timing-p95">{format!("{:.3}", t.p95_ms)}</td>
                            <td>{format!("{:.3}", t.mean_ms)}</td>
                            <td>{t.questions}</td>
                            <td>{t.calls}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                {cancelled.then(|| view! {
                    <p class="muted" data-testid="search-timing-cancelled">
                        "Cancelled: the table holds the calls made so far."
                    </p>
                })}
                <table data-testid="search-timing-table">
                    <thead>
                        <tr>
                            <th>"arm"</th>
                            <th>"p50 ms"</th>
                            <th>"p95 ms"</th>
                            <th>"mean ms"</th>
                            <th>"questions"</th>
                            <th>"calls"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        }
    }
}
