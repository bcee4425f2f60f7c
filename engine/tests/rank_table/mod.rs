//! Finds `cl100k_base.tiktoken` for native tests and benches without committing it: the file
//! ships in the tiktoken-rs crate's sources, which cargo has unpacked into its registry.

use std::path::PathBuf;

#[path = "../common/skip.rs"]
mod skip;
use skip::skip;

/// `$ROUTELENS_CL100K_TIKTOKEN` if set, else `assets/cl100k_base.tiktoken` of a tiktoken-rs
/// source folder under `$CARGO_HOME/registry/src/*/` (`~/.cargo` when `CARGO_HOME` is unset),
/// the last in path order when there are several (all versions ship the same file, and
/// `Cl100k::from_rank_table` checks its hash).
pub fn rank_table_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ROUTELENS_CL100K_TIKTOKEN") {
        return Some(PathBuf::from(path));
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("tiktoken-rs-")
        })
        .map(|entry| entry.path().join("assets/cl100k_base.tiktoken"))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found.pop()
}

/// The rank table's bytes, or `None` (see [`skip`]).
pub fn read_rank_table() -> Option<Vec<u8>> {
    let Some(path) = rank_table_path() else {
        return skip(
            "no cl100k_base.tiktoken in the cargo registry's tiktoken-rs sources \
             (set ROUTELENS_CL100K_TIKTOKEN to the file)",
        );
    };
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => skip(&format!("cannot read {}: {error}", path.display())),
    }
}
