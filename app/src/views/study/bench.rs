//! The re-score benchmark: runs the engine's whole-study re-score (every arm × every issue ×
//! k = 1..16, plus the four prespecified paired bootstraps) N times in this page and reports the
//! median wall time per run from `performance.now()`. A scripted browser clicks the button and
//! reads `data-testid="rescore-ms"`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::stable_sort;
use routelens_engine::{scoring::report::rescore_everything, BootstrapConfig};

use crate::api;
use crate::components::NumberInput;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// What the benchmark has to show.
#[derive(Debug, Clone, PartialEq)]
enum Run {
    Idle,
    Running(usize, usize),
    Done {
        median: f64,
        min: f64,
        max: f64,
        runs: usize,
    },
    Failed(String),
}

/// The benchmark panel.
#[component]
pub fn BenchView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let runs = RwSignal::new(20_usize);
    let run = RwSignal::new(Run::Idle);
    let start = move |_| {
        if matches!(run.get_untracked(), Run::Running(..)) {
            return;
        }
        let Some(study) = state.study.get_untracked().map(|loaded| loaded.study) else {
            return;
        };
        let total = runs.get_untracked().max(1);
        let bootstrap = BootstrapConfig {
            resamples: s.shared().resamples().get_untracked(),
            seed: s.shared().seed().get_untracked(),
        };
        run.set(Run::Running(0, total));
        spawn_local(async move {
            let mut times = Vec::with_capacity(total);
            for done in 0..total {
                // Yield so the progress text paints; the timed region holds only the engine call.
                api::next_tick().await;
                let started = api::now_ms();
                let result = rescore_everything(&study, bootstrap);
                let elapsed = api::now_ms() - started;
                if let Err(err) = result {
                    run.set(Run::Failed(err.to_string()));
                    return;
                }
                times.push(elapsed);
                run.set(Run::Running(done + 1, total));
            }
            stable_sort::by(&mut times, f64::total_cmp);
            let middle = times.len() / 2;
            let median = if times.len() % 2 == 0 {
                (times[middle - 1] + times[middle]) / 2.0
            } else {
                times[middle]
            };
            run.set(Run::Done {
                median,
                min: times[0],
                max: times[times.len() - 1],
                runs: times.len(),
            });
        });
    };
    let result = move || match run.get() {
        Run::Idle => ().into_any(),
        Run::Running(done, total) => {
            view! { <p data-testid="rescore-progress">{format!("running {done}/{total}…")}</p> }
                .into_any()
        }
        Run::Done {
            median,
            min,
            max,
            runs,
        } => view! {
            <p>
                "median " <strong data-testid="rescore-ms">{format!("{median:.2}")}</strong>
                " ms per re-score "
                <span class="muted" data-testid="rescore-detail">
                    {format!("({runs} runs, min {min:.2} ms, max {max:.2} ms)")}
                </span>
            </p>
        }
        .into_any(),
        Run::Failed(err) => {
            view! { <p class="error" data-testid="rescore-error">{err}</p> }.into_any()
        }
    };
    view! {
        <section>
            <p class="note">
                "One run: every arm at every k from 1 to 16 over all issues, plus the four prespecified "
                "paired comparisons at k = 8, each with "
                {move || s.shared().resamples().get()}
                " bootstrap resamples (seed "
                {move || s.shared().seed().get()}
                "; both set in the Table 4 view)."
            </p>
            <div class="controls">
                <NumberInput
                    value=Signal::derive(move || runs.get())
                    set=Callback::new(move |v| runs.set(v))
                    label="runs"
                    testid="rescore-runs"
                />
                <button data-testid="rescore-run" on:click=start>
                    "Re-score everything"
                </button>
            </div>
            {result}
        </section>
    }
}
