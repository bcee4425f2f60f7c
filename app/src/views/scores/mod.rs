//! A score table's view (a study of values, not rankings: CodeNib's per-issue results): the
//! frame, metric, clustering and bootstrap settings (all in the permalink), every arm's mean with
//! its 95% interval, the comparisons (the mapping's, or those the reader adds) as a table, as
//! sentences and as a forest plot. Every number is the engine's (`score_table`).

pub mod params;

use routelens_engine::stable_sort;
use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::scoring::score_table::{ScorePair, ScoreTable};
use routelens_engine::{BootstrapConfig, Table};

use crate::api;
use crate::components::{ClusterSelect, ForestPlot, ForestRow, NumberInput, TableView};
use crate::params::metric_tables::{ClusterBy, MetricTableParamsStoreFields};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use params::ScoresParamsStoreFields;

/// What the view computes from the table and the settings.
#[derive(Debug, Clone, PartialEq)]
struct Scored {
    table: Table,
    pairs: Vec<ScorePair>,
    pair_table: Table,
}

/// The score table view.
#[component]
pub fn ScoresView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let table = move || state.scores.get();
    let frame = Memo::new(move |_| {
        let scores = table()?;
        Some(
            s.scores()
                .frame()
                .get()
                .unwrap_or_else(|| scores.mapping.headline_frame().to_string()),
        )
    });
    let metric = Memo::new(move |_| {
        let scores = table()?;
        let frame = frame.get()?;
        s.scores().metric().get().or_else(|| {
            scores
                .mapping
                .headline_metric
                .clone()
                .or_else(|| scores.metrics(&frame).first().map(|m| m.to_string()))
        })
    });
    let scored = Memo::new(move |_| {
        let scores = table()?;
        let (frame, metric) = (frame.get()?, metric.get()?);
        let bootstrap = bootstrap_of(&scores);
        let clustered: Arc<ScoreTable> = match s.metric_tables().cluster().get() {
            ClusterBy::Repo => scores,
            ClusterBy::Case => Arc::new((*scores).clone().clustered_by_case()),
        };
        // The table's own pairs where both arms have this metric; the reader's as chosen.
        let pairs = match s.scores().pairs().get() {
            chosen if chosen.is_empty() => clustered
                .mapping
                .pairs
                .iter()
                .filter(|(l, r)| {
                    [l, r]
                        .iter()
                        .all(|arm| clustered.column(&frame, arm, &metric).is_ok())
                })
                .cloned()
                .collect(),
            chosen => chosen,
        };
        Some(score(&clustered, &frame, &metric, &pairs, bootstrap).map_err(|e| e.to_string()))
    });

    let frames =
        move || table().map(|t| t.frames().iter().map(|f| f.to_string()).collect::<Vec<_>>());
    let metrics = move || {
        let (t, f) = (table()?, frame.get()?);
        Some(
            t.metrics(&f)
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>(),
        )
    };
    let arms = move || {
        let (t, f, m) = (table()?, frame.get()?, metric.get()?);
        Some(
            t.columns_of(&f, &m)
                .map(|c| c.arm.clone())
                .collect::<Vec<_>>(),
        )
    };
    let (left, right) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let add_pair = move |_| {
        let (l, r) = (left.get_untracked(), right.get_untracked());
        if l.is_empty() || r.is_empty() || l == r {
            return;
        }
        let mut pairs = s.scores().pairs().get_untracked();
        if pairs.is_empty() {
            pairs = state
                .scores
                .get_untracked()
                .map(|t| t.mapping.pairs.clone())
                .unwrap_or_default();
        }
        if !pairs.contains(&(l.clone(), r.clone())) {
            pairs.push((l, r));
        }
        s.scores().pairs().set(pairs);
    };
    let select = move |testid: &'static str,
                       options: Vec<String>,
                       chosen: Option<String>,
                       pick: Callback<String>| {
        view! {
            <select
                data-testid=testid
                aria-label=testid.trim_start_matches("scores-")
                on:change=move |ev| pick.run(event_target_value(&ev))
            >
                <option value="" selected=chosen.is_none()>"(choose)"</option>
                {options
                    .into_iter()
                    .map(|o| {
                        let selected = chosen.as_deref() == Some(o.as_str());
                        view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                    })
                    .collect_view()}
            </select>
        }
    };
    let shown_bootstrap = move || {
        table().map_or(
            BootstrapConfig {
                resamples: s.shared().resamples().get(),
                seed: s.shared().seed().get(),
            },
            |t| bootstrap_of(&t),
        )
    };
    // Says whether the intervals are drawn as the source drew them.
    let source_said = move |now: BootstrapConfig| {
        let t = table()?;
        let (resamples, seed) = (t.mapping.resamples?, t.mapping.seed?);
        let same = now.resamples == resamples && now.seed == seed;
        Some(view! {
            <span class="muted" data-testid="scores-bootstrap-source">
                {if same {
                    format!(
                        "the source's own bootstrap ({resamples} resamples, seed {seed}, its \
                         generator): its intervals reproduce the printed ones"
                    )
                } else {
                    format!(
                        "not the source's bootstrap ({resamples} resamples, seed {seed}), so \
                         intervals differ from the printed ones by resampling noise"
                    )
                }}
            </span>
        })
    };
    let controls = move || {
        view! {
                    <div class="controls">
                        <label class="control">
                            "frame "
                            {select(
                                "scores-frame",
                                frames().unwrap_or_default(),
                                frame.get(),
                                Callback::new(move |f: String| {
                                    s.scores().frame().set((!f.is_empty()).then_some(f));
                                    s.scores().metric().set(None);
                                }),
                            )}
                        </label>
                        <label class="control">
                            "metric "
                            {select(
                                "scores-metric",
                                metrics().unwrap_or_default(),
                                metric.get(),
                                Callback::new(move |m: String| s.scores().metric().set((!m.is_empty()).then_some(m))),
                            )}
                        </label>
        <ClusterSelect testid="scores-cluster" />
                        <NumberInput
                            value=Signal::derive(move || shown_bootstrap().resamples)
                            set=Callback::new(move |n: usize| s.scores().resamples().set(Some(n)))
                            label="resamples"
                            testid="scores-resamples"
                        />
                        <NumberInput
                            value=Signal::derive(move || shown_bootstrap().seed)
                            set=Callback::new(move |n: u64| s.scores().seed().set(Some(n)))
                            label="seed"
                            testid="scores-seed"
                        />
                        {move || source_said(shown_bootstrap())}
                    </div>
                }
    };
    let pair_controls = move || {
        let options = arms().unwrap_or_default();
        view! {
            <div class="controls">
                "compare "
                {select("scores-left", options.clone(), None, Callback::new(move |a| left.set(a)))}
                " − "
                {select("scores-right", options, None, Callback::new(move |a| right.set(a)))}
                <button data-testid="scores-add-pair" on:click=add_pair>"Add pair"</button>
                <button data-testid="scores-reset-pairs" on:click=move |_| s.scores().pairs().set(Vec::new())>
                    "The table's own pairs"
                </button>
            </div>
        }
    };
    let result = move || match scored.get() {
        None => ().into_any(),
        Some(Err(err)) => {
            view! { <p class="error" data-testid="scores-error">{err}</p> }.into_any()
        }
        Some(Ok(scored)) => {
            let sentences = scored
                .pairs
                .iter()
                .map(|p| view! { <li data-testid="scores-sentence">{p.sentence.clone()}</li> })
                .collect_view();
            view! {
                <TableView table=scored.table testid="table-scores" />
                {pair_controls()}
                <TableView table=scored.pair_table testid="table-score-pairs" />
                <ul class="sentences">{sentences}</ul>
                <ForestPlot pairs=scored.pairs.iter().map(ForestRow::from).collect() />
            }
            .into_any()
        }
    };
    let bench = move || {
        state
            .scores
            .get()
            .map(|table| view! { <BenchPanel table /> })
    };
    view! {
        <section>
            <p class="muted">
                "A table of per-case values: each arm's mean with its 95% percentile bootstrap \
                 interval, and paired comparisons (mean difference, paired interval, wins, losses \
                 and ties, exact sign test). It has no rankings, so the views that need them are \
                 not offered."
            </p>
            {controls}
            {result}
            {bench}
        </section>
    }
}

/// The bootstrap the view draws with: the reader's, else the source's own (its mapping's), else
/// the shared setting.
fn bootstrap_of(table: &ScoreTable) -> BootstrapConfig {
    let s = AppState::get().settings;
    let source = table.mapping.bootstrap_config(BootstrapConfig {
        resamples: s.shared().resamples().get(),
        seed: s.shared().seed().get(),
    });
    BootstrapConfig {
        resamples: s.scores().resamples().get().unwrap_or(source.resamples),
        seed: s.scores().seed().get().unwrap_or(source.seed),
    }
}

/// The metric table and the pairs of one frame and metric.
fn score(
    table: &ScoreTable,
    frame: &str,
    metric: &str,
    pairs: &[(String, String)],
    bootstrap: BootstrapConfig,
) -> routelens_engine::Result<Scored> {
    let draws = table.draws(bootstrap)?;
    let shown = table.metric_table(frame, metric, &draws)?;
    let pairs = pairs
        .iter()
        .map(|(left, right)| table.compare(frame, left, right, metric, &draws))
        .collect::<routelens_engine::Result<Vec<_>>>()?;
    Ok(Scored {
        pair_table: table.pair_table(&pairs),
        table: shown,
        pairs,
    })
}

/// Times scoring the whole study in the page: every column's interval and every pair of arms of
/// every frame and metric, with the view's resamples and seed (`bench/score_table.py` does the
/// same in plain Python, `cargo bench --bench score_table` natively).
#[component]
fn BenchPanel(table: Arc<ScoreTable>) -> impl IntoView {
    let runs = RwSignal::new(5usize);
    let said = RwSignal::new(None::<Result<String, String>>);
    let run = move |_| {
        let table = table.clone();
        let (count, bootstrap) = (
            runs.get_untracked().max(1),
            untrack(|| bootstrap_of(&table)),
        );
        leptos::task::spawn_local(async move {
            let mut times = Vec::with_capacity(count);
            let mut pairs = 0;
            for done in 0..count {
                said.set(Some(Ok(format!("run {}/{count}…", done + 1))));
                api::next_tick().await;
                let started = api::now_ms();
                match table.score_all(bootstrap) {
                    Ok(scores) => pairs = scores.pairs.len(),
                    Err(err) => return said.set(Some(Err(err.to_string()))),
                }
                times.push(api::now_ms() - started);
            }
            stable_sort::by(&mut times, f64::total_cmp);
            let median = times[times.len() / 2];
            said.set(Some(Ok(format!(
                "{median:.1} ms median of {count} runs: {} columns and {pairs} pairs, {} resamples",
                table.columns.len(),
                bootstrap.resamples
            ))));
        });
    };
    view! {
        <details class="timing" data-testid="scores-bench">
            <summary>"Time the whole study"</summary>
            <div class="controls">
                <NumberInput
                    value=Signal::derive(move || runs.get())
                    set=Callback::new(move |n: usize| runs.set(n))
                    label="runs"
                    testid="scores-bench-runs"
                />
                <button data-testid="scores-bench-run" on:click=run>"Run"</button>
            </div>
            {move || said.get().map(|said| match said {
                Ok(text) => view! { <p data-testid="scores-bench-ms">{text}</p> }.into_any(),
                Err(text) => view! { <p class="error">{text}</p> }.into_any(),
            })}
        </details>
    }
}
