//! Chunk retrieval around the rankers: the retrievers' names ([`Retriever`]) and what a source of
//! chunk rankings answers ([`ChunkRankings`]), the per-file cap, reciprocal-rank fusion of two
//! chunk rankings (the hybrid retriever's), and a ranking as span units for scoring. A chunk ranking is a list of positions in
//! one chunking's table ([`crate::corpus::code_chunks::CodeChunk`]s), best first.
//!
//! - **Per-file cap** ([`cap_per_file`]), as CodeAtlas caps: the first `cap` chunks of each file
//!   keep their places at the head, in rank order, and every further chunk of a file follows all
//!   of them, in rank order too. Nothing is discarded, so recall at depth is unchanged and only the
//!   order moves.
//! - **RRF** ([`fuse_chunk_rankings`]): [`crate::scoring::fusion::rrf`] over the chunks' keys
//!   (`path#Lstart-Lend`), k = 60 over the top 60 of each list ([`CHUNK_RRF`]), ties by key.

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::corpus::code_chunks::{Chunker, CodeChunk};
use crate::error::{Error, Result};
use crate::scoring::fusion::{rrf_scored, RrfConfig};
use crate::study::GoldSpan;

/// The ranker over a chunking's chunks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Retriever {
    /// Chunk BM25 (`lexical::chunk_index`).
    Bm25,
    /// Exact cosine between the question's vector and every chunk's (`dense::rank`).
    Dense,
    /// RRF of BM25's and dense's rankings, k = 60 over the top 60 of each ([`CHUNK_RRF`]).
    Hybrid,
}

impl Retriever {
    /// Every retriever, in the order tables list them.
    pub const ALL: [Retriever; 3] = [Retriever::Bm25, Retriever::Dense, Retriever::Hybrid];

    /// Its name (`bm25`, `dense`, `hybrid`).
    pub fn name(self) -> &'static str {
        match self {
            Retriever::Bm25 => "bm25",
            Retriever::Dense => "dense",
            Retriever::Hybrid => "hybrid",
        }
    }

    /// The retriever with this name.
    pub fn from_name(name: &str) -> Option<Retriever> {
        Retriever::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether it reads the chunking's vectors.
    pub fn needs_vectors(self) -> bool {
        self != Retriever::Bm25
    }
}

/// What the evaluation grid and the rerank stage read: each chunking's chunk table and rankers
/// over it.
pub trait ChunkRankings {
    /// The chunkings it holds, in the bundle's order.
    fn chunkers(&self) -> Vec<Chunker>;
    /// The chunk table of `chunker`.
    fn table(&self, chunker: Chunker) -> Result<&[CodeChunk]>;
    /// The chunks matching `query` under `chunker` by BM25, best first, at most `depth`, as
    /// positions in its table.
    fn rank(&self, chunker: Chunker, query: &str, depth: usize) -> Result<Vec<usize>>;
    /// As [`ChunkRankings::rank`], by `retriever`. A source without vectors ranks by BM25 only
    /// and refuses the others.
    fn rank_by(
        &self,
        chunker: Chunker,
        retriever: Retriever,
        query: &str,
        depth: usize,
    ) -> Result<Vec<usize>> {
        match retriever {
            Retriever::Bm25 => self.rank(chunker, query, depth),
            other => Err(Error::setting(
                "retriever",
                other.name(),
                "bm25: this source holds no vectors",
            )),
        }
    }
    /// Readies `chunker` for `queries`, which are about to be ranked one after another (the
    /// grid's batch): a source may do their common work at once. The rankings are the same
    /// either way.
    fn prepare(&self, chunker: Chunker, queries: &[&str]) -> Result<()> {
        let _ = (chunker, queries);
        Ok(())
    }
}

/// CodeAtlas's fusion of chunk rankings: k = 60 over the top 60 of each.
pub const CHUNK_RRF: RrfConfig = RrfConfig {
    rank_constant: 60.0,
    depth: 60,
};

/// The ranking with at most `cap` chunks of each file at its head (see the module docs).
pub fn cap_per_file(ranking: &[usize], chunks: &[CodeChunk], cap: usize) -> Result<Vec<usize>> {
    if cap == 0 {
        return Err(Error::setting("cap", 0, "1 or more chunks per file"));
    }
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    for &at in ranking {
        let path = chunk_at(chunks, at)?.path.as_str();
        let count = seen.entry(path).or_default();
        *count += 1;
        if *count <= cap {
            head.push(at);
        } else {
            tail.push(at);
        }
    }
    head.extend(tail);
    Ok(head)
}

/// The shortest prefix of a ranking (fetched by `rank(n)`: its best `n`, or all it has) whose
/// capped head is the whole ranking's: capped by any of `caps` and cut at `depth`, it gives the
/// same list. A cap only moves chunks down, and whether a chunk survives depends only on those
/// above it, so once a prefix holds `depth` survivors under every cap — or is every match —
/// nothing below it can reach the head. `n` starts at four times `depth` and grows fourfold,
/// where collecting every match costs a full sort of all of them (20 s for the demo's grid in
/// Chromium, against a few hundred ms this way).
pub fn prefix_for_caps<T>(
    mut rank: impl FnMut(usize) -> Result<Vec<T>>,
    chunk_of: impl Fn(&T) -> usize,
    chunks: &[CodeChunk],
    caps: &[usize],
    depth: usize,
) -> Result<Vec<T>> {
    let mut n = depth.max(1).saturating_mul(4);
    loop {
        let prefix = rank(n)?;
        if prefix.len() < n || n == usize::MAX {
            return Ok(prefix);
        }
        let mut enough = true;
        for &cap in caps {
            let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
            let mut survivors = 0;
            for item in &prefix {
                let count = seen
                    .entry(&chunk_at(chunks, chunk_of(item))?.path)
                    .or_default();
                *count += 1;
                survivors += usize::from(*count <= cap);
            }
            enough &= survivors >= depth;
        }
        if enough {
            return Ok(prefix);
        }
        n = n.saturating_mul(4);
    }
}

fn chunk_at(chunks: &[CodeChunk], at: usize) -> Result<&CodeChunk> {
    chunks.get(at).ok_or_else(|| {
        Error::setting(
            "chunk",
            at,
            &format!("a position in the chunk table (0 to {})", chunks.len()),
        )
    })
}

/// The key of a chunk for fusion and for run files: `path#Lstart-Lend`.
pub fn chunk_key(chunk: &CodeChunk) -> String {
    format!("{}#L{}-L{}", chunk.path, chunk.start_line, chunk.end_line)
}

/// Two chunk rankings of one table fused by RRF under `config`, each chunk with its fused score.
pub fn fuse_chunk_rankings(
    left: &[usize],
    right: &[usize],
    chunks: &[CodeChunk],
    config: RrfConfig,
) -> Result<Vec<(usize, f64)>> {
    let keys = |ranking: &[usize]| -> Result<Vec<String>> {
        ranking
            .iter()
            .map(|&at| chunk_at(chunks, at).map(chunk_key))
            .collect()
    };
    let (a, b) = (keys(left)?, keys(right)?);
    let by_key: BTreeMap<String, usize> = left
        .iter()
        .chain(right)
        .map(|&at| (chunk_key(&chunks[at]), at))
        .sorted_map();
    Ok(rrf_scored(&[&a[..], &b[..]], config.validated()?)
        .into_iter()
        .filter_map(|(key, score)| Some((*by_key.get(&key)?, score)))
        .collect())
}

/// A chunk ranking as span units (each chunk's file and lines), for the ranking metrics.
pub fn ranking_units(ranking: &[usize], chunks: &[CodeChunk]) -> Result<Vec<GoldSpan>> {
    ranking
        .iter()
        .map(|&at| {
            chunk_at(chunks, at).map(|c| GoldSpan {
                path: c.path.clone(),
                start_line: c.start_line,
                end_line: c.end_line,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(path: &str, start: u32) -> CodeChunk {
        CodeChunk {
            path: path.into(),
            start_line: start,
            end_line: start + 9,
            kind: "function".into(),
            name: String::new(),
            tokens: 10,
        }
    }

    #[test]
    fn the_cap_moves_a_file_s_extra_chunks_below_every_survivor_and_keeps_them() {
        // a a b a c b: cap 1 keeps a, b, c at the head; then a, a, b in rank order.
        let chunks = vec![
            chunk("a", 1),
            chunk("a", 11),
            chunk("b", 1),
            chunk("a", 21),
            chunk("c", 1),
            chunk("b", 11),
        ];
        let ranking = [0, 1, 2, 3, 4, 5];
        assert_eq!(
            cap_per_file(&ranking, &chunks, 1).unwrap(),
            [0, 2, 4, 1, 3, 5]
        );
        assert_eq!(
            cap_per_file(&ranking, &chunks, 2).unwrap(),
            [0, 1, 2, 4, 5, 3]
        );
        assert_eq!(cap_per_file(&ranking, &chunks, 9).unwrap(), ranking);
        assert!(cap_per_file(&ranking, &chunks, 0).is_err());
        assert!(cap_per_file(&[7], &chunks, 1).is_err());
    }

    #[test]
    fn rrf_of_two_chunk_rankings() {
        let chunks = vec![chunk("a", 1), chunk("b", 1), chunk("c", 1)];
        // 0 is first and second: 1/61 + 1/62; 1 is second and first: the same, tie by key.
        let order =
            |fused: Vec<(usize, f64)>| fused.into_iter().map(|(at, _)| at).collect::<Vec<_>>();
        let fused = fuse_chunk_rankings(&[0, 1, 2], &[1, 0], &chunks, CHUNK_RRF).unwrap();
        assert_eq!(fused[0].1, 1.0 / 61.0 + 1.0 / 62.0);
        assert_eq!(order(fused), [0, 1, 2]);
        let fused = order(fuse_chunk_rankings(&[2], &[1, 2], &chunks, CHUNK_RRF).unwrap());
        assert_eq!(fused, [2, 1]);
        let units = ranking_units(&fused, &chunks).unwrap();
        assert_eq!(
            (
                units[0].path.as_str(),
                units[0].start_line,
                units[0].end_line
            ),
            ("c", 1, 10)
        );
    }

    proptest::proptest! {
        #[test]
        fn a_prefix_long_enough_for_the_caps_caps_as_the_whole_ranking_does(
            files in proptest::collection::vec(0..6_usize, 1..300),
            caps in proptest::collection::vec(1..4_usize, 1..3),
            depth in 1..40_usize,
        ) {
            // Chunk i belongs to file files[i]; the ranking is the table's order.
            let chunks: Vec<CodeChunk> = files
                .iter()
                .enumerate()
                .map(|(i, f)| chunk(&format!("f{f}"), i as u32 * 10 + 1))
                .collect();
            let full: Vec<usize> = (0..chunks.len()).collect();
            let mut asked = Vec::new();
            let prefix = prefix_for_caps(
                |n| {
                    asked.push(n);
                    Ok(full.iter().copied().take(n).collect())
                },
                |&at| at,
                &chunks,
                &caps,
                depth,
            )
            .unwrap();
            proptest::prop_assert!(asked.windows(2).all(|w| w[1] == w[0] * 4));
            for &cap in &caps {
                let mut head = cap_per_file(&prefix, &chunks, cap).unwrap();
                let mut whole = cap_per_file(&full, &chunks, cap).unwrap();
                head.truncate(depth);
                whole.truncate(depth);
                proptest::prop_assert_eq!(head, whole);
            }
        }
    }
}
