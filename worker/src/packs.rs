//! The split index's files, fetched as searches need them: each query's table pages not yet
//! added, all at once, then the packs they name, each verified as it is added.

use std::cell::RefCell;
use std::collections::BTreeMap;

use futures_util::future::join_all;
use routelens_engine::corpus::bundle::locate;
use routelens_engine::live::live_session::BundleUrls;
use routelens_engine::retrieval::lexical::fts::split::PackFile;
use routelens_engine::LexicalArm;

use crate::host::{fetch, with_session, Progress};

thread_local! {
    /// Where each loaded bundle's files are, kept from its `load` call, since the packs are
    /// fetched later, by the searches.
    static URLS: RefCell<BTreeMap<String, BundleUrls>> = const { RefCell::new(BTreeMap::new()) };
}

/// Remembers where bundle `name`'s files are.
pub fn remember(name: &str, urls: &BundleUrls) {
    URLS.with(|all| all.borrow_mut().insert(name.to_string(), urls.clone()));
}

/// Where bundle `name`'s files are, as its `load` call said.
pub fn urls_of(name: &str) -> Result<BundleUrls, String> {
    URLS.with(|all| all.borrow().get(name).cloned())
        .ok_or_else(|| format!("{name}: where its files are was not kept"))
}

/// Fetches and adds the split index's files the BM25 arms need for `issues` over bundle `name`
/// that are not added yet (nothing for a whole index): pages, then packs, each round at once.
/// Progress names how many and their bytes.
pub async fn fetch_packs(p: Progress, name: &str, issues: &[String]) -> Result<(), String> {
    // A term needs its page, then its pack: two rounds; a third finds nothing.
    for _ in 0..3 {
        let missing = with_session(|s| s.missing_index_files(name, &LexicalArm::ALL, issues));
        if missing.is_empty() {
            return Ok(());
        }
        fetch_round(p, name, &missing).await?;
    }
    Err(format!(
        "{name}: the search index still lacks parts after three rounds"
    ))
}

/// Fetches `missing` at once and adds each.
async fn fetch_round(p: Progress, name: &str, missing: &[PackFile]) -> Result<(), String> {
    let urls = urls_of(name)?;
    let total: u64 = missing.iter().map(|pack| pack.bytes).sum();
    p.say(format!(
        "fetching {} part{} of the search index for this query ({} kB)",
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        total.div_ceil(1000)
    ));
    // A merged site's bundles keep their files in a shared store.
    let store = with_session(|s| s.manifest(name).and_then(|m| m.store.clone()));
    let fetches = missing.iter().map(|pack| {
        let url = urls.url_of(&locate(store.as_deref(), &pack.file));
        async move {
            let url =
                url.ok_or_else(|| format!("{name}: the picked folder has no {}", pack.file))?;
            fetch(&url).await
        }
    });
    for (pack, bytes) in missing.iter().zip(join_all(fetches).await) {
        let bytes = bytes?;
        with_session(|s| s.add_index_file(name, &pack.file, &bytes)).map_err(|e| e.to_string())?;
    }
    Ok(())
}
