//! The Search view's state, shared by its parts: the open bundle, the shown results, every
//! question's runs, and the signals of the view (the index and texts live in the live worker).
//! A leaf: it imports no sibling.

use std::sync::Arc;

use leptos::prelude::*;
use reactive_stores::Field;
use routelens_engine::corpus::bundle::Manifest;
use routelens_engine::live::evidence::LiveStudy;
use routelens_engine::load::question_set::Question;
use routelens_engine::retrieval::lexical::issue_run::ArmRun;

use crate::api::BundleEntry;
use crate::error::Error;

/// A bundle whose manifest (and question set) are in.
#[derive(Debug)]
pub(super) struct OpenBundle {
    pub(super) entry: BundleEntry,
    pub(super) manifest: Manifest,
    pub(super) manifest_bytes: usize,
    pub(super) manifest_sha256: String,
    pub(super) questions: Vec<Question>,
}

/// The shown query's results.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Results {
    /// The question id, or `query` for typed text.
    pub(super) qid: String,
    pub(super) gold: Option<Vec<String>>,
    /// Every arm's answer (the engine's [`run_issue`]), failed ones with their error.
    pub(super) columns: Vec<ArmRun>,
}

/// Ranked `(path, score)` pairs, best first.
pub(super) type Ranked = Vec<(String, f64)>;

/// Every question through every arm (for "Add as arm" and the TREC export).
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct AllRuns {
    /// Per question id: per arm name, the ranked results.
    pub(super) runs: Vec<(String, Vec<(String, Ranked)>)>,
}

/// The view's own state (a new one each time the view mounts).
#[derive(Clone, Copy)]
pub(super) struct SearchState {
    /// The server's bundle list (from the page's bundle store), as a resource.
    pub(super) bundles: LocalResource<Result<Vec<BundleEntry>, Error>>,
    pub(super) open: RwSignal<Option<Arc<OpenBundle>>>,
    pub(super) progress: RwSignal<Option<String>>,
    pub(super) error: RwSignal<Option<Error>>,
    pub(super) text: RwSignal<String>,
    pub(super) question: RwSignal<Option<String>>,
    pub(super) results: RwSignal<Option<Results>>,
    /// The fused arms and the k, fields of the store, so that both are in the permalink.
    pub(super) fused: Field<Vec<String>>,
    pub(super) k: Field<usize>,
    pub(super) file: RwSignal<Option<(String, String, Vec<String>)>>,
    pub(super) live: RwSignal<Option<Arc<LiveStudy>>>,
    pub(super) all: RwSignal<Option<AllRuns>>,
    pub(super) busy: RwSignal<bool>,
}

/// Shows `error` as the view's error and clears its progress line.
pub(super) fn fail(s: SearchState, error: impl Into<Error>) {
    s.progress.set(None);
    s.error.set(Some(error.into()));
}
