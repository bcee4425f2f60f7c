//! The Search view's results: one column per arm with scores, query time, gold hits and
//! recall@k, the fused column, and the file view with the terms highlighted.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::score_ranking;

use routelens_engine::retrieval::lexical::issue_run::fuse_runs;
use routelens_engine::{Error as EngineError, MAX_K};

use super::state::SearchState;
use crate::bundles::file_text;
use crate::components::GoldLegend;
use crate::error::Error;
use crate::marks::marked;

/// Lines of a file shown at most (a larger file is cut, saying so).
const MAX_VIEW_LINES: usize = 3000;

/// The arm columns and the fused list.
pub(super) fn results_view(s: SearchState) -> Option<impl IntoView> {
    let results = s.results.get()?;
    let k = s.k.get();
    let fused_arms = s.fused.get();
    let gold = results.gold.clone();
    let column = move |name: String,
                       testid: String,
                       label: String,
                       terms: Vec<String>,
                       ranked: Result<Vec<(String, f64)>, EngineError>,
                       ms: Option<f64>| {
        let recall = match (&gold, &ranked) {
            (Some(gold), Ok(ranked)) if !gold.is_empty() => {
                let paths: Vec<String> = ranked.iter().map(|(p, _)| p.clone()).collect();
                let score = score_ranking(gold, &paths, k);
                Some(format!(
                    "recall@{k} {}/{} = {:.3}",
                    score.found, score.gold, score.recall
                ))
            }
            _ => None,
        };
        let gold_set = gold.clone().unwrap_or_default();
        let body = match ranked {
            Err(err) => view! { <p class="error">{err.to_string()}</p> }.into_any(),
            Ok(ranked) => view! {
                <ol>
                    {ranked
                        .into_iter()
                        .enumerate()
                        .map(|(rank, (path, score))| {
                            let is_gold = gold_set.contains(&path);
                            let beyond_k = rank >= k;
                            let (click_path, click_terms) = (path.clone(), terms.clone());
                            view! {
                                <li
                                    data-testid="search-hit"
                                    data-path=path.clone()
                                    data-gold=is_gold.to_string()
                                    class:gold=is_gold
                                    class:beyond-k=beyond_k
                                >
                                    <a
                                        href="#"
                                        data-testid="search-hit-open"
                                        on:click=move |ev| {
                                            ev.prevent_default();
                                            show_file(s, click_path.clone(), click_terms.clone());
                                        }
                                    >
                                        {path.clone()}
                                    </a>
                                    " "
                                    <span class="muted score">{format!("{score:.3}")}</span>
                                    {is_gold.then_some(" ★")}
                                </li>
                            }
                        })
                        .collect_view()}
                </ol>
            }
            .into_any(),
        };
        view! {
            <div class="search-column" data-testid=testid data-arm=name.clone()>
                <h4>{label}</h4>
                {ms.map(|ms| view! { <p class="muted" data-testid="search-ms">{format!("{ms:.2}")}" ms"</p> })}
                {recall.map(|r| view! { <p data-testid="search-recall">{r}</p> })}
                {body}
            </div>
        }
    };
    let fused = fuse_runs(&results.columns, &fused_arms, MAX_K).map(|output| output.results);
    let fused_terms: Vec<String> = results
        .columns
        .iter()
        .filter(|c| fused_arms.contains(&c.arm))
        .filter_map(|c| c.output.as_ref().ok())
        .flat_map(|output| output.terms.clone())
        .collect();
    let columns = results
        .columns
        .into_iter()
        .map(|c| {
            let (terms, ranked) = match c.output {
                Ok(output) => (output.terms, Ok(output.results)),
                Err(err) => (Vec::new(), Err(err)),
            };
            column(
                c.arm.clone(),
                "search-column".into(),
                c.arm,
                terms,
                ranked,
                c.ms,
            )
        })
        .collect_view();
    let fused_label = format!("RRF of {}", fused_arms.join(" + "));
    Some(view! {
        <p class="muted" data-testid="search-qid">{results.qid.clone()}</p>
        <GoldLegend beyond_k=true />
        <div class="search-columns">
            {columns}
            {column(
                fused_arms.join("+"),
                "search-fused".into(),
                fused_label,
                fused_terms,
                fused,
                None,
            )}
        </div>
    })
}

/// Shows a file's text with `terms` highlighted, fetching and verifying just its chunk (the
/// texts the arms search stay in the live worker).
fn show_file(s: SearchState, path: String, terms: Vec<String>) {
    spawn_local(async move {
        match file_from_chunk(s, &path).await {
            Ok(text) => s.file.set(Some((path, text, terms))),
            Err(err) => s.error.set(Some(err)),
        }
    });
}

/// One file's text, from its chunk (fetched and verified against the manifest).
async fn file_from_chunk(s: SearchState, path: &str) -> Result<String, Error> {
    let open = s
        .open
        .get_untracked()
        .ok_or_else(|| Error::refused("no bundle is open"))?;
    file_text(&open.entry, (&open.manifest, &open.manifest_sha256), path).await
}

/// The open file, its lines with the matched terms in `<mark>`.
pub(super) fn file_view(s: SearchState) -> Option<impl IntoView> {
    let (path, text, terms) = s.file.get()?;
    let total = text.lines().count();
    let shown: String = text.split_inclusive('\n').take(MAX_VIEW_LINES).collect();
    let pieces = marked(&shown, &terms);
    Some(view! {
        <div class="file-view" data-testid="file-view" data-path=path.clone()>
            <h4>
                {path.clone()}
                <span class="muted">{format!(" · {total} lines · terms: {}", terms.join(" "))}</span>
                <button data-testid="file-close" on:click=move |_| s.file.set(None)>
                    "Close"
                </button>
            </h4>
            {(total > MAX_VIEW_LINES).then(|| view! { <p class="muted">{format!("first {MAX_VIEW_LINES} lines shown")}</p> })}
            <pre>{pieces}</pre>
        </div>
    })
}
