//! The store itself: the list and the opened bundles (see the module above).

use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;
use routelens_engine::bundle::{decode_manifest, Manifest};
use routelens_engine::lexical::live::{parse_questions, Question};

use crate::api::{self, BundleEntry};
use crate::error::Result;

/// A bundle's manifest and question set, as fetched and checked.
#[derive(Debug)]
pub struct BundleFiles {
    /// Its entry in `/bundles.json`.
    pub entry: BundleEntry,
    /// The decoded manifest.
    pub manifest: Manifest,
    /// The manifest's size in bytes.
    pub manifest_bytes: usize,
    /// The bundle's own question set (empty without one).
    pub questions: Vec<Question>,
}

/// The store: what was fetched, kept for the page's lifetime.
#[derive(Clone, Copy)]
pub struct BundleStore {
    list: StoredValue<Option<Vec<BundleEntry>>, LocalStorage>,
    opened: StoredValue<BTreeMap<String, Rc<BundleFiles>>, LocalStorage>,
}

impl BundleStore {
    /// An empty store.
    pub fn new() -> Self {
        BundleStore {
            list: StoredValue::new_local(None),
            opened: StoredValue::new_local(BTreeMap::new()),
        }
    }

    /// `GET /bundles.json`, fetched on the first call that succeeds.
    pub async fn list(self) -> Result<Vec<BundleEntry>> {
        if let Some(list) = self.list.get_value() {
            return Ok(list);
        }
        let list = api::fetch_bundles().await?;
        self.list.set_value(Some(list.clone()));
        Ok(list)
    }

    /// The bundle `entry`'s manifest and question set, fetched on the first call (progress said
    /// through `progress`) and kept.
    pub async fn open(
        self,
        entry: &BundleEntry,
        progress: impl Fn(String),
    ) -> Result<Rc<BundleFiles>> {
        let kept = self
            .opened
            .with_value(|opened| opened.get(&entry.name).cloned())
            .filter(|files| files.entry == *entry);
        if let Some(files) = kept {
            return Ok(files);
        }
        let base = entry.base.trim_end_matches('/').to_string();
        progress(format!("{}: fetching manifest.json", entry.name));
        let manifest_bytes = api::fetch_required(&format!("{base}/manifest.json")).await?;
        let manifest = decode_manifest(&manifest_bytes)?;
        let questions = match &entry.questions {
            None => Vec::new(),
            Some(url) => {
                progress(format!("{}: fetching the question set", entry.name));
                let bytes = api::fetch_required(url).await?;
                parse_questions(url, &String::from_utf8_lossy(&bytes))?
            }
        };
        let files = Rc::new(BundleFiles {
            entry: entry.clone(),
            manifest,
            manifest_bytes: manifest_bytes.len(),
            questions,
        });
        self.opened.update_value(|opened| {
            opened.insert(entry.name.clone(), files.clone());
        });
        Ok(files)
    }
}

impl Default for BundleStore {
    fn default() -> Self {
        BundleStore::new()
    }
}
