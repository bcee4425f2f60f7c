//! Shared by the integration tests: finding and reading the paper's archive beside the checkout.

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
