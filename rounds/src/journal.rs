//! A labeller's judgments (or an adjudicator's decisions) kept in this browser's `localStorage`,
//! one entry per (task hash, person): the file's own JSON Lines text, header first, so that what
//! is kept is exactly what is exported. Entries are only ever appended: an edit is a new line.
//! Another person in the same browser has another key, and starts empty.

use routelens_app::error::{Error, Result};
use routelens_engine::load::labels::task_lines_text;
use serde::Serialize;

/// The storage key of `kind`'s (`labels`, `adjudication`) file of task `sha` by `who`.
pub fn key(kind: &str, sha: &str, who: &str) -> String {
    format!("routelens-{kind}:{sha}:{who}")
}

/// The kept text under `key`, if any.
pub fn load(key: &str) -> Result<Option<String>> {
    storage()?
        .get_item(key)
        .map_err(|e| Error::Browser(format!("this browser's storage could not be read: {e:?}")))
}

/// The entries kept under `key`, read by `parse` (none kept: empty). A kept file that no longer
/// reads is refused, saying it is `what` (`the work`, `the decisions`) kept in this browser.
pub fn kept<E>(
    key: &str,
    what: &str,
    parse: impl FnOnce(&str) -> routelens_engine::Result<Vec<E>>,
) -> std::result::Result<Vec<E>, String> {
    match load(key).map_err(|e| e.to_string())? {
        None => Ok(Vec::new()),
        Some(text) => parse(&text).map_err(|e| format!("{what} kept in this browser: {e}")),
    }
}

/// Continues from an exported file: its `imported` entries join the `kept` ones (the same entry
/// once), in the order `time` gives, and the whole is kept under `key` with `header`.
pub fn import<H: Serialize, E: Serialize + PartialEq>(
    key: &str,
    header: &H,
    mut kept: Vec<E>,
    imported: Vec<E>,
    time: impl Fn(&E) -> u64,
) -> Result<Vec<E>> {
    for entry in imported {
        if !kept.contains(&entry) {
            kept.push(entry);
        }
    }
    routelens_engine::stable_sort::by_key(&mut kept, time);
    save(key, header, &kept)?;
    Ok(kept)
}

/// Keeps `header` and `entries` under `key`, replacing the kept text (which they extend).
pub fn save<H: Serialize, E: Serialize>(key: &str, header: &H, entries: &[E]) -> Result<String> {
    let text = task_lines_text(header, entries)?;
    storage()?.set_item(key, &text).map_err(|e| {
        Error::Browser(format!(
            "this browser's storage refused the work ({e:?}): export it now, or it is lost when \
             the page closes"
        ))
    })?;
    Ok(text)
}

fn storage() -> Result<web_sys::Storage> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| Error::Browser("this browser offers no localStorage".into()))
}

/// Milliseconds since the epoch, for `shown_at`, `judged_at` and `decided_at`.
pub fn now() -> u64 {
    js_sys::Date::now() as u64
}
