//! Chunkings in a bundle (format 3): for each chunker, its table of code chunks
//! ([`crate::corpus::code_chunks`]) and optionally the chunk BM25 index over them. (Not to be confused
//! with the bundle's `chunks/`, which pack the files' bytes.)
//!
//! A table is stored as `chunkings/<sha256>.json.deflate`, DEFLATE-compressed JSON in columns, one
//! entry per chunk in file order, then line order:
//!
//! ```text
//! {"kinds": ["function", "method", …],      the kind names the table uses
//!  "file": [0, 0, 1, …],                    index into the manifest's files
//!  "start": [1, 12, 1, …], "end": [11, 30, 9, …],   1-based, inclusive
//!  "kind": [0, 1, …],                       index into kinds
//!  "name": ["RateLimitFilter", …], "tokens": [44, …]}
//! ```
//!
//! Opening a table checks its hash, its size, every column's length, every file index and line
//! range against the manifest's files and their line counts, and the order; an error names the
//! table file and the column and entry.

use super::{decompress, IndexEntry, Manifest, MANIFEST_FILE};
use crate::corpus::code_chunks::{Chunker, CodeChunk};
use crate::error::{Error, Result};

/// One chunking, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkingEntry {
    /// The chunker.
    pub chunker: Chunker,
    /// Its token budget (CodeNib's chunker, which has none: its line limit).
    pub budget: u32,
    /// What counted the tokens ([`crate::corpus::code_chunks::BudgetCounter::recorded`]; format 3
    /// bundles were all `cl100k_base`).
    pub counter: String,
    /// The table's file, `chunkings/<sha256>.json.deflate`.
    pub file: String,
    /// SHA-256 of the stored bytes.
    pub sha256: String,
    /// Stored size.
    pub bytes: u64,
    /// Size after decompression.
    pub raw_bytes: u64,
    /// How many chunks it holds.
    pub chunks: u64,
    /// The chunk BM25 index over its chunks, when built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexEntry>,
    /// CodeNib's chunker only: whether the lines before the first definition and after the
    /// last are chunks too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub header_epilogue: bool,
    /// Each chunk's embedding vector (format 4), when embedded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<super::VectorsEntry>,
}

/// The stored columns.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Columns {
    pub kinds: Vec<String>,
    pub file: Vec<u32>,
    pub start: Vec<u32>,
    pub end: Vec<u32>,
    pub kind: Vec<u16>,
    pub name: Vec<String>,
    pub tokens: Vec<u32>,
}

impl Manifest {
    /// The chunking of `chunker`, when the bundle has one.
    pub fn chunking(&self, chunker: Chunker) -> Option<&ChunkingEntry> {
        self.chunkings.iter().find(|c| c.chunker == chunker)
    }

    /// The chunking of `chunker`, or an error that names the chunkings the bundle has.
    pub fn chunking_or_error(&self, chunker: Chunker) -> Result<&ChunkingEntry> {
        self.chunking(chunker).ok_or_else(|| {
            let have: Vec<&str> = self.chunkings.iter().map(|c| c.chunker.name()).collect();
            Error::field(
                MANIFEST_FILE,
                "chunkings",
                if have.is_empty() {
                    format!(
                        "this bundle has no chunkings (format {}); rebuild it with `routelens bundle`",
                        self.format_version
                    )
                } else {
                    format!("no {} chunking; it has {}", chunker.name(), have.join(", "))
                },
            )
        })
    }

    /// Verifies and decodes the table of `chunker` from its stored bytes.
    pub fn open_chunking(&self, chunker: Chunker, stored: &[u8]) -> Result<Vec<CodeChunk>> {
        let entry = self.chunking_or_error(chunker)?;
        let name = entry.file.as_str();
        super::decode::verify_hash(name, &entry.sha256, stored)?;
        let raw = decompress(name, stored, entry.raw_bytes as usize)?;
        let columns: Columns = crate::json_path::from_slice(&raw)
            .map_err(|err| Error::field(name, err.path, err.error.to_string()))?;
        let n = columns.file.len();
        for (column, len) in [
            ("start", columns.start.len()),
            ("end", columns.end.len()),
            ("kind", columns.kind.len()),
            ("name", columns.name.len()),
            ("tokens", columns.tokens.len()),
        ] {
            if len != n {
                return Err(Error::field(
                    name,
                    column,
                    format!("{len} entries, file has {n}"),
                ));
            }
        }
        if n as u64 != entry.chunks {
            return Err(Error::field(
                name,
                "file",
                format!("{n} chunks, the manifest says {}", entry.chunks),
            ));
        }
        let mut chunks = Vec::with_capacity(n);
        let mut last = (0u32, 0u32);
        for at in 0..n {
            let bad =
                |column: &str, why: String| Error::field(name, format!("{column}[{at}]"), why);
            let file = self
                .files
                .get(columns.file[at] as usize)
                .ok_or_else(|| bad("file", format!("file {} does not exist", columns.file[at])))?;
            let (start, end) = (columns.start[at], columns.end[at]);
            if start == 0 || start > end || u64::from(end) > file.lines {
                return Err(bad(
                    "start",
                    format!(
                        "lines {start}–{end} are not within {}'s {} lines",
                        file.path, file.lines
                    ),
                ));
            }
            if (columns.file[at], start) < last {
                return Err(bad("start", "out of file and line order".into()));
            }
            last = (columns.file[at], start);
            let kind = columns
                .kinds
                .get(columns.kind[at] as usize)
                .ok_or_else(|| bad("kind", format!("kind {} is not listed", columns.kind[at])))?;
            chunks.push(CodeChunk {
                path: file.path.clone(),
                start_line: start,
                end_line: end,
                kind: kind.clone(),
                name: columns.name[at].clone(),
                tokens: columns.tokens[at],
            });
        }
        Ok(chunks)
    }

    pub(super) fn check_chunkings(&self) -> Result<()> {
        for (at, chunking) in self.chunkings.iter().enumerate() {
            let field = format!("chunkings[{at}]");
            super::decode::check_hex(&chunking.sha256, &format!("{field}.sha256"))?;
            super::decode::check_named(
                &chunking.file,
                "chunkings/",
                &chunking.sha256,
                ".json.deflate",
                &field,
            )?;
            if self.chunkings[..at]
                .iter()
                .any(|c| c.chunker == chunking.chunker)
            {
                return Err(Error::field(
                    MANIFEST_FILE,
                    format!("{field}.chunker"),
                    format!("{} listed twice", chunking.chunker.name()),
                ));
            }
            if let Some(index) = &chunking.index {
                let index_field = format!("{field}.index");
                super::decode::check_hex(&index.sha256, &format!("{index_field}.sha256"))?;
                super::decode::check_named(
                    &index.file,
                    "index/",
                    &index.sha256,
                    ".tantivy.deflate",
                    &index_field,
                )?;
            }
        }
        Ok(())
    }

    /// The manifest's entry of `chunker`'s chunk index (an error names a chunking without one).
    pub fn chunk_index_entry(&self, chunker: Chunker) -> Result<&IndexEntry> {
        let chunking = self.chunking_or_error(chunker)?;
        chunking.index.as_ref().ok_or_else(|| {
            Error::field(
                MANIFEST_FILE,
                "chunkings",
                format!("the {} chunking has no chunk index", chunker.name()),
            )
        })
    }

    /// Verifies the stored bytes of `chunker`'s chunk index and decompresses them.
    pub fn open_chunk_index(
        &self,
        chunker: Chunker,
        stored: &[u8],
    ) -> Result<(&IndexEntry, Vec<u8>)> {
        let entry = self.chunk_index_entry(chunker)?;
        super::decode::verify_hash(&entry.file, &entry.sha256, stored)?;
        let raw = entry.raw_bytes.unwrap_or(stored.len() as u64);
        Ok((entry, decompress(&entry.file, stored, raw as usize)?))
    }
}
