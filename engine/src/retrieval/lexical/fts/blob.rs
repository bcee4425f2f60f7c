//! The index blob: a tantivy index's files in one byte string.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! offset 0   8 bytes    magic "RLTNTV01"
//! offset 8   u32        H, the header's length in bytes
//! offset 12  H bytes    header, JSON: {"format": "tantivy-0.27/unicode61/1", "docs": N,
//!                       "paths_sha256": "<hex>", "files": [{"name": "meta.json", "bytes": B}, …]}
//! then                  each listed file's bytes, back to back, in the header's order
//! ```
//!
//! The files are the index's `meta.json` and its one segment's component files, byte for byte
//! as tantivy wrote them (footers included), so a RAM directory filled with them is the index.
//! `paths_sha256` is the SHA-256 of the indexed paths joined with `\n`, in file-id order: the
//! reader checks it against the manifest's paths, so an index cannot be paired with the wrong
//! file list. `docs` is the number of documents.

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};

/// The blob's first bytes.
pub const MAGIC: &[u8; 8] = b"RLTNTV01";

/// The most files a blob may list (a one-segment index has fewer than ten).
const MAX_FILES: usize = 64;

/// The blob's header.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlobHeader {
    /// The index format (see [`super::INDEX_FORMAT`]).
    pub format: String,
    /// The number of indexed documents.
    pub docs: u64,
    /// SHA-256 of the indexed paths joined with `\n`.
    pub paths_sha256: String,
    /// The files, in storage order.
    pub files: Vec<BlobFileEntry>,
}

/// One file in the blob's header.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlobFileEntry {
    /// The file name in the index directory.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The hash that ties an index to its path list.
pub fn paths_sha256<S: AsRef<str>>(paths: &[S]) -> String {
    let joined: Vec<&str> = paths.iter().map(AsRef::as_ref).collect();
    sha256_hex(joined.join("\n").as_bytes())
}

/// Packs files under a header into one blob.
pub fn encode(
    format: &str,
    docs: u64,
    paths_sha256: String,
    files: &[(String, Vec<u8>)],
) -> Vec<u8> {
    let header = BlobHeader {
        format: format.to_string(),
        docs,
        paths_sha256,
        files: files
            .iter()
            .map(|(name, bytes)| BlobFileEntry {
                name: name.clone(),
                bytes: bytes.len() as u64,
            })
            .collect(),
    };
    // Serialising a struct of strings and integers cannot fail.
    let json = serde_json::to_vec(&header).unwrap_or_default();
    let mut blob =
        Vec::with_capacity(12 + json.len() + files.iter().map(|f| f.1.len()).sum::<usize>());
    blob.extend_from_slice(MAGIC);
    blob.extend_from_slice(&(json.len() as u32).to_le_bytes());
    blob.extend_from_slice(&json);
    for (_, bytes) in files {
        blob.extend_from_slice(bytes);
    }
    blob
}

/// A decoded blob's files: name and bytes, borrowed from the blob.
pub type BlobFiles<'b> = Vec<(String, &'b [u8])>;

/// Splits a blob into its header and files, refusing anything malformed (the error names
/// `file`, the blob's name in the bundle).
pub fn decode<'b>(file: &str, blob: &'b [u8]) -> Result<(BlobHeader, BlobFiles<'b>)> {
    let bad = |message: String| Error::Index {
        file: file.to_string(),
        message,
    };
    if blob.len() < 12 || &blob[..8] != MAGIC {
        return Err(bad("not a routelens index blob (bad magic)".into()));
    }
    let header_len = u32::from_le_bytes([blob[8], blob[9], blob[10], blob[11]]) as usize;
    let body_start = 12usize
        .checked_add(header_len)
        .filter(|&end| end <= blob.len())
        .ok_or_else(|| bad(format!("header of {header_len} bytes runs past the end")))?;
    let header: BlobHeader = serde_json::from_slice(&blob[12..body_start])
        .map_err(|error| bad(format!("bad header: {error}")))?;
    if header.files.len() > MAX_FILES {
        return Err(bad(format!("{} files listed", header.files.len())));
    }
    let mut files = Vec::with_capacity(header.files.len());
    let mut at = body_start;
    for entry in &header.files {
        if entry.name.is_empty() || entry.name.contains(['/', '\\']) || entry.name.starts_with("..")
        {
            return Err(bad(format!("bad file name {:?}", entry.name)));
        }
        let end = usize::try_from(entry.bytes)
            .ok()
            .and_then(|len| at.checked_add(len))
            .filter(|&end| end <= blob.len())
            .ok_or_else(|| bad(format!("{} runs past the end of the blob", entry.name)))?;
        files.push((entry.name.clone(), &blob[at..end]));
        at = end;
    }
    if at != blob.len() {
        return Err(bad(format!("{} trailing bytes", blob.len() - at)));
    }
    Ok((header, files))
}

/// The tantivy index whose files a decoded blob holds, in a RAM directory (errors name `file`).
pub fn open_index(file: &str, files: BlobFiles) -> Result<tantivy::Index> {
    let err = |error: &dyn std::fmt::Display| Error::Index {
        file: file.to_string(),
        message: error.to_string(),
    };
    let directory = tantivy::directory::RamDirectory::create();
    for (name, bytes) in files {
        tantivy::Directory::atomic_write(&directory, std::path::Path::new(&name), bytes)
            .map_err(|e| err(&e))?;
    }
    tantivy::Index::open(directory).map_err(|e| err(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_damage() {
        let files = vec![
            ("meta.json".to_string(), b"{}".to_vec()),
            ("a.idx".to_string(), vec![1, 2, 3]),
        ];
        let blob = encode("f/1", 2, paths_sha256(&["a", "b"]), &files);
        let (header, decoded) = decode("i", &blob).unwrap();
        assert_eq!(header.format, "f/1");
        assert_eq!(header.docs, 2);
        assert_eq!(header.paths_sha256, sha256_hex(b"a\nb"));
        assert_eq!(
            decoded,
            [
                ("meta.json".to_string(), &b"{}"[..]),
                ("a.idx".to_string(), &[1, 2, 3][..])
            ]
        );
        assert!(decode("i", &blob[..blob.len() - 1])
            .unwrap_err()
            .to_string()
            .contains("past the end"));
        let mut longer = blob.clone();
        longer.push(0);
        assert!(decode("i", &longer)
            .unwrap_err()
            .to_string()
            .contains("1 trailing bytes"));
        assert!(decode("i", b"RLTNTV01\xff\xff\xff\xff").is_err());
        let error = decode("index/x.tantivy", b"garbage")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "index/x.tantivy: search index: not a routelens index blob (bad magic)"
        );
        let sneaky = encode("f", 0, String::new(), &[("../x".to_string(), vec![])]);
        assert!(decode("i", &sneaky)
            .unwrap_err()
            .to_string()
            .contains("bad file name"));
    }
}
