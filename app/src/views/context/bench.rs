//! The in-browser measurement of the context stage: select and pack the engine's benchmark corpus
//! (16 files of 2,000–4,000 lines, [`routelens_engine::delivery::synthetic`], the criterion bench's input)
//! at the 16,000-token budget, timed with `performance.now()` in the live worker. Two figures: the first pack of an
//! issue (every block encoded with cl100k_base, median of 5) and a re-pack after a budget change
//! (every count from the token memo, median of 20). A scripted browser (`bench/pack-browser.mjs`)
//! clicks the button and reads the numbers.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::live::live_session::{AnswerBody, CallBody};

use crate::live;
use crate::packing as load;

#[derive(Debug, Clone, PartialEq)]
enum Run {
    Idle,
    Running(String),
    Done {
        cold_ms: f64,
        warm_ms: f64,
        tokens: usize,
    },
    Failed(String),
}

/// The benchmark panel.
#[component]
pub fn PackBench() -> impl IntoView {
    let run = RwSignal::new(Run::Idle);
    let start = move |_| {
        if matches!(run.get_untracked(), Run::Running(_)) {
            return;
        }
        run.set(Run::Running("loading cl100k_base".into()));
        spawn_local(async move {
            let outcome = measure(move |text| run.set(Run::Running(text))).await;
            run.set(match outcome {
                Ok((cold_ms, warm_ms, tokens)) => Run::Done {
                    cold_ms,
                    warm_ms,
                    tokens,
                },
                Err(err) => Run::Failed(err.to_string()),
            });
        });
    };
    let result = move || match run.get() {
        Run::Idle => ().into_any(),
        Run::Running(what) => view! { <p class="progress">{what}</p> }.into_any(),
        Run::Done {
            cold_ms,
            warm_ms,
            tokens,
        } => view! {
            <p>
                "re-pack (warm token memo): "
                <span data-testid="context-bench-ms">{format!("{warm_ms:.2}")}</span>
                " ms median · first pack (cold, every block encoded): "
                <span data-testid="context-bench-cold-ms">{format!("{cold_ms:.2}")}</span>
                {format!(" ms median · {tokens} tokens packed")}
            </p>
        }
        .into_any(),
        Run::Failed(err) => view! { <p class="error">{err}</p> }.into_any(),
    };
    view! {
        <details class="bench">
            <summary>"Benchmark: select + pack 16 files of 2,000–4,000 lines"</summary>
            <button data-testid="context-bench-run" on:click=start>
                "Run"
            </button>
            {result}
        </details>
    }
}

/// `(cold median ms, warm median ms, tokens used)`, measured in the live worker.
async fn measure(progress: impl Fn(String) + 'static) -> crate::error::Result<(f64, f64, usize)> {
    let progress = std::rc::Rc::new(progress);
    let said = progress.clone();
    load::load_counter(move |line| said(line)).await?;
    match live::call(CallBody::PackBench, move |line| progress(line)).await? {
        AnswerBody::Bench {
            cold_ms,
            warm_ms,
            tokens,
        } => Ok((cold_ms, warm_ms, tokens)),
        other => Err(live::unexpected(&other)),
    }
}
