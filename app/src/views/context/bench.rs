//! The in-browser measurement of the context stage: select and pack the engine's benchmark corpus
//! (16 files of 2,000–4,000 lines, [`routelens_engine::synthetic`], the criterion bench's input)
//! at the 16,000-token budget, timed with `performance.now()`. Two figures: the first pack of an
//! issue (every block encoded with cl100k_base, median of 5) and a re-pack after a budget change
//! (every count from the token memo, median of 20). A scripted browser (`bench/pack-browser.mjs`)
//! clicks the button and reads the numbers.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::context::{build_context, ContextSettings};
use routelens_engine::synthetic::{pack_bench_corpus, PACK_BENCH_ISSUE};
use routelens_engine::tokens::TokenCache;

use super::load;
use crate::api;

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

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
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
            let outcome = measure(|text| run.set(Run::Running(text))).await;
            run.set(match outcome {
                Ok((cold_ms, warm_ms, tokens)) => Run::Done {
                    cold_ms,
                    warm_ms,
                    tokens,
                },
                Err(err) => Run::Failed(err),
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

/// `(cold median ms, warm median ms, tokens used)`.
async fn measure(progress: impl Fn(String)) -> Result<(f64, f64, usize), String> {
    let counter = load::load_counter(&progress).await?;
    let encoder = counter
        .try_borrow()
        .map_err(|_| "the token counter is busy".to_string())?
        .counter()
        .clone();
    let files = pack_bench_corpus();
    let ranking: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
    let settings = ContextSettings {
        k: files.len(),
        ..ContextSettings::default()
    };
    let text_of = |path: &str| {
        files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, text)| text.as_str())
    };
    let mut cold = Vec::new();
    let mut tokens = 0;
    for round in 0..5 {
        progress(format!("first pack, run {}/5", round + 1));
        api::next_tick().await;
        let mut fresh = TokenCache::new(encoder.clone());
        let started = api::now_ms();
        let report = build_context(
            PACK_BENCH_ISSUE,
            &ranking,
            &settings,
            text_of,
            None,
            &mut fresh,
        )
        .map_err(|e| e.to_string())?;
        cold.push(api::now_ms() - started);
        tokens = report.pack.tokens_used;
    }
    let mut cache = TokenCache::new(encoder);
    build_context(
        PACK_BENCH_ISSUE,
        &ranking,
        &settings,
        text_of,
        None,
        &mut cache,
    )
    .map_err(|e| e.to_string())?;
    progress("re-packs".into());
    api::next_tick().await;
    let mut warm = Vec::new();
    for round in 0..20 {
        // A budget change: the windows and blocks stay, every count comes from the memo.
        let budget = ContextSettings {
            budget_tokens: settings.budget_tokens - round,
            ..settings
        };
        let started = api::now_ms();
        build_context(
            PACK_BENCH_ISSUE,
            &ranking,
            &budget,
            text_of,
            None,
            &mut cache,
        )
        .map_err(|e| e.to_string())?;
        warm.push(api::now_ms() - started);
    }
    Ok((median(cold), median(warm), tokens))
}
