//! Shared by the integration tests: finding and reading the paper's archive (and CodeNib's
//! results) beside the checkout.
#![allow(dead_code)] // Each test binary uses part of it.

use std::path::PathBuf;

use routelens_engine::{ArchiveBytes, ARCHIVE_FILES};

mod skip;
pub use skip::skip;

/// The archive folder: `$ROUTELENS_FASTINDEX`, or `../shared/data/fastindex` beside the checkout.
pub fn archive_dir() -> PathBuf {
    std::env::var_os("ROUTELENS_FASTINDEX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/fastindex")
        })
}

/// CodeNib's per-issue results, `../shared/data/codenib/jev_candidates_cases.csv` (or
/// `$ROUTELENS_CODENIB/jev_candidates_cases.csv`), as (file name, text), or `None` (see [`skip`]).
pub fn read_codenib_cases() -> Option<(String, String)> {
    let dir = std::env::var_os("ROUTELENS_CODENIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/codenib")
        });
    let path = dir.join("jev_candidates_cases.csv");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(("jev_candidates_cases.csv".into(), text)),
        Err(err) => skip(&format!(
            "CodeNib's per-issue results are not at {} ({err}; set ROUTELENS_CODENIB)",
            path.display()
        )),
    }
}

/// Reads every archive file that exists, or `None` (see [`skip`]) when the folder is absent.
pub fn read_archive() -> Option<ArchiveBytes> {
    let dir = archive_dir();
    if !dir.join("paper/data/README.md").is_file() {
        return skip(&format!(
            "the paper archive is not at {} (set ROUTELENS_FASTINDEX)",
            dir.display()
        ));
    }
    Some(
        ARCHIVE_FILES
            .iter()
            .filter_map(|file| {
                let bytes = std::fs::read(dir.join(file.path)).ok()?;
                Some((file.path.to_string(), bytes))
            })
            .collect(),
    )
}
