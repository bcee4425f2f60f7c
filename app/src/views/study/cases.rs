//! The per-issue drill-down: a case list, and for the selected case its repository, base commit,
//! query hash, gold files and spans, which arm ranked which gold file where, every arm's ranked
//! list side by side, the archived per-case measurements, every arm's value of each metric of the
//! metric list, and for an arm of spans its ranked units as line ranges with the gold spans they
//! hit and the units CodeNib's deduplication drops. Issue texts are not archived; the
//! reader may load them from a file, a published site may ship them, and a text is shown only if
//! it hashes to the archived value.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::{
    check_issue_texts, first_gold_rank, parse_issue_texts, score_ranking,
    scoring::metric_tables::{case_metric_table, case_units_table},
    scoring::tables::{case_gold_table, case_measurements_table},
    scoring::unit_metrics::{Metric, Relevance},
    Study,
};

use super::case_list::CaseList;
use super::case_snapshot::CaseSnapshot;
use super::params::StudyViewParamsStoreFields;
use crate::api;
use crate::components::{KSelect, TableView};
use crate::error::Error;
use crate::params::page::{PageParamsStoreFields, StudyRef};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::site::Site;
use crate::state::AppState;

/// The drill-down view.
#[component]
pub fn CasesView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let detail = move || {
        let id = s.study_views().issue().get()?;
        let k = s.shared().k().get();
        let texts = state.issue_texts.get();
        state.with_study(|study| match study.case_index(&id) {
            Some(case) => {
                let scoring = (state.metrics(study), state.metric_setup(study).relevance);
                case_detail(study, case, k, texts.get(&id).cloned(), scoring).into_any()
            }
            None => view! {
                <p class="error" data-testid="case-detail">
                    {format!("Issue {id:?} is not in this study.")}
                </p>
            }
            .into_any(),
        })
    };
    view! {
        <section>
            <IssueTextLoader />
            <div class="cases">
                <CaseList />
                <div class="case-pane">
                    <div class="controls">
                        <KSelect value=s.shared().k() label="k" testid="k-select" />
                    </div>
                    {move || {
                        detail()
                            .unwrap_or_else(|| {
                                view! { <p>"Choose an issue from the list."</p> }.into_any()
                            })
                    }}
                </div>
            </div>
        </section>
    }
}

/// Where issue texts come from: a file the reader picked, or the file a published site ships
/// with the study (`routelens publish --issue-texts`), read when the case list first shows with
/// no texts known.
enum TextSource {
    Picked(web_sys::File),
    Site(String),
}

/// The site's issue texts for the open study, when it is one the site lists with them.
fn shipped_texts(state: AppState) -> Option<String> {
    let StudyRef::Served(id) = state.settings.page().study().get_untracked() else {
        return None;
    };
    let Some(Site::Listed(listed)) = crate::site::known() else {
        return None;
    };
    let entry = listed.index.studies.iter().find(|entry| entry.id == id)?;
    entry.issue_texts.clone()
}

/// Loads issue texts from a file (or the site's) and keeps the ones whose SHA-256 matches.
#[component]
fn IssueTextLoader() -> impl IntoView {
    let state = AppState::get();
    let report = RwSignal::new(None::<Result<String, Error>>);
    let load = move |source: TextSource| {
        let Some(study) = state.study.get_untracked().map(|loaded| loaded.study) else {
            return;
        };
        spawn_local(async move {
            let (name, text) = match source {
                TextSource::Picked(file) => (file.name(), api::read_text(&file).await),
                TextSource::Site(url) => (url.clone(), crate::open::fetch_text(&url).await),
            };
            let outcome = text.and_then(|text| {
                let texts = parse_issue_texts(&name, &text)?;
                Ok::<_, Error>(check_issue_texts(&study, texts))
            });
            report.set(Some(outcome.map(|checked| {
                let refused: Vec<String> = checked
                    .refused
                    .iter()
                    .map(|(id, why)| format!("{id} ({why})"))
                    .collect();
                let line = format!(
                    "{name}: accepted {}, refused {}{}",
                    checked.accepted.len(),
                    refused.len(),
                    if refused.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", refused.join("; "))
                    }
                );
                state
                    .issue_texts
                    .update(|texts| texts.extend(checked.accepted));
                line
            })));
        });
    };
    if state.issue_texts.with_untracked(|texts| texts.is_empty()) {
        if let Some(url) = shipped_texts(state) {
            load(TextSource::Site(url));
        }
    }
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.item(0)) {
            load(TextSource::Picked(file));
        }
    };
    view! {
        <details class="issue-texts">
            <summary>"Load issue texts (not archived; each is checked against its SHA-256)"</summary>
            <p>
                "A JSON object " <code>"{\"<id>\": \"<text>\"}"</code> ", a JSON list of "
                <code>"{\"id\", \"text\"}"</code> " or JSON Lines of the same. A text is accepted only "
                "if its SHA-256 equals the case's archived query hash."
            </p>
            <input type="file" accept=".json,.jsonl" data-testid="issue-text-file" on:change=pick />
            {move || {
                report
                    .get()
                    .map(|outcome| match outcome {
                        Ok(line) => view! { <p data-testid="issue-text-report">{line}</p> }.into_any(),
                        Err(err) => {
                            view! { <p class="error" data-testid="issue-text-report">{err.to_string()}</p> }
                                .into_any()
                        }
                    })
            }}
        </details>
    }
}

/// Everything about one case.
fn case_detail(
    study: &Study,
    case: usize,
    k: usize,
    text: Option<String>,
    (metrics, relevance): (Vec<Metric>, Relevance),
) -> impl IntoView {
    let c = &study.cases[case];
    let metric_values = match case_metric_table(study, case, &metrics, relevance) {
        Ok(table) => view! { <TableView table testid="table-case-metrics" /> }.into_any(),
        Err(err) => view! { <p class="error">{err.to_string()}</p> }.into_any(),
    };
    let units = (0..study.arms.len())
        .filter(|&arm| !study.arms[arm].units.is_empty())
        .map(|arm| {
            let table = case_units_table(study, case, arm);
            view! {
                <div class="case-units" data-arm=study.arms[arm].name.clone()>
                    <TableView table testid="table-case-units" />
                </div>
            }
        })
        .collect_view();
    let spans = c
        .gold_spans
        .iter()
        .map(|span| {
            view! {
                <li>
                    <code>{span.path.clone()}</code>
                    {format!(" lines {}–{}", span.start_line, span.end_line)}
                </li>
            }
        })
        .collect_view();
    let files_without_spans = c
        .gold_files
        .iter()
        .filter(|file| !c.gold_spans.iter().any(|span| &span.path == *file))
        .map(|file| view! { <li><code>{file.clone()}</code></li> })
        .collect_view();
    let snapshot = view! { <CaseSnapshot case_id=c.id.clone() text=text.clone() k=k /> };
    let text_view = match text {
        Some(text) => {
            view! { <pre class="issue-text" data-testid="issue-text">{text}</pre> }.into_any()
        }
        None => {
            let source = study.issue_source.clone().map_or_else(
                || "The study does not say where its issue texts come from.".to_string(),
                |source| format!("They come from {source}."),
            );
            view! {
                <span class="muted" data-testid="issue-source">
                    {format!(
                        "The archive keeps no issue texts, only each one's SHA-256. {source} \
                         Load them from a file under \"Load issue texts\" above; each is \
                         accepted only if it hashes to the case's recorded SHA-256."
                    )}
                </span>
            }
            .into_any()
        }
    };
    let columns = study
        .arms
        .iter()
        .map(|arm| {
            let ranking = &arm.rankings[case];
            let first = first_gold_rank(&c.gold_files, ranking)
                .map_or_else(|| "none".to_string(), |rank| rank.to_string());
            let recall = score_ranking(&c.gold_files, ranking, k).recall;
            let items = ranking
                .iter()
                .take(k)
                .map(|path| {
                    let gold = c.gold_files.contains(path);
                    view! {
                        <li class:gold=gold data-gold=gold.to_string()>
                            {if gold { "✓ " } else { "" }}
                            <code>{path.clone()}</code>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="ranking" data-arm=arm.name.clone()>
                    <h4>{arm.name.clone()}</h4>
                    <p class="muted">
                        {format!("first gold rank: {first} · recall@{k}: {recall:.3}")}
                    </p>
                    <ol>{items}</ol>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="case-detail" data-testid="case-detail" data-case=c.id.clone()>
            <h3>{c.id.clone()}</h3>
            <dl>
                <dt>"repository"</dt>
                <dd data-testid="case-repo">{c.repo.clone()}</dd>
                <dt>"base commit"</dt>
                <dd><code>{c.base_commit.clone().unwrap_or_else(|| "–".into())}</code></dd>
                <dt>"query SHA-256"</dt>
                <dd><code data-testid="case-query-sha256">{c.query_sha256.clone().unwrap_or_else(|| "–".into())}</code></dd>
                <dt>"issue text"</dt>
                <dd>{text_view}</dd>
            </dl>
            {snapshot}
            <h4>"Gold files and spans"</h4>
            <ul data-testid="case-gold-spans">{spans}{files_without_spans}</ul>
            <TableView table=case_gold_table(study, case, k) testid="table-case-gold" />
            <p class="note">"Ranks in parentheses are beyond k."</p>
            <h4>{format!("Each arm's first {k} paths (✓ gold)")}</h4>
            <div class="rankings" data-testid="case-rankings">{columns}</div>
            <TableView table=case_measurements_table(study, case) testid="table-case-measurements" />
            {metric_values}
            {units}
        </div>
    }
}
