//! What the Context view needs, fetched once per page and kept across tab switches: a bundle's
//! manifest, question set, index blob and every chunk (each verified by the engine against the
//! manifest), the live arms' rankings per question, and the cl100k_base counter built from the
//! rank table fetched on the first pack.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use routelens_engine::bundle::decode_manifest;
use routelens_engine::lexical::issue_run::run_issue;
use routelens_engine::lexical::live::{parse_questions, BundleSnapshot, Question};
use routelens_engine::lexical::FtsIndex;
use routelens_engine::tokens::{Cl100k, TokenCache, CL100K_RANK_TABLE_FILE};
use routelens_engine::{Policy, Sources, TextCorpus, MAX_K};

use crate::api::{self, BundleEntry};

/// The URL of the rank table, copied into the build by `scripts/cl100k-asset.sh`.
pub const RANK_TABLE_URL: &str = "/cl100k_base.tiktoken";

/// The fusion offered beside the seven lexical arms (the Search view's default RRF).
pub const FUSION_ARMS: [&str; 2] = ["fts5", "rg"];

/// Each arm's ranking (paths, best first), by arm name, in the arms' order.
pub type ArmRankings = Vec<(String, Vec<String>)>;

/// A bundle with everything the packer and the arms need.
pub struct LoadedBundle {
    /// Its entry in `/bundles.json`.
    pub entry: BundleEntry,
    /// The question set (empty without one).
    pub questions: Vec<Question>,
    /// Every file's text, by path.
    pub texts: BTreeMap<String, String>,
    /// The commit its files were read at, when the manifest records one.
    pub commit: Option<String>,
    /// The file policy that chose its files.
    pub policy: Policy,
    index: FtsIndex,
    corpus: TextCorpus,
    paths: Vec<String>,
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
    /// then the fusion; memoised by text.
    pub fn rankings(&self, issue: &str) -> Rc<ArmRankings> {
        if let Some(ready) = self.rankings.borrow().get(issue) {
            return ready.clone();
        }
        let sources = Sources::new(&self.paths)
            .with_index(&self.index)
            .with_texts(&self.corpus);
        let fused = FUSION_ARMS.map(str::to_string);
        // An arm that fails (none should, the whole bundle is loaded) is not offered: an empty
        // ranking would pack nothing and read as zero recall.
        let arms: ArmRankings = run_issue(&sources, issue, MAX_K, &fused, &mut api::now_ms)
            .into_iter()
            .filter_map(|run| Some((run.arm, run.output.ok()?.paths())))
            .collect();
        let ready = Rc::new(arms);
        self.rankings
            .borrow_mut()
            .insert(issue.to_string(), ready.clone());
        ready
    }
}

thread_local! {
    static BUNDLE: RefCell<Option<Rc<LoadedBundle>>> = const { RefCell::new(None) };
    static COUNTER: RefCell<Option<Rc<RefCell<TokenCache<Cl100k>>>>> = const { RefCell::new(None) };
}

/// The loaded bundle named `name`, if it is the one in memory.
pub fn loaded(name: &str) -> Option<Rc<LoadedBundle>> {
    BUNDLE.with(|b| b.borrow().clone().filter(|b| b.entry.name == name))
}

/// The counter, if the rank table is in.
pub fn counter() -> Option<Rc<RefCell<TokenCache<Cl100k>>>> {
    COUNTER.with(|c| c.borrow().clone())
}

/// Loads a bundle (or returns the one in memory), reporting progress as text.
pub async fn load_bundle(
    entry: BundleEntry,
    progress: impl Fn(String),
) -> Result<Rc<LoadedBundle>, String> {
    if let Some(ready) = loaded(&entry.name) {
        return Ok(ready);
    }
    let base = entry.base.trim_end_matches('/').to_string();
    progress(format!("{}: fetching manifest.json", entry.name));
    let manifest_bytes = api::fetch_required(&format!("{base}/manifest.json")).await?;
    let manifest = decode_manifest(&manifest_bytes).map_err(|e| e.to_string())?;
    let questions = match &entry.questions {
        None => Vec::new(),
        Some(url) => {
            let bytes = api::fetch_required(url).await?;
            parse_questions(url, &String::from_utf8_lossy(&bytes)).map_err(|e| e.to_string())?
        }
    };
    let index_entry = manifest
        .index
        .as_ref()
        .ok_or_else(|| format!("{}: this bundle has no search index", entry.name))?;
    let total = manifest.chunks.len() + 1;
    progress(format!("loading 1/{total} files (the index)"));
    let blob = api::fetch_required(&format!("{base}/{}", index_entry.file)).await?;
    let index = FtsIndex::from_bundle(&manifest, &blob).map_err(|e| e.to_string())?;
    let mut stored = Vec::with_capacity(manifest.chunks.len());
    for (done, chunk) in manifest.chunks.iter().enumerate() {
        progress(format!(
            "loading {}/{total} files ({})",
            done + 2,
            chunk.file
        ));
        let bytes = api::fetch_required(&format!("{base}/{}", chunk.file)).await?;
        manifest
            .open_chunk(done, &bytes)
            .map_err(|e| e.to_string())?;
        stored.push(bytes);
    }
    let texts: BTreeMap<String, String> = manifest
        .read_all(&stored)
        .map_err(|e| e.to_string())?
        .into_iter()
        .collect();
    let corpus = TextCorpus::new(texts.iter().map(|(p, t)| (p.clone(), t.as_str())));
    let ready = Rc::new(LoadedBundle {
        paths: manifest.paths(),
        commit: manifest.commit.clone(),
        policy: manifest.policy.clone(),
        entry,
        questions,
        texts,
        index,
        corpus,
        rankings: RefCell::new(BTreeMap::new()),
    });
    progress(format!(
        "loaded {}: {} files",
        ready.entry.name,
        ready.texts.len()
    ));
    BUNDLE.with(|b| *b.borrow_mut() = Some(ready.clone()));
    Ok(ready)
}

/// Fetches the rank table and builds the counter (once), reporting progress as text.
pub async fn load_counter(
    progress: impl Fn(String),
) -> Result<Rc<RefCell<TokenCache<Cl100k>>>, String> {
    if let Some(ready) = counter() {
        return Ok(ready);
    }
    progress(format!(
        "loading the cl100k_base rank table ({RANK_TABLE_URL}, 1.7 MB)"
    ));
    let started = api::now_ms();
    let bytes = api::fetch_required(RANK_TABLE_URL).await?;
    progress(format!(
        "building the cl100k_base encoder from {} bytes",
        bytes.len()
    ));
    api::next_tick().await;
    let encoder = Cl100k::from_rank_table(&bytes)
        .map_err(|e| format!("{RANK_TABLE_URL} ({CL100K_RANK_TABLE_FILE}): {e}"))?;
    let ready = Rc::new(RefCell::new(TokenCache::new(encoder)));
    progress(format!(
        "cl100k_base ready in {:.0} ms",
        api::now_ms() - started
    ));
    COUNTER.with(|c| *c.borrow_mut() = Some(ready.clone()));
    Ok(ready)
}
