//! Shared by the integration tests: finding and reading the paper's archive beside the checkout.
#![allow(clippy::print_stderr)] // A skipped test must say why on the test output.

use std::path::PathBuf;

use routelens_engine::{ArchiveBytes, ARCHIVE_FILES};

/// The archive folder: `$ROUTELENS_FASTINDEX`, or `../shared/data/fastindex` beside the checkout.
pub fn archive_dir() -> PathBuf {
    std::env::var_os("ROUTELENS_FASTINDEX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/fastindex")
        })
}

/// `None` with the reason printed, so that the caller can skip visibly; a panic instead when
/// `ROUTELENS_REQUIRE_FIXTURES=1` (the test command and CI set it), so that a missing input can
/// never pass as a skipped test there.
pub fn skip<T>(reason: &str) -> Option<T> {
    if std::env::var_os("ROUTELENS_REQUIRE_FIXTURES").is_some_and(|value| value == "1") {
        panic!("missing fixture: {reason} (ROUTELENS_REQUIRE_FIXTURES=1 makes this a failure)");
    }
    eprintln!("SKIPPED: {reason}");
    None
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
