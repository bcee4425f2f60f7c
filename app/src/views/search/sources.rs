//! The Search view's sources: the index blob and every chunk of the open bundle, each fetched
//! and verified once (by the engine) and kept for the view's lifetime, and every arm run over
//! what is loaded.

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::lexical::issue_run::{run_issue, ArmRun};
use routelens_engine::lexical::FtsIndex;
use routelens_engine::{Sources, TextCorpus, MAX_K};

use super::state::{SearchState, Texts};
use crate::api;

/// The index blob, fetched and verified on the first search.
pub(super) async fn load_index(s: SearchState) -> Result<Arc<FtsIndex>, String> {
    if let Some(ready) = s.index.get_value() {
        return Ok(ready);
    }
    let open = s.open.get_untracked().ok_or("no bundle is open")?;
    let base = open.entry.base.trim_end_matches('/');
    let m = &open.manifest;
    let entry = m
        .index
        .as_ref()
        .ok_or_else(|| format!("{}: this bundle has no search index", open.entry.name))?;
    let total = m.chunks.len() + 1;
    s.progress.set(Some(format!(
        "loading 0/{total} files (the index, {} bytes)",
        entry.bytes
    )));
    let blob = api::fetch_required(&format!("{base}/{}", entry.file)).await?;
    let index = Arc::new(FtsIndex::from_bundle(m, &blob).map_err(|e| e.to_string())?);
    s.progress.set(Some(format!(
        "loaded 1/{total} files: the index ({} bytes, {} with the manifest)",
        blob.len(),
        blob.len() + open.manifest_bytes
    )));
    s.index.set_value(Some(index.clone()));
    Ok(index)
}

/// Every chunk, fetched and verified (the `rg` arms search every file's text).
pub(super) async fn load_texts(s: SearchState) -> Result<Arc<Texts>, String> {
    if let Some(ready) = s.texts.get_value() {
        return Ok(ready);
    }
    let open = s.open.get_untracked().ok_or("no bundle is open")?;
    let base = open.entry.base.trim_end_matches('/');
    let m = &open.manifest;
    let total = m.chunks.len() + 1;
    let mut stored = Vec::with_capacity(m.chunks.len());
    for (done, chunk) in m.chunks.iter().enumerate() {
        s.progress.set(Some(format!(
            "loading {}/{total} files ({})",
            done + 2,
            chunk.file
        )));
        let bytes = api::fetch_required(&format!("{base}/{}", chunk.file)).await?;
        // Verify as it arrives, so a bad chunk is named before the rest are fetched.
        m.open_chunk(done, &bytes).map_err(|e| e.to_string())?;
        stored.push(bytes);
    }
    let texts = m.read_all(&stored).map_err(|e| e.to_string())?;
    let corpus = TextCorpus::new(texts.iter().map(|(p, t)| (p.clone(), t.as_str())));
    let ready = Arc::new(Texts {
        corpus,
        texts: texts.into_iter().collect(),
    });
    s.progress.set(Some(format!(
        "loaded {total}/{total} files: the index and {} chunks, {} bytes",
        m.chunks.len(),
        m.stored_bytes(open.manifest_bytes as u64)
    )));
    s.texts.set_value(Some(ready.clone()));
    Ok(ready)
}

/// The index and every text.
pub(super) async fn load_all(s: SearchState) -> Result<(Arc<FtsIndex>, Arc<Texts>), String> {
    let index = load_index(s).await?;
    Ok((index, load_texts(s).await?))
}

/// Every arm for one issue, each timed (the engine's [`run_issue`]); with `fused` naming two or
/// more arms, their fusion last. Arms whose sources are not loaded yet fail with what they wait
/// for.
pub(super) fn run_arms(
    index: &FtsIndex,
    texts: Option<&Texts>,
    paths: &[String],
    issue: &str,
    fused: &[String],
) -> Vec<ArmRun> {
    let mut sources = Sources::new(paths).with_index(index);
    if let Some(texts) = texts {
        sources = sources.with_texts(&texts.corpus);
    }
    run_issue(&sources, issue, MAX_K, fused, &mut api::now_ms)
}
