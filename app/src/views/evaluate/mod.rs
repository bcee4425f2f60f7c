//! The Evaluate view: the CodeAtlas grid (the engine's `evaluate::GridRun`) over a bundle's
//! chunkings and its question set, run in the live worker a step at a time — progress, Cancel —
//! and shown as the engine's own tables (`evaluate::grid_tables`, each with its CSV): every
//! configuration's every metric with its interval, the pairs as sentences, the caps the dev half
//! chose, and what fills the misses' top k. `routelens evaluate` prints the same report. Every
//! setting is in the permalink.

pub mod params;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::corpus::bundle::Manifest;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::evaluate::{
    grid_tables, headline_table, metric_column, GridReport, GridSettings, HEADLINE_METRICS,
};
use routelens_engine::live::live_session::{AlsoGold, AnswerBody, CallBody, CrossEncoderAt};
use routelens_engine::retrieval::chunk_search::Retriever;
use routelens_engine::retrieval::cross_encoder::RerankInput;
use routelens_engine::scoring::unit_metrics::Clustering;
use routelens_engine::stable_sort;

use crate::components::{
    bundle_select, chosen_cross_encoder, CrossEncoderControls, DotChart, NumberInput, TableView,
};
use crate::error::{Error, Result};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use crate::{live, site};
use params::EvaluateParamsStoreFields;

/// Where the run is.
#[derive(Debug, Clone, PartialEq)]
enum GridState {
    Idle,
    /// The worker's progress line.
    Running(String),
    Done {
        report: Box<GridReport>,
        also: Option<Box<AlsoGold>>,
        ms: f64,
    },
    Cancelled {
        done: usize,
        total: usize,
    },
    Failed(String),
}

/// The grid call in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Call {
    id: Option<u64>,
    cancelled: bool,
}

/// The Evaluate view.
#[component]
pub fn EvaluateView() -> impl IntoView {
    let app = AppState::get();
    let s = app.settings;
    let grid = s.evaluate();
    let bundles = LocalResource::new(move || app.bundles.list());
    // The chosen bundle's chunkings, for the checkboxes.
    let chunkings = LocalResource::new(move || app.bundles.chunkers(s.shared().bundle().get()));
    let state = RwSignal::new(GridState::Idle);
    let call = StoredValue::new(Call::default());
    let picked = RwSignal::new(None::<CrossEncoderAt>);
    let start = move |_| {
        if matches!(state.get_untracked(), GridState::Running(_)) {
            return;
        }
        let Some(name) = s.shared().bundle().get_untracked() else {
            state.set(GridState::Failed("choose a bundle first".into()));
            return;
        };
        let settings = grid.get_untracked().settings(
            s.shared().resamples().get_untracked(),
            s.shared().seed().get_untracked(),
        );
        let model = if settings.rerankers.is_empty() {
            None
        } else {
            chosen_cross_encoder(picked.get_untracked())
        };
        call.set_value(Call::default());
        let gold2 = grid.gold2().get_untracked();
        let also = (!gold2.is_empty()).then(|| site::absolute(&gold2));
        spawn_local(run_grid(app, (name, settings, model, also), state, call));
    };
    let picker = move || {
        let chosen = s.shared().bundle().get_untracked().unwrap_or_default();
        bundle_select(
            bundles.get(),
            chosen,
            "evaluate-bundle-select",
            "bundles-absent",
            move |entry| s.shared().bundle().set(Some(entry.name)),
        )
    };
    let chunker_boxes = move || match chunkings.get() {
        None => ().into_any(),
        Some(Err(err)) => {
            view! { <p class="error" data-testid="evaluate-error">{err.to_string()}</p> }.into_any()
        }
        Some(Ok(have)) => have
            .iter()
            .map(|&chunker| {
                let have = have.clone();
                let checked = move || {
                    grid.chunkers()
                        .with(|chosen| chosen.is_empty() || chosen.contains(&chunker))
                };
                let toggle = move |on: bool| {
                    grid.chunkers().update(|chosen| {
                        if chosen.is_empty() {
                            *chosen = have.clone();
                        }
                        chosen.retain(|c| *c != chunker);
                        if on {
                            chosen.push(chunker);
                        }
                        // In the bundle's order; every one (the default) is written as none.
                        stable_sort::by_key(chosen, |c| have.iter().position(|h| h == c));
                        if *chosen == have {
                            chosen.clear();
                        }
                    })
                };
                view! {
                    <label class="control">
                        <input
                            type="checkbox"
                            data-testid=format!("evaluate-chunker-{}", chunker.name())
                            prop:checked=checked
                            on:change=move |ev| toggle(event_target_checked(&ev))
                        />
                        {chunker.name()}
                    </label>
                }
            })
            .collect_view()
            .into_any(),
    };
    let retriever_boxes = Retriever::ALL
        .into_iter()
        .map(|retriever| {
            let checked = move || grid.retrievers().with(|chosen| chosen.contains(&retriever));
            let toggle = move |on: bool| {
                grid.retrievers().update(|chosen| {
                    chosen.retain(|r| *r != retriever);
                    if on {
                        chosen.push(retriever);
                    }
                    stable_sort::sort(chosen);
                })
            };
            view! {
                <label class="control">
                    <input
                        type="checkbox"
                        data-testid=format!("evaluate-retriever-{}", retriever.name())
                        prop:checked=checked
                        on:change=move |ev| toggle(event_target_checked(&ev))
                    />
                    {retriever.name()}
                </label>
            }
        })
        .collect_view();
    let capped_boxes = Retriever::ALL
        .into_iter()
        .map(|retriever| {
            let checked = move || grid.capped().with(|chosen| chosen.contains(&retriever));
            let toggle = move |on: bool| {
                grid.capped().update(|chosen| {
                    chosen.retain(|r| *r != retriever);
                    if on {
                        chosen.push(retriever);
                    }
                    stable_sort::sort(chosen);
                })
            };
            view! {
                <label class="control">
                    <input
                        type="checkbox"
                        data-testid=format!("evaluate-capped-{}", retriever.name())
                        prop:checked=checked
                        on:change=move |ev| toggle(event_target_checked(&ev))
                    />
                    {retriever.name()}
                </label>
            }
        })
        .collect_view();
    let reranker_boxes = RerankInput::ALL
        .into_iter()
        .map(|input| {
            let checked = move || grid.rerankers().with(|chosen| chosen.contains(&input));
            let toggle = move |on: bool| {
                grid.rerankers().update(|chosen| {
                    chosen.retain(|r| *r != input);
                    if on {
                        chosen.push(input);
                    }
                    stable_sort::sort(chosen);
                })
            };
            view! {
                <label class="control">
                    <input
                        type="checkbox"
                        data-testid=format!("evaluate-{}", input.name().replace(':', "-"))
                        prop:checked=checked
                        on:change=move |ev| toggle(event_target_checked(&ev))
                    />
                    {input.name()}
                </label>
            }
        })
        .collect_view();
    view! {
        <section>
            <div class="controls">
                {picker}
                {chunker_boxes}
            </div>
            <div class="controls">
                <span class="control">"retrievers (none ticked: all three when every chunking stores vectors, else bm25):"</span>
                {retriever_boxes}
            </div>
            <div class="controls">
                <span class="control">"caps apply to (none ticked: every retriever; CodeAtlas capped hybrid):"</span>
                {capped_boxes}
            </div>
            <div class="controls">
                <NumberInput
                    value=Signal::derive(move || grid.rerank_top().get())
                    set=Callback::new(move |n: usize| grid.rerank_top().set(n.max(1)))
                    label="cross-encoder rows over hybrid's top"
                    testid="evaluate-rerank-top"
                />
                {reranker_boxes}
            </div>
            {move || (!grid.rerankers().get().is_empty()).then(|| view! {
                <CrossEncoderControls picked testid="evaluate-cross-encoder" />
            })}
            <div class="controls">
                <NumbersInput
                    label="per-file caps "
                    testid="evaluate-caps"
                    value=Signal::derive(move || grid.caps().get())
                    set=Callback::new(move |caps| grid.caps().set(caps))
                    empty_ok=true
                />
                <NumbersInput
                    label="k "
                    testid="evaluate-k"
                    value=Signal::derive(move || grid.k().get())
                    set=Callback::new(move |k| grid.k().set(k))
                    empty_ok=false
                />
                <label class="control">
                    "caps chosen by "
                    <input
                        type="text"
                        size="10"
                        data-testid="evaluate-select"
                        prop:value=move || grid.select_by().get()
                        on:change=move |ev| grid.select_by().set(event_target_value(&ev))
                    />
                </label>
                <NumberInput
                    value=Signal::derive(move || grid.depth().get())
                    set=Callback::new(move |n: usize| grid.depth().set(n.max(1)))
                    label="depth"
                    testid="evaluate-depth"
                />
                <label class="control">
                    "intervals by "
                    <select
                        data-testid="evaluate-cluster"
                        on:change=move |ev| {
                            grid.cluster().set(if event_target_value(&ev) == "project" {
                                Clustering::Repo
                            } else {
                                Clustering::Case
                            })
                        }
                    >
                        <option value="case" selected=move || grid.cluster().get() == Clustering::Case>
                            "question (CodeAtlas)"
                        </option>
                        <option value="project" selected=move || grid.cluster().get() == Clustering::Repo>
                            "project"
                        </option>
                    </select>
                </label>
                <NumberInput
                    value=Signal::derive(move || s.shared().resamples().get())
                    set=Callback::new(move |n: usize| s.shared().resamples().set(n.clamp(2, 1_000_000)))
                    label="resamples"
                    testid="evaluate-resamples"
                />
                <NumberInput
                    value=Signal::derive(move || s.shared().seed().get())
                    set=Callback::new(move |n: u64| s.shared().seed().set(n))
                    label="seed"
                    testid="evaluate-seed"
                />
            </div>
            <div class="controls">
                <label class="control">
                    "also score against the gold of (a question set's URL) "
                    <input
                        type="text"
                        data-testid="evaluate-gold2"
                        prop:value=move || grid.gold2().get()
                        on:change=move |ev| grid.gold2().set(event_target_value(&ev).trim().to_string())
                    />
                </label>
                <button
                    data-testid="evaluate-run"
                    disabled=move || matches!(state.get(), GridState::Running(_))
                    on:click=start
                >
                    "Run the grid"
                </button>
                <button
                    data-testid="evaluate-cancel"
                    disabled=move || !matches!(state.get(), GridState::Running(_))
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
            <p class="note">
                "Every chunking × retriever × cap is a configuration, ranked over the bundle's \
                 question set in this browser (the live worker: each chunking's BM25 index and \
                 stored vectors from the bundle; its questions' vectors are stored too, so no \
                 model is fetched). Relevance is by file unless every question has gold spans. With \
                 caps, the questions split 50/50 by the SHA-256 of their id; the dev half chooses \
                 each chunking's cap, reported on all questions. The same report as "
                <code>"routelens evaluate"</code>
                "."
            </p>
            {move || shown(state.get())}
        </section>
    }
}

/// bm25, dense and hybrid when every chunking of `chunkers` stores vectors, else bm25 (as
/// `routelens evaluate`).
fn default_retrievers(manifest: &Manifest, chunkers: &[Chunker]) -> Vec<Retriever> {
    let all_have = chunkers.iter().all(|&chunker| {
        manifest
            .chunkings
            .iter()
            .any(|c| c.chunker == chunker && c.vectors.is_some())
    });
    if all_have {
        Retriever::ALL.to_vec()
    } else {
        vec![Retriever::Bm25]
    }
}

/// Loads the chunkings the grid reads into the worker (and every text, for a cross-encoder's
/// reranker rows), then runs it there.
async fn run_grid(
    app: AppState,
    (name, settings, model, also): (String, GridSettings, Option<CrossEncoderAt>, Option<String>),
    state: RwSignal<GridState>,
    call: StoredValue<Call>,
) {
    state.set(GridState::Running(format!("{name}: opening the bundle")));
    let progress = move |line: String| state.set(GridState::Running(line));
    let answer = async {
        let entry = app.bundles.find(&name).await?;
        let files = app.bundles.open(&entry, &progress).await?;
        let questions = entry.questions.clone().ok_or_else(|| {
            Error::refused(format!("bundle {name} has no question set to evaluate"))
        })?;
        let chunkers: Vec<Chunker> = if settings.chunkers.is_empty() {
            files.manifest.chunkings.iter().map(|c| c.chunker).collect()
        } else {
            settings.chunkers.clone()
        };
        if chunkers.is_empty() {
            return Err(Error::refused(format!(
                "bundle {name} has no chunkings (format {}); rebuild it with `routelens bundle`",
                files.manifest.format_version
            )));
        }
        let mut settings = settings;
        if settings.retrievers.is_empty() {
            settings.retrievers = default_retrievers(&files.manifest, &chunkers);
        }
        let vectors = settings.retrievers.iter().any(|r| r.needs_vectors());
        app.bundles
            .load_chunkings(
                &name,
                model.is_some(),
                (&chunkers, vectors),
                std::rc::Rc::new(move |m: live::Meter| progress(m.text)),
            )
            .await?;
        let body = CallBody::Evaluate {
            bundle: name.clone(),
            questions: site::absolute(&questions),
            settings,
            reranker_model: model,
            also_questions: also,
        };
        let running = live::start(body, progress)?;
        call.update_value(|c| c.id = Some(running.id));
        if call.get_value().cancelled {
            live::cancel(running.id);
        }
        running.answer().await
    };
    let answer: Result<AnswerBody> = answer.await;
    call.update_value(|c| c.id = None);
    state.set(match answer {
        Ok(AnswerBody::Evaluated {
            report: Some(report),
            also,
            ms,
            ..
        }) => GridState::Done { report, also, ms },
        Ok(AnswerBody::Evaluated { done, total, .. }) => GridState::Cancelled { done, total },
        Ok(other) => GridState::Failed(live::unexpected(&other).to_string()),
        Err(err) => GridState::Failed(err.to_string()),
    });
}

/// The progress line, the error, or the report.
fn shown(state: GridState) -> AnyView {
    match state {
        GridState::Idle => ().into_any(),
        GridState::Running(line) => {
            view! { <p class="progress" data-testid="evaluate-progress">{line}</p> }.into_any()
        }
        GridState::Failed(err) => {
            view! { <p class="error" data-testid="evaluate-error">{err}</p> }.into_any()
        }
        GridState::Cancelled { done, total } => view! {
            <p class="muted" data-testid="evaluate-cancelled">
                {format!("Cancelled after {done} of {total} steps; nothing is reported from a \
                          partial grid.")}
            </p>
        }
        .into_any(),
        GridState::Done { report, also, ms } => view! {
            {report_view(&report, ms)}
            {also.map(|also| second_gold(&also, ms))}
        }
        .into_any(),
    }
}

/// The grid's chart: one metric (hit@5 first) of every configuration with its interval, the
/// shipped configuration named; a select picks the metric.
fn grid_chart(report: &GridReport) -> impl IntoView {
    let report = std::sync::Arc::new(report.clone());
    let first = HEADLINE_METRICS
        .into_iter()
        .find(|m| report.metric_names.iter().any(|n| n == m))
        .or(report.metric_names.first().map(String::as_str))
        .unwrap_or_default()
        .to_string();
    let metric = RwSignal::new(first);
    let options = report
        .metric_names
        .iter()
        .map(|name| {
            let value = name.clone();
            view! { <option value=value.clone() selected=move || metric.get() == value>{name.clone()}</option> }
        })
        .collect_view();
    let chart = move || {
        let metric = metric.get();
        let table = metric_column(&report, &metric);
        let aria_label =
            format!("{metric} of every configuration with its 95% interval, on a 0 to 1 axis");
        view! {
            <DotChart
                table
                label_column=0
                first_value=1
                testid="evaluate-chart"
                aria_label
                download="grid.svg"
            />
        }
    };
    view! {
        <div class="controls">
            <label class="control">
                "chart of "
                <select
                    data-testid="evaluate-chart-metric"
                    on:change=move |ev| metric.set(event_target_value(&ev))
                >
                    {options}
                </select>
            </label>
        </div>
        {chart}
    }
}

fn report_view(report: &GridReport, ms: f64) -> impl IntoView {
    let headline = headline_table(report);
    let chart = grid_chart(report);
    let mut tables = grid_tables(report).into_iter();
    let grid = tables.next();
    let paired = tables.next();
    let split = report.split.as_ref().and(tables.next());
    let failures = tables.next();
    let summary = format!(
        "{} questions, {} configurations; {} relevance, intervals by {} ({} resamples, seed {}), \
         rankings cut at {}; the grid ran in {:.0} ms in this browser.",
        report.questions,
        report.configurations.len(),
        report.relevance,
        report.cluster,
        report.resamples,
        report.seed,
        report.depth,
        ms
    );
    let sentences = report
        .paired
        .iter()
        .filter(|p| p.metric == report.selection_metric)
        .map(|p| {
            view! {
                <li data-left=p.left.clone() data-right=p.right.clone()>{p.sentence.clone()}</li>
            }
        })
        .collect_view();
    let failure_sentences = report
        .failures
        .iter()
        .flat_map(|f| {
            f.shares.iter().map(move |share| {
                view! {
                    <li data-config=f.arm.clone() data-share=share.share.clone()>
                        {format!("{} at {}: {}", f.arm, f.k, share.sentence)}
                    </li>
                }
            })
        })
        .collect_view();
    let model = report.reranker_model.as_ref().map(|model| {
        let weights = model
            .sha256
            .get("model.safetensors")
            .cloned()
            .unwrap_or_default();
        view! {
            <p data-testid="evaluate-reranker-model">
                {format!(
                    "Reranker rows: hybrid's top {} reordered by {} (model.safetensors SHA-256 {weights}).",
                    report.rerank_top.unwrap_or_default(),
                    model.name
                )}
            </p>
        }
    });
    let needs = (!report.needs_model.is_empty()).then(|| {
        view! {
            <p class="note" data-testid="evaluate-needs-model">
                {format!(
                    "Not scored, they need a cross-encoder (a folder URL or a picked folder): {}",
                    report.needs_model.join(", ")
                )}
            </p>
        }
    });
    view! {
        <div data-testid="evaluate-result">
            <p data-testid="evaluate-summary">{summary}</p>
            {model}
            {needs}
            <TableView table=headline testid="evaluate-headline" />
            {chart}
            {grid.map(|table| view! { <TableView table testid="evaluate-grid" /> })}
            <h3>{format!("Pairs on {} (every metric's in the table below)", report.selection_metric)}</h3>
            <ul data-testid="evaluate-pairs">{sentences}</ul>
            {paired.map(|table| view! {
                <details>
                    <summary>"Every pair on every metric"</summary>
                    <TableView table testid="evaluate-paired" />
                </details>
            })}
            {split.map(|table| view! { <TableView table testid="evaluate-split" /> })}
            <h3>"Failure analysis"</h3>
            <ul data-testid="evaluate-failures">{failure_sentences}</ul>
            {failures.map(|table| view! { <TableView table testid="evaluate-failure-table" /> })}
        </div>
    }
}

/// The grid against the second gold (the same report as the first), and how far the two golds
/// agree.
fn second_gold(also: &AlsoGold, ms: f64) -> impl IntoView {
    let sentences = also
        .agreement
        .iter()
        .map(|s| view! { <li>{s.clone()}</li> })
        .collect_view();
    view! {
        <section data-testid="evaluate-also">
            <h3>{format!("Against the gold of {}", also.questions)}</h3>
            {report_view(&also.report, ms)}
            <h4>"The first gold against the second, over the files gold in either"</h4>
            <ul data-testid="evaluate-gold-agreement">{sentences}</ul>
        </section>
    }
}

/// A comma-separated list of whole numbers (caps, cut-offs); a bad entry is named and the
/// setting kept.
#[component]
fn NumbersInput(
    label: &'static str,
    testid: &'static str,
    value: Signal<Vec<usize>>,
    set: Callback<Vec<usize>>,
    empty_ok: bool,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let text = move || {
        value
            .get()
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let change = move |raw: String| {
        let parsed: std::result::Result<Vec<usize>, String> = raw
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| match item.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => Err(format!("{item:?} is not a whole number of at least 1")),
            })
            .collect();
        match parsed {
            Ok(numbers) if numbers.is_empty() && !empty_ok => {
                error.set(Some("at least one is needed".into()))
            }
            Ok(numbers) => {
                error.set(None);
                set.run(numbers);
            }
            Err(why) => error.set(Some(why)),
        }
    };
    view! {
        <label class="control">
            {label}
            <input
                type="text"
                size="10"
                data-testid=testid
                prop:value=text
                on:change=move |ev| change(event_target_value(&ev))
            />
            {move || error.get().map(|why| view! { <span class="error">{why}</span> })}
        </label>
    }
}
