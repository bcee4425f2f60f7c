//! The home page: every way to open a study or a bundle. The site's list (`site.json`), a study
//! at any URL, the pinned public copy of the archive, a folder picker for a local copy, other
//! studies' files (a TREC run with qrels, or JSON Lines), and bundles at a URL or in a picked
//! folder (added to the bundle store, so Search, Context and Route offer them).

use leptos::html::Input;
use leptos::prelude::*;
use routelens_engine::PINNED_ARCHIVE_URL;

use crate::api;
use crate::api::StudiesList;
use crate::open;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// The home page.
#[component]
pub fn HomeView() -> impl IntoView {
    let state = AppState::get();
    let served = move || {
        match state.studies.get() {
        StudiesList::Asking => {
            view! { <p>"Asking this site which studies it carries…"</p> }.into_any()
        }
        StudiesList::Listed(entries) if entries.is_empty() => {
            view! { <p data-testid="studies-empty">"This site lists no studies."</p> }.into_any()
        }
        StudiesList::Listed(entries) => view! {
            <ul class="studies" data-testid="studies-list">
                {entries
                    .into_iter()
                    .map(|entry| {
                        let testid = format!("study-open-{}", entry.id);
                        let (title, base) = (entry.title.clone(), entry.path.clone());
                        let checked = entry.checked.map(|checked| {
                            view! {
                                <p class="checked" data-testid=format!("study-checked-{}", entry.id)>
                                    {format!(
                                        "{} of {} printed numbers reproduced",
                                        checked.reproduced,
                                        checked.total(),
                                    )}
                                    {(checked.differ > 0)
                                        .then(|| format!("; {} differ", checked.differ))}
                                    {(checked.not_computable > 0)
                                        .then(|| {
                                            format!(
                                                "; {} cannot be computed from its data",
                                                checked.not_computable,
                                            )
                                        })}
                                    <span class="muted">
                                        " (as checked when this site was built; its paper page                                          checks every number again in your browser)"
                                    </span>
                                </p>
                            }
                        });
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
                                {checked}
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
                ". Open a study from a URL, the pinned public archive or a local copy below."
            </p>
        }
        .into_any(),
    }
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

    let study_url = RwSignal::new(String::new());
    let bundle_url = RwSignal::new(String::new());
    let bundle_said = RwSignal::new(None::<Result<String, String>>);
    let add_bundle = move |entry: api::BundleEntry| {
        let name = entry.name.clone();
        state.bundles.add(entry);
        state.settings.shared().bundle().set(Some(name.clone()));
        bundle_said.set(Some(Ok(format!(
            "bundle {name:?} added: it is chosen in Search, Context and Route (its manifest and \
             files are checked when a view opens it)"
        ))));
    };
    let open_bundle_url = move |_| {
        let url = bundle_url.get_untracked();
        if url.trim().is_empty() {
            bundle_said.set(Some(Err("type the URL of a bundle folder".into())));
        } else {
            add_bundle(api::BundleEntry::at_url(&url));
        }
    };
    let open_bundle_folder = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let files = input
            .files()
            .map(|list| api::files_of(&list))
            .unwrap_or_default();
        match api::picked_bundle(&files) {
            Ok(entry) => add_bundle(entry),
            Err(err) => bundle_said.set(Some(Err(err.to_string()))),
        }
    };

    // The study closed or set aside by a load that failed, offered back whole.
    let back = state.previous.with_value(|previous| {
        previous.as_ref().map(|previous| {
            let source = previous.source.clone();
            view! {
                <p>
                    <button data-testid="study-back" on:click=move |_| state.reopen_previous()>
                        "Back to the study that was open"
                    </button>
                    " "
                    <code>{source}</code>
                </p>
            }
        })
    });
    view! {
        <section class="home">
            {back}
            <p class="intro" data-testid="home-intro">
                "routelens is a supplement for code-retrieval papers that runs entirely in your \
                 browser: it recomputes each paper's printed numbers from its published data and \
                 shows you the cases behind them. It can also re-score archived rankings with \
                 other settings and run the papers' retrieval methods live over a code bundle."
            </p>
            <p class="muted">
                "It carries three studies: fastindex (name-only directory routing against FTS5, \
                 ripgrep and their fusion), CodeNib (BM25 or model-planned grep pools reranked by \
                 Jev) and CodeAtlas (structural against window chunks, BM25 with a per-file cap; \
                 its dense, hybrid and cross-encoder rows are not built yet). fastindex and CodeNib \
                 open on their paper pages; CodeAtlas's grid runs live under \"Evaluate chunk \
                 retrieval\" over a bundle, such as the demo bundle this site lists."
            </p>
            <h2>"Open a study"</h2>
            <h3>"Published with this page"</h3>
            {served}
            <h3>"A study at a URL"</h3>
            <p>
                "The URL of an archive's root folder (the one holding " <code>"paper/data/"</code>
                "), of a JSON Lines study (" <code>".jsonl"</code> ") or of a live study export ("
                <code>".json"</code> "). Its server must allow this page's origin (CORS); the link "
                "of what you open names the URL, so it opens again."
            </p>
            <div class="row">
                <input
                    type="url"
                    size="60"
                    placeholder="https://…/fastindex/"
                    data-testid="study-url"
                    prop:value=move || study_url.get()
                    on:input=move |ev| study_url.set(event_target_value(&ev))
                />
                <button
                    data-testid="study-url-open"
                    on:click=move |_| {
                        let url = study_url.get_untracked();
                        if !url.trim().is_empty() {
                            open::open_url(state, url);
                        }
                    }
                >
                    "Open study"
                </button>
            </div>
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
                aria-label="the archive's folder"
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
                aria-label="a JSON Lines study"
                data-testid="pick-jsonl"
                on:change=open_jsonl
            />
            <h2>"Open a bundle"</h2>
            <p>
                "Besides the bundles this site lists: a bundle folder at a URL (CORS, as above; the "
                "link names the URL), or a bundle folder on this machine, read file by file and "
                "checked against its manifest like a fetched one (a link cannot bring a picked "
                "folder back: it says to pick it again)."
            </p>
            <div class="row">
                <input
                    type="url"
                    size="60"
                    placeholder="https://…/bundles/demo/"
                    data-testid="bundle-url"
                    prop:value=move || bundle_url.get()
                    on:input=move |ev| bundle_url.set(event_target_value(&ev))
                />
                <button data-testid="bundle-url-open" on:click=open_bundle_url>
                    "Open bundle"
                </button>
            </div>
            <label class="control">
                "bundle folder "
                <input
                    type="file"
                    prop:webkitdirectory=true
                    multiple=""
                    data-testid="pick-bundle"
                    on:change=open_bundle_folder
                />
            </label>
            {move || {
                bundle_said
                    .get()
                    .map(|said| match said {
                        Ok(text) => view! { <p data-testid="bundle-added">{text}</p> }.into_any(),
                        Err(text) => {
                            view! { <p class="error" data-testid="bundle-refused">{text}</p> }
                                .into_any()
                        }
                    })
            }}
            <p>
                "Or a live study downloaded from Search or Route (\"Download study with runs\"): every arm "
                "comes back with its run files and searches, and "
                <code>"routelens replay-study FILE BUNDLE"</code> " replays it offline."
            </p>
            <input
                type="file"
                accept=".json"
                data-testid="pick-export"
                aria-label="a live study export"
                on:change=open_export
            />
        </section>
    }
}
