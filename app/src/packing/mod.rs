//! A bundle loaded for packing, once per page and kept across tab switches (the Context and
//! Lines views share it): a bundle's
//! manifest and question set from the bundle store ([`crate::bundles`]), its index and every chunk in the live worker (each verified
//! by the engine against the manifest), the live arms' rankings per question (run there,
//! memoised here), and the cl100k_base counter, built there from the rank table fetched on the
//! first pack.

pub mod params;
pub mod recompute;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use routelens_engine::delivery::context::{ContextSettings, RecomputedLines};
use routelens_engine::live::live_session::{AnswerBody, CallBody, LineJob};
use routelens_engine::live::snapshot::BundleSnapshot;
use routelens_engine::load::question_set::Question;
use routelens_engine::stable_sort::Sorted;
use routelens_engine::{Policy, MAX_K};

use crate::api::BundleEntry;
use crate::bundles::{load_call, BundleStore};
use crate::error::Result;
use crate::live;

/// The URL of the rank table, copied into the build by `scripts/cl100k-asset.sh`; relative to
/// the page, so the site works under a sub-path.
pub const RANK_TABLE_URL: &str = "cl100k_base.tiktoken";

/// The fusion offered beside the seven lexical arms (the Search view's default RRF).
pub const FUSION_ARMS: [&str; 2] = ["fts5", "rg"];

/// Each arm's ranking (paths, best first), by arm name, in the arms' order.
pub type ArmRankings = Vec<(String, Vec<String>)>;

/// A bundle whose manifest and questions are here and whose index and texts are in the worker.
pub struct LoadedBundle {
    /// Its entry in the bundle store.
    pub entry: BundleEntry,
    /// The question set (empty without one).
    pub questions: Vec<Question>,
    /// The commit its files were read at, when the manifest records one.
    pub commit: Option<String>,
    /// The file policy that chose its files.
    pub policy: Policy,
    /// Every file's path.
    pub paths: BTreeSet<String>,
    rankings: RefCell<BTreeMap<String, Rc<ArmRankings>>>,
}

impl LoadedBundle {
    /// What the bundle was built from, for matching a study's cases to it.
    pub fn snapshot(&self) -> BundleSnapshot<'_> {
        BundleSnapshot {
            repo: &self.entry.name,
            commit: self.commit.as_deref(),
            policy: &self.policy,
        }
    }

    /// Every arm's ranking (top 16) for an issue text, the arms in the Search view's order and
    /// then the fusion, run in the worker; memoised by text.
    pub async fn rankings(&self, issue: &str) -> Result<Rc<ArmRankings>> {
        if let Some(ready) = self.rankings.borrow().get(issue).cloned() {
            return Ok(ready);
        }
        let call = CallBody::RunIssue {
            bundle: self.entry.name.clone(),
            issue: issue.to_string(),
            k: MAX_K,
            fused: FUSION_ARMS.map(str::to_string).to_vec(),
        };
        let runs = match live::call(call, |_| {}).await? {
            AnswerBody::Ran { runs } => runs,
            other => return Err(live::unexpected(&other)),
        };
        // An arm that fails (none should, the whole bundle is loaded) is not offered: an empty
        // ranking would pack nothing and read as zero recall.
        let arms: ArmRankings = runs
            .into_iter()
            .filter_map(|run| Some((run.arm, run.output.ok()?.paths())))
            .collect();
        let ready = Rc::new(arms);
        self.rankings
            .borrow_mut()
            .insert(issue.to_string(), ready.clone());
        Ok(ready)
    }

    /// Line scores of every job's rankings at `settings`, packed in the worker, with progress.
    pub async fn line_scores(
        &self,
        jobs: Vec<LineJob>,
        settings: ContextSettings,
        progress: impl Fn(String) + 'static,
    ) -> Result<Vec<RecomputedLines>> {
        let progress = Rc::new(progress);
        let said = progress.clone();
        load_counter(move |line| said(line)).await?;
        let call = CallBody::LineScores {
            bundle: self.entry.name.clone(),
            jobs,
            settings,
        };
        match live::call(call, move |line| progress(line)).await? {
            AnswerBody::Lines { rows, .. } => Ok(rows),
            other => Err(live::unexpected(&other)),
        }
    }
}

/// Loads a bundle: its manifest and questions from the store, its index and chunks in the worker
/// (each once per page), reporting progress as text. The caller keeps it (`AppState::packing`).
pub async fn load_bundle(
    store: BundleStore,
    entry: BundleEntry,
    progress: impl Fn(String) + 'static,
) -> Result<Rc<LoadedBundle>> {
    let files = store.open(&entry, &progress).await?;
    let (manifest, questions) = (&files.manifest, files.questions.clone());
    let call = load_call(&entry, &files.manifest_sha256, true, true, &[]);
    let progress = Rc::new(progress);
    let said = progress.clone();
    let files = match live::call(call, move |line| said(line)).await? {
        AnswerBody::Loaded { files, .. } => files,
        other => return Err(live::unexpected(&other)),
    };
    let ready = Rc::new(LoadedBundle {
        paths: manifest.paths().into_iter().sorted_set(),
        commit: manifest.commit.clone(),
        policy: manifest.policy.clone(),
        entry,
        questions,
        rankings: RefCell::new(BTreeMap::new()),
    });
    progress(format!("loaded {}: {files} files", ready.entry.name));
    Ok(ready)
}

/// Has the worker fetch the rank table and build the counter, reporting progress; once built,
/// the worker answers at once (a restarted worker builds it again).
pub async fn load_counter(progress: impl Fn(String) + 'static) -> Result<()> {
    let progress = Rc::new(progress);
    let said = progress.clone();
    let call = CallBody::LoadCounter {
        url: crate::site::absolute(RANK_TABLE_URL),
    };
    match live::call(call, move |line| said(line)).await? {
        AnswerBody::CounterReady { ms } => {
            progress(format!("cl100k_base ready in {ms:.0} ms"));
            Ok(())
        }
        other => Err(live::unexpected(&other)),
    }
}
