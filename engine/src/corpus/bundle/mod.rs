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
//!                                `index/<sha256>.tantivy`; also each chunking's chunk index
//! chunkings/<sha256>.json.deflate each chunker's table of code chunks (format 3; see
//!                                `chunkings`)
//! vectors/<sha256>.f16           a chunking's embedding vectors, and the question set's
//!                                (format 4; see `vectors`)
//! files/<sha256>.deflate         the file list: paths, sizes and lines (format 6, in place of
//!                                the manifest's `files`; see `listing`)
//! index/<sha256>.base.deflate    the split index's base file, and its packs
//! index/<sha256>.postings.deflate (format 5, in place of the blob; see `lexical::fts::split`)
//! index/<sha256>.positions.deflate
//! chunks/<sha256>.zst            a version pack: every version of a run of paths across a
//!                                merged site's snapshots (format 7; see `versions`)
//! ```
//!
//! Format 2 compresses the index (a tantivy index is bit-packed but its term dictionary is not:
//! DEFLATE takes a third off), because the index is what the first search must fetch. Format 3
//! adds the chunkings, format 4 their embedding vectors (the model that made them named, so
//! another model's are refused), format 5 the split index: a base file and packs fetched by
//! need instead of the blob. Format 6 takes the file list out of `manifest.json`, which a
//! search always fetches first (3.28 MB for ansible's 16,128 files, most of it each file's hash
//! and place): the paths, sizes and lines go to a compact file of their own, each file's SHA-256
//! into the header of the chunk that holds it, and its place is derived (chunks hold runs of
//! files in path order, so a chunk's file count and the sizes give every offset). Format 6 also
//! cuts chunks where the files say, not where a running total lands, so a snapshot of the same
//! repository at another commit stores most chunks byte for byte again (see `chunk`). This
//! build writes format 6 (4 with `--no-split`, today's layout for comparison) and reads all seven.
//! Format 7 is what `routelens merge` makes of format-6 snapshots when asked: their texts in
//! version packs shared by every snapshot (`--versions`), and no stored index (`--derive-index`),
//! so that eight snapshots of a repository cost about one.
//!
//! The directory tree is not a separate file: the manifest lists every path, sorted, and the
//! files its policy kept out by content, and [`Manifest::tree`] derives the walks' tree from them. The app fetches `manifest.json` first,
//! the file list with it (format 6), the index on the first search, and a chunk when one of
//! its files is shown or searched.
//!
//! This module only turns values into bytes and back; the bundler does the file I/O. Decoding
//! verifies as it goes: [`Manifest::open_chunk`] refuses a chunk whose bytes do not hash to the
//! manifest's value, [`Manifest::file_text`] refuses a file whose bytes do not, and
//! [`Manifest::open_index`] does the same for the index, each with an
//! [`Error::ManifestHash`] naming the file.

mod chunk;
mod chunkings;
mod decode;
#[cfg(not(target_arch = "wasm32"))]
mod encode;
mod listing;
#[cfg(test)]
mod tests;
mod tree;
mod vectors;
mod versions;

use std::collections::BTreeMap;

#[cfg(not(target_arch = "wasm32"))]
pub use chunk::compress;
pub use chunk::{
    decompress, plan_chunks, plan_chunks_by_content, Placement, DEFAULT_CHUNK_TARGET_BYTES,
    DEFAULT_COMPRESSION_LEVEL, MAX_COMPRESSION_LEVEL,
};
pub use chunkings::ChunkingEntry;
pub use decode::{
    decode_listed_manifest, decode_manifest, file_list_of, manifest_head, Chunk, ManifestHead,
};
#[cfg(not(target_arch = "wasm32"))]
pub use encode::{
    count_lines, encode_bundle, encode_chunking, store_question_vectors, store_vectors, BundleFile,
    BundleInput, BundleOptions, EncodedBundle, PendingBundle, StoredChunking, StoredIndex,
};
pub use tree::{DirTree, Listed};
pub use vectors::{Precision, QuestionVectors, VectorModel, VectorRows, VectorsEntry};
#[cfg(not(target_arch = "wasm32"))]
pub use versions::{compress_pack, encode_pack};
pub use versions::{
    decode_pack, decompress_pack, pack_header_len, DEFAULT_PACK_LEVEL, DEFAULT_PACK_TARGET_BYTES,
};

use crate::corpus::policy::{ExclusionReason, Policy};

/// The format version this build writes for a bundle whose index is whole (`--no-split`) or
/// absent.
pub const FORMAT_VERSION: u32 = 4;

/// The format version of a bundle whose index is split (`split_index`) and whose manifest still
/// lists every file (read, no longer written).
pub const SPLIT_FORMAT_VERSION: u32 = 5;

/// The format version this build writes by default: the file list apart (`file_list`), chunk
/// headers with each file's SHA-256, chunks cut by content, the index whole or split.
pub const LISTED_FORMAT_VERSION: u32 = 6;

/// The format version of a merged site's bundle whose texts lie in version packs shared with
/// the other snapshots of its repository (`ChunkEntry::entries`), or whose index is built from
/// its texts by the reader (`Manifest::derived_index`): `routelens merge --versions`,
/// `--derive-index`. Format 6 otherwise.
pub const VERSIONED_FORMAT_VERSION: u32 = 7;

/// The format versions this build reads.
pub const READ_VERSIONS: [u32; 7] = [1, 2, 3, 4, 5, 6, 7];

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
    /// The searchable files, sorted by path (byte order), unique. Format 6 stores them apart
    /// (`file_list`): empty in its `manifest.json`, filled by [`decode_listed_manifest`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileEntry>,
    /// The file list's file (format 6; see `listing`), fetched with the manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_list: Option<FileListEntry>,
    /// The chunk files, in packing order.
    pub chunks: Vec<ChunkEntry>,
    /// The search index blob, when the bundle has one.
    pub index: Option<IndexEntry>,
    /// The chunkings of code chunks, one per chunker (format 3; absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunkings: Vec<ChunkingEntry>,
    /// The split index's base file (format 5; see `lexical::fts::split`), which names its
    /// packs: a bundle has it or the whole index blob (`index`), or neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split_index: Option<IndexEntry>,
    /// The question set's vectors (format 4, when the bundle was built with its questions
    /// embedded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_vectors: Option<VectorsEntry>,
    /// Where the bundle's other files are, relative to its folder, when they are not beside
    /// `manifest.json`: a site of merged snapshots (`routelens merge`) keeps every bundle's
    /// content-addressed files once, in a shared store beside the bundles (`../store`; see
    /// [`is_store_path`]). Format 6 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The format of the index the reader builds from the bundle's texts (format 7, in place of
    /// `index` and `split_index`): a merged site of many snapshots stores no index for them
    /// (`routelens merge --derive-index`), and each is built, exactly as `routelens bundle`
    /// builds it, when first searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_index: Option<String>,
}

/// Where a bundle's `file` is relative to its folder, given the manifest's `store`.
pub fn locate(store: Option<&str>, file: &str) -> String {
    match store {
        Some(store) => format!("{}/{file}", store.trim_end_matches('/')),
        None => file.to_string(),
    }
}

/// Whether `store` is a sibling of the bundle's folder: `../` then a clean relative path
/// (`../store`). Nothing further up, so a bundle cannot send its readers (or `publish`, which
/// writes the store beside the bundles) outside the folder that holds it.
pub fn is_store_path(store: &str) -> bool {
    store
        .strip_prefix("../")
        .is_some_and(crate::corpus::policy::is_clean_path)
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
    /// SHA-256 of the file's bytes, lower-case hex. Format 6 keeps it in the header of the
    /// file's chunk instead ([`Chunk::file_sha256`]), so it is absent there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
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
    /// The size after decompression: the sum of its files' sizes (and, format 6, its header).
    pub raw_bytes: u64,
    /// How many files it holds (format 6, where the files' places are derived from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u32>,
    /// Format 7: the chunk is a version pack (`chunks/<sha256>.zst`, see `versions`) shared
    /// with other snapshots, and these are this bundle's entries in it, in path order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<u32>>,
}

/// The file list, `files/<sha256>.deflate` (format 6), as named in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileListEntry {
    /// The file's name relative to the bundle folder.
    pub file: String,
    /// SHA-256 of the stored bytes; also the file name's stem.
    pub sha256: String,
    /// The stored size in bytes.
    pub bytes: u64,
    /// The size after decompression.
    pub raw_bytes: u64,
    /// How many files it lists.
    pub count: u64,
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
