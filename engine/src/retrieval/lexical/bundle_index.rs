//! A bundle's BM25 index as the arms see it: the whole blob or the split one, and for the
//! split one the packs a query needs.

use super::fts::split::{PackFile, SplitIndex};
use super::fts::{build_index_blob_owned, FtsIndex, IndexSpec};
use super::{ArmOutput, LexicalArm};
use crate::corpus::bundle::Manifest;
use crate::error::{Error, Result};

/// A bundle's BM25 index, whole (the blob, `--no-split`) or split into packs fetched by need.
#[derive(Debug, Clone)]
pub enum LexicalIndex {
    /// The whole index blob, opened with tantivy.
    Whole(FtsIndex),
    /// The split index's base file and the packs added so far.
    Split(SplitIndex),
}

impl LexicalIndex {
    /// The bundle's index from its stored bytes: the base file when the manifest lists a split
    /// index, else the blob.
    pub fn from_bundle(manifest: &Manifest, stored: &[u8]) -> Result<LexicalIndex> {
        if manifest.split_index.is_some() {
            SplitIndex::from_bundle(manifest, stored).map(LexicalIndex::Split)
        } else {
            FtsIndex::from_bundle(manifest, stored).map(LexicalIndex::Whole)
        }
    }

    /// The index of a bundle that stores none (`Manifest::derived_index`, a merged site's
    /// snapshot), built from its texts (every file's path and text) exactly as `routelens bundle`
    /// builds it, so it ranks as the stored one would.
    pub fn derive(manifest: &Manifest, texts: Vec<(String, String)>) -> Result<LexicalIndex> {
        let spec = LexicalIndex::derived_spec(manifest)?.ok_or_else(|| {
            Error::field(
                crate::corpus::bundle::MANIFEST_FILE,
                "derived_index",
                "absent: this bundle stores its index",
            )
        })?;
        let blob = build_index_blob_owned(texts, spec)?;
        FtsIndex::open("the index built from the texts", &blob, manifest.paths())
            .map(LexicalIndex::Whole)
    }

    /// The spec of the index a reader builds for the bundle, if it stores none; a format this
    /// build cannot make is an error naming the field.
    pub fn derived_spec(manifest: &Manifest) -> Result<Option<IndexSpec>> {
        let Some(format) = &manifest.derived_index else {
            return Ok(None);
        };
        IndexSpec::from_index_format(format)
            .map(Some)
            .ok_or_else(|| {
                Error::field(
                    crate::corpus::bundle::MANIFEST_FILE,
                    "derived_index",
                    format!("{format:?}; this build makes {:?}", IndexSpec::formats()),
                )
            })
    }

    /// The file [`LexicalIndex::from_bundle`] reads, and its stored size.
    pub fn file_of(manifest: &Manifest) -> Option<(&str, u64)> {
        manifest
            .split_index
            .as_ref()
            .or(manifest.index.as_ref())
            .map(|entry| (entry.file.as_str(), entry.bytes))
    }

    /// The split index's files `arm` reads for `issue` as far as known (see
    /// [`SplitIndex::files_for`]; none for a whole index), added or not.
    pub fn files_for(&self, arm: LexicalArm, issue: &str) -> Vec<PackFile> {
        match self {
            LexicalIndex::Whole(_) => Vec::new(),
            LexicalIndex::Split(index) => index.files_for(arm, issue),
        }
    }

    /// The next round of files `arm` needs for `issue` that are not added yet (pages, then the
    /// packs they name); empty once it can run.
    pub fn missing_files(&self, arm: LexicalArm, issue: &str) -> Vec<PackFile> {
        match self {
            LexicalIndex::Whole(_) => Vec::new(),
            LexicalIndex::Split(index) => index.missing_files(arm, issue),
        }
    }

    /// Adds a fetched page or pack (see [`SplitIndex::add_file`]); a whole index has none.
    pub fn add_file(&mut self, file: &str, stored: &[u8]) -> Result<()> {
        match self {
            LexicalIndex::Whole(_) => Err(Error::Index {
                file: file.to_string(),
                message: "this bundle's index is not split".into(),
            }),
            LexicalIndex::Split(index) => index.add_file(file, stored),
        }
    }

    /// Runs a BM25 arm (`fts5`, `fts5-full` or `path-fts5`; any other as `fts5`); top `k`.
    pub fn run(&self, arm: LexicalArm, issue: &str, k: usize) -> Result<ArmOutput> {
        match (self, arm) {
            (LexicalIndex::Whole(index), LexicalArm::Fts5Full) => index.fts5_full(issue, k),
            (LexicalIndex::Whole(index), LexicalArm::PathFts5) => index.path_fts5(issue, k),
            (LexicalIndex::Whole(index), _) => index.fts5(issue, k),
            (LexicalIndex::Split(index), LexicalArm::Fts5Full) => index.fts5_full(issue, k),
            (LexicalIndex::Split(index), LexicalArm::PathFts5) => index.path_fts5(issue, k),
            (LexicalIndex::Split(index), _) => index.fts5(issue, k),
        }
    }
}
