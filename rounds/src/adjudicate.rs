//! The adjudication page (`view=adjudicate`): a task and its two labellers' exported files, their
//! agreement (the same report `routelens agreement` prints, shown only once both files are
//! loaded), each disputed (question, file) with both grades and notes and the file itself, and
//! the adjudicator's decisions — a final grade, a reason code and a note, appended to this
//! browser's storage under (task hash, adjudicator id) and exported as
//! `routelens-adjudication/1`. Once every dispute is decided, the outcome `routelens adjudicate
//! --log` prints, with the adjudicated qrels and the new question set to download.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_app::api;
use routelens_app::bundles::{BundleFiles, BundleStore};
use routelens_app::error::{Error, Result};
use routelens_engine::evaluate::adjudication::{
    adjudicate, disputes, parse_log, Decision, Dispute, Log, LogHeader, ADJUDICATION_FORMAT,
};
use routelens_engine::evaluate::adjudication_report::{adjudication_report, AdjudicationReport};
use routelens_engine::load::labels::{items, parse_labels, task_lines_text, Labels};
use routelens_engine::scoring::agreement::{agreement, DEFAULT_CUT};
use routelens_engine::scoring::agreement_text::report_text;
use routelens_engine::terms::extract_terms;
use routelens_engine::{sha256_hex, BootstrapConfig};

use crate::file_pane::FilePane;
use crate::journal;
use crate::label::GRADES;
use crate::query;
use crate::task::{bundle_of, picked_file, OpenTask, TaskPicker};

/// The reason codes an adjudicator picks from (the log keeps the code; the note says more).
const REASONS: [(&str, &str); 6] = [
    ("misread", "a labeller misread the file or the question"),
    ("partial", "the file answers part of it"),
    ("scope", "outside the question's scope"),
    ("guideline", "the grading guideline decides it"),
    ("unjudged", "one labeller did not judge it"),
    ("other", "other (see the note)"),
];

/// The page's settings: the cut and the bootstrap.
#[derive(Clone, Copy)]
struct Settings {
    cut: RwSignal<u8>,
    resamples: RwSignal<usize>,
    seed: RwSignal<u64>,
}

impl Settings {
    fn bootstrap(self) -> BootstrapConfig {
        BootstrapConfig {
            resamples: self.resamples.get(),
            seed: self.seed.get(),
        }
    }
}

fn setting<T: std::str::FromStr>(key: &str, default: T) -> T {
    query::get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The adjudication page.
#[component]
pub fn AdjudicatePage() -> impl IntoView {
    let task = RwSignal::new(None::<Arc<OpenTask>>);
    let error = RwSignal::new(None::<String>);
    let store = BundleStore::new();
    let bundle = RwSignal::new_local(None::<Rc<BundleFiles>>);
    let bundle_error = RwSignal::new(None::<String>);
    let labels: [RwSignal<Option<Arc<Labels>>>; 2] = [RwSignal::new(None), RwSignal::new(None)];
    let settings = Settings {
        cut: RwSignal::new(setting("cut", DEFAULT_CUT).clamp(1, 3)),
        resamples: RwSignal::new(setting("resamples", 10_000usize).max(1)),
        seed: RwSignal::new(setting("seed", 0u64)),
    };
    let adjudicator = RwSignal::new(query::get("adjudicator").unwrap_or_default());
    let decisions = RwSignal::new(Vec::<Decision>::new());
    let questions = RwSignal::new(None::<(String, String)>);
    Effect::new(move |_| {
        let Some(opened) = task.get() else { return };
        labels.iter().for_each(|l| l.set(None));
        spawn_local(async move {
            match bundle_of(&opened.task, store).await {
                Ok(files) => {
                    bundle_error.set(None);
                    bundle.set(Some(files));
                }
                Err(e) => bundle_error.set(Some(e.to_string())),
            }
            if let Ok(Some(set)) = listed_questions(store, &opened).await {
                questions.set(Some(set));
            }
        });
    });
    // The adjudicator's kept decisions, when the task and the id are known.
    Effect::new(move |_| {
        let (Some(opened), id) = (task.get(), adjudicator.get()) else {
            return;
        };
        let id = id.trim().to_string();
        query::set("adjudicator", &id);
        if id.is_empty() {
            return decisions.set(Vec::new());
        }
        let key = journal::key("adjudication", &opened.sha256, &id);
        match kept_decisions(&key, &opened) {
            Ok(kept) => decisions.set(kept),
            Err(e) => error.set(Some(e)),
        }
    });
    let both = Memo::new(move |_| match (labels[0].get(), labels[1].get()) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    });
    let report = Memo::new(move |_| {
        let (a, b) = both.get()?;
        let opened = task.get()?;
        let names = [a.header.labeller.clone(), b.header.labeller.clone()];
        Some(
            agreement(
                &items(&opened.task, &a, &b),
                settings.cut.get(),
                settings.bootstrap(),
            )
            .map(|r| report_text(&names, &r))
            .map_err(|e| e.to_string()),
        )
    });
    let found = Memo::new(move |_| {
        let (a, b) = both.get()?;
        Some(disputes(&task.get()?.task, &a, &b))
    });
    let focused = RwSignal::new(None::<(String, String)>);
    let file = Signal::derive(move || focused.get().map(|(_, p)| p));
    let terms = Signal::derive(move || {
        let Some((q, _)) = focused.get() else {
            return Vec::new();
        };
        task.with(|t| {
            t.as_ref()
                .and_then(|t| t.task.questions.iter().find(|x| x.id == q))
                .map(|x| extract_terms(&x.question))
                .unwrap_or_default()
        })
    });
    let pane = Pane {
        bundle: bundle.into(),
        file,
        terms,
    };
    let log = Memo::new(move |_| {
        let opened = task.get()?;
        Some(Log {
            header: LogHeader {
                format: ADJUDICATION_FORMAT.into(),
                task: opened.sha256.clone(),
                adjudicator: adjudicator.get().trim().to_string(),
            },
            decisions: decisions.get(),
        })
    });
    let outcome = Memo::new(move |_| {
        let (a, b) = both.get()?;
        let opened = task.get()?;
        let log = log.get()?;
        let (name, text) = questions.get()?;
        Some(
            adjudicate(&opened.task, (&a, &b), &log)
                .and_then(|o| {
                    adjudication_report(
                        &o,
                        &log,
                        (&name, &text),
                        settings.cut.get(),
                        settings.bootstrap(),
                    )
                })
                .map(Arc::new)
                .map_err(|e| e.to_string()),
        )
    });
    let record = move |decision: Decision| {
        let Some(opened) = task.get_untracked() else {
            return;
        };
        let id = adjudicator.get_untracked().trim().to_string();
        if id.is_empty() {
            return error.set(Some("enter your adjudicator id before deciding".into()));
        }
        decisions.update(|d| d.push(decision));
        let saved = log.with_untracked(|log| {
            log.as_ref().map(|log| {
                journal::save(
                    &journal::key("adjudication", &opened.sha256, &id),
                    &log.header,
                    &log.decisions,
                )
            })
        });
        error.set(saved.and_then(|r| r.err()).map(|e| e.to_string()));
    };
    view! {
        <h2>"Adjudicate a labelling round"</h2>
        <p class="about" data-testid="view-about">
            "Open the task and both labellers' exported files: their agreement, then every file \
             they graded differently (or only one graded), to decide. The decisions give \
             adjudicated qrels and a question set with the new gold."
        </p>
        <TaskPicker opened=task error=error />
        <div class="controls">
            {labels_picker("first labeller's labels ", "labels-a", task, labels[0], error)}
            {labels_picker("second labeller's labels ", "labels-b", task, labels[1], error)}
        </div>
        <div class="controls">
            {number("relevant from grade ", "agreement-cut", "cut", settings.cut)}
            {number("bootstrap resamples ", "agreement-resamples", "resamples", settings.resamples)}
            {number("seed ", "agreement-seed", "seed", settings.seed)}
        </div>
        {move || error.get().map(|e| view! { <p class="error" data-testid="adjudicate-error">{e}</p> })}
        {move || bundle_error.get().map(|e| view! { <p class="error" data-testid="bundle-error">{e}</p> })}
        {move || {
            report
                .get()
                .map(|r| match r {
                    Ok(text) => view! {
                        <h3>"Agreement"</h3>
                        <pre class="report" data-testid="agreement-report">{text}</pre>
                    }
                    .into_any(),
                    Err(e) => view! { <p class="error" data-testid="adjudicate-error">{e}</p> }.into_any(),
                })
        }}
        {move || {
            found
                .get()
                .map(|list| {
                    let pairs: Vec<(String, String)> =
                        list.iter().map(|x| (x.question.clone(), x.path.clone())).collect();
                    view! {
                        <h3>"Disputes"</h3>
                        <div class="controls">
                            <label class="control">
                                "adjudicator id "
                                <input
                                    type="text"
                                    data-testid="adjudicator-id"
                                    prop:value=move || adjudicator.get()
                                    on:change=move |ev| adjudicator.set(event_target_value(&ev))
                                />
                            </label>
                            {move || flag(adjudicator.get(), both.get())}
                            <label class="control">
                                "continue from an exported log "
                                <input
                                    type="file"
                                    accept=".jsonl"
                                    data-testid="adjudication-import"
                                    on:change=move |ev| import_log(ev, task, adjudicator, decisions, error)
                                />
                            </label>
                            <button
                                data-testid="adjudication-export"
                                on:click=move |_| export_log(log.get_untracked(), error)
                            >
                                "Export the log"
                            </button>
                        </div>
                        <p data-testid="dispute-count">
                            {move || {
                                let decided = decisions.with(|d| {
                                    pairs
                                        .iter()
                                        .filter(|(q, p)| d.iter().any(|d| &d.question == q && &d.path == p))
                                        .count()
                                });
                                format!("{} disputes, {decided} decided", pairs.len())
                            }}
                        </p>
                        <ol class="disputes">
                            {list
                                .iter()
                                .cloned()
                                .map(|d| dispute_row(d, both, decisions, (focused, pane), record))
                                .collect_view()}
                        </ol>
                    }
                })
        }}
        {move || {
            both.get()
                .map(|_| {
                    view! {
                        <h3>"Outcome"</h3>
                        <label class="control">
                            "the task's question set (found on the site when its SHA-256 matches) "
                            <input
                                type="file"
                                accept=".jsonl"
                                data-testid="adjudication-questions"
                                on:change=move |ev| pick_questions(ev, task, questions, error)
                            />
                        </label>
                        {move || outcome_view(outcome.get(), questions.get().is_some())}
                    }
                })
        }}
    }
}

/// A labels file picker: the file read against the task, refused when of another task.
fn labels_picker(
    label: &'static str,
    testid: &'static str,
    task: RwSignal<Option<Arc<OpenTask>>>,
    into: RwSignal<Option<Arc<Labels>>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let pick = move |ev: leptos::ev::Event| {
        let Some(file) = picked_file(&ev) else {
            return;
        };
        let Some(opened) = task.get_untracked() else {
            return error.set(Some("open the task before its labels".into()));
        };
        spawn_local(async move {
            let read = api::read_text(&file).await.and_then(|text| {
                Ok(parse_labels(
                    &file.name(),
                    &text,
                    &opened.bytes,
                    &opened.task,
                )?)
            });
            match read {
                Ok(labels) => {
                    error.set(None);
                    into.set(Some(Arc::new(labels)));
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };
    view! {
        <label class="control">
            {label}
            <input type="file" accept=".jsonl" data-testid=testid on:change=pick />
        </label>
    }
}

/// A number setting kept in the URL under `key`.
fn number<T>(
    label: &'static str,
    testid: &'static str,
    key: &'static str,
    value: RwSignal<T>,
) -> impl IntoView
where
    T: std::str::FromStr + ToString + Clone + Send + Sync + 'static,
{
    view! {
        <label class="control">
            {label}
            <input
                type="number"
                data-testid=testid
                prop:value=move || value.get().to_string()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    if let Ok(parsed) = text.parse::<T>() {
                        query::set(key, &text);
                        value.set(parsed);
                    }
                }
            />
        </label>
    }
}

/// Flags an adjudicator who is one of the labellers (allowed, and said).
fn flag(id: String, both: Option<(Arc<Labels>, Arc<Labels>)>) -> Option<impl IntoView> {
    let (a, b) = both?;
    let id = id.trim().to_string();
    (!id.is_empty() && (a.header.labeller == id || b.header.labeller == id)).then(|| {
        view! {
            <span class="notice" data-testid="adjudicator-flag">
                {format!("{id} is one of the labellers: the log and the outcome say so")}
            </span>
        }
    })
}

/// The file pane's inputs: the bundle, the file shown and the question's terms.
#[derive(Clone, Copy)]
struct Pane {
    bundle: Signal<Option<Rc<BundleFiles>>, LocalStorage>,
    file: Signal<Option<String>>,
    terms: Signal<Vec<String>>,
}

/// One dispute: both grades and notes, the decision, and its file under it once shown.
fn dispute_row(
    d: Dispute,
    both: Memo<Option<(Arc<Labels>, Arc<Labels>)>>,
    decisions: RwSignal<Vec<Decision>>,
    (focused, pane): (RwSignal<Option<(String, String)>>, Pane),
    record: impl Fn(Decision) + Copy + 'static,
) -> impl IntoView {
    let names = both
        .get_untracked()
        .map(|(a, b)| [a.header.labeller.clone(), b.header.labeller.clone()])
        .unwrap_or_default();
    let grade = |g: Option<u8>| g.map_or("not judged".to_string(), |g| g.to_string());
    let (question, path) = (d.question.clone(), d.path.clone());
    let last = {
        let (q, p) = (question.clone(), path.clone());
        Memo::new(move |_| {
            decisions.with(|all| {
                all.iter()
                    .rev()
                    .find(|x| x.question == q && x.path == p)
                    .cloned()
            })
        })
    };
    let chosen = RwSignal::new(last.get_untracked().map_or(0, |l| l.grade));
    let reason = RwSignal::new(
        last.get_untracked()
            .map_or(REASONS[0].0.to_string(), |l| l.reason),
    );
    let note = RwSignal::new(last.get_untracked().map(|l| l.note).unwrap_or_default());
    let shown = (question.clone(), path.clone());
    let show = {
        let (q, p) = (question.clone(), path.clone());
        move |_| focused.set(Some((q.clone(), p.clone())))
    };
    let decide = {
        let (q, p) = (question.clone(), path.clone());
        move |_| {
            record(Decision {
                question: q.clone(),
                path: p.clone(),
                grade: chosen.get_untracked(),
                reason: reason.get_untracked(),
                note: note.get_untracked(),
                decided_at: journal::now(),
            })
        }
    };
    view! {
        <li
            class="dispute"
            data-testid="dispute"
            data-question=question.clone()
            data-path=path.clone()
            data-decided=move || last.get().map(|l| l.grade.to_string()).unwrap_or_default()
        >
            <strong>{question.clone()}</strong>
            " "
            <button class="link" data-testid="dispute-show" on:click=show>
                {path.clone()}
            </button>
            <span data-testid="dispute-grades">
                {format!(
                    " · {}: {} · {}: {}",
                    names[0],
                    grade(d.grades[0]),
                    names[1],
                    grade(d.grades[1]),
                )}
            </span>
            <span class="muted" data-testid="dispute-notes">
                {format!(" · notes: {:?} / {:?}", d.notes[0], d.notes[1])}
            </span>
            <div class="controls">
                <label class="control">
                    "final grade "
                    <select
                        data-testid="decision-grade"
                        on:change=move |ev| {
                            if let Ok(g) = event_target_value(&ev).parse() {
                                chosen.set(g)
                            }
                        }
                    >
                        {(0..=3u8)
                            .map(|g| view! {
                                <option value=g.to_string() selected=move || chosen.get() == g>
                                    {GRADES[g as usize]}
                                </option>
                            })
                            .collect_view()}
                    </select>
                </label>
                <label class="control">
                    "reason "
                    <select data-testid="decision-reason" on:change=move |ev| reason.set(event_target_value(&ev))>
                        {REASONS
                            .iter()
                            .map(|(code, words)| view! {
                                <option value=*code selected=move || reason.get() == *code>
                                    {format!("{code}: {words}")}
                                </option>
                            })
                            .collect_view()}
                    </select>
                </label>
                <label class="control">
                    "note "
                    <input
                        type="text"
                        data-testid="decision-note"
                        prop:value=move || note.get()
                        on:input=move |ev| note.set(event_target_value(&ev))
                    />
                </label>
                <button data-testid="decision-record" on:click=decide>
                    {move || if last.get().is_some() { "Record again" } else { "Record decision" }}
                </button>
            </div>
            {move || {
                (focused.get().as_ref() == Some(&shown)).then(|| {
                    view! { <FilePane bundle=pane.bundle path=pane.file terms=pane.terms /> }
                })
            }}
        </li>
    }
}

/// The outcome once every dispute is decided: the summary, qrels and the new question set.
fn outcome_view(
    outcome: Option<std::result::Result<Arc<AdjudicationReport>, String>>,
    have_set: bool,
) -> impl IntoView {
    match outcome {
        None if !have_set => view! {
            <p class="muted" data-testid="adjudication-outcome-missing">
                "The outcome needs the task's question set: the site's has another SHA-256, or none \
                 is listed; pick the file."
            </p>
        }
        .into_any(),
        None => ().into_any(),
        Some(Err(e)) => view! { <p class="notice" data-testid="adjudication-outcome-error">{e}</p> }.into_any(),
        Some(Ok(report)) => {
            let (qrels, set) = (report.qrels.clone(), report.new_set.clone());
            view! {
                <pre class="report" data-testid="adjudication-outcome">{report.text.clone()}</pre>
                <button
                    data-testid="download-qrels"
                    on:click=move |_| {
                        let _ = api::download_text("adjudicated.qrels", "text/plain", &qrels);
                    }
                >
                    "Download the qrels"
                </button>
                <button
                    data-testid="download-questions"
                    on:click=move |_| {
                        let _ = api::download_text("questions-adjudicated.jsonl", "application/jsonl", &set);
                    }
                >
                    "Download the new question set"
                </button>
            }
            .into_any()
        }
    }
}

/// The question set the site lists for the task's bundle, when its SHA-256 is the task's.
async fn listed_questions(
    store: BundleStore,
    opened: &OpenTask,
) -> Result<Option<(String, String)>> {
    for entry in store.list().await? {
        let Some(url) = entry.questions else { continue };
        let Some(bytes) = api::fetch_optional(&url).await? else {
            continue;
        };
        if sha256_hex(&bytes) == opened.task.questions_sha256 {
            return Ok(Some((url, String::from_utf8_lossy(&bytes).into_owned())));
        }
    }
    Ok(None)
}

/// A picked question set, refused unless it is the one the task was pooled for.
fn pick_questions(
    ev: leptos::ev::Event,
    task: RwSignal<Option<Arc<OpenTask>>>,
    into: RwSignal<Option<(String, String)>>,
    error: RwSignal<Option<String>>,
) {
    let Some(file) = picked_file(&ev) else {
        return;
    };
    let Some(opened) = task.get_untracked() else {
        return;
    };
    spawn_local(async move {
        let read = api::read_bytes(&file).await.and_then(|bytes| {
            let sha = sha256_hex(&bytes);
            if sha != opened.task.questions_sha256 {
                return Err(Error::refused(format!(
                    "{}: its SHA-256 {sha} is not the task's question set ({})",
                    file.name(),
                    opened.task.questions_sha256
                )));
            }
            String::from_utf8(bytes)
                .map_err(|e| Error::refused(format!("{}: not UTF-8: {e}", file.name())))
        });
        match read {
            Ok(text) => {
                error.set(None);
                into.set(Some((file.name(), text)));
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    });
}

/// Downloads the log as `routelens-adjudication/1`.
fn export_log(log: Option<Log>, error: RwSignal<Option<String>>) {
    let Some(log) = log else { return };
    let done = task_lines_text(&log.header, &log.decisions)
        .map_err(Error::from)
        .and_then(|text| {
            api::download_text(
                &format!("adjudication-{}.jsonl", log.header.adjudicator),
                "application/jsonl",
                &text,
            )
        });
    error.set(done.err().map(|e| e.to_string()));
}

/// The adjudicator's decisions kept in this browser under `key`.
fn kept_decisions(key: &str, opened: &OpenTask) -> std::result::Result<Vec<Decision>, String> {
    journal::kept(key, "the decisions", |text| {
        parse_log(key, text, &opened.bytes, &opened.task).map(|log| log.decisions)
    })
}

/// Continues from an exported log: refused when of another task; its decisions join those kept
/// (the same decision once) under its adjudicator.
fn import_log(
    ev: leptos::ev::Event,
    task: RwSignal<Option<Arc<OpenTask>>>,
    adjudicator: RwSignal<String>,
    decisions: RwSignal<Vec<Decision>>,
    error: RwSignal<Option<String>>,
) {
    let Some(file) = picked_file(&ev) else {
        return;
    };
    let Some(opened) = task.get_untracked() else {
        return;
    };
    spawn_local(async move {
        let read = api::read_text(&file)
            .await
            .and_then(|text| Ok(parse_log(&file.name(), &text, &opened.bytes, &opened.task)?));
        let log = match read {
            Ok(log) => log,
            Err(e) => return error.set(Some(e.to_string())),
        };
        let id = log.header.adjudicator.clone();
        let key = journal::key("adjudication", &opened.sha256, &id);
        let kept = match kept_decisions(&key, &opened) {
            Ok(kept) => kept,
            Err(e) => return error.set(Some(e)),
        };
        let merged = match journal::import(&key, &log.header, kept, log.decisions, |d| d.decided_at)
        {
            Ok(merged) => merged,
            Err(e) => return error.set(Some(e.to_string())),
        };
        error.set(None);
        adjudicator.set(id);
        decisions.set(merged);
    });
}
