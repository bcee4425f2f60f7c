//! Bytes in and out of the page: the site's study and bundle lists, archive files over HTTP, files the user
//! picked, and CSV downloads. Nothing here interprets a study; the engine does that. Errors are
//! plain messages that name the file (and URL) they are about, ready to show in the page.

use gloo_net::http::Request;
use js_sys::{Array, Uint8Array};
use routelens_engine::publish::site::{SiteStudy, CHECKSUMS_FILE, SITE_FILE};
use routelens_engine::{ArchiveBytes, Table, ARCHIVE_FILES};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, File, FileList, HtmlAnchorElement, Url};

use crate::error::{Error, Result};
use crate::site::{self, Site};

/// The site, fetched on the first call (later calls get the same answer).
pub async fn site() -> Site {
    if let Some(site) = site::known() {
        return site;
    }
    let fetched = async {
        let index = fetch_unchecked(SITE_FILE)
            .await
            .map_err(|err| err.to_string())?
            .ok_or_else(|| {
                format!("{SITE_FILE}: not found (HTTP 404); this host lists no studies or bundles")
            })?;
        let parsed = site::read_index(&index)?;
        let checksums = if parsed.checksums {
            fetch_unchecked(CHECKSUMS_FILE)
                .await
                .map_err(|err| err.to_string())?
        } else {
            None
        };
        site::listed(site::absolute("./"), parsed, &index, checksums.as_deref())
    }
    .await;
    site::keep(match fetched {
        Ok(listed) => Site::Listed(std::rc::Rc::new(listed)),
        Err(reason) => Site::Absent(reason),
    })
}

/// The studies the site lists: every study of its `site.json`, or why there is no list.
pub async fn fetch_studies() -> StudiesList {
    match site().await {
        Site::Listed(listed) => StudiesList::Listed(listed.index.studies.clone()),
        Site::Absent(reason) => StudiesList::Absent(reason),
    }
}

/// GETs one URL: `Ok(None)` on 404, so the caller decides whether the file was optional. A file
/// of a published site is checked against its `CHECKSUMS` ([`site::check`]).
async fn fetch_bytes(url: &str) -> Result<Option<Vec<u8>>> {
    let bytes = fetch_unchecked(url).await?;
    if let Some(bytes) = &bytes {
        site::check(url, bytes)?;
    }
    Ok(bytes)
}

/// [`fetch_bytes`] without the site's check: for `site.json` and `CHECKSUMS` themselves.
pub async fn fetch_unchecked(url: &str) -> Result<Option<Vec<u8>>> {
    let failed = |message: String| Error::Fetch {
        url: url.to_string(),
        message,
    };
    let response = Request::get(url)
        .send()
        .await
        .map_err(|err| failed(fetch_failed(url, &err)))?;
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

/// Why a request got no answer, in words: a browser says only "failed to fetch", and for another
/// origin the usual cause is that its server does not allow this page's origin (CORS).
pub fn fetch_failed(url: &str, err: &gloo_net::Error) -> String {
    let page = leptos::prelude::window()
        .location()
        .origin()
        .unwrap_or_default();
    let target = Url::new_with_base(url, &page)
        .map(|u| u.origin())
        .unwrap_or_default();
    if target == page {
        format!("fetch failed: {err}")
    } else {
        format!(
            "the browser refused the cross-origin request or could not reach {target} ({err}); \
             a page may read another origin only when that server allows this page's origin \
             (CORS) and this site's Content-Security-Policy lists it (routelens serve \
             --connect-src, routelens publish --connect-src)"
        )
    }
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

/// A bundle folder picked in the browser, as a bundle entry named `picked:<folder>`: each file at
/// a blob URL of this page (which the live worker can fetch too). Nothing is read yet; the
/// store and the worker read and verify the files as they would fetched ones.
pub fn picked_bundle(files: &[File]) -> Result<BundleEntry> {
    let mut each = std::collections::BTreeMap::new();
    let mut folder = None;
    for file in files {
        let path = relative_path(file);
        let (top, inside) = path.split_once('/').unwrap_or(("", &path));
        folder.get_or_insert_with(|| top.to_string());
        let url = Url::create_object_url_with_blob(file)
            .map_err(|err| Error::Browser(format!("{path}: could not be opened: {err:?}")))?;
        each.insert(inside.to_string(), url);
    }
    let folder = folder.ok_or_else(|| Error::refused("no files were picked"))?;
    if !each.contains_key(routelens_engine::corpus::bundle::MANIFEST_FILE) {
        return Err(Error::refused(format!(
            "{folder}: not a bundle folder (no manifest.json at its top); pick the bundle's own \
             folder"
        )));
    }
    Ok(BundleEntry {
        name: format!("{PICKED_PREFIX}{folder}"),
        base: String::new(),
        questions: each.get("questions.jsonl").cloned(),
        questions_optional: false,
        picked: Some(std::sync::Arc::new(each)),
    })
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

/// A bundle the views can open: one the site lists, or one the reader opened from a URL or a
/// picked folder (named `url:<URL>` or `picked:<folder>`, so a permalink says which it was).
#[derive(Debug, Clone, PartialEq)]
pub struct BundleEntry {
    /// The bundle's name, used in the permalink (`bundle=<name>`).
    pub name: String,
    /// The URL prefix of its files (`bundles/demo`); empty for a picked folder.
    pub base: String,
    /// The URL of its question set (JSON Lines), when it has one.
    pub questions: Option<String>,
    /// Whether the question set may be absent (a bundle opened from a URL: 404 means none).
    pub questions_optional: bool,
    /// A picked folder's files: each one's blob URL by its path inside the bundle.
    pub picked: Option<std::sync::Arc<std::collections::BTreeMap<String, String>>>,
}

/// The prefix of a bundle opened from a URL.
pub const URL_PREFIX: &str = "url:";

/// The prefix of a bundle read from a picked folder.
pub const PICKED_PREFIX: &str = "picked:";

impl BundleEntry {
    /// A bundle the site lists.
    pub fn listed(bundle: &routelens_engine::publish::site::SiteBundle) -> BundleEntry {
        BundleEntry {
            name: bundle.name.clone(),
            base: bundle.base.clone(),
            questions: bundle.questions.clone(),
            questions_optional: false,
            picked: None,
        }
    }

    /// A bundle folder at `url` (its `questions.jsonl` used when there is one).
    pub fn at_url(url: &str) -> BundleEntry {
        let base = url.trim().trim_end_matches('/').to_string();
        BundleEntry {
            name: format!("{URL_PREFIX}{base}"),
            questions: Some(format!("{base}/questions.jsonl")),
            base,
            questions_optional: true,
            picked: None,
        }
    }

    /// The URL of the bundle's file `file` (`manifest.json`, `chunks/….deflate`).
    pub fn url_of(&self, file: &str) -> String {
        match &self.picked {
            Some(files) => files.get(file).cloned().unwrap_or_default(),
            None => format!("{}/{file}", self.base.trim_end_matches('/')),
        }
    }
}

/// The bundles the site lists; the error says why there is no list.
pub async fn fetch_bundles() -> Result<Vec<BundleEntry>> {
    match site().await {
        Site::Listed(listed) => Ok(listed
            .index
            .bundles
            .iter()
            .map(BundleEntry::listed)
            .collect()),
        Site::Absent(reason) => Err(Error::refused(reason)),
    }
}

/// GETs one URL that may be absent (`None` on 404).
pub async fn fetch_optional(url: &str) -> Result<Option<Vec<u8>>> {
    fetch_bytes(url).await
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

/// The site's study list.
#[derive(Debug, Clone, PartialEq)]
pub enum StudiesList {
    /// Not asked yet, or the answer is on its way.
    Asking,
    /// The site lists these studies.
    Listed(Vec<SiteStudy>),
    /// No list here (static hosting, or an error), with the reason.
    Absent(String),
}
