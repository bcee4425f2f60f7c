//! One file's text from a bundle: just its chunk fetched and verified against the manifest (the
//! Search view's file pane, the Chunks view and the labelling round's pages show files this way).
//! A file in a version pack (a merged site's snapshot, format 7) is read by the live worker,
//! which alone carries the pack's Zstandard decoder: the page's first load stays without it.

use routelens_engine::live::live_session::{AnswerBody, CallBody};

use routelens_engine::corpus::bundle::Manifest;

use super::store::load_call;
use crate::api::{self, BundleEntry};
use crate::error::{Error, Result};
use crate::live;

/// The text of `path` in the bundle `entry` whose manifest is `manifest` (hashing to
/// `manifest_sha256`, which the worker checks its own copy against).
pub async fn file_text(
    entry: &BundleEntry,
    (manifest, manifest_sha256): (&Manifest, &str),
    path: &str,
) -> Result<String> {
    let file = manifest
        .file(path)
        .ok_or_else(|| Error::refused(format!("{path}: not in this bundle")))?;
    let chunk = manifest
        .chunks
        .get(file.chunk as usize)
        .ok_or_else(|| Error::refused(format!("{path}: its chunk is not in the manifest")))?;
    if chunk.entries.is_some() {
        return from_worker(entry, manifest_sha256, path).await;
    }
    let bytes = api::fetch_required(&entry.url_of(&manifest.located(&chunk.file))).await?;
    let opened = manifest.open_chunk(file.chunk as usize, &bytes)?;
    Ok(manifest.file_text(&opened, path)?.to_string())
}

/// The worker's copy: the bundle loaded there (its manifest only), then the file.
async fn from_worker(entry: &BundleEntry, manifest_sha256: &str, path: &str) -> Result<String> {
    let load = load_call(entry, manifest_sha256, false, false, &[]);
    match live::call(load, |_| {}).await? {
        AnswerBody::Loaded { .. } => {}
        other => return Err(live::unexpected(&other)),
    }
    let call = CallBody::FileText {
        bundle: entry.name.clone(),
        path: path.to_string(),
    };
    match live::call(call, |_| {}).await? {
        AnswerBody::FileText { text } => Ok(text),
        other => Err(live::unexpected(&other)),
    }
}
