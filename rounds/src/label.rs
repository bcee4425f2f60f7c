//! The labelling page (`view=label`): one labeller works through a task in their own order —
//! each question, each candidate file beside it with the question's terms marked, a grade on
//! TREC's scale, "unsure" and a note, files the pool missed added through a path filter — with
//! keyboard shortcuts and the progress always in view. Every judgment is an event appended to
//! this browser's storage under (task hash, labeller id) and exported as `routelens-labels/1`.
//! Blind by construction: the task holds no gold, arms or ranks, the bundle's question set is
//! never fetched, and no other labeller's file is read here.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_app::api;
use routelens_app::bundles::{BundleFiles, BundleStore};
use routelens_engine::load::labels::{parse_labels, LabelEvent, LabelsHeader, LABELS_FORMAT};
use routelens_engine::scoring::agreement::DEFAULT_CUT;
use routelens_engine::terms::extract_terms;

use crate::file_pane::FilePane;
use crate::journal;
use crate::query;
use crate::task::{bundle_of, picked_file, OpenTask, TaskPicker};

/// The grades, as the labeller reads them.
pub const GRADES: [&str; 4] = [
    "0 not relevant",
    "1 related",
    "2 answers part",
    "3 answers it",
];

/// Paths the filter of "add a file the pool missed" lists at most.
const MAX_MATCHES: usize = 20;

/// One labeller at work on one task.
#[derive(Clone, Copy)]
struct Session {
    task: StoredValue<Arc<OpenTask>>,
    labeller: StoredValue<String>,
    /// Which of the task's labeller orders (0-based).
    slot: usize,
    /// Every event, in order (kept and exported).
    events: RwSignal<Vec<LabelEvent>>,
    /// Position in the labeller's question order.
    at: RwSignal<usize>,
    /// The candidate in focus, in the question's list.
    current: RwSignal<usize>,
    /// Files added this visit and not graded yet, by question id.
    added: RwSignal<BTreeMap<String, Vec<String>>>,
    /// "Unsure" and the note of files not graded yet.
    drafts: RwSignal<BTreeMap<(String, String), (bool, String)>>,
    /// When each file was first shown.
    shown: StoredValue<BTreeMap<(String, String), u64>>,
    /// Why the last event could not be kept.
    save_error: RwSignal<Option<String>>,
}

/// A file in a question's list: its path and the position shown (0 for a file the labeller added).
#[derive(Clone, PartialEq)]
struct Row {
    path: String,
    position: usize,
}

impl Session {
    fn new(task: Arc<OpenTask>, labeller: String, slot: usize, events: Vec<LabelEvent>) -> Session {
        Session {
            task: StoredValue::new(task),
            labeller: StoredValue::new(labeller),
            slot,
            events: RwSignal::new(events),
            at: RwSignal::new(0),
            current: RwSignal::new(0),
            added: RwSignal::new(BTreeMap::new()),
            drafts: RwSignal::new(BTreeMap::new()),
            shown: StoredValue::new(BTreeMap::new()),
            save_error: RwSignal::new(None),
        }
    }

    fn questions(self) -> usize {
        self.task
            .with_value(|t| t.task.labellers.get(self.slot).map_or(0, |l| l.order.len()))
    }

    /// The question at `at` in this labeller's order: its id and text, and its list.
    fn question(self, at: usize) -> Option<(String, String, Vec<Row>)> {
        let (id, text, mut rows) = self.task.with_value(|t| {
            let (q_at, order) = t.task.labellers.get(self.slot)?.order.get(at)?;
            let q = t.task.questions.get(*q_at)?;
            let rows: Vec<Row> = order
                .iter()
                .filter_map(|c| q.candidates.get(*c))
                .enumerate()
                .map(|(i, path)| Row {
                    path: path.clone(),
                    position: i + 1,
                })
                .collect();
            Some((q.id.clone(), q.question.clone(), rows))
        })?;
        let mut extra: Vec<String> = self.events.with(|events| {
            events
                .iter()
                .filter(|e| e.question == id)
                .map(|e| e.path.clone())
                .collect()
        });
        extra.extend(self.added.with(|a| a.get(&id).cloned().unwrap_or_default()));
        for path in extra {
            if !rows.iter().any(|r| r.path == path) {
                rows.push(Row { path, position: 0 });
            }
        }
        Some((id, text, rows))
    }

    /// The last event of (question, path).
    fn last(self, question: &str, path: &str) -> Option<LabelEvent> {
        self.events.with(|events| {
            events
                .iter()
                .rev()
                .find(|e| e.question == question && e.path == path)
                .cloned()
        })
    }

    /// Judged pairs and all pairs of the task (added files count in both).
    fn progress(self) -> (usize, usize) {
        (0..self.questions())
            .filter_map(|at| self.question(at))
            .fold((0, 0), |(judged, all), (id, _, rows)| {
                let done = rows
                    .iter()
                    .filter(|r| self.last(&id, &r.path).is_some())
                    .count();
                (judged + done, all + rows.len())
            })
    }

    /// Appends an event and keeps the whole file.
    fn record(self, event: LabelEvent) {
        self.events.update(|events| events.push(event));
        let header = self.header();
        let kept = self
            .events
            .with_untracked(|events| journal::save(&self.key(), &header, events));
        self.save_error.set(kept.err().map(|e| e.to_string()));
    }

    fn header(self) -> LabelsHeader {
        LabelsHeader {
            format: LABELS_FORMAT.into(),
            task: self.task.with_value(|t| t.sha256.clone()),
            labeller: self.labeller.get_value(),
            app: env!("CARGO_PKG_VERSION").into(),
        }
    }

    fn key(self) -> String {
        self.task
            .with_value(|t| journal::key("labels", &t.sha256, &self.labeller.get_value()))
    }

    /// The "unsure" and note of (question `id`, `path`): the draft's before a grade, else the
    /// last event's.
    fn annotation(self, id: &str, path: &str) -> (bool, String) {
        self.drafts
            .with(|d| d.get(&(id.to_string(), path.to_string())).cloned())
            .or_else(|| self.last(id, path).map(|e| (e.unsure, e.note)))
            .unwrap_or_default()
    }

    /// Grades `row` of question `id`, keeping its "unsure" and note.
    fn grade(self, id: &str, row: &Row, grade: u8) {
        let key = (id.to_string(), row.path.clone());
        let (unsure, note) = self.annotation(id, &row.path);
        let shown_at = self
            .shown
            .with_value(|s| s.get(&key).copied())
            .unwrap_or_else(journal::now);
        self.record(LabelEvent {
            question: id.to_string(),
            path: row.path.clone(),
            grade,
            unsure,
            note,
            position: row.position,
            shown_at,
            judged_at: journal::now(),
        });
        self.drafts.update(|d| {
            d.remove(&key);
        });
    }

    /// Changes "unsure" or the note of `row`: a new event when it has a grade, else a draft.
    fn annotate(self, id: &str, row: &Row, unsure: bool, note: String) {
        match self.last(id, &row.path) {
            Some(last) => self.record(LabelEvent {
                unsure,
                note,
                position: row.position,
                judged_at: journal::now(),
                ..last
            }),
            None => self.drafts.update(|d| {
                d.insert((id.to_string(), row.path.clone()), (unsure, note));
            }),
        }
    }

    /// Moves to question `at` (clamped), its first file in focus.
    fn go(self, at: usize) {
        let last = self.questions().saturating_sub(1);
        self.at.set(at.min(last));
        self.current.set(0);
    }

    /// Moves the focus by `step` files within the question.
    fn step(self, step: isize, rows: usize) {
        let next = self.current.get_untracked() as isize + step;
        self.current
            .set(next.clamp(0, rows.saturating_sub(1) as isize) as usize);
    }
}

/// The labelling page.
#[component]
pub fn LabelPage() -> impl IntoView {
    let task = RwSignal::new(None::<Arc<OpenTask>>);
    let error = RwSignal::new(None::<String>);
    let store = BundleStore::new();
    let bundle = RwSignal::new_local(None::<Rc<BundleFiles>>);
    let bundle_error = RwSignal::new(None::<String>);
    let session = RwSignal::new(None::<Session>);
    Effect::new(move |_| {
        let Some(opened) = task.get() else { return };
        session.set(None);
        bundle.set(None);
        spawn_local(async move {
            match bundle_of(&opened.task, store).await {
                Ok(files) => {
                    bundle_error.set(None);
                    bundle.set(Some(files));
                }
                Err(e) => bundle_error.set(Some(e.to_string())),
            }
        });
    });
    let labeller = RwSignal::new(query::get("labeller").unwrap_or_default());
    let slot = RwSignal::new(
        query::get("slot")
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|s| *s >= 1)
            .unwrap_or(1),
    );
    let cut = RwSignal::new(
        query::get("cut")
            .and_then(|c| c.parse::<u8>().ok())
            .filter(|c| (1..=3).contains(c))
            .unwrap_or(DEFAULT_CUT),
    );
    let start = move || {
        let Some(opened) = task.get_untracked() else {
            return error.set(Some("open a task first".into()));
        };
        let id = labeller.get_untracked().trim().to_string();
        if id.is_empty() {
            return error.set(Some("enter your labeller id first".into()));
        }
        let slots = opened.task.labellers.len();
        let at = slot.get_untracked();
        if at > slots {
            return error.set(Some(format!(
                "the task has {slots} labeller orders; order {at} is not one of them"
            )));
        }
        query::set("labeller", &id);
        query::set("slot", &at.to_string());
        let key = journal::key("labels", &opened.sha256, &id);
        let events = match kept_labels(&key, &opened) {
            Ok(events) => events,
            Err(e) => return error.set(Some(e)),
        };
        error.set(None);
        session.set(Some(Session::new(opened, id, at - 1, events)));
    };
    let slots = move || task.get().map_or(1, |t| t.task.labellers.len().max(1));
    view! {
        <h2>"Label a task"</h2>
        <p class="about" data-testid="view-about">
            "Grade how well each file answers the question, on TREC's scale. Nothing here says \
             which files were expected, which retriever found them or how anyone else graded \
             them; your work stays in this browser until you export it."
        </p>
        <TaskPicker opened=task error=error />
        <div class="controls">
            <label class="control">
                "labeller id "
                <input
                    type="text"
                    data-testid="labeller-id"
                    prop:value=move || labeller.get()
                    on:input=move |ev| labeller.set(event_target_value(&ev))
                />
            </label>
            <label class="control">
                "order "
                <select
                    data-testid="labeller-slot"
                    on:change=move |ev| {
                        if let Ok(at) = event_target_value(&ev).parse() {
                            slot.set(at)
                        }
                    }
                >
                    {move || {
                        (1..=slots())
                            .map(|n| {
                                view! {
                                    <option value=n.to_string() selected=move || slot.get() == n>
                                        {format!("labeller {n} of {}", slots())}
                                    </option>
                                }
                            })
                            .collect_view()
                    }}
                </select>
            </label>
            <label class="control">
                "relevant from grade "
                <select
                    data-testid="label-cut"
                    on:change=move |ev| {
                        if let Ok(c) = event_target_value(&ev).parse::<u8>() {
                            cut.set(c);
                            query::set("cut", &c.to_string());
                        }
                    }
                >
                    {(1..=3u8)
                        .map(|c| {
                            view! {
                                <option value=c.to_string() selected=move || cut.get() == c>
                                    {format!("≥ {c}")}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <button data-testid="label-start" on:click=move |_| start()>
                "Start labelling"
            </button>
            <label class="control">
                "or continue from an exported file "
                <input
                    type="file"
                    accept=".jsonl"
                    data-testid="label-import"
                    on:change=move |ev| import(ev, task, session, labeller, error)
                />
            </label>
        </div>
        {move || error.get().map(|e| view! { <p class="error" data-testid="label-error">{e}</p> })}
        {move || bundle_error.get().map(|e| view! { <p class="error" data-testid="bundle-error">{e}</p> })}
        {move || {
            session
                .get()
                .map(|s| {
                    view! { <Workbench s=s bundle=bundle.into() cut=cut.into() /> }
                })
        }}
    }
}

/// Continues from an exported labels file: refused when of another task (naming both hashes);
/// its events join those kept here (the same event once), and become the kept file.
fn import(
    ev: leptos::ev::Event,
    task: RwSignal<Option<Arc<OpenTask>>>,
    session: RwSignal<Option<Session>>,
    labeller: RwSignal<String>,
    error: RwSignal<Option<String>>,
) {
    let Some(file) = picked_file(&ev) else {
        return;
    };
    let Some(opened) = task.get_untracked() else {
        return error.set(Some("open the task before importing its labels".into()));
    };
    spawn_local(async move {
        let text = match api::read_text(&file).await {
            Ok(text) => text,
            Err(e) => return error.set(Some(e.to_string())),
        };
        let read = match parse_labels(&file.name(), &text, &opened.bytes, &opened.task) {
            Ok(read) => read,
            Err(e) => return error.set(Some(e.to_string())),
        };
        let key = journal::key("labels", &opened.sha256, &read.header.labeller);
        let kept = match kept_labels(&key, &opened) {
            Ok(events) => events,
            Err(e) => return error.set(Some(e)),
        };
        let events = match journal::import(&key, &read.header, kept, read.events, |e| e.judged_at) {
            Ok(events) => events,
            Err(e) => return error.set(Some(e.to_string())),
        };
        labeller.set(read.header.labeller.clone());
        query::set("labeller", &read.header.labeller);
        error.set(None);
        // Started again from the kept file, now holding both.
        let slot = query::get("slot")
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or(1);
        let labeller_id = read.header.labeller;
        session.set(Some(Session::new(
            opened,
            labeller_id,
            slot.saturating_sub(1),
            events,
        )));
    });
}

/// The labeller's events kept in this browser under `key`.
fn kept_labels(key: &str, opened: &OpenTask) -> Result<Vec<LabelEvent>, String> {
    journal::kept(key, "the work", |text| {
        parse_labels(key, text, &opened.bytes, &opened.task).map(|l| l.events)
    })
}

/// The labeller's work: progress, the question, its files with their grades, the file in focus.
#[component]
fn Workbench(
    s: Session,
    bundle: Signal<Option<Rc<BundleFiles>>, LocalStorage>,
    cut: Signal<u8>,
) -> impl IntoView {
    let question = Memo::new(move |_| s.question(s.at.get()));
    let focused = Signal::derive(move || {
        question.with(|q| {
            q.as_ref()
                .and_then(|(_, _, rows)| rows.get(s.current.get()).map(|r| r.path.clone()))
        })
    });
    let terms = Signal::derive(move || {
        question.with(|q| {
            q.as_ref()
                .map(|(_, text, _)| extract_terms(text))
                .unwrap_or_default()
        })
    });
    // The first time each file is in focus is its `shown_at`.
    Effect::new(move |_| {
        let (Some(path), Some(id)) = (
            focused.get(),
            question.with(|q| q.as_ref().map(|q| q.0.clone())),
        ) else {
            return;
        };
        s.shown.update_value(|shown| {
            shown.entry((id, path)).or_insert_with(journal::now);
        });
    });
    let keys = window_event_listener(leptos::ev::keydown, move |ev| on_key(s, question, &ev));
    on_cleanup(move || keys.remove());
    let progress = move || {
        let (judged, all) = s.progress();
        format!("judged {judged} / {all}")
    };
    let export = move |_| {
        let text = s
            .events
            .with(|events| routelens_engine::load::labels::task_lines_text(&s.header(), events));
        let name = format!(
            "labels-{}-{}.jsonl",
            s.labeller.get_value(),
            s.task
                .with_value(|t| t.sha256.chars().take(12).collect::<String>())
        );
        let done = text
            .map_err(routelens_app::error::Error::from)
            .and_then(|text| api::download_text(&name, "application/jsonl", &text));
        s.save_error.set(done.err().map(|e| e.to_string()));
    };
    view! {
        <div class="label-bar" data-testid="label-bar">
            <strong data-testid="label-progress">{progress}</strong>
            <span class="muted" data-testid="label-where">
                {move || format!(" · question {} of {} · ", s.at.get() + 1, s.questions())}
            </span>
            <button data-testid="label-prev" on:click=move |_| s.go(s.at.get_untracked().saturating_sub(1))>
                "← previous question"
            </button>
            <button data-testid="label-next" on:click=move |_| s.go(s.at.get_untracked() + 1)>
                "next question →"
            </button>
            <button data-testid="label-export" on:click=export>
                "Export my labels"
            </button>
            <span class="muted">
                " keys: 0–3 grade the file in focus and move on · j/k or ↓/↑ next/previous file · \
                 n/p or →/← next/previous question · u unsure"
            </span>
        </div>
        {move || s.save_error.get().map(|e| view! { <p class="error" data-testid="label-save-error">{e}</p> })}
        {move || {
            question
                .get()
                .map(|(id, text, rows)| {
                    view! {
                        <section class="label-question" data-testid="label-question" data-question=id.clone()>
                            <h3>{format!("Question {id}")}</h3>
                            <p class="question-text" data-testid="label-question-text">{text}</p>
                            <p class="muted">
                                {move || format!(
                                    "Grades {} and up count as relevant.",
                                    cut.get(),
                                )}
                            </p>
                            <ol class="label-candidates" data-testid="label-candidates">
                                {rows
                                    .into_iter()
                                    .enumerate()
                                    .map(|(at, row)| candidate(s, id.clone(), at, row))
                                    .collect_view()}
                            </ol>
                            <AddMissed s=s id=id.clone() bundle=bundle />
                        </section>
                    }
                })
        }}
        <FilePane bundle=bundle path=focused terms=terms />
    }
}

/// One file of the question's list: its path (focus), grade buttons, "unsure" and a note.
fn candidate(s: Session, id: String, at: usize, row: Row) -> impl IntoView {
    let last = {
        let (id, path) = (id.clone(), row.path.clone());
        Memo::new(move |_| s.last(&id, &path))
    };
    let unsure = {
        let (id, path) = (id.clone(), row.path.clone());
        move || s.annotation(&id, &path).0
    };
    let note = {
        let (id, path) = (id.clone(), row.path.clone());
        move || s.annotation(&id, &path).1
    };
    let grades = {
        let (id, row) = (id.clone(), row.clone());
        (0..=3u8)
            .map(|g| {
                let (id, row) = (id.clone(), row.clone());
                view! {
                    <button
                        class="grade"
                        data-testid=format!("grade-{g}")
                        aria-pressed=move || (last.get().map(|e| e.grade) == Some(g)).to_string()
                        title=GRADES[g as usize]
                        on:click=move |_| {
                            s.current.set(at);
                            s.grade(&id, &row, g);
                        }
                    >
                        {GRADES[g as usize]}
                    </button>
                }
            })
            .collect_view()
    };
    let (id_u, row_u, note_u) = (id.clone(), row.clone(), note.clone());
    let (id_n, row_n, unsure_n) = (id.clone(), row.clone(), unsure.clone());
    let path = row.path.clone();
    view! {
        <li
            class="label-candidate"
            class:current=move || s.current.get() == at
            data-testid="label-candidate"
            data-path=row.path.clone()
            data-position=row.position.to_string()
            data-grade=move || last.get().map(|e| e.grade.to_string()).unwrap_or_default()
        >
            <button class="link" data-testid="label-show" on:click=move |_| s.current.set(at)>
                {path}
            </button>
            {(row.position == 0).then(|| view! { <span class="muted">" (added)"</span> })}
            <span class="grades" role="group" aria-label="grade">{grades}</span>
            <label class="control">
                <input
                    type="checkbox"
                    data-testid="label-unsure"
                    prop:checked=unsure
                    on:change=move |ev| {
                        s.annotate(&id_u, &row_u, event_target_checked(&ev), note_u());
                    }
                />
                " unsure"
            </label>
            <label class="control">
                "note "
                <input
                    type="text"
                    data-testid="label-note"
                    prop:value=note
                    on:change=move |ev| s.annotate(&id_n, &row_n, unsure_n(), event_target_value(&ev))
                />
            </label>
        </li>
    }
}

/// "Add a file the pool missed": a path filter over the bundle's files, never a free path.
#[component]
fn AddMissed(
    s: Session,
    id: String,
    bundle: Signal<Option<Rc<BundleFiles>>, LocalStorage>,
) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let listed = move || {
        let needle = filter.get().to_lowercase();
        if needle.len() < 2 {
            return Vec::new();
        }
        let shown: Vec<String> = s
            .question(s.at.get_untracked())
            .map(|(_, _, rows)| rows.into_iter().map(|r| r.path).collect())
            .unwrap_or_default();
        bundle
            .get()
            .map(|b| {
                b.manifest
                    .files
                    .iter()
                    .map(|f| f.path.clone())
                    .filter(|p| p.to_lowercase().contains(&needle) && !shown.contains(p))
                    .take(MAX_MATCHES)
                    .collect()
            })
            .unwrap_or_default()
    };
    view! {
        <div class="controls" data-testid="label-add">
            <label class="control">
                "add a file the pool missed: "
                <input
                    type="text"
                    placeholder="part of its path"
                    data-testid="label-add-filter"
                    prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
            </label>
            <ul class="add-options">
                {move || {
                    listed()
                        .into_iter()
                        .map(|path| {
                            let (id, add) = (id.clone(), path.clone());
                            view! {
                                <li>
                                    <button
                                        class="link"
                                        data-testid="label-add-option"
                                        data-path=path.clone()
                                        on:click=move |_| {
                                            s.added.update(|a| a.entry(id.clone()).or_default().push(add.clone()));
                                            filter.set(String::new());
                                        }
                                    >
                                        {path.clone()}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}

/// The keyboard: grades and moves, unless the labeller is typing in a field.
fn on_key(
    s: Session,
    question: Memo<Option<(String, String, Vec<Row>)>>,
    ev: &web_sys::KeyboardEvent,
) {
    let typing = ev
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
    if typing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
        return;
    }
    let Some((id, _, rows)) = question.get_untracked() else {
        return;
    };
    let current = s.current.get_untracked();
    match ev.key().as_str() {
        key @ ("0" | "1" | "2" | "3") => {
            if let (Some(row), Ok(grade)) = (rows.get(current), key.parse()) {
                s.grade(&id, row, grade);
                s.step(1, rows.len());
            }
        }
        "j" | "ArrowDown" => s.step(1, rows.len()),
        "k" | "ArrowUp" => s.step(-1, rows.len()),
        "n" | "ArrowRight" => s.go(s.at.get_untracked() + 1),
        "p" | "ArrowLeft" => s.go(s.at.get_untracked().saturating_sub(1)),
        "u" => {
            if let Some(row) = rows.get(current) {
                let (unsure, note) = s.annotation(&id, &row.path);
                s.annotate(&id, row, !unsure, note);
            }
        }
        _ => return,
    }
    ev.prevent_default();
}
