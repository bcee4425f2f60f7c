//! The bundle disk format, shared by the bundler (which writes it) and the app (which reads it).
//!
//! A bundle is a folder of immutable files. Only `manifest.json` has a fixed name; every other
//! file is named by the SHA-256 of its bytes, so it can be cached forever and a changed file is a
//! new file:
//!
//! ```text
//! manifest.json                  Manifest: format version, source, commit, tool version,
//!                                policy and its counts, files, chunks, index
//! chunks/<sha256>.deflate        file contents, packed in path order (see `chunk`)
//! index/<sha256>.tantivy.deflate the search index blob, DEFLATE-compressed (optional; see
//!                                `lexical::fts`); format 1 stored it raw as
//!                                `index/<sha256>.tantivy`
//! ```
//!
//! Format 2 compresses the index (a tantivy index is bit-packed but its term dictionary is not:
//! DEFLATE takes a third off), because the index is what the first search must fetch. This
//! build writes format 2 and reads both.
//!
//! The directory tree is not a separate file: the manifest lists every path, sorted, and
//! [`DirTree::from_paths`] derives the tree from them. The app fetches `manifest.json` first,
//! the index on the first search, and a chunk when one of its files is shown or searched.
//!
//! This module only turns values into bytes and back; the bundler does the file I/O. Decoding
//! verifies as it goes: [`Manifest::open_chunk`] refuses a chunk whose bytes do not hash to the
//! manifest's value, [`Manifest::file_text`] refuses a file whose bytes do not, and
//! [`Manifest::open_index`] does the same for the index, each with an
//! [`Error::ManifestHash`] naming the file.

mod chunk;
mod tree;

use std::collections::BTreeMap;

pub use chunk::{
    compress, decompress, plan_chunks, Placement, DEFAULT_CHUNK_TARGET_BYTES,
    DEFAULT_COMPRESSION_LEVEL,
};
pub use tree::DirTree;

use crate::archive::sha256_hex;
use crate::error::{Error, Result};
use crate::policy::{Decision, ExclusionReason, Policy};

/// The format version this build writes.
pub const FORMAT_VERSION: u32 = 2;

/// The format versions this build reads.
pub const READ_VERSIONS: [u32; 2] = [1, 2];

/// The manifest's file name in the bundle folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// `manifest.json`: everything about a bundle except the bytes of its files.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The bundle format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Where the files came from, as the bundler was told (a directory or repository name).
    pub source: String,
    /// The git commit the files were read at, when the source is a git repository.
    pub commit: Option<String>,
    /// The tool that wrote the bundle and its version (`routelens 0.1.0`).
    pub tool_version: String,
    /// The searchable-file policy the files passed.
    pub policy: Policy,
    /// How many files each policy rule excluded. Path rules count every file under an excluded
    /// directory when the bundler walked it, or the directory once when it pruned it unread;
    /// the bundler documents which.
    pub excluded: BTreeMap<ExclusionReason, u64>,
    /// The files excluded by a content rule (size, binary, not UTF-8) or as symbolic links, so a
    /// gold file missing from the bundle can be explained. Path-rule exclusions are not listed:
    /// [`Policy::check_path`] re-derives them, and there can be very many (`node_modules`).
    pub excluded_files: Vec<ExcludedFile>,
    /// The searchable files, sorted by path (byte order), unique.
    pub files: Vec<FileEntry>,
    /// The chunk files, in packing order.
    pub chunks: Vec<ChunkEntry>,
    /// The search index blob, when the bundle has one.
    pub index: Option<IndexEntry>,
}

/// One searchable file, as listed in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// The repository-relative path, `/`-separated.
    pub path: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The number of lines: newlines, plus one when the last line has no newline.
    pub lines: u64,
    /// SHA-256 of the file's bytes, lower-case hex.
    pub sha256: String,
    /// The chunk holding the file: an index into [`Manifest::chunks`].
    pub chunk: u32,
    /// The file's first byte in the chunk's uncompressed bytes.
    pub offset: u64,
}

/// One file excluded by a content rule, as listed in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExcludedFile {
    /// The repository-relative path.
    pub path: String,
    /// Why it is out.
    pub reason: ExclusionReason,
}

/// One chunk file, `chunks/<sha256>.deflate`, as listed in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkEntry {
    /// The file's name relative to the bundle folder.
    pub file: String,
    /// SHA-256 of the stored (compressed) bytes; also the file name's stem.
    pub sha256: String,
    /// The stored size in bytes.
    pub bytes: u64,
    /// The size after decompression: the sum of its files' sizes.
    pub raw_bytes: u64,
}

/// The index blob, `index/<sha256>.tantivy.deflate`, as listed in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// The file's name relative to the bundle folder.
    pub file: String,
    /// SHA-256 of the stored bytes; also the file name's stem.
    pub sha256: String,
    /// The stored size in bytes.
    pub bytes: u64,
    /// The blob's size after decompression; absent when the blob is stored raw (format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_bytes: Option<u64>,
    /// What reads it: the index format the searcher checks before opening
    /// (`tantivy-0.27/unicode61/1`).
    pub format: String,
}

/// One file to put in a bundle: a policy-passing path and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The repository-relative path.
    pub path: String,
    /// The file's bytes (UTF-8 text, by the policy).
    pub bytes: Vec<u8>,
}

/// What the bundler hands [`encode_bundle`].
#[derive(Debug, Clone, Default)]
pub struct BundleInput {
    /// See [`Manifest::source`].
    pub source: String,
    /// See [`Manifest::commit`].
    pub commit: Option<String>,
    /// See [`Manifest::tool_version`].
    pub tool_version: String,
    /// The policy the files passed; [`encode_bundle`] checks every file against it.
    pub policy: Policy,
    /// See [`Manifest::excluded`].
    pub excluded: BTreeMap<ExclusionReason, u64>,
    /// See [`Manifest::excluded_files`].
    pub excluded_files: Vec<ExcludedFile>,
    /// The searchable files, in any order.
    pub files: Vec<SourceFile>,
    /// The index blob and its format string, when the bundle has an index.
    pub index: Option<(Vec<u8>, String)>,
}

/// Packing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleOptions {
    /// Uncompressed bytes to aim for per chunk (default [`DEFAULT_CHUNK_TARGET_BYTES`], 256 KiB).
    pub chunk_target_bytes: usize,
    /// DEFLATE level 0–10 (default [`DEFAULT_COMPRESSION_LEVEL`], 6).
    pub compression_level: u8,
}

impl Default for BundleOptions {
    fn default() -> Self {
        BundleOptions {
            chunk_target_bytes: DEFAULT_CHUNK_TARGET_BYTES,
            compression_level: DEFAULT_COMPRESSION_LEVEL,
        }
    }
}

/// One file of the bundle folder, ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// The name relative to the bundle folder (`manifest.json`, `chunks/….deflate`).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A bundle as values and as files.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedBundle {
    /// The manifest.
    pub manifest: Manifest,
    /// Every file of the folder: `manifest.json` first, then the chunks, then the index.
    pub files: Vec<BundleFile>,
}

/// Builds a bundle from searchable files: sorts them, packs them into chunks, hashes everything
/// and writes the manifest. Refuses a duplicate path or a file the policy excludes, naming it.
pub fn encode_bundle(input: BundleInput, options: BundleOptions) -> Result<EncodedBundle> {
    let BundleInput {
        source,
        commit,
        tool_version,
        policy,
        excluded,
        excluded_files,
        mut files,
        index,
    } = input;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for pair in files.windows(2) {
        if pair[0].path == pair[1].path {
            return Err(Error::field(
                &pair[0].path,
                "path",
                "listed twice in the bundle input",
            ));
        }
    }
    for file in &files {
        if let Decision::Excluded(reason) = policy.check(&file.path, &file.bytes) {
            return Err(Error::field(
                &file.path,
                "policy",
                format!("excluded by the bundle's policy ({reason}); it cannot be bundled"),
            ));
        }
    }
    let sizes: Vec<usize> = files.iter().map(|file| file.bytes.len()).collect();
    let placements = plan_chunks(&sizes, options.chunk_target_bytes.max(1));
    let chunk_count = placements.last().map_or(0, |last| last.chunk + 1);
    let mut raw_chunks: Vec<Vec<u8>> = vec![Vec::new(); chunk_count];
    let mut entries = Vec::with_capacity(files.len());
    for (file, placement) in files.iter().zip(&placements) {
        raw_chunks[placement.chunk].extend_from_slice(&file.bytes);
        entries.push(FileEntry {
            path: file.path.clone(),
            bytes: file.bytes.len() as u64,
            lines: count_lines(&file.bytes),
            sha256: sha256_hex(&file.bytes),
            chunk: placement.chunk as u32,
            offset: placement.offset as u64,
        });
    }
    let mut out = Vec::with_capacity(chunk_count + 2);
    let mut chunks = Vec::with_capacity(chunk_count);
    for raw in &raw_chunks {
        let stored = compress(raw, options.compression_level);
        let sha256 = sha256_hex(&stored);
        let file = format!("chunks/{sha256}.deflate");
        chunks.push(ChunkEntry {
            file: file.clone(),
            sha256,
            bytes: stored.len() as u64,
            raw_bytes: raw.len() as u64,
        });
        out.push(BundleFile {
            name: file,
            bytes: stored,
        });
    }
    let index = index.map(|(blob, format)| {
        let stored = StoredIndex::new(&blob, format, options.compression_level);
        out.push(stored.file);
        stored.entry
    });
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        source,
        commit,
        tool_version,
        policy,
        excluded,
        excluded_files,
        files: entries,
        chunks,
        index,
    };
    out.insert(
        0,
        BundleFile {
            name: MANIFEST_FILE.to_string(),
            bytes: manifest_json(&manifest)?,
        },
    );
    Ok(EncodedBundle {
        manifest,
        files: out,
    })
}

/// `manifest.json`'s bytes: the manifest as compact JSON and a newline.
fn manifest_json(manifest: &Manifest) -> Result<Vec<u8>> {
    let mut json = serde_json::to_vec(manifest).map_err(|error| Error::Parse {
        file: MANIFEST_FILE.to_string(),
        message: error.to_string(),
    })?;
    json.push(b'\n');
    Ok(json)
}

/// An index blob compressed for a bundle, with its manifest entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredIndex {
    /// The manifest's `index` entry.
    pub entry: IndexEntry,
    /// The file to write, `index/<sha256>.tantivy.deflate`.
    pub file: BundleFile,
}

impl StoredIndex {
    /// Compresses `blob` at DEFLATE `level` and names it by the hash of the stored bytes.
    pub fn new(blob: &[u8], format: String, level: u8) -> StoredIndex {
        let stored = compress(blob, level);
        let sha256 = sha256_hex(&stored);
        let file = format!("index/{sha256}.tantivy.deflate");
        StoredIndex {
            entry: IndexEntry {
                file: file.clone(),
                sha256,
                bytes: stored.len() as u64,
                raw_bytes: Some(blob.len() as u64),
                format,
            },
            file: BundleFile {
                name: file,
                bytes: stored,
            },
        }
    }
}

impl EncodedBundle {
    /// The same bundle with this index (replacing any it had): the manifest's `index` entry names
    /// it and `manifest.json` is rewritten. The result equals passing the blob to
    /// [`encode_bundle`] in [`BundleInput::index`]; this lets a caller build and compress the
    /// index while the chunks are being compressed.
    pub fn with_index(mut self, index: StoredIndex) -> Result<EncodedBundle> {
        if let Some(old) = self.manifest.index.take() {
            self.files.retain(|file| file.name != old.file);
        }
        self.manifest.index = Some(index.entry);
        self.files.push(index.file);
        let json = manifest_json(&self.manifest)?;
        match self
            .files
            .iter_mut()
            .find(|file| file.name == MANIFEST_FILE)
        {
            Some(manifest) => manifest.bytes = json,
            None => self.files.insert(
                0,
                BundleFile {
                    name: MANIFEST_FILE.to_string(),
                    bytes: json,
                },
            ),
        }
        Ok(self)
    }
}

/// Lines as the manifest counts them: newlines, plus one when the last line has no newline.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&byte| byte == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&byte| byte != b'\n'))
}

/// Parses and checks `manifest.json`: the format version first (so a newer bundle says so
/// rather than failing on a new field), then the fields, then that the paths are clean, sorted
/// and unique, that every hash is 64 hex digits, every hashed file is named by its hash, and
/// every file lies inside its chunk.
pub fn decode_manifest(bytes: &[u8]) -> Result<Manifest> {
    let file = MANIFEST_FILE;
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| Error::Parse {
        file: file.to_string(),
        message: format!("invalid JSON: {error}"),
    })?;
    match value
        .get("format_version")
        .and_then(serde_json::Value::as_u64)
    {
        Some(version) if READ_VERSIONS.iter().any(|&read| u64::from(read) == version) => {}
        Some(version) => {
            return Err(Error::field(
                file,
                "format_version",
                format!("bundle format {version}; this build reads formats {READ_VERSIONS:?}"),
            ))
        }
        None => {
            return Err(Error::field(
                file,
                "format_version",
                "missing or not a number",
            ))
        }
    }
    let manifest: Manifest = serde_path_to_error::deserialize(value).map_err(|error| {
        let field = error.path().to_string();
        Error::field(file, field, error.into_inner().to_string())
    })?;
    manifest.check()?;
    Ok(manifest)
}

/// A chunk's verified, decompressed bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    index: usize,
    raw: Vec<u8>,
}

impl Chunk {
    /// The chunk's position in [`Manifest::chunks`].
    pub fn index(&self) -> usize {
        self.index
    }
}

impl Manifest {
    /// The entry of a path, by binary search over the sorted file list.
    pub fn file(&self, path: &str) -> Option<&FileEntry> {
        self.files
            .binary_search_by(|entry| entry.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// Every path, sorted.
    pub fn paths(&self) -> Vec<String> {
        self.files.iter().map(|entry| entry.path.clone()).collect()
    }

    /// The directory tree of the bundle's files.
    pub fn tree(&self) -> DirTree {
        DirTree::from_paths(&self.paths())
    }

    /// The files stored in chunk `index`, in path order.
    pub fn files_in_chunk(&self, index: usize) -> impl Iterator<Item = &FileEntry> {
        self.files
            .iter()
            .filter(move |entry| entry.chunk as usize == index)
    }

    /// The sum of the searchable files' sizes.
    pub fn raw_bytes(&self) -> u64 {
        self.files.iter().map(|entry| entry.bytes).sum()
    }

    /// The size of the bundle folder: the given manifest size plus every chunk and the index.
    pub fn stored_bytes(&self, manifest_bytes: u64) -> u64 {
        manifest_bytes
            + self.chunks.iter().map(|chunk| chunk.bytes).sum::<u64>()
            + self.index.as_ref().map_or(0, |index| index.bytes)
    }

    /// Verifies the stored bytes of chunk `index` against the manifest and decompresses them.
    pub fn open_chunk(&self, index: usize, stored: &[u8]) -> Result<Chunk> {
        let entry = self.chunks.get(index).ok_or_else(|| {
            Error::setting(
                "chunk",
                index,
                &format!("0 to {} (the manifest's chunks)", self.chunks.len()),
            )
        })?;
        verify_hash(&entry.file, &entry.sha256, stored)?;
        let raw = decompress(&entry.file, stored, entry.raw_bytes as usize)?;
        Ok(Chunk { index, raw })
    }

    /// The text of `path` from its (already opened) chunk, after checking its SHA-256.
    pub fn file_text<'c>(&self, chunk: &'c Chunk, path: &str) -> Result<&'c str> {
        let entry = self
            .file(path)
            .ok_or_else(|| Error::field(MANIFEST_FILE, "files", format!("no file {path:?}")))?;
        if entry.chunk as usize != chunk.index {
            return Err(Error::field(
                path,
                "chunk",
                format!("stored in chunk {}, not chunk {}", entry.chunk, chunk.index),
            ));
        }
        // `check` proved the range lies inside the chunk's raw size, and `open_chunk` proved
        // the raw size; `get` keeps this panic-free regardless.
        let start = entry.offset as usize;
        let bytes = chunk
            .raw
            .get(start..start + entry.bytes as usize)
            .ok_or_else(|| Error::field(path, "offset", "outside its chunk"))?;
        verify_hash(path, &entry.sha256, bytes)?;
        std::str::from_utf8(bytes).map_err(|error| Error::Parse {
            file: path.to_string(),
            message: format!("not UTF-8: {error}"),
        })
    }

    /// Every file's text, given every chunk's stored bytes in manifest order; each chunk and
    /// each file is verified.
    pub fn read_all<B: AsRef<[u8]>>(&self, chunks: &[B]) -> Result<Vec<(String, String)>> {
        if chunks.len() != self.chunks.len() {
            return Err(Error::field(
                MANIFEST_FILE,
                "chunks",
                format!(
                    "{} chunks supplied, the manifest lists {}",
                    chunks.len(),
                    self.chunks.len()
                ),
            ));
        }
        let opened = chunks
            .iter()
            .enumerate()
            .map(|(index, stored)| self.open_chunk(index, stored.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        self.files
            .iter()
            .map(|entry| {
                let text = self.file_text(&opened[entry.chunk as usize], &entry.path)?;
                Ok((entry.path.clone(), text.to_string()))
            })
            .collect()
    }

    /// Verifies the index file's stored bytes against the manifest and returns its entry and
    /// the blob (decompressed when the manifest gives a raw size).
    pub fn open_index(&self, stored: &[u8]) -> Result<(&IndexEntry, Vec<u8>)> {
        let entry = self.index.as_ref().ok_or_else(|| {
            Error::field(MANIFEST_FILE, "index", "this bundle has no search index")
        })?;
        verify_hash(&entry.file, &entry.sha256, stored)?;
        let blob = match entry.raw_bytes {
            Some(raw_bytes) => decompress(&entry.file, stored, raw_bytes as usize)?,
            None => stored.to_vec(),
        };
        Ok((entry, blob))
    }

    fn check(&self) -> Result<()> {
        let file = MANIFEST_FILE;
        let path_rules = Policy {
            max_file_bytes: u64::MAX,
            excluded_dirs: Vec::new(),
        };
        for (index, entry) in self.files.iter().enumerate() {
            let field = |name: &str| format!("files[{index}].{name}");
            if path_rules.check_path(&entry.path) == Some(ExclusionReason::BadPath) {
                return Err(Error::field(
                    file,
                    field("path"),
                    format!("{:?} is not a clean relative path", entry.path),
                ));
            }
            if index > 0 && self.files[index - 1].path >= entry.path {
                return Err(Error::field(
                    file,
                    field("path"),
                    format!("{:?} is out of order or repeated", entry.path),
                ));
            }
            check_hex(&entry.sha256, &field("sha256"))?;
            let chunk = self.chunks.get(entry.chunk as usize).ok_or_else(|| {
                Error::field(
                    file,
                    field("chunk"),
                    format!("chunk {} does not exist", entry.chunk),
                )
            })?;
            if entry
                .offset
                .checked_add(entry.bytes)
                .is_none_or(|end| end > chunk.raw_bytes)
            {
                return Err(Error::field(
                    file,
                    field("offset"),
                    format!("the file does not fit in chunk {}", entry.chunk),
                ));
            }
        }
        for (index, chunk) in self.chunks.iter().enumerate() {
            let field = format!("chunks[{index}]");
            check_hex(&chunk.sha256, &format!("{field}.sha256"))?;
            check_named(&chunk.file, "chunks/", &chunk.sha256, ".deflate", &field)?;
        }
        if let Some(index) = &self.index {
            check_hex(&index.sha256, "index.sha256")?;
            let suffix = if index.raw_bytes.is_some() {
                ".tantivy.deflate"
            } else {
                ".tantivy"
            };
            check_named(&index.file, "index/", &index.sha256, suffix, "index")?;
        }
        Ok(())
    }
}

fn verify_hash(file: &str, expected: &str, bytes: &[u8]) -> Result<()> {
    let actual = sha256_hex(bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(Error::ManifestHash {
            file: file.to_string(),
            expected: expected.to_string(),
            actual,
        })
    }
}

fn check_hex(value: &str, field: &str) -> Result<()> {
    if value.len() == 64
        && value
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    {
        Ok(())
    } else {
        Err(Error::field(
            MANIFEST_FILE,
            field,
            format!("{value:?} is not a SHA-256 in lower-case hex"),
        ))
    }
}

fn check_named(name: &str, dir: &str, sha256: &str, ext: &str, field: &str) -> Result<()> {
    if name == format!("{dir}{sha256}{ext}") {
        Ok(())
    } else {
        Err(Error::field(
            MANIFEST_FILE,
            format!("{field}.file"),
            format!("{name:?} should be named {dir}{sha256}{ext}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(files: &[(&str, &str)]) -> BundleInput {
        BundleInput {
            source: "demo".into(),
            commit: Some("0123abc".into()),
            tool_version: "routelens test".into(),
            excluded: [(ExclusionReason::Hidden, 3), (ExclusionReason::Binary, 1)].into(),
            excluded_files: vec![ExcludedFile {
                path: "logo.png".into(),
                reason: ExclusionReason::Binary,
            }],
            files: files
                .iter()
                .map(|(path, text)| SourceFile {
                    path: path.to_string(),
                    bytes: text.as_bytes().to_vec(),
                })
                .collect(),
            ..BundleInput::default()
        }
    }

    fn small_chunks() -> BundleOptions {
        BundleOptions {
            chunk_target_bytes: 16,
            ..BundleOptions::default()
        }
    }

    const FILES: &[(&str, &str)] = &[
        ("src/main.rs", "fn main() {}\n"),
        ("README.md", "# Demo\nno newline at end"),
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("empty.txt", ""),
    ];

    #[test]
    fn round_trips_through_bytes() {
        let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
        let names: Vec<&str> = encoded.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names[0], MANIFEST_FILE);
        assert!(names[1..].iter().all(|name| name.starts_with("chunks/")));
        let manifest = decode_manifest(&encoded.files[0].bytes).unwrap();
        assert_eq!(manifest, encoded.manifest);
        assert_eq!(
            manifest.paths(),
            ["README.md", "empty.txt", "src/lib.rs", "src/main.rs"]
        );
        let readme = manifest.file("README.md").unwrap();
        assert_eq!((readme.bytes, readme.lines), (24, 2));
        assert_eq!(manifest.file("empty.txt").unwrap().lines, 0);
        assert_eq!(manifest.file("src/lib.rs").unwrap().lines, 2);
        assert_eq!(manifest.excluded[&ExclusionReason::Hidden], 3);
        // 24 bytes alone; then 0 + 22 (> 16 only after the empty file); then 13.
        assert_eq!(manifest.chunks.len(), 3);
        let stored: Vec<&[u8]> = encoded.files[1..].iter().map(|f| &f.bytes[..]).collect();
        let mut texts = manifest.read_all(&stored).unwrap();
        texts.sort();
        let mut expected: Vec<(String, String)> = FILES
            .iter()
            .map(|(path, text)| (path.to_string(), text.to_string()))
            .collect();
        expected.sort();
        assert_eq!(texts, expected);
        assert_eq!(manifest.raw_bytes(), 24 + 13 + 22);
        assert_eq!(
            manifest.tree().find("src").unwrap().files,
            ["lib.rs", "main.rs"]
        );
    }

    #[test]
    fn one_chunk_serves_one_file() {
        let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
        let manifest = &encoded.manifest;
        let entry = manifest.file("src/main.rs").unwrap();
        let chunk_file = &manifest.chunks[entry.chunk as usize].file;
        let stored = &encoded
            .files
            .iter()
            .find(|f| &f.name == chunk_file)
            .unwrap()
            .bytes;
        let chunk = manifest.open_chunk(entry.chunk as usize, stored).unwrap();
        assert_eq!(
            manifest.file_text(&chunk, "src/main.rs").unwrap(),
            "fn main() {}\n"
        );
        let wrong = manifest.file_text(&chunk, "README.md").unwrap_err();
        assert!(wrong.to_string().contains("stored in chunk 0"), "{wrong}");
    }

    #[test]
    fn refuses_tampered_chunks_and_files_naming_them() {
        let encoded = encode_bundle(input(FILES), BundleOptions::default()).unwrap();
        let manifest = &encoded.manifest;
        assert_eq!(manifest.chunks.len(), 1);
        let mut stored = encoded.files[1].bytes.clone();
        stored[0] ^= 1;
        let error = manifest.open_chunk(0, &stored).unwrap_err();
        assert!(
            matches!(&error, Error::ManifestHash { file, .. } if file == &manifest.chunks[0].file)
        );
        assert!(error.to_string().contains("SHA-256 mismatch"), "{error}");
        // A manifest whose file hash is wrong: the chunk passes, the file is refused by name.
        let mut altered = manifest.clone();
        altered.files[2].sha256 = "0".repeat(64);
        let chunk = altered.open_chunk(0, &encoded.files[1].bytes).unwrap();
        let error = altered.file_text(&chunk, "src/lib.rs").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("src/lib.rs: SHA-256 mismatch"),
            "{error}"
        );
        assert!(altered.read_all(&[&encoded.files[1].bytes]).is_err());
    }

    #[test]
    fn index_blob_is_compressed_hashed_named_and_verified() {
        let mut bundle = input(FILES);
        let blob = b"blob blob blob blob blob".to_vec();
        bundle.index = Some((blob.clone(), "test/1".into()));
        let encoded = encode_bundle(bundle, BundleOptions::default()).unwrap();
        let manifest = decode_manifest(&encoded.files[0].bytes).unwrap();
        let entry = manifest.index.clone().unwrap();
        let stored = &encoded.files.last().unwrap().bytes;
        assert_eq!(
            entry.file,
            format!("index/{}.tantivy.deflate", sha256_hex(stored))
        );
        assert_eq!(encoded.files.last().unwrap().name, entry.file);
        assert_eq!(entry.raw_bytes, Some(blob.len() as u64));
        assert!(stored.len() < blob.len());
        let (opened, raw) = manifest.open_index(stored).unwrap();
        assert_eq!((opened.format.as_str(), raw), ("test/1", blob));
        let mut damaged = stored.clone();
        damaged.push(0);
        let error = manifest.open_index(&damaged).unwrap_err();
        assert!(error.to_string().starts_with(&entry.file), "{error}");
        let raw = manifest.raw_bytes();
        assert_eq!(
            manifest.stored_bytes(10),
            10 + manifest.chunks[0].bytes + entry.bytes
        );
        assert!(raw > 0);
    }

    #[test]
    fn reads_a_format_1_manifest_with_a_raw_index() {
        let mut value = manifest_value();
        value["format_version"] = 1.into();
        let sha = sha256_hex(b"blob");
        value["index"] = serde_json::json!({
            "file": format!("index/{sha}.tantivy"),
            "sha256": sha,
            "bytes": 4,
            "format": "test/1",
        });
        let manifest = decode_manifest(value.to_string().as_bytes()).unwrap();
        let (entry, raw) = manifest.open_index(b"blob").unwrap();
        assert_eq!((entry.raw_bytes, raw), (None, b"blob".to_vec()));
        // A raw index must not carry the compressed name, nor the reverse.
        value["index"]["file"] = format!("index/{sha}.tantivy.deflate").into();
        assert!(decode_manifest(value.to_string().as_bytes()).is_err());
    }

    #[test]
    fn an_index_added_later_gives_the_same_bundle() {
        let level = small_chunks().compression_level;
        let mut with = input(FILES);
        with.index = Some((b"blob".to_vec(), "test/1".into()));
        let at_once = encode_bundle(with, small_chunks()).unwrap();
        let later = encode_bundle(input(FILES), small_chunks())
            .unwrap()
            .with_index(StoredIndex::new(b"blob", "test/1".into(), level))
            .unwrap();
        assert_eq!(later, at_once);
        // Replacing an index drops the old blob's file.
        let other = StoredIndex::new(b"other", "test/2".into(), level);
        let other_bytes = other.file.bytes.clone();
        let replaced = at_once.with_index(other).unwrap();
        assert_eq!(replaced.files.len(), later.files.len());
        let old = &later.manifest.index.as_ref().unwrap().file;
        assert!(!replaced.files.iter().any(|file| &file.name == old));
        let manifest = decode_manifest(&replaced.files[0].bytes).unwrap();
        assert_eq!(
            manifest.open_index(&other_bytes).unwrap().0.format,
            "test/2"
        );
    }

    #[test]
    fn refuses_bad_inputs() {
        let twice = input(&[("a", "x"), ("a", "y")]);
        let error = encode_bundle(twice, BundleOptions::default()).unwrap_err();
        assert!(error.to_string().contains("listed twice"), "{error}");
        let hidden = input(&[(".env", "x")]);
        let error = encode_bundle(hidden, BundleOptions::default()).unwrap_err();
        assert!(
            error.to_string().starts_with(".env: field policy"),
            "{error}"
        );
        let binary = BundleInput {
            files: vec![SourceFile {
                path: "a.bin".into(),
                bytes: vec![0, 1],
            }],
            ..BundleInput::default()
        };
        assert!(encode_bundle(binary, BundleOptions::default()).is_err());
    }

    fn manifest_value() -> serde_json::Value {
        let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
        serde_json::from_slice(&encoded.files[0].bytes).unwrap()
    }

    fn decode_error(value: &serde_json::Value) -> String {
        decode_manifest(&serde_json::to_vec(value).unwrap())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn refuses_malformed_manifests() {
        assert!(decode_manifest(b"{")
            .unwrap_err()
            .to_string()
            .contains("invalid JSON"));
        let mut value = manifest_value();
        value["format_version"] = 3.into();
        assert!(
            decode_error(&value).contains("bundle format 3; this build reads formats [1, 2]"),
            "{}",
            decode_error(&value)
        );
        let mut value = manifest_value();
        value["surprise"] = 1.into();
        assert!(decode_error(&value).contains("unknown field"));
        let mut value = manifest_value();
        value["files"][1]["path"] = "../etc/passwd".into();
        assert!(decode_error(&value).contains("files[1].path"));
        let mut value = manifest_value();
        value["files"][1]["path"] = "A".into();
        assert!(decode_error(&value).contains("out of order"));
        let mut value = manifest_value();
        value["files"][0]["sha256"] = "XYZ".into();
        assert!(decode_error(&value).contains("files[0].sha256"));
        let mut value = manifest_value();
        value["files"][0]["chunk"] = 99.into();
        assert!(decode_error(&value).contains("chunk 99 does not exist"));
        let mut value = manifest_value();
        value["files"][0]["offset"] = u64::MAX.into();
        assert!(decode_error(&value).contains("does not fit"));
        let mut value = manifest_value();
        value["chunks"][0]["file"] = "chunks/other.deflate".into();
        assert!(decode_error(&value).contains("chunks[0].file"));
        let mut value = manifest_value();
        value["files"][0]["bytes"] = "many".into();
        assert!(decode_error(&value).contains("files[0].bytes"));
    }

    #[test]
    fn counts_lines() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
    }
}
