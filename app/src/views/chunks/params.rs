//! The Chunks view's own settings, each written when set: the file shown, `path=<file>`, its
//! chunk search's per-file cap, `cap=N`, and its ranker, `retriever=dense|hybrid` (bm25 unless
//! written). The search's chunking (`chunker`) is shared with the
//! Rerank view and its question (`q`) and bundle with every bundle view (`crate::params`).

use reactive_stores::Store;
use routelens_engine::retrieval::chunk_search::Retriever;

use crate::params::part::{positive, set, set_some, Claim, Params};

/// The Chunks view's part of the settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct ChunksParams {
    /// The file shown (default none).
    pub path: Option<String>,
    /// The chunk search's per-file cap (default none).
    pub cap: Option<usize>,
    /// The chunk search's ranker (default bm25).
    pub retriever: Retriever,
}

impl Default for ChunksParams {
    fn default() -> Self {
        ChunksParams {
            path: None,
            cap: None,
            retriever: Retriever::Bm25,
        }
    }
}

impl Params for ChunksParams {
    fn keys(&self) -> &'static [&'static str] {
        &["path", "cap", "retriever"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if let Some(path) = &self.path {
            pairs.push(("path", path.clone()));
        }
        if let Some(cap) = self.cap {
            pairs.push(("cap", cap.to_string()));
        }
        if self.retriever != Retriever::Bm25 {
            pairs.push(("retriever", self.retriever.name().into()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "path" => set_some(&mut self.path, value),
            "cap" => set(&mut self.cap, positive(value).map(Some)),
            "retriever" => set(
                &mut self.retriever,
                Retriever::from_name(value).ok_or_else(|| "expected bm25, dense or hybrid".into()),
            ),
            _ => Claim::Unknown,
        }
    }
}
