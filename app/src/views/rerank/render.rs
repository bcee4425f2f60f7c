//! The Rerank view's result: the plan and what each action matched, the planner's and the
//! judge's costs, every candidate's judgment, and the top results with gold marked.

use leptos::prelude::*;
use routelens_engine::load::question_set::Question;

use super::state::{Outcome, Ran};

/// Results shown after reranking (CodeNib: 5).
const TOP: usize = 5;

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

pub(super) fn shown(ran: Ran) -> AnyView {
    let (outcome, gold) = match ran {
        Ran::Idle => return ().into_any(),
        Ran::Running(line) => {
            return view! { <p class="progress" data-testid="rerank-progress">{line}</p> }
                .into_any()
        }
        Ran::Failed(err) => {
            return view! { <p class="error" data-testid="rerank-error">{err}</p> }.into_any()
        }
        Ran::Done { outcome, gold } => (outcome, gold),
    };
    let Outcome {
        run,
        ms,
        planner,
        plan_error,
    } = outcome;
    let planned = planner.map(|p| {
        view! {
            <p data-testid="rerank-planner">
                {format!(
                    "planner {}: {} request(s), {} retried after 429, {} input and {} output tokens, ${:.6}, {} ms",
                    p.model, p.requests, p.retries, p.input_tokens, p.output_tokens, p.cost_usd, p.latency_ms
                )}
            </p>
        }
    });
    let plan_failed = plan_error.map(|why| {
        view! {
            <p class="error" data-testid="rerank-plan-error">
                {format!("the planner gave no plan, so the grep pool is empty (no refill): {why}")}
            </p>
        }
    });
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
            let judge = arm.reranked.accounting.as_ref().map(|a| {
                view! {
                    <p data-testid="rerank-judge">
                        {format!(
                            "judge {}: {} call(s), {} retried, {} input and {} output tokens, ${:.6}, {} ms waiting",
                            a.model, a.calls, a.retries, a.input_tokens, a.output_tokens, a.cost_usd, a.decider_ms
                        )}
                    </p>
                }
            });
            let failures = arm
                .reranked
                .failed_batches
                .iter()
                .map(|(batch, why)| view! { <li data-testid="rerank-failed-batch">{format!("batch {}: {why}", batch + 1)}</li> })
                .collect_view();
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
                    {judge}
                    <ul>{failures}</ul>
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
            {planned}
            {plan_failed}
            {run.plan.is_some().then(|| view! { <h3>"Plan"</h3> })}
            <ul data-testid="rerank-actions">{actions}</ul>
            {arms}
        </div>
    }
    .into_any()
}
