//! How the Route view shows a run: the counters, which decider produced it, the nominated files
//! (gold marked, recall@k when the question has gold), and every menu with each option's
//! probability and whether it was kept, and why.

use leptos::prelude::*;
use routelens_engine::remote::route::{Cap, MenuRecord, RouteSettings, Strategy};
use routelens_engine::score_ranking;

use super::state::Shown;
use crate::components::GoldLegend;

/// The whole run.
pub(super) fn walk_view(shown: Shown, k: usize) -> impl IntoView {
    let Shown {
        run,
        settings,
        qid,
        gold,
        source,
    } = shown;
    let state = match (&run.error, run.stopped_by) {
        (Some(error), _) => match error.status {
            Some(status) => format!("failed (HTTP {status}): {}", error.message),
            None => format!("stopped: {}", error.message),
        },
        (None, Some(cap)) => format!(
            "truncated by the {} cap",
            match cap {
                Cap::Files => "files",
                Cap::Calls => "calls",
                Cap::Time => "time",
            }
        ),
        (None, None) => String::new(),
    };
    let recall = gold.as_ref().map(|gold| {
        let score = score_ranking(gold, &run.paths, k);
        format!(
            "recall@{k} {}/{} = {:.3}",
            score.found, score.gold, score.recall
        )
    });
    let has_gold = gold.is_some();
    let gold_set = gold.unwrap_or_default();
    let paths = run
        .paths
        .iter()
        .enumerate()
        .map(|(rank, path)| {
            let is_gold = gold_set.contains(path);
            view! {
                <li
                    data-testid="route-path"
                    data-path=path.clone()
                    data-gold=is_gold.to_string()
                    class:gold=is_gold
                    class:beyond-k={rank >= k}
                >
                    {path.clone()}
                    {is_gold.then_some(" ★")}
                </li>
            }
        })
        .collect_view();
    let menus = run
        .menus
        .iter()
        .enumerate()
        .map(|(i, menu)| menu_view(i, menu, &settings, run.strategy))
        .collect_view();
    let counters = [
        ("calls", run.calls.to_string()),
        ("input tokens", run.input_tokens.to_string()),
        ("output tokens", run.output_tokens.to_string()),
        ("cost", format!("${:.6}", run.cost_usd)),
        ("elapsed", format!("{} ms", run.elapsed_ms)),
        ("waiting for the decider", format!("{} ms", run.decider_ms)),
        ("retries", run.retries.to_string()),
    ]
    .into_iter()
    .map(|(name, value)| {
        view! {
            <span class="counter" data-testid=format!("route-count-{}", name.replace(' ', "-"))>
                {format!("{name}: {value}")}
            </span>
            " · "
        }
    })
    .collect_view();
    view! {
        <div class="route-run" data-testid="route-run" data-decider=run.decider.clone()>
            <p data-testid="route-decider">
                {format!(
                    "{source}: {} strategy, decider {}, model {}",
                    run.strategy.name(),
                    if run.decider.is_empty() { "?" } else { run.decider.as_str() },
                    run.model,
                )}
                {qid.map(|q| format!(" · question {q}"))}
            </p>
            <p class="muted" data-testid="route-counters">{counters}</p>
            {(!state.is_empty()).then(|| view! { <p class="error" data-testid="route-state">{state}</p> })}
            {recall.map(|r| view! { <p data-testid="route-recall">{r}</p> })}
            <h4>{format!("Nominated files ({})", run.paths.len())}</h4>
            {has_gold.then(|| view! { <GoldLegend beyond_k=true /> })}
            <ol data-testid="route-paths">{paths}</ol>
            <h4>{format!("Menus ({})", run.menus.len())}</h4>
            <div data-testid="route-menus">{menus}</div>
        </div>
    }
}

/// One menu: its options, their probabilities, and kept or not with the reason.
fn menu_view(
    index: usize,
    menu: &MenuRecord,
    settings: &RouteSettings,
    strategy: Strategy,
) -> impl IntoView {
    let threshold = match strategy {
        Strategy::Tree => menu.keep_threshold(settings),
        Strategy::Flat => None,
    };
    let rule = match (strategy, threshold) {
        (Strategy::Tree, Some(t)) => format!(
            "keep p ≥ {t:.4} = max({}, {} × best child)",
            settings.min_probability, settings.relative_probability
        ),
        (Strategy::Tree, None) => "no call (a single child, kept)".to_string(),
        (Strategy::Flat, _) if menu.probabilities.is_empty() => {
            "no call (small enough to advance whole)".to_string()
        }
        (Strategy::Flat, _) => format!("the top {} advance", settings.flat_advance),
    };
    let rows = menu
        .rows()
        .into_iter()
        .zip(&menu.options)
        .map(|((path, kept, p, rank), text)| {
            let why = match (kept, p, threshold) {
                (true, _, _) if strategy == Strategy::Flat => {
                    format!("advanced (#{})", rank.map_or(0, |r| r + 1))
                }
                (true, Some(p), Some(t)) => {
                    format!("kept (#{}): {p:.4} ≥ {t:.4}", rank.map_or(0, |r| r + 1))
                }
                (true, _, _) => "kept".to_string(),
                (false, Some(p), Some(t)) => format!("dropped: {p:.4} < {t:.4}"),
                (false, _, _) => "dropped".to_string(),
            };
            view! {
                <tr
                    data-testid="route-option"
                    data-path=path.clone()
                    data-kept=kept.to_string()
                    class:kept=kept
                >
                    <td title=text.clone()>{path.clone()}</td>
                    <td class="num">{p.map_or("—".to_string(), |p| format!("{p:.4}"))}</td>
                    <td>{why}</td>
                </tr>
            }
        })
        .collect_view();
    let none = (!menu.none_of_these.is_empty()).then(|| {
        let parts: Vec<String> = menu
            .none_of_these
            .iter()
            .map(|p| format!("{p:.4}"))
            .collect();
        format!(" · none of these: {}", parts.join(", "))
    });
    let name = if menu.directory.is_empty() {
        "(root)".to_string()
    } else {
        menu.directory.clone()
    };
    view! {
        <details class="route-menu" data-testid="route-menu" data-directory=menu.directory.clone() open=true>
            <summary>
                {format!(
                    "{}. {name} · {} options · {} calls · {} kept",
                    index + 1,
                    menu.options.len(),
                    menu.calls,
                    menu.kept.len()
                )}
                <span class="muted">{format!(" · {rule}")}{none}</span>
            </summary>
            <table>
                <thead>
                    <tr>
                        <th>"option"</th>
                        <th>"p"</th>
                        <th>"kept?"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}
