//! Chunk retrieval after the ranker: the per-file cap, reciprocal-rank fusion of two chunk
//! rankings, and a ranking as span units for scoring. A chunk ranking is a list of positions in
//! one chunking's table ([`crate::code_chunks::CodeChunk`]s), best first.
//!
//! - **Per-file cap** ([`cap_per_file`]), as CodeAtlas caps: the first `cap` chunks of each file
//!   keep their places at the head, in rank order, and every further chunk of a file follows all
//!   of them, in rank order too. Nothing is discarded, so recall at depth is unchanged and only the
//!   order moves.
//! - **RRF** ([`fuse_chunk_rankings`]): [`crate::fusion::rrf`] over the chunks' keys
//!   (`path#Lstart-Lend`), k = 60 over the top 60 of each list ([`CHUNK_RRF`]), ties by key.

use std::collections::{BTreeMap, HashMap};

use crate::code_chunks::CodeChunk;
use crate::error::{Error, Result};
use crate::fusion::{rrf, RrfConfig};
use crate::study::GoldSpan;

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
    let mut seen: HashMap<&str, usize> = HashMap::new();
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

/// Two chunk rankings of one table fused by RRF under `config`.
pub fn fuse_chunk_rankings(
    left: &[usize],
    right: &[usize],
    chunks: &[CodeChunk],
    config: RrfConfig,
) -> Result<Vec<usize>> {
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
        .collect();
    Ok(rrf(&[&a[..], &b[..]], config.validated()?)
        .into_iter()
        .filter_map(|key| by_key.get(&key).copied())
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
        let fused = fuse_chunk_rankings(&[0, 1, 2], &[1, 0], &chunks, CHUNK_RRF).unwrap();
        assert_eq!(fused, [0, 1, 2]);
        let fused = fuse_chunk_rankings(&[2], &[1, 2], &chunks, CHUNK_RRF).unwrap();
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
}
