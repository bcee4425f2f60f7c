//! Opening a labelling task (`routelens-label-task/1`) by URL (`task=` in the page's URL) or as
//! a picked file, and the bundle it was pooled from, found by its commit among the site's
//! bundles (or named by `bundle=`). The bundle's question set is never fetched: a labeller's
//! page holds no gold. And the file a file input holds.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_app::api::{self, BundleEntry};
use routelens_app::bundles::{BundleFiles, BundleStore};
use routelens_app::error::{Error, Result};
use routelens_engine::load::labels::{parse_task, LabelTask};
use routelens_engine::sha256_hex;

use crate::query;

/// An opened task: its bytes (labels name them by hash), hash and contents.
#[derive(Debug)]
pub struct OpenTask {
    /// Where it came from (a URL or a picked file's name), for messages.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Their SHA-256: every labels file and log of this task names it.
    pub sha256: String,
    /// The task.
    pub task: LabelTask,
}

impl OpenTask {
    fn read(name: String, bytes: Vec<u8>) -> Result<OpenTask> {
        let task = parse_task(&name, &bytes)?;
        Ok(OpenTask {
            sha256: sha256_hex(&bytes),
            name,
            bytes,
            task,
        })
    }
}

/// The task control: a URL field and a file picker; `opened` gets the task, `error` why not.
/// A `task=` URL in the page's address opens at once.
#[component]
pub fn TaskPicker(
    opened: RwSignal<Option<Arc<OpenTask>>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let url = RwSignal::new(query::get("task").unwrap_or_default());
    let open_url = move || {
        let at = url.get_untracked();
        if at.is_empty() {
            return;
        }
        query::set("task", &at);
        spawn_local(async move {
            let read = match api::fetch_required(&at).await {
                Ok(bytes) => OpenTask::read(at, bytes),
                Err(e) => Err(e),
            };
            settle(read, opened, error);
        });
    };
    if !url.get_untracked().is_empty() {
        open_url();
    }
    let pick = move |ev: leptos::ev::Event| {
        let Some(file) = picked_file(&ev) else {
            return;
        };
        query::set("task", "");
        spawn_local(async move {
            let read = match api::read_bytes(&file).await {
                Ok(bytes) => OpenTask::read(file.name(), bytes),
                Err(e) => Err(e),
            };
            settle(read, opened, error);
        });
    };
    view! {
        <div class="controls">
            <label class="control">
                "task URL "
                <input
                    type="text"
                    size="40"
                    data-testid="task-url"
                    prop:value=move || url.get()
                    on:input=move |ev| url.set(event_target_value(&ev))
                />
            </label>
            <button data-testid="task-open" on:click=move |_| open_url()>
                "Open"
            </button>
            <label class="control">
                "or a task file "
                <input type="file" accept=".json" data-testid="task-pick" on:change=pick />
            </label>
        </div>
        {move || {
            opened
                .get()
                .map(|t| {
                    view! {
                        <p class="muted" data-testid="task-summary">
                            {format!(
                                "{}: {} questions, {} candidate files, {} labellers; SHA-256 {}",
                                t.name,
                                t.task.questions.len(),
                                t.task.questions.iter().map(|q| q.candidates.len()).sum::<usize>(),
                                t.task.labellers.len(),
                                t.sha256,
                            )}
                        </p>
                    }
                })
        }}
    }
}

fn settle(
    read: Result<OpenTask>,
    opened: RwSignal<Option<Arc<OpenTask>>>,
    error: RwSignal<Option<String>>,
) {
    match read {
        Ok(task) => {
            error.set(None);
            opened.set(Some(Arc::new(task)));
        }
        Err(e) => error.set(Some(e.to_string())),
    }
}

/// The bundle at the task's commit: the one `bundle=` names, else the first of the site's whose
/// manifest has that commit. Opened without its question set.
pub async fn bundle_of(task: &LabelTask, store: BundleStore) -> Result<Rc<BundleFiles>> {
    let named = query::get("bundle");
    let list = store.list().await?;
    let mut seen = Vec::new();
    for entry in list
        .into_iter()
        .filter(|e| named.as_ref().is_none_or(|n| &e.name == n))
    {
        let entry = BundleEntry {
            questions: None,
            ..entry
        };
        let files = store.open(&entry, &|_| {}).await?;
        let commit = files
            .manifest
            .commit
            .clone()
            .unwrap_or_else(|| files.manifest.source.clone());
        if commit == task.bundle_commit {
            return Ok(files);
        }
        seen.push(format!("{} ({commit})", entry.name));
    }
    Err(Error::refused(format!(
        "no bundle of this site is at the task's commit {}{}",
        task.bundle_commit,
        if seen.is_empty() {
            String::new()
        } else {
            format!(" (looked at: {})", seen.join(", "))
        }
    )))
}

/// The file a file input holds after a pick (none when the pick was cancelled).
pub fn picked_file(ev: &leptos::ev::Event) -> Option<web_sys::File> {
    let input: web_sys::HtmlInputElement = event_target(ev);
    input.files().and_then(|list| list.item(0))
}
