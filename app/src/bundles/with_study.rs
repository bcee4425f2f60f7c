//! Opening a bundle for the Search and Route views: its manifest and question
//! set from the bundle store, plus the open study's cases of the bundle's
//! repository whose issue texts are loaded.

use routelens_engine::stable_sort;
use std::collections::BTreeMap;
use std::sync::Arc;

use routelens_engine::corpus::bundle::Manifest;
use routelens_engine::live::snapshot::{study_case_questions, BundleSnapshot};
use routelens_engine::load::question_set::Question;

use crate::api::BundleEntry;
use routelens_engine::Study;

use super::store::BundleStore;
use crate::error::Result;

/// A bundle's manifest and questions, as fetched.
pub struct FetchedBundle {
    /// The decoded manifest.
    pub manifest: Manifest,
    /// The manifest's size in bytes.
    pub manifest_bytes: usize,
    /// The manifest's SHA-256.
    pub manifest_sha256: String,
    /// The bundle's question set (empty without one).
    pub questions: Vec<Question>,
    /// The open study's cases of this repository left out because they were cut at another
    /// commit than the bundle's or ranked under another file policy, one sentence each.
    pub mismatched: Vec<String>,
}

impl FetchedBundle {
    /// What loaded, for the progress line: `files` files, the questions, and the study cases a
    /// commit or policy mismatch kept out (never silently).
    pub fn summary(&self, name: &str) -> String {
        let mut text = format!(
            "{name}: manifest loaded ({} bytes, {} files, {} questions)",
            self.manifest_bytes,
            self.manifest.files.len(),
            self.questions.len()
        );
        if let Some(first) = self.mismatched.first() {
            text.push_str(&format!(
                "; {} study case(s) of another snapshot or file policy not offered ({first})",
                self.mismatched.len()
            ));
        }
        text
    }
}

/// `entry`'s manifest and question set from the bundle store (fetched there once, saying what
/// it fetches through `progress`), with the cases of the open `study` of the bundle's snapshot
/// whose issue texts are among `texts` (by case id).
pub async fn fetch_bundle(
    store: BundleStore,
    study: Option<Arc<Study>>,
    texts: &BTreeMap<String, String>,
    entry: &BundleEntry,
    progress: impl Fn(String),
) -> Result<FetchedBundle> {
    let files = store.open(entry, &progress).await?;
    let manifest = files.manifest.clone();
    let manifest_bytes = files.manifest_bytes;
    let manifest_sha256 = files.manifest_sha256.clone();
    let mut questions = files.questions.clone();
    // The open study's cases of this bundle's repository and commit, when their issue texts are
    // loaded.
    let mut mismatched = Vec::new();
    if let Some(study) = study {
        for repo in [manifest.source.as_str(), entry.name.as_str()] {
            let bundle = BundleSnapshot {
                repo,
                commit: manifest.commit.as_deref(),
                policy: &manifest.policy,
            };
            let found = study_case_questions(&study, texts, bundle, &questions);
            questions.extend(found.questions);
            mismatched.extend(found.mismatched);
        }
    }
    // The source name and the entry name may be the same repository.
    stable_sort::sort(&mut mismatched);
    mismatched.dedup();
    Ok(FetchedBundle {
        manifest,
        manifest_bytes,
        manifest_sha256,
        questions,
        mismatched,
    })
}
