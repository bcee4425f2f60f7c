//! Format 6's file list and chunk headers: what `manifest.json` listed per file before, moved to
//! where it is read.
//!
//! ```text
//! files/<sha256>.deflate   raw DEFLATE of:
//!   "RLFILES1"             magic
//!   count                  LEB128
//!   per file, path order:  bytes shared with the previous path, LEB128
//!                          the rest of the path: its length (LEB128) and its UTF-8 bytes
//!                          the file's size in bytes, LEB128
//!                          its lines, LEB128
//!
//! a format-6 chunk, after inflating:
//!   "RLCHUNK1"             magic
//!   count                  u32, little-endian: the chunk's files (the manifest's `files`)
//!   count × 32 bytes       each file's SHA-256, in path order
//!   the files' bytes       concatenated in path order
//! ```
//!
//! Front-coding the paths keeps the list small before DEFLATE sees it (ansible's 16,128 paths
//! repeat long directory prefixes). A file's chunk and offset are not stored: chunks hold runs
//! of files in path order, so the chunks' file counts and the sizes give both.

use crate::error::{Error, Result};

const LIST_MAGIC: &[u8; 8] = b"RLFILES1";
const CHUNK_MAGIC: &[u8; 8] = b"RLCHUNK1";

/// One file as the list gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The repository-relative path.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its lines.
    pub lines: u64,
}

/// The list's uncompressed bytes.
#[cfg(not(target_arch = "wasm32"))]
pub fn encode_list(files: &[Listed]) -> Vec<u8> {
    let mut out = LIST_MAGIC.to_vec();
    put(&mut out, files.len() as u64);
    let mut previous: &[u8] = &[];
    for file in files {
        let path = file.path.as_bytes();
        let shared = previous
            .iter()
            .zip(path)
            .take_while(|(a, b)| a == b)
            .count();
        put(&mut out, shared as u64);
        put(&mut out, (path.len() - shared) as u64);
        out.extend_from_slice(&path[shared..]);
        put(&mut out, file.bytes);
        put(&mut out, file.lines);
        previous = path;
    }
    out
}

/// Reads the list's uncompressed bytes, naming `file` when they are not a list.
pub fn decode_list(file: &str, raw: &[u8]) -> Result<Vec<Listed>> {
    let broken = |what: String| Error::Parse {
        file: file.to_string(),
        message: format!("not a routelens file list: {what}"),
    };
    let mut rest = raw
        .strip_prefix(LIST_MAGIC.as_slice())
        .ok_or_else(|| broken("it does not start with RLFILES1".into()))?;
    let count = take(&mut rest).ok_or_else(|| broken("no count".into()))?;
    // Each file takes at least four bytes, so a count past that is refused before allocating.
    if count > rest.len() as u64 / 4 {
        return Err(broken(format!("{count} files in {} bytes", rest.len())));
    }
    let mut files: Vec<Listed> = Vec::with_capacity(count as usize);
    let mut path = Vec::new();
    for at in 0..count {
        let ends = || broken(format!("it ends early, in file {at}"));
        let shared = take(&mut rest).ok_or_else(ends)? as usize;
        let length = take(&mut rest).ok_or_else(ends)? as usize;
        if shared > path.len() || length > rest.len() {
            return Err(broken(format!("file {at}'s path runs outside the list")));
        }
        path.truncate(shared);
        path.extend_from_slice(&rest[..length]);
        rest = &rest[length..];
        let text = std::str::from_utf8(&path)
            .map_err(|_| broken(format!("file {at}'s path is not UTF-8")))?;
        let bytes = take(&mut rest).ok_or_else(ends)?;
        let lines = take(&mut rest).ok_or_else(ends)?;
        files.push(Listed {
            path: text.to_string(),
            bytes,
            lines,
        });
    }
    if !rest.is_empty() {
        return Err(broken(format!("{} bytes after the last file", rest.len())));
    }
    Ok(files)
}

/// The header's length for a chunk of `count` files.
pub fn header_len(count: usize) -> usize {
    CHUNK_MAGIC.len() + 4 + 32 * count
}

/// A chunk's header: its files' SHA-256s.
#[cfg(not(target_arch = "wasm32"))]
pub fn encode_header(hashes: &[[u8; 32]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(header_len(hashes.len()));
    out.extend_from_slice(CHUNK_MAGIC);
    out.extend_from_slice(&(hashes.len() as u32).to_le_bytes());
    for hash in hashes {
        out.extend_from_slice(hash);
    }
    out
}

/// Checks a chunk's header for `count` files, naming `file`; the hashes' bytes.
pub fn decode_header<'r>(file: &str, raw: &'r [u8], count: usize) -> Result<&'r [u8]> {
    let broken = |what: String| Error::Parse {
        file: file.to_string(),
        message: format!("not a format-6 chunk: {what}"),
    };
    let rest = raw
        .strip_prefix(CHUNK_MAGIC.as_slice())
        .ok_or_else(|| broken("it does not start with RLCHUNK1".into()))?;
    let stated = rest
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| broken("no file count".into()))?;
    if stated != count {
        return Err(broken(format!(
            "its header lists {stated} files, the manifest {count}"
        )));
    }
    raw.get(CHUNK_MAGIC.len() + 4..header_len(count))
        .ok_or_else(|| broken("its header ends early".into()))
}

#[cfg(not(target_arch = "wasm32"))]
fn put(out: &mut Vec<u8>, value: u64) {
    // Writing to a Vec cannot fail.
    let _ = leb128::write::unsigned(out, value);
}

fn take(rest: &mut &[u8]) -> Option<u64> {
    leb128::read::unsigned(rest).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(path: &str, bytes: u64, lines: u64) -> Listed {
        Listed {
            path: path.into(),
            bytes,
            lines,
        }
    }

    #[test]
    fn the_list_round_trips_and_names_damage() {
        let files = [
            listed("lib/ansible/modules/copy.py", 41_000, 900),
            listed("lib/ansible/modules/cron.py", 0, 0),
            listed("lib/ansible/módulo.py", 7, 1),
            listed("z", u64::MAX, 1),
        ];
        let raw = encode_list(&files);
        assert_eq!(decode_list("f", &raw).unwrap(), files);
        assert_eq!(decode_list("f", &encode_list(&[])).unwrap(), []);
        for cut in [0, 8, 9, raw.len() - 1] {
            let error = decode_list("files/x", &raw[..cut]).unwrap_err().to_string();
            assert!(
                error.starts_with("files/x: not a routelens file list"),
                "{error}"
            );
        }
        let mut longer = raw.clone();
        longer.push(0);
        assert!(decode_list("f", &longer)
            .unwrap_err()
            .to_string()
            .contains("after"));
        // A count no list of this size could hold is refused before allocating.
        let mut huge = LIST_MAGIC.to_vec();
        put(&mut huge, u64::MAX / 2);
        assert!(decode_list("f", &huge).is_err());
    }

    #[test]
    fn the_header_holds_the_hashes_and_its_count() {
        let hashes = [[1u8; 32], [2u8; 32]];
        let mut raw = encode_header(&hashes);
        assert_eq!(raw.len(), header_len(2));
        raw.extend_from_slice(b"text");
        assert_eq!(
            decode_header("c", &raw, 2).unwrap(),
            [[1u8; 32], [2u8; 32]].concat()
        );
        let wrong = decode_header("chunks/c", &raw, 3).unwrap_err().to_string();
        assert!(wrong.contains("lists 2 files, the manifest 3"), "{wrong}");
        assert!(decode_header("c", b"RLCHUNK1", 0).is_err());
        assert!(decode_header("c", &raw[..20], 2).is_err());
    }
}
