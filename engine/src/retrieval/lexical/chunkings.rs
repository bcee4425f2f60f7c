//! A bundle's opened chunkings: each chunk table with its BM25 index, as `routelens search
//! --unit chunk`, `routelens evaluate` and the browser's worker hold them, and the one chunk
//! search they all run (BM25, then the per-file cap when one is asked).

use crate::corpus::bundle::Manifest;
use crate::corpus::code_chunks::{Chunker, CodeChunk};
use crate::error::{Error, Result};
use crate::retrieval::chunk_search::ChunkRankings;
use crate::retrieval::chunk_search::{cap_per_file, prefix_for_caps};

use super::chunk_index::{ChunkHit, ChunkIndex};

/// The chunkings opened so far, in the order they were added.
#[derive(Debug, Default)]
pub struct OpenChunkings {
    entries: Vec<(Chunker, Vec<CodeChunk>, ChunkIndex)>,
}

impl OpenChunkings {
    /// None open.
    pub fn new() -> Self {
        OpenChunkings::default()
    }

    /// Adds (or replaces) `chunker`'s table and the index opened over it.
    pub fn insert(&mut self, chunker: Chunker, table: Vec<CodeChunk>, index: ChunkIndex) {
        self.entries.retain(|(c, _, _)| *c != chunker);
        self.entries.push((chunker, table, index));
    }

    /// Opens `chunker`'s chunking from the stored bytes of its table and of its index, each
    /// verified against `manifest` (the browser's path: the CLI reads them from a folder).
    pub fn open_stored(
        &mut self,
        manifest: &Manifest,
        chunker: Chunker,
        table: &[u8],
        index: &[u8],
    ) -> Result<()> {
        let table = manifest.open_chunking(chunker, table)?;
        let (entry, blob) = manifest.open_chunk_index(chunker, index)?;
        let index = ChunkIndex::open(&entry.file, &blob, &table)?;
        self.insert(chunker, table, index);
        Ok(())
    }

    /// Whether `chunker` is open.
    pub fn has(&self, chunker: Chunker) -> bool {
        self.entries.iter().any(|(c, _, _)| *c == chunker)
    }

    fn entry(&self, chunker: Chunker) -> Result<(&[CodeChunk], &ChunkIndex)> {
        self.entries
            .iter()
            .find(|(c, _, _)| *c == chunker)
            .map(|(_, table, index)| (table.as_slice(), index))
            .ok_or_else(|| {
                Error::setting(
                    "chunker",
                    chunker.name(),
                    "a chunking loaded from the bundle",
                )
            })
    }

    /// The best `k` chunks for `query` under `chunker`, each with its BM25 score; with a cap,
    /// at most `cap` of a file at the head, the rest below every survivor (so the ranking is
    /// fetched as deep as the cap needs: [`prefix_for_caps`]).
    pub fn search(
        &self,
        chunker: Chunker,
        query: &str,
        k: usize,
        cap: Option<usize>,
    ) -> Result<Vec<ChunkHit>> {
        let (table, index) = self.entry(chunker)?;
        let Some(cap) = cap else {
            return index.search(query, k);
        };
        let hits = prefix_for_caps(|n| index.search(query, n), |h| h.chunk, table, &[cap], k)?;
        let ranking: Vec<usize> = hits.iter().map(|h| h.chunk).collect();
        let capped = cap_per_file(&ranking, table, cap)?;
        let score_of: std::collections::HashMap<usize, f32> =
            hits.iter().map(|h| (h.chunk, h.score)).collect();
        Ok(capped
            .into_iter()
            .take(k)
            .map(|chunk| ChunkHit {
                chunk,
                score: score_of[&chunk],
            })
            .collect())
    }
}

impl ChunkRankings for OpenChunkings {
    fn chunkers(&self) -> Vec<Chunker> {
        self.entries.iter().map(|(c, _, _)| *c).collect()
    }

    fn table(&self, chunker: Chunker) -> Result<&[CodeChunk]> {
        self.entry(chunker).map(|(table, _)| table)
    }

    fn rank(&self, chunker: Chunker, query: &str, depth: usize) -> Result<Vec<usize>> {
        let (_, index) = self.entry(chunker)?;
        Ok(index
            .search(query, depth)?
            .into_iter()
            .map(|h| h.chunk)
            .collect())
    }
}
