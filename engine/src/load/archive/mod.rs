//! Loader for the fastindex paper archive (`paper/data/*.json` of the paper's repository at commit
//! 50721e11): the case ledger with gold spans, the gold-text audit, the archived rankings of every
//! arm, and the archived per-case line measurements.
//!
//! The loader takes the files' bytes keyed by their path relative to the archive root, so the same
//! code serves the command line (read from a folder) and the browser (fetched from a URL or picked
//! by the user). Every file is checked against the SHA-256 that `paper/data/README.md` lists for
//! it, and refused by name when it does not match.

mod checksum;
mod load;
mod pick;

#[cfg(test)]
mod tests;

pub use checksum::{listed_checksums, verify_checksums};
pub use load::load_archive;
pub use pick::match_picked_files;

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The archive's README, which lists every data file's SHA-256.
pub const README: &str = "paper/data/README.md";
const LEDGER: &str = "paper/data/contextbench-case-ledger.json";
const GOLD_AUDIT: &str = "paper/data/contextbench-paper-gold-audit.json";
const STUDY: &str = "paper/data/contextbench-paper-study.json";
const POSTSTUDY: &str = "paper/data/contextbench-paper-poststudy.json";
const TREE: &str = "paper/data/contextbench-paper-tree.json";
const FTS5: &str = "paper/data/contextbench-paper-fts5.json";
const RG: &str = "paper/data/contextbench-paper-rg.json";
const RG_FEEDBACK: &str = "paper/data/contextbench-paper-rg-feedback.json";
const PATH_FTS5: &str = "paper/data/contextbench-paper-path-fts5.json";
const FLAT: &str = "paper/data/contextbench-paper-flat-paths.json";

/// One file of the archive and whether the loader needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveFile {
    /// Path relative to the archive root.
    pub path: &'static str,
    /// Needed for the primary study; the post-study files add arms when present.
    pub required: bool,
}

/// The files the loader reads, in the order a client should fetch them.
pub const ARCHIVE_FILES: &[ArchiveFile] = &[
    ArchiveFile {
        path: README,
        required: true,
    },
    ArchiveFile {
        path: LEDGER,
        required: true,
    },
    ArchiveFile {
        path: GOLD_AUDIT,
        required: true,
    },
    ArchiveFile {
        path: STUDY,
        required: true,
    },
    ArchiveFile {
        path: TREE,
        required: true,
    },
    ArchiveFile {
        path: FTS5,
        required: true,
    },
    ArchiveFile {
        path: RG,
        required: true,
    },
    ArchiveFile {
        path: POSTSTUDY,
        required: false,
    },
    ArchiveFile {
        path: PATH_FTS5,
        required: false,
    },
    ArchiveFile {
        path: RG_FEEDBACK,
        required: false,
    },
    ArchiveFile {
        path: FLAT,
        required: false,
    },
];

/// The pinned public copy of the archive: the paper's repository at commit 50721e11.
pub const PINNED_ARCHIVE_URL: &str =
    "https://raw.githubusercontent.com/manojbajaj95/fastindex/50721e114e37d908648bc5b30a0c63ac718d776e";

/// The archive's files: path relative to the archive root → bytes.
pub type ArchiveBytes = BTreeMap<String, Vec<u8>>;

fn get<'a>(files: &'a ArchiveBytes, path: &str) -> Result<&'a [u8]> {
    files
        .get(path)
        .map(Vec::as_slice)
        .ok_or_else(|| Error::MissingFile {
            file: path.to_string(),
        })
}
