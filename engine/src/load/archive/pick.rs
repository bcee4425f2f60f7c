//! Matching a browser folder pick to the archive's files, so only those files are read.

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use super::ARCHIVE_FILES;
use crate::error::{Error, Result};

/// Matches the files of a folder pick to the archive paths the loader reads, so the browser reads
/// only those files' bytes.
///
/// `relative` holds each picked file's path as the browser reports it (`webkitRelativePath`, which
/// starts with the picked folder's own name; that first component is dropped). The pick may be the
/// archive root (`fastindex/paper/data/README.md`), a folder above it
/// (`shared/data/fastindex/paper/data/README.md`), or `paper` or `paper/data` itself
/// (`data/README.md`). When several picked files could be one archive file, the closest match wins
/// (same path, then a deeper folder, then a shallower one), so a repository's top-level README.md
/// never stands in for `paper/data/README.md`. Returns the index into `relative` of each archive
/// file found; two equally close candidates are an error naming both.
pub fn match_picked_files(relative: &[String]) -> Result<BTreeMap<&'static str, usize>> {
    let mut best: BTreeMap<&'static str, (u8, usize)> = BTreeMap::new();
    for (index, picked) in relative.iter().enumerate() {
        let picked = picked.replace('\\', "/");
        let rest = picked
            .split_once('/')
            .map_or(picked.as_str(), |(_, rest)| rest);
        for file in ARCHIVE_FILES {
            let closeness = if rest == file.path {
                3
            } else if rest.ends_with(&format!("/{}", file.path)) {
                2
            } else if file.path.ends_with(&format!("/{rest}")) {
                1
            } else {
                continue;
            };
            match best.get(file.path) {
                Some(&(held, _)) if held > closeness => {}
                Some(&(held, other)) if held == closeness => {
                    return Err(Error::field(
                        file.path,
                        "picked folder",
                        format!(
                            "two picked files could be this file: {} and {}",
                            relative[other], relative[index]
                        ),
                    ));
                }
                _ => {
                    best.insert(file.path, (closeness, index));
                }
            }
        }
    }
    Ok(best
        .into_iter()
        .map(|(path, (_, index))| (path, index))
        .sorted_map())
}
