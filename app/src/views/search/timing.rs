//! The Search view's timing panel: every arm over the bundle's question set, timed call by call
//! in this page, summarised as the native benchmark summarises `routelens search --queries`
//! (the engine's `lexical::timing` says how). A search click times each arm once, right after
//! the page was idle and after the other arms ran; this panel is the like-for-like figure.
//!
//! The calls run in the live worker, off the page's thread; the clock is the worker's
//! `performance.now()`: 5 µs resolution in a cross-origin-isolated page (`routelens serve` sends
//! the headers), 100 µs with jitter otherwise, which the panel says. The worker reports progress
//! about every 50 ms and hears Cancel between calls; the timed region holds only the engine call.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::live::live_session::{AnswerBody, CallBody};
use routelens_engine::retrieval::lexical::timing::ArmTiming;

use super::sources::load;
use super::state::SearchState;
use crate::components::NumberInput;
use crate::{api, live};

/// The panel's state.
#[derive(Debug, Clone, PartialEq)]
enum TimingRun {
    Idle,
    /// The worker's progress line.
    Running(String),
    Done {
        arms: Vec<ArmTiming>,
        cancelled: bool,
    },
    Failed(String),
}

/// The timing call in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Call {
    id: Option<u64>,
    cancelled: bool,
}

/// "Time the arms": rounds per question, a start and a cancel button, the summary table.
#[component]
pub(super) fn TimingPanel(s: SearchState) -> impl IntoView {
    let rounds = RwSignal::new(5_usize);
    let run = RwSignal::new(TimingRun::Idle);
    // The running call's id, and whether Cancel was pressed (perhaps before the call started).
    let call = StoredValue::new(Call::default());
    let start = move |_| {
        if matches!(run.get_untracked(), TimingRun::Running(_)) {
            return;
        }
        call.set_value(Call::default());
        spawn_local(time_arms(s, rounds.get_untracked(), run, call));
    };
    let clock = if api::cross_origin_isolated() {
        "clock: performance.now() in a cross-origin-isolated page (5 µs)"
    } else {
        "clock: performance.now() without cross-origin isolation: 100 µs steps with jitter (a \
         static host cannot isolate the page; routelens serve does, for 5 µs)"
    };
    view! {
        <details class="timing" data-testid="search-timing">
            <summary>"Time the arms"</summary>
            <p class="muted">
                "Each arm alone, over every question of the set, several rounds; a question's time \
                 is the median of its rounds, then p50 and p95 over the questions: the native \
                 benchmark's method. "
                <span data-testid="search-timing-clock">{clock}</span>
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
                    disabled=move || !matches!(run.get(), TimingRun::Running(_))
                    on:click=move |_| {
                        call.update_value(|c| c.cancelled = true);
                        if let Some(id) = call.get_value().id {
                            live::cancel(id);
                        }
                    }
                >
                    "Cancel"
                </button>
            </div>
            {move || timing_result(run.get())}
        </details>
    }
}

/// Has the worker run the plan (every chunk loaded first), showing its progress.
async fn time_arms(
    s: SearchState,
    rounds: usize,
    run: RwSignal<TimingRun>,
    call: StoredValue<Call>,
) {
    let Some(open) = s.open.get_untracked() else {
        return;
    };
    s.busy.set(true);
    run.set(TimingRun::Running("loading every file".into()));
    let timed = async {
        load(s, true).await?;
        let body = CallBody::Time {
            bundle: open.entry.name.clone(),
            questions: open.questions.iter().map(|q| q.question.clone()).collect(),
            rounds,
            k: s.k.get_untracked(),
        };
        let running = live::start(body, move |line| run.set(TimingRun::Running(line)))?;
        call.update_value(|c| c.id = Some(running.id));
        if call.get_value().cancelled {
            live::cancel(running.id);
        }
        running.answer().await
    };
    let answer = timed.await;
    call.update_value(|c| c.id = None);
    s.busy.set(false);
    run.set(match answer {
        Ok(AnswerBody::Timed { arms, cancelled }) => TimingRun::Done { arms, cancelled },
        Ok(other) => TimingRun::Failed(live::unexpected(&other).to_string()),
        Err(err) => TimingRun::Failed(err.to_string()),
    });
}

/// The progress line or the summary table.
fn timing_result(run: TimingRun) -> AnyView {
    match run {
        TimingRun::Idle => ().into_any(),
        TimingRun::Running(line) => view! {
            <p class="progress" data-testid="search-timing-progress">{line}</p>
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
