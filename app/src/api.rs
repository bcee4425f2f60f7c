//! Bytes in and out of the page: the server's study list, archive files over HTTP, files the user
//! picked, and CSV downloads. Nothing here interprets a study; the engine does that. Errors are
//! plain messages that name the file (and URL) they are about, ready to show in the page.

use gloo_net::http::Request;
use js_sys::{Array, Uint8Array};
use routelens_engine::{ArchiveBytes, Table, ARCHIVE_FILES};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, File, FileList, HtmlAnchorElement, Url};

use crate::error::{Error, Result};

/// One entry of `GET /studies.json`: `{"id", "title", "base"}`, where `base` is the URL of the
/// archive root (the folder holding `paper/data/`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct StudyEntry {
    /// Short id, used in the permalink (`study=<id>`).
    pub id: String,
    /// Human title.
    pub title: String,
    /// Base URL of the archive's files.
    pub base: String,
}

/// Where the server's study list lives (the contract with `routelens serve`).
pub const STUDIES_URL: &str = "studies.json";

/// Asks the server which studies it serves. Any failure means "no list here", with the reason:
/// on static hosting the file is simply absent (or the host answers with an HTML page).
pub async fn fetch_studies() -> StudiesList {
    let response = match Request::get(STUDIES_URL).send().await {
        Ok(response) => response,
        Err(err) => return StudiesList::Absent(format!("{STUDIES_URL}: fetch failed: {err}")),
    };
    if response.status() == 404 {
        return StudiesList::Absent(format!(
            "{STUDIES_URL}: not found (HTTP 404); this host serves no study list, as on static hosting"
        ));
    }
    if !response.ok() {
        return StudiesList::Absent(format!("{STUDIES_URL}: HTTP {}", response.status()));
    }
    let text = match response.text().await {
        Ok(text) => text,
        Err(err) => return StudiesList::Absent(format!("{STUDIES_URL}: reading failed: {err}")),
    };
    match serde_json::from_str::<Vec<StudyEntry>>(&text) {
        Ok(list) => StudiesList::Listed(list),
        Err(err) => StudiesList::Absent(format!(
            "{STUDIES_URL}: not a study list ({err}); a static host may answer every path with a page"
        )),
    }
}

/// GETs one URL: `Ok(None)` on 404, so the caller decides whether the file was optional.
async fn fetch_bytes(url: &str) -> Result<Option<Vec<u8>>> {
    let failed = |message: String| Error::Fetch {
        url: url.to_string(),
        message,
    };
    let response = Request::get(url)
        .send()
        .await
        .map_err(|err| failed(format!("fetch failed: {err}")))?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(Error::Status {
            url: url.to_string(),
            status: response.status(),
            status_text: response.status_text(),
        });
    }
    response
        .binary()
        .await
        .map(Some)
        .map_err(|err| failed(format!("reading the body failed: {err}")))
}

/// Fetches every archive file (`engine::ARCHIVE_FILES`) relative to `base`, one after another,
/// calling `progress(done)` as each arrives. Required files must arrive; optional ones may be 404.
///
/// One at a time, not all at once: the eleven files total about 2 MB, so on loopback the whole
/// archive takes a fraction of a second either way, and a small single-threaded server (like
/// `routelens serve`) was seen to leave concurrent keep-alive requests from Chromium unanswered.
pub async fn fetch_archive(base: &str, progress: impl Fn(usize)) -> Result<ArchiveBytes> {
    let base = base.trim_end_matches('/');
    let mut files = ArchiveBytes::new();
    for (done, file) in ARCHIVE_FILES.iter().enumerate() {
        let url = format!("{base}/{}", file.path);
        match fetch_bytes(&url).await {
            Ok(Some(bytes)) => {
                files.insert(file.path.to_string(), bytes);
            }
            Ok(None) if !file.required => {}
            Ok(None) => {
                return Err(Error::MissingArchiveFile {
                    file: file.path.to_string(),
                    url,
                })
            }
            Err(err) => {
                return Err(Error::ArchiveFile {
                    file: file.path.to_string(),
                    source: Box::new(err),
                })
            }
        }
        progress(done + 1);
    }
    Ok(files)
}

/// The files of a file input, in order.
pub fn files_of(list: &FileList) -> Vec<File> {
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

/// A picked file's path inside the picked folder, starting with that folder's name
/// (`webkitRelativePath`; web-sys has no binding for it). Falls back to the bare file name.
pub fn relative_path(file: &File) -> String {
    js_sys::Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|value| value.as_string())
        .filter(|path| !path.is_empty())
        .unwrap_or_else(|| file.name())
}

/// Reads a picked file's bytes.
pub async fn read_bytes(file: &File) -> Result<Vec<u8>> {
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(|err| {
        Error::Browser(format!(
            "{}: could not be read: {err:?}",
            relative_path(file)
        ))
    })?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Reads a picked file as UTF-8 text (the browser replaces invalid bytes).
pub async fn read_text(file: &File) -> Result<String> {
    let text = JsFuture::from(file.text())
        .await
        .map_err(|err| Error::Browser(format!("{}: could not be read: {err:?}", file.name())))?;
    text.as_string()
        .ok_or_else(|| Error::Browser(format!("{}: not text", file.name())))
}

/// Reads the archive's files out of a folder pick: the engine matches picked paths to archive
/// paths, and only those files are read (a whole repository may have been picked).
pub async fn read_picked_archive(
    files: &[File],
    progress: impl Fn(usize, usize),
) -> Result<ArchiveBytes> {
    let paths: Vec<String> = files.iter().map(relative_path).collect();
    let matched = routelens_engine::match_picked_files(&paths)?;
    let mut archive = ArchiveBytes::new();
    for (done, (path, index)) in matched.iter().enumerate() {
        archive.insert(path.to_string(), read_bytes(&files[*index]).await?);
        progress(done + 1, matched.len());
    }
    Ok(archive)
}

/// Offers a table as a CSV download.
pub fn download_csv(table: &Table) -> Result<()> {
    download_text(
        &table.csv_file_name(),
        "text/csv;charset=utf-8",
        &table.to_csv(),
    )
}

/// Milliseconds from the page's high-resolution clock.
pub fn now_ms() -> f64 {
    leptos::prelude::window()
        .performance()
        .map_or(0.0, |performance| performance.now())
}

/// Whether the page is cross-origin isolated, which gives `performance.now()` 5 µs resolution
/// instead of 100 µs.
pub fn cross_origin_isolated() -> bool {
    // web-sys has no binding for this property.
    js_sys::Reflect::get(&leptos::prelude::window(), &"crossOriginIsolated".into())
        .is_ok_and(|value| value.as_bool() == Some(true))
}

/// Resolves on a later task, so the page can paint (progress text) between long steps.
pub async fn next_tick() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = leptos::prelude::window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(promise).await;
}

/// One entry of `GET /bundles.json`: `{"name", "base", "questions"}` (the contract with
/// `routelens serve`): `base` is the bundle folder's URL, `questions` its question set's or null.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct BundleEntry {
    /// The bundle folder's name, used in the permalink (`bundle=<name>`).
    pub name: String,
    /// The URL prefix of its files (`/bundles/demo`).
    pub base: String,
    /// The URL of its question set (JSON Lines), when it has one.
    #[serde(default)]
    pub questions: Option<String>,
}

/// Where the server's bundle list lives.
pub const BUNDLES_URL: &str = "bundles.json";

/// Asks the server which bundles it serves; the error says why there is no list.
pub async fn fetch_bundles() -> Result<Vec<BundleEntry>> {
    let bytes = fetch_required(BUNDLES_URL).await?;
    serde_json::from_slice(&bytes).map_err(|err| Error::Fetch {
        url: BUNDLES_URL.to_string(),
        message: format!("not a bundle list ({err})"),
    })
}

/// GETs one URL that must exist; the error names the URL.
pub async fn fetch_required(url: &str) -> Result<Vec<u8>> {
    fetch_bytes(url).await?.ok_or_else(|| Error::NotFound {
        url: url.to_string(),
    })
}

/// Offers text as a download named `name`, through a blob URL and a temporary anchor.
pub fn download_text(name: &str, mime: &str, text: &str) -> Result<()> {
    let parts = Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|err| Error::Browser(format!("could not make the file: {err:?}")))?;
    let url = Url::create_object_url_with_blob(&blob)
        .map_err(|err| Error::Browser(format!("could not make a download URL: {err:?}")))?;
    let anchor: HtmlAnchorElement = leptos::prelude::document()
        .create_element("a")
        .map_err(|err| Error::Browser(format!("could not make a link: {err:?}")))?
        .unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    leptos::prelude::set_timeout(
        move || {
            let _ = Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(10),
    );
    Ok(())
}

/// The answer to `GET /studies.json`.
#[derive(Debug, Clone, PartialEq)]
pub enum StudiesList {
    /// Not asked yet, or the answer is on its way.
    Asking,
    /// The server lists these studies.
    Listed(Vec<StudyEntry>),
    /// No list here (static hosting, or an error), with the reason.
    Absent(String),
}
