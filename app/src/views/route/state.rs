//! The Route view's state, shared by its parts: the open bundle's tree and questions, the run
//! shown, and the view's signals. A leaf: it imports no sibling.

use std::sync::Arc;

use leptos::prelude::*;
use reactive_stores::Field;
use routelens_engine::live::evidence::BundleRef;
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::route::{RouteSettings, Run, RunFile};
use routelens_engine::DirTree;

use crate::api::BundleEntry;
use crate::error::Error;

/// A bundle's tree and questions.
pub(super) struct RouteBundle {
    pub(super) entry: BundleEntry,
    /// The bundle's name, commit and file policy, as a live study export records them.
    pub(super) snapshot: BundleRef,
    pub(super) tree: DirTree,
    pub(super) files: usize,
    pub(super) questions: Vec<Question>,
}

/// A run as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Shown {
    pub(super) run: Run,
    pub(super) settings: RouteSettings,
    pub(super) qid: Option<String>,
    pub(super) gold: Option<Vec<String>>,
    /// `live run`, `replay`, `recorded run (not replayed)`.
    pub(super) source: String,
}

/// The view's own state.
#[derive(Clone, Copy)]
pub(super) struct RouteState {
    /// The server's bundle list (from the page's bundle store), as a resource.
    pub(super) bundles: LocalResource<Result<Vec<BundleEntry>, Error>>,
    pub(super) open: RwSignal<Option<Arc<RouteBundle>>>,
    pub(super) text: RwSignal<String>,
    pub(super) question: RwSignal<Option<String>>,
    /// The API key, in memory only (local storage only when `remember`).
    pub(super) key: RwSignal<String>,
    pub(super) remember: RwSignal<bool>,
    pub(super) replay: RwSignal<Option<Arc<RunFile>>>,
    pub(super) shown: RwSignal<Option<Shown>>,
    pub(super) file: RwSignal<Option<Arc<RunFile>>>,
    pub(super) busy: RwSignal<bool>,
    pub(super) cancel: RwSignal<bool>,
    pub(super) progress: RwSignal<Option<String>>,
    pub(super) error: RwSignal<Option<Error>>,
    pub(super) live: RwSignal<Option<Arc<routelens_engine::live::evidence::LiveStudy>>>,
    /// The k recall is shown at: the store's `k`, so it is in the permalink.
    pub(super) k: Field<usize>,
}
