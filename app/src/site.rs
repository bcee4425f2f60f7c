//! The site the page was loaded from: its `site.json` (engine `site`: studies, bundles, title),
//! fetched once per page by [`crate::api::site`], and on a published site its `CHECKSUMS`,
//! against which every file the page fetches from the site is checked before anything reads it
//! ([`check`], called by the fetch layer in [`crate::api`]). A file that does not match is refused, named by its path in the
//! site. `routelens serve` answers a `site.json` without checksums; a host with no `site.json`
//! lists nothing, and the home page says why.
//!
//! URLs are resolved against the document's base URL (`<base href>` when `routelens publish
//! --base-path` wrote one, else the page's own URL), so the site works at `/` and under a
//! sub-path alike.

use std::cell::RefCell;
use std::rc::Rc;

use routelens_engine::publish::site::{Checksums, SiteIndex, CHECKSUMS_FILE, SITE_FILE};

use crate::error::{Error, Result};

/// What the page knows about its site.
#[derive(Debug, Clone, PartialEq)]
pub enum Site {
    /// The host answered a site index (with its checksum list when it has one).
    Listed(Rc<Listed>),
    /// No site index here, with the reason (a static host serving only the app, an error).
    Absent(String),
}

/// A site index as fetched and checked.
#[derive(Debug, PartialEq)]
pub struct Listed {
    /// The index.
    pub index: SiteIndex,
    /// The site root's absolute URL, ending in `/`.
    pub root: String,
    /// The checksum list, on a published site.
    pub checksums: Option<Checksums>,
}

thread_local! {
    /// The site, once fetched. A page-wide fact read by the fetch layer, which has no access to
    /// the reactive store; the page is single-threaded, so one cell per page is the page's own.
    static SITE: RefCell<Option<Site>> = const { RefCell::new(None) };
}

/// The site as fetched, when it is.
pub fn known() -> Option<Site> {
    SITE.with_borrow(Clone::clone)
}

/// Keeps the site's answer for the page (a second answer for the same page is dropped: the first
/// stays) and returns the kept one.
pub fn keep(site: Site) -> Site {
    SITE.with_borrow_mut(|cell| cell.get_or_insert(site).clone())
}

/// Reads the site's `site.json`.
pub fn read_index(bytes: &[u8]) -> std::result::Result<SiteIndex, String> {
    SiteIndex::from_json(SITE_FILE, bytes)
        .map_err(|err| format!("{err} (a static host may answer every path with a page)"))
}

/// The site from its index and, when the index says the site has one, its `CHECKSUMS` (`None`
/// when the host does not have it), against which `site.json` itself is checked.
pub fn listed(
    root: String,
    index: SiteIndex,
    index_bytes: &[u8],
    checksums: Option<&[u8]>,
) -> std::result::Result<Listed, String> {
    let checksums = match (index.checksums, checksums) {
        (false, _) => None,
        (true, None) => {
            return Err(format!(
                "{CHECKSUMS_FILE}: not found (HTTP 404), though {SITE_FILE} says the site has \
                 one; the copy is incomplete"
            ))
        }
        (true, Some(bytes)) => {
            let list = Checksums::parse(CHECKSUMS_FILE, &String::from_utf8_lossy(bytes))
                .map_err(|err| err.to_string())?;
            list.check(SITE_FILE, index_bytes)
                .map_err(|err| err.to_string())?;
            Some(list)
        }
    };
    Ok(Listed {
        index,
        root,
        checksums,
    })
}

/// Checks bytes fetched from `url` against the site's checksum list: a file of the site must be
/// listed and match; files elsewhere (a URL the reader opened, a picked file) and every file of
/// a site without checksums pass. The error names the file by its path in the site.
pub fn check(url: &str, bytes: &[u8]) -> Result<()> {
    SITE.with_borrow(|site| {
        let Some(Site::Listed(listed)) = site else {
            return Ok(());
        };
        let Some(checksums) = &listed.checksums else {
            return Ok(());
        };
        let href = absolute(url);
        let Some(path) = href.strip_prefix(&listed.root) else {
            return Ok(());
        };
        let path = path.split(['?', '#']).next().unwrap_or_default();
        checksums.check(path, bytes).map_err(|err| Error::Fetch {
            url: url.to_string(),
            message: format!("refused: {err}"),
        })
    })
}

/// `url` resolved against the document's base URL.
pub fn absolute(url: &str) -> String {
    let base = leptos::prelude::document()
        .base_uri()
        .ok()
        .flatten()
        .unwrap_or_default();
    web_sys::Url::new_with_base(url, &base).map_or_else(|_| url.to_string(), |u| u.href())
}

/// The embedding model's folder as an absolute URL, when the site names one (`site.json`'s
/// `model`, resolved against the site root).
pub fn model_url() -> Option<String> {
    listed_url(|index| index.model.as_deref())
}

/// Whether the embedding model's folder holds the page's narrowed weights (`site.json`'s
/// `model_page_weights`).
pub fn model_page_weights() -> bool {
    SITE.with_borrow(
        |site| matches!(site, Some(Site::Listed(listed)) if listed.index.model_page_weights),
    )
}

/// The cross-encoder's folder as an absolute URL, when the site names one (`site.json`'s
/// `reranker_model`, resolved against the site root).
pub fn reranker_model_url() -> Option<String> {
    listed_url(|index| index.reranker_model.as_deref())
}

fn listed_url(
    field: impl Fn(&routelens_engine::publish::site::SiteIndex) -> Option<&str>,
) -> Option<String> {
    SITE.with_borrow(|site| {
        let Some(Site::Listed(listed)) = site else {
            return None;
        };
        let url = field(&listed.index)?;
        web_sys::Url::new_with_base(url, &listed.root)
            .ok()
            .map(|u| u.href())
    })
}
