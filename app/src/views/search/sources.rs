//! The Search view's sources, in the live worker ([`crate::live`]): the index on the first
//! search, every chunk for the `rg` arms, each fetched and verified once per page by the worker
//! (which every view shares), and every arm run there.

use leptos::prelude::*;
use routelens_engine::live::live_session::{AnswerBody, CallBody, WireRun};
use routelens_engine::retrieval::lexical::issue_run::ArmRun;

use crate::bundles::load_call;
use routelens_engine::MAX_K;

use super::state::SearchState;
use crate::error::{Error, Result};
use crate::live;

/// Loads the index and, with `texts`, every chunk of the open bundle into the worker, reporting
/// progress; `Ok(true)` when every text is in (asked for now or before).
pub(super) async fn load(s: SearchState, texts: bool) -> Result<bool> {
    let open = s
        .open
        .get_untracked()
        .ok_or_else(|| Error::refused("no bundle is open"))?;
    let call = load_call(&open.entry, &open.manifest_sha256, true, texts, &[]);
    match live::call(call, move |line| s.progress.set(Some(line))).await? {
        AnswerBody::Loaded {
            chunks,
            stored_bytes,
            texts,
            ..
        } => {
            let total = chunks + 1;
            let bytes = stored_bytes + open.manifest_bytes as u64;
            s.progress.set(Some(if texts {
                format!(
                    "loaded {total}/{total} files: the index and {chunks} chunks, {bytes} bytes"
                )
            } else {
                format!("loaded 1/{total} files: the index (with the manifest, of {bytes} bytes)")
            }));
            Ok(texts)
        }
        other => Err(live::unexpected(&other)),
    }
}

/// Every arm over `issue` (top 16), then the fusion of `fused` when it names two or more; arms
/// whose sources are not loaded yet fail with what they wait for.
pub(super) async fn run_arms(s: SearchState, issue: &str, fused: &[String]) -> Result<Vec<ArmRun>> {
    let open = s
        .open
        .get_untracked()
        .ok_or_else(|| Error::refused("no bundle is open"))?;
    let call = CallBody::RunIssue {
        bundle: open.entry.name.clone(),
        issue: issue.to_string(),
        k: MAX_K,
        fused: fused.to_vec(),
    };
    match live::call(call, |_| {}).await? {
        AnswerBody::Ran { runs } => Ok(runs.into_iter().map(WireRun::into_run).collect()),
        other => Err(live::unexpected(&other)),
    }
}
