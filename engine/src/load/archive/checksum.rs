//! The archive's integrity check: the SHA-256 list in `paper/data/README.md`, and every supplied
//! file checked against it.

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use super::{get, ArchiveBytes, ARCHIVE_FILES, README};
use crate::checksum::sha256_hex;
use crate::error::{Error, Result};

/// The SHA-256 values listed in the README's tables, by file name.
pub fn listed_checksums(readme: &str) -> BTreeMap<String, String> {
    readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let hash = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (name.to_string(), hash.to_ascii_lowercase()))
        })
        .sorted_map()
}

/// Checks every supplied file against the README's SHA-256 list.
pub fn verify_checksums(files: &ArchiveBytes) -> Result<()> {
    let readme = std::str::from_utf8(get(files, README)?).map_err(|_| Error::Parse {
        file: README.to_string(),
        message: "not UTF-8 text".to_string(),
    })?;
    let listed = listed_checksums(readme);
    for file in ARCHIVE_FILES.iter().filter(|f| f.path != README) {
        let Some(bytes) = files.get(file.path) else {
            if file.required {
                return Err(Error::MissingFile {
                    file: file.path.to_string(),
                });
            }
            continue;
        };
        let name = file.path.rsplit('/').next().unwrap_or(file.path);
        let expected = listed
            .get(name)
            .ok_or_else(|| Error::field(README, name, "no SHA-256 listed for this file"))?;
        let actual = sha256_hex(bytes);
        if &actual != expected {
            return Err(Error::Checksum {
                file: file.path.to_string(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(())
}
