//! One file's text from a bundle: just its chunk fetched and verified against the manifest (the
//! Search view's file pane and the labelling round's pages show files this way).

use routelens_engine::corpus::bundle::Manifest;

use crate::api::{self, BundleEntry};
use crate::error::{Error, Result};

/// The text of `path` in the bundle `entry` whose manifest is `manifest`.
pub async fn file_text(entry: &BundleEntry, manifest: &Manifest, path: &str) -> Result<String> {
    let file = manifest
        .file(path)
        .ok_or_else(|| Error::refused(format!("{path}: not in this bundle")))?;
    let chunk = manifest
        .chunks
        .get(file.chunk as usize)
        .ok_or_else(|| Error::refused(format!("{path}: its chunk is not in the manifest")))?;
    let bytes = api::fetch_required(&entry.url_of(&manifest.located(&chunk.file))).await?;
    let opened = manifest.open_chunk(file.chunk as usize, &bytes)?;
    Ok(manifest.file_text(&opened, path)?.to_string())
}
