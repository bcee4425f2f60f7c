//! The home page: every way to open a study. The server's list (`/studies.json`), the pinned
//! public copy of the archive, a folder picker for a local copy, and other studies' files (a TREC
//! run with qrels, or JSON Lines).

use leptos::html::Input;
use leptos::prelude::*;
use routelens_engine::PINNED_ARCHIVE_URL;

use crate::api;
use crate::api::StudiesList;
use crate::open;
use crate::state::AppState;

/// The home page.
#[component]
pub fn HomeView() -> impl IntoView {
    let state = AppState::get();
    let served = move || match state.studies.get() {
        StudiesList::Asking => {
            view! { <p>"Asking this server which studies it serves…"</p> }.into_any()
        }
        StudiesList::Listed(entries) if entries.is_empty() => {
            view! { <p data-testid="studies-empty">"This server lists no studies."</p> }.into_any()
        }
        StudiesList::Listed(entries) => view! {
            <ul class="studies" data-testid="studies-list">
                {entries
                    .into_iter()
                    .map(|entry| {
                        let testid = format!("study-open-{}", entry.id);
                        let (title, base) = (entry.title.clone(), entry.base.clone());
                        view! {
                            <li>
                                <button
                                    data-testid=testid
                                    on:click=move |_| open::open_served(state, entry.clone())
                                >
                                    "Open"
                                </button>
                                " "
                                <strong>{title}</strong>
                                " "
                                <code>{base}</code>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any(),
        StudiesList::Absent(reason) => view! {
            <p data-testid="studies-absent">
                "No study list on this host: " {reason}
                ". Open the pinned public archive or pick a local copy below."
            </p>
        }
        .into_any(),
    };

    let folder = NodeRef::<Input>::new();
    let trec_run = NodeRef::<Input>::new();
    let trec_qrels = NodeRef::<Input>::new();
    let pick_error = RwSignal::new(None::<String>);
    let first_file = |input: NodeRef<Input>| {
        input
            .get()
            .and_then(|input| input.files())
            .and_then(|files| files.item(0))
    };
    let open_folder = move |_| {
        let files = folder
            .get()
            .and_then(|input| input.files())
            .map(|list| api::files_of(&list))
            .unwrap_or_default();
        if !files.is_empty() {
            open::open_folder(state, files);
        }
    };
    let open_trec = move |_| match (first_file(trec_run), first_file(trec_qrels)) {
        (Some(run), Some(qrels)) => {
            pick_error.set(None);
            open::open_trec(state, run, qrels);
        }
        _ => pick_error.set(Some("pick both a run file and a qrels file".into())),
    };
    let open_export = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.item(0)) {
            open::open_export(state, file);
        }
    };
    let open_jsonl = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.item(0)) {
            open::open_jsonl(state, file);
        }
    };

    view! {
        <section class="home">
            <h2>"Open a study"</h2>
            <h3>"Served by this machine"</h3>
            {served}
            <h3>"The pinned public archive"</h3>
            <p>
                "The paper's repository at commit 50721e11, fetched from "
                <code>{PINNED_ARCHIVE_URL}</code>
                " (needs internet access; every file is checked against the SHA-256 its README lists)."
            </p>
            <button data-testid="study-open-pinned" on:click=move |_| open::open_pinned(state)>
                "Open the pinned archive"
            </button>
            <h3>"A local copy of the archive"</h3>
            <p>
                "Pick the archive's folder (the one holding " <code>"paper/data/"</code>
                "), a folder above it, or " <code>"paper/data"</code>
                " itself. Only the files the loader needs are read, all in this browser."
            </p>
            <input
                type="file"
                prop:webkitdirectory=true
                multiple=""
                data-testid="pick-folder"
                node_ref=folder
                on:change=open_folder
            />
            <h3>"Other studies"</h3>
            <p>
                "A TREC run (" <code>"qid Q0 docid rank score tag"</code> ", one arm per tag) with qrels ("
                <code>"qid 0 docid relevance"</code> "), docids being file paths:"
            </p>
            <div class="row">
                <label class="control">
                    "run " <input type="file" data-testid="pick-trec-run" node_ref=trec_run />
                </label>
                <label class="control">
                    "qrels " <input type="file" data-testid="pick-trec-qrels" node_ref=trec_qrels />
                </label>
                <button data-testid="open-trec" on:click=open_trec>
                    "Open TREC study"
                </button>
                {move || pick_error.get().map(|e| view! { <span class="error">{e}</span> })}
            </div>
            <p>
                "Or one JSON Lines file: case lines " <code>"{\"id\", \"gold\", …}"</code>
                " and ranking lines " <code>"{\"id\", \"arm\", \"paths\"}"</code> ":"
            </p>
            <input
                type="file"
                accept=".jsonl,.json,.txt"
                data-testid="pick-jsonl"
                on:change=open_jsonl
            />
            <p>
                "Or a live study downloaded from Search or Route (\"Download study with runs\"): every arm "
                "comes back with its run files and searches, and "
                <code>"routelens replay-study FILE BUNDLE"</code> " replays it offline."
            </p>
            <input
                type="file"
                accept=".json"
                data-testid="pick-export"
                on:change=open_export
            />
        </section>
    }
}
