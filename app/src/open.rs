//! Opening a study: get the bytes (fetch or read), hand them to the engine's loader, put the
//! result in the store. Every failure ends as the message of the step that failed (the engine's
//! messages name the file and field), shown in the page.

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

use routelens_engine::check::printed::PrintedFile;
use routelens_engine::live::evidence::LiveStudyExport;
use routelens_engine::publish::site::{SiteStudy, StudyKind, SITE_FILE};
use routelens_engine::scoring::score_table::{load_score_table, Mapping};
use routelens_engine::{
    load_archive, load_jsonl, load_trec, Study, ARCHIVE_FILES, PINNED_ARCHIVE_URL,
};
use web_sys::File;

use crate::api;
use crate::api::StudiesList;
use crate::error::Error;
use crate::params::page::{PageParamsStoreFields, StudyRef};
use crate::params::SettingsStoreFields;
use crate::site::Site;
use crate::state::AppState;

/// Asks the server for its study list, then opens the study the permalink names, if any.
pub fn start(state: AppState) {
    let wanted = state.settings.page().study().get_untracked();
    if wanted == StudyRef::Pinned {
        open_pinned(state);
    }
    if wanted == StudyRef::Picked {
        state.notices.update(|notices| {
            notices.push(
                "This link was made from picked files, and a link cannot bring picked files back: \
                 pick them again below; the link's other settings are kept."
                    .into(),
            )
        });
    }
    if let StudyRef::Live(bundle) = &wanted {
        state.notices.update(|notices| {
            notices.push(format!(
                "This link was made from live runs over bundle {bundle:?}, which a link cannot \
                 carry: open a study, go to Search, choose {bundle:?} and press \"Add as arm\" to \
                 run them again; the link's other settings are kept."
            ))
        });
    }
    if let StudyRef::Url(url) = &wanted {
        open_url(state, url.clone());
    }
    // A bundle a link names by URL is opened again by the view that shows it; a picked one
    // cannot come back, and the view says so.
    spawn_local(async move {
        if let Site::Listed(listed) = api::site().await {
            if listed.index.checksums {
                leptos::prelude::document()
                    .set_title(&format!("{} · routelens", listed.index.title));
            }
        }
        let list = api::fetch_studies().await;
        state.studies.set(list.clone());
        if let StudyRef::Served(id) = wanted {
            match list {
                StudiesList::Listed(entries) => match entries.into_iter().find(|e| e.id == id) {
                    Some(entry) => open_served(state, entry),
                    None => state.status.set(crate::state::Status::Failed(format!(
                        "study {id:?} is not in this site's {SITE_FILE}"
                    ))),
                },
                StudiesList::Absent(reason) => state.status.set(crate::state::Status::Failed(
                    format!("cannot open study {id:?}: {reason}"),
                )),
                StudiesList::Asking => {}
            }
        }
    });
}

/// Fetches the archive under `base` and loads it.
fn open_archive_at(state: AppState, study: StudyRef, what: String, base: String) {
    let generation = state.begin_load(study, &what, ARCHIVE_FILES.len());
    spawn_local(async move {
        let fetched = api::fetch_archive(&base, |done| state.progress(generation, done)).await;
        let result = fetched.and_then(|files| load_archive(&files).map_err(Error::from));
        state.finish_load(generation, format!("{what}, fetched from {base}"), result);
    });
}

/// A study that is one file.
#[derive(Clone, Copy)]
enum StudyFile {
    Jsonl,
    LiveExport,
}

/// Fetches one study file at `url` and opens what `kind` says it is.
fn open_file_at(state: AppState, study: StudyRef, what: String, url: String, kind: StudyFile) {
    let generation = state.begin_load(study, &what, 1);
    spawn_local(async move {
        let result = async {
            let text = fetch_text(&url).await?;
            state.progress(generation, 1);
            let study = match kind {
                StudyFile::Jsonl => load_jsonl(&url, &text),
                StudyFile::LiveExport => {
                    LiveStudyExport::from_json(&url, &text).and_then(|export| export.study())
                }
            };
            study.map_err(Error::from)
        }
        .await;
        state.finish_load(generation, format!("{what}, fetched from {url}"), result);
    });
}

/// Fetches a per-case score table at `url` and opens it through the built-in mapping its header
/// matches (CodeNib's).
fn open_scores_at(state: AppState, study: StudyRef, what: String, url: String) {
    let generation = state.begin_load(study, &what, 1);
    spawn_local(async move {
        let result = async {
            let bytes = api::fetch_required(&url).await?;
            state.progress(generation, 1);
            let text = String::from_utf8_lossy(&bytes);
            let mapping =
                Mapping::detect(text.lines().next().unwrap_or_default()).ok_or_else(|| {
                    Error::refused(format!(
                    "{url}: no built-in mapping matches its columns (CodeNib's instance_id and \
                     repo); routelens score --mapping FILE.json reads other tables"
                ))
                })?;
            load_score_table(&url, &text, &mapping).map_err(Error::from)
        }
        .await;
        state.finish_scores(generation, format!("{what}, fetched from {url}"), result);
    });
}

/// Opens a study the site lists, with its paper's printed numbers when the site carries them.
pub fn open_served(state: AppState, entry: SiteStudy) {
    let study = StudyRef::Served(entry.id.clone());
    let printed = entry.printed.clone();
    match entry.kind {
        StudyKind::Archive => open_archive_at(state, study, entry.title, entry.path),
        StudyKind::Jsonl => open_file_at(state, study, entry.title, entry.path, StudyFile::Jsonl),
        StudyKind::LiveExport => {
            open_file_at(state, study, entry.title, entry.path, StudyFile::LiveExport)
        }
        StudyKind::ScoreTable => open_scores_at(state, study, entry.title, entry.path),
        StudyKind::Trec => {
            // The site index refuses a TREC entry without its qrels.
            let qrels = entry.qrels.unwrap_or_default();
            open_trec_at(state, study, entry.title, entry.path, qrels)
        }
    }
    if let Some(url) = printed {
        fetch_printed(state, url);
    }
}

/// Fetches a study's printed numbers (checked against the site's `CHECKSUMS` like every file)
/// for the load now under way; a failure is said on the paper page, and the study opens anyway.
fn fetch_printed(state: AppState, url: String) {
    let generation = state.generation.get_untracked();
    spawn_local(async move {
        let read = async {
            let text = fetch_text(&url).await?;
            PrintedFile::from_json(&url, &text).map_err(Error::from)
        }
        .await;
        if state.generation.get_untracked() == generation {
            state
                .printed
                .set(Some(read.map(Arc::new).map_err(|err| err.to_string())));
        }
    });
}

/// Fetches a TREC run and its qrels and opens them as one study.
fn open_trec_at(state: AppState, study: StudyRef, what: String, run: String, qrels: String) {
    let generation = state.begin_load(study, &what, 2);
    spawn_local(async move {
        let result = async {
            let run_text = fetch_text(&run).await?;
            state.progress(generation, 1);
            let qrels_text = fetch_text(&qrels).await?;
            state.progress(generation, 2);
            load_trec(&run, &run_text, &qrels, &qrels_text).map_err(Error::from)
        }
        .await;
        state.finish_load(generation, format!("{what}, fetched from {run}"), result);
    });
}

/// The text at `url`; bytes that are not UTF-8 are refused, naming the URL.
pub(crate) async fn fetch_text(url: &str) -> Result<String, Error> {
    let bytes = api::fetch_required(url).await?;
    String::from_utf8(bytes).map_err(|err| Error::Fetch {
        url: url.to_string(),
        message: format!(
            "not UTF-8 text (invalid byte at offset {})",
            err.utf8_error().valid_up_to()
        ),
    })
}

/// Opens a study from any URL (the server must allow this page's origin, CORS): a URL ending in
/// `.csv` is a score table, one ending in `.jsonl` a JSON Lines study, one ending in `.json` a live study export, anything else an
/// archive's root folder (the one holding `paper/data/`).
pub fn open_url(state: AppState, url: String) {
    let url = url.trim().to_string();
    let study = StudyRef::Url(url.clone());
    let what = format!("the study at {url}");
    let path = url.split(['?', '#']).next().unwrap_or_default();
    if path.ends_with(".csv") {
        open_scores_at(state, study, what, url);
    } else if path.ends_with(".jsonl") {
        open_file_at(state, study, what, url, StudyFile::Jsonl);
    } else if path.ends_with(".json") {
        open_file_at(state, study, what, url, StudyFile::LiveExport);
    } else {
        open_archive_at(state, study, what, url);
    }
}

/// Opens the pinned public copy of the archive (needs the internet; failures are shown).
pub fn open_pinned(state: AppState) {
    open_archive_at(
        state,
        StudyRef::Pinned,
        "the pinned public archive".into(),
        PINNED_ARCHIVE_URL.into(),
    );
}

/// Opens the archive from a folder pick.
pub fn open_folder(state: AppState, files: Vec<File>) {
    let folder = files
        .first()
        .map(api::relative_path)
        .and_then(|path| path.split('/').next().map(str::to_string))
        .unwrap_or_default();
    let generation = state.begin_load(StudyRef::Picked, &folder, ARCHIVE_FILES.len());
    spawn_local(async move {
        let read = api::read_picked_archive(&files, |done, total| {
            state.status.update(|status| {
                if let crate::state::Status::Loading { total: t, .. } = status {
                    *t = total;
                }
            });
            state.progress(generation, done);
        })
        .await;
        let result = read.and_then(|files| load_archive(&files).map_err(Error::from));
        state.finish_load(
            generation,
            format!("picked folder {folder:?} (a link cannot restore picked files)"),
            result,
        );
    });
}

/// Opens a TREC run with its qrels.
pub fn open_trec(state: AppState, run: File, qrels: File) {
    let what = format!("{} + {}", run.name(), qrels.name());
    let generation = state.begin_load(StudyRef::Picked, &what, 2);
    spawn_local(async move {
        let result = async {
            let run_text = api::read_text(&run).await?;
            state.progress(generation, 1);
            let qrels_text = api::read_text(&qrels).await?;
            state.progress(generation, 2);
            load_trec(&run.name(), &run_text, &qrels.name(), &qrels_text).map_err(Error::from)
        }
        .await;
        state.finish_load(
            generation,
            format!("picked TREC files {what} (a link cannot restore picked files)"),
            result,
        );
    });
}

/// Opens a JSON Lines study.
pub fn open_jsonl(state: AppState, file: File) {
    open_text_file(state, file, "JSON Lines file", |name, text| {
        load_jsonl(name, text)
    });
}

/// Opens a live study export (the Route or Search view's "Download study with runs"): its
/// questions as cases and every arm rebuilt from its run files and searches.
pub fn open_export(state: AppState, file: File) {
    open_text_file(state, file, "live study export", |name, text| {
        LiveStudyExport::from_json(name, text).and_then(|export| export.study())
    });
}

/// Reads one picked text file and opens the study `load` makes of it (`kind` names the file
/// in the source line).
fn open_text_file(
    state: AppState,
    file: File,
    kind: &'static str,
    load: impl FnOnce(&str, &str) -> routelens_engine::Result<Study> + 'static,
) {
    let name = file.name();
    let generation = state.begin_load(StudyRef::Picked, &name, 1);
    spawn_local(async move {
        let result = async {
            let text = api::read_text(&file).await?;
            state.progress(generation, 1);
            load(&name, &text).map_err(Error::from)
        }
        .await;
        state.finish_load(
            generation,
            format!("picked {kind} {name} (a link cannot restore picked files)"),
            result,
        );
    });
}
