//! Opening a bundle the server lists: its manifest and its question set (plus the open study's
//! cases of the bundle's repository whose issue texts are loaded). Shared by the Search and
//! Route views.

use leptos::prelude::GetUntracked;
use routelens_engine::bundle::{decode_manifest, Manifest};
use routelens_engine::lexical::live::{
    parse_questions, study_case_questions, BundleSnapshot, Question,
};

use crate::api::{self, BundleEntry};
use crate::state::AppState;

/// A bundle's manifest and questions, as fetched.
pub(super) struct FetchedBundle {
    pub(super) manifest: Manifest,
    pub(super) manifest_bytes: usize,
    pub(super) questions: Vec<Question>,
    /// The open study's cases of this repository left out because they were cut at another
    /// commit than the bundle's or ranked under another file policy, one sentence each.
    pub(super) mismatched: Vec<String>,
}

impl FetchedBundle {
    /// What loaded, for the progress line: `files` files, the questions, and the study cases a
    /// commit or policy mismatch kept out (never silently).
    pub(super) fn summary(&self, name: &str) -> String {
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

/// Fetches `entry`'s manifest and question set, saying what it fetches through `progress`.
pub(super) async fn fetch_bundle(
    app: AppState,
    entry: &BundleEntry,
    progress: impl Fn(String),
) -> Result<FetchedBundle, String> {
    let base = entry.base.trim_end_matches('/').to_string();
    progress(format!("{}: fetching manifest.json", entry.name));
    let manifest_bytes = api::fetch_required(&format!("{base}/manifest.json")).await?;
    let manifest = decode_manifest(&manifest_bytes).map_err(|err| err.to_string())?;
    let mut questions = match &entry.questions {
        None => Vec::new(),
        Some(url) => {
            progress(format!("{}: fetching the question set", entry.name));
            let bytes = api::fetch_required(url).await?;
            parse_questions(url, &String::from_utf8_lossy(&bytes)).map_err(|e| e.to_string())?
        }
    };
    // The open study's cases of this bundle's repository and commit, when their issue texts are
    // loaded.
    let mut mismatched = Vec::new();
    if let Some(study) = app.base.get_untracked() {
        let texts = app.issue_texts.get_untracked();
        for repo in [manifest.source.as_str(), entry.name.as_str()] {
            let bundle = BundleSnapshot {
                repo,
                commit: manifest.commit.as_deref(),
                policy: &manifest.policy,
            };
            let found = study_case_questions(&study, &texts, bundle, &questions);
            questions.extend(found.questions);
            mismatched.extend(found.mismatched);
        }
    }
    // The source name and the entry name may be the same repository.
    mismatched.sort();
    mismatched.dedup();
    Ok(FetchedBundle {
        manifest,
        manifest_bytes: manifest_bytes.len(),
        questions,
        mismatched,
    })
}
