//! The Chunks view's own settings, each written when set: the file shown, `path=<file>`, and its
//! chunk search's per-file cap, `cap=N`. The search's chunking (`chunker`) is shared with the
//! Rerank view and its question (`q`) and bundle with every bundle view (`crate::params`).

use reactive_stores::Store;

use crate::params::part::{positive, set, set_some, Claim, Params};

/// The Chunks view's part of the settings.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct ChunksParams {
    /// The file shown (default none).
    pub path: Option<String>,
    /// The chunk search's per-file cap (default none).
    pub cap: Option<usize>,
}

impl Params for ChunksParams {
    fn keys(&self) -> &'static [&'static str] {
        &["path", "cap"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if let Some(path) = &self.path {
            pairs.push(("path", path.clone()));
        }
        if let Some(cap) = self.cap {
            pairs.push(("cap", cap.to_string()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "path" => set_some(&mut self.path, value),
            "cap" => set(&mut self.cap, positive(value).map(Some)),
            _ => Claim::Unknown,
        }
    }
}
