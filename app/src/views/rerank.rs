//! The Rerank view: CodeNib's two stages for one question of a bundle, run in the live worker
//! (engine `rerank::run`, as `routelens rerank`): the plan (editable; empty, the offline planner
//! plans) and what each action matched, the pool, every candidate's judgment (level
//! probabilities, score, batch, failed batches), and the top results with gold marked.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::code_chunks::Chunker;
use routelens_engine::lexical::live::Question;
use routelens_engine::live_session::{AnswerBody, CallBody};
use routelens_engine::rerank::pools::Route;
use routelens_engine::rerank::settings::{QuestionRun, RerankSettings, RerankerChoice};

use crate::components::{bundle_select, question_select};
use crate::error::{Error, Result};
use crate::live;
use crate::state::{AppState, SettingsStoreFields};

/// Results shown after reranking (CodeNib: 5).
const TOP: usize = 5;

/// Where the run is.
#[derive(Debug, Clone, PartialEq)]
enum Ran {
    Idle,
    Running(String),
    Done {
        run: Box<QuestionRun>,
        ms: f64,
        gold: Option<Question>,
    },
    Failed(String),
}

/// The Rerank view.
#[component]
pub fn RerankView() -> impl IntoView {
    let app = AppState::get();
    let s = app.settings;
    let bundles = LocalResource::new(move || app.bundles.list());
    let questions = LocalResource::new(move || {
        let name = s.bundle().get();
        async move {
            let Some(name) = name else {
                return Ok((Vec::new(), Vec::new()));
            };
            let entry = app.bundles.find(&name).await?;
            let files = app.bundles.open(&entry, |_| {}).await?;
            let chunkers: Vec<Chunker> =
                files.manifest.chunkings.iter().map(|c| c.chunker).collect();
            Ok::<_, Error>((files.questions.clone(), chunkers))
        }
    });
    let text = RwSignal::new(String::new());
    let plan_text = RwSignal::new(String::new());
    let ran = RwSignal::new(Ran::Idle);
    // The question a permalink names (an id of the set, or the text itself).
    Effect::new(move || {
        if let Some(Ok((set, _))) = questions.get() {
            let query = s.query().get_untracked().unwrap_or_default();
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
        s.chunk_chunker()
            .get()
            .filter(|c| have.contains(c))
            .or_else(|| {
                have.iter()
                    .copied()
                    .find(|c| *c == Chunker::StructuralUnmerged)
            })
            .or_else(|| have.first().copied())
    };
    let run = move |_| {
        let (Some(name), Some(chunker)) = (s.bundle().get_untracked(), chunker()) else {
            ran.set(Ran::Failed("choose a bundle with chunkings first".into()));
            return;
        };
        let query = text.get_untracked();
        if query.trim().is_empty() {
            ran.set(Ran::Failed("type or pick a question first".into()));
            return;
        }
        // Read and checked by the worker: the page carries no regex or glob compiler.
        let typed = plan_text.get_untracked();
        let plan = (!typed.trim().is_empty()).then_some(typed);
        let gold = questions
            .get_untracked()
            .and_then(|r| r.ok())
            .and_then(|(set, _)| set.into_iter().find(|q| q.question == query));
        let settings = RerankSettings {
            chunker,
            routes: vec![s.rerank_route().get_untracked()],
            rerankers: vec![s.reranker().get_untracked()],
            ..RerankSettings::default()
        };
        ran.set(Ran::Running(format!(
            "{name}: loading the texts and the {} chunking",
            chunker.name()
        )));
        spawn_local(async move {
            let result = rerank(app, &name, &query, (settings, plan), ran).await;
            ran.set(match result {
                Ok((run, ms)) => {
                    if let Some(plan) = &run.plan {
                        plan_text.set(serde_json::to_string_pretty(plan).unwrap_or_default());
                    }
                    Ran::Done { run, ms, gold }
                }
                Err(err) => Ran::Failed(err.to_string()),
            });
        });
    };
    let picker = move || {
        let chosen = s.bundle().get_untracked().unwrap_or_default();
        bundle_select(
            bundles.get(),
            chosen,
            "rerank-bundle-select",
            "bundles-absent",
            move |entry| s.bundle().set(Some(entry.name)),
        )
    };
    let question_picker = move || {
        let set = questions
            .get()
            .and_then(|r| r.ok())
            .map(|(q, _)| q)
            .unwrap_or_default();
        let selected = Signal::derive(move || s.query().get());
        question_select(
            set,
            selected,
            "rerank-question-select",
            move |q: Option<&Question>| {
                if let Some(q) = q {
                    text.set(q.question.clone());
                    s.query().set(Some(q.id.clone()));
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
                                s.rerank_route().set(route);
                            }
                        }
                    >
                        {Route::ALL.map(|r| view! {
                            <option value=r.name() selected=move || s.rerank_route().get() == r>{r.name()}</option>
                        })}
                    </select>
                </label>
                <label class="control">
                    "reranker "
                    <select
                        data-testid="rerank-reranker"
                        on:change=move |ev| {
                            if let Some(choice) = RerankerChoice::from_name(&event_target_value(&ev)) {
                                s.reranker().set(choice);
                            }
                        }
                    >
                        {RerankerChoice::ALL.map(|r| view! {
                            <option value=r.name() selected=move || s.reranker().get() == r>{r.name()}</option>
                        })}
                    </select>
                </label>
                <label class="control">
                    "chunking "
                    <select
                        data-testid="rerank-chunker"
                        on:change=move |ev| s.chunk_chunker().set(Chunker::from_name(&event_target_value(&ev)))
                    >
                        {chunker_options}
                    </select>
                </label>
            </div>
            <label class="control wide">
                "question "
                <textarea
                    rows="3"
                    cols="90"
                    data-testid="rerank-query"
                    prop:value=move || text.get()
                    on:change=move |ev| {
                        text.set(event_target_value(&ev));
                        s.query().set(Some(event_target_value(&ev)));
                    }
                ></textarea>
            </label>
            <label class="control wide">
                "grep plan (JSON; empty: the offline planner plans) "
                <textarea
                    rows="6"
                    cols="90"
                    data-testid="rerank-plan"
                    prop:value=move || plan_text.get()
                    on:change=move |ev| plan_text.set(event_target_value(&ev))
                ></textarea>
            </label>
            <div class="controls">
                <button
                    data-testid="rerank-run"
                    disabled=move || matches!(ran.get(), Ran::Running(_))
                    on:click=run
                >
                    "Retrieve and rerank"
                </button>
            </div>
            <p class="note">
                "The pool: chunk BM25 over the question (top 100), the plan's grep matches mapped \
                 to their smallest enclosing chunk (20 lines a file, 500 an action, round-robin, \
                 100 at most), or both interleaved. The reranker sees each candidate's first 3,000 \
                 characters, judges batches of 10 on CodeNib's four levels and sorts by expected \
                 level ÷ 3. The same run as "
                <code>"routelens rerank"</code>
                "."
            </p>
            {move || shown(ran.get())}
        </section>
    }
}

/// Loads the texts and the chunking into the worker, then runs both stages there.
async fn rerank(
    app: AppState,
    name: &str,
    query: &str,
    (settings, plan): (RerankSettings, Option<String>),
    ran: RwSignal<Ran>,
) -> Result<(Box<QuestionRun>, f64)> {
    app.bundles
        .load_chunkings(name, true, &[settings.chunker], move |line| {
            ran.set(Ran::Running(line))
        })
        .await?;
    let body = CallBody::Rerank {
        bundle: name.to_string(),
        query: query.to_string(),
        settings,
        plan,
    };
    match live::call(body, |_| {}).await? {
        AnswerBody::Reranked { run, ms } => Ok((run, ms)),
        other => Err(live::unexpected(&other)),
    }
}

/// Whether a result is gold for the question: its file is, and it overlaps a gold span when
/// the question has spans.
fn is_gold(gold: &Question, path: &str, start: u32, end: u32) -> bool {
    if gold.gold_lines.is_empty() {
        gold.gold.iter().any(|g| g == path)
    } else {
        gold.gold_lines
            .iter()
            .any(|s| s.path == path && s.start_line <= end && start <= s.end_line)
    }
}

fn shown(ran: Ran) -> AnyView {
    let (run, ms, gold) = match ran {
        Ran::Idle => return ().into_any(),
        Ran::Running(line) => {
            return view! { <p class="progress" data-testid="rerank-progress">{line}</p> }
                .into_any()
        }
        Ran::Failed(err) => {
            return view! { <p class="error" data-testid="rerank-error">{err}</p> }.into_any()
        }
        Ran::Done { run, ms, gold } => (run, ms, gold),
    };
    let actions = run
        .plan
        .iter()
        .flat_map(|plan| plan.actions.iter().enumerate())
        .map(|(at, action)| {
            let found = run.grep.as_ref().and_then(|g| g.actions.get(at));
            let outcome = match found {
                Some(f) => match &f.error {
                    Some(why) => format!("failed: {why}"),
                    None => format!(
                        "{} lines, {} chunks{}{}",
                        f.lines.len(),
                        f.chunks.len(),
                        if f.outside > 0 { format!(", {} lines outside every chunk", f.outside) } else { String::new() },
                        if f.truncated { " (cut at a limit)" } else { "" }
                    ),
                },
                None => String::new(),
            };
            view! {
                <li data-testid="rerank-action">
                    <code>{format!("/{}/{} in {}", action.pattern, if action.case_sensitive { "" } else { "i" }, action.glob)}</code>
                    {format!(": {outcome}")}
                </li>
            }
        })
        .collect_view();
    let arms = run
        .arms
        .iter()
        .map(|arm| {
            let summary = format!(
                "{} pool of {}, reranked by {} in {:.1} ms (both stages, in this browser){}{}",
                arm.route.name(),
                arm.candidates.len(),
                arm.reranked.reranker,
                ms,
                if arm.reranked.failed_batches.is_empty() { String::new() } else {
                    format!("; {} batch(es) failed, their candidates after every scored one", arm.reranked.failed_batches.len())
                },
                if arm.reranked.all_failed { "; every batch failed: the pool's order stands" } else { "" }
            );
            let top = arm
                .reranked
                .order
                .iter()
                .take(TOP)
                .enumerate()
                .map(|(rank, &at)| {
                    let c = &arm.candidates[at];
                    let hit = gold.as_ref().is_some_and(|g| is_gold(g, &c.file, c.start_line, c.end_line));
                    let score = arm.reranked.judged[at].score;
                    view! {
                        <tr
                            data-testid="rerank-hit"
                            data-path=c.file.clone()
                            data-start=c.start_line
                            data-end=c.end_line
                            data-gold=if hit { "yes" } else { "no" }
                        >
                            <td class="num">{rank + 1}</td>
                            <td class="num">{score.map_or_else(|| "–".to_string(), |s| format!("{s:.3}"))}</td>
                            <td>{c.file.clone()}</td>
                            <td>{format!("{}-{}", c.start_line, c.end_line)}</td>
                            <td>{c.name.clone()}</td>
                            <td class="num">{at + 1}</td>
                            <td>{if hit { "gold" } else { "" }}</td>
                        </tr>
                    }
                })
                .collect_view();
            let judged = arm
                .reranked
                .judged
                .iter()
                .map(|j| {
                    let c = &arm.candidates[j.pool_rank];
                    let levels = j.levels.map_or_else(
                        || "not judged".to_string(),
                        |l| l.iter().map(|p| format!("{p:.2}")).collect::<Vec<_>>().join(" / "),
                    );
                    view! {
                        <tr data-testid="rerank-judged-row">
                            <td class="num">{j.pool_rank + 1}</td>
                            <td>{c.name.clone()}</td>
                            <td>{format!("{}:{}-{}", c.file, c.start_line, c.end_line)}</td>
                            <td>{levels}</td>
                            <td class="num">{j.score.map_or_else(|| "–".to_string(), |s| format!("{s:.3}"))}</td>
                            <td class="num">{j.batch + 1}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <div data-testid="rerank-arm">
                    <p data-testid="rerank-summary">{summary}</p>
                    <table data-testid="rerank-top">
                        <thead>
                            <tr>
                                <th>"rank"</th>
                                <th>"score"</th>
                                <th>"path"</th>
                                <th>"lines (visible)"</th>
                                <th>"name"</th>
                                <th>"pool rank"</th>
                                <th>"gold"</th>
                            </tr>
                        </thead>
                        <tbody>{top}</tbody>
                    </table>
                    <details>
                        <summary>"Every candidate's judgment"</summary>
                        <table data-testid="rerank-judged">
                            <thead>
                                <tr>
                                    <th>"pool rank"</th>
                                    <th>"name"</th>
                                    <th>"visible lines"</th>
                                    <th>"P(level 0 / 1 / 2 / 3)"</th>
                                    <th>"score"</th>
                                    <th>"batch"</th>
                                </tr>
                            </thead>
                            <tbody>{judged}</tbody>
                        </table>
                    </details>
                </div>
            }
        })
        .collect_view();
    view! {
        <div data-testid="rerank-result">
            {run.plan.is_some().then(|| view! { <h3>"Plan"</h3> })}
            <ul data-testid="rerank-actions">{actions}</ul>
            {arms}
        </div>
    }
    .into_any()
}
