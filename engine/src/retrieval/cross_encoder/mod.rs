//! CodeAtlas's reranker rows: a cross-encoder (`cross-encoder/ms-marco-MiniLM-L-6-v2` in the
//! paper) scores each (question, chunk) pair of a ranking's head, and the head is reordered by
//! that score. Two inputs, as CodeAtlas ran it ([`RerankInput`]): the chunk's text alone, or the
//! same `path :: name` payload the embedder sees.
//!
//! The model is one the reader brings (no registry reachable here ships those weights), so a run
//! records the SHA-256 of each of its files ([`CrossEncoderIdentity`]) and a run replayed or
//! compared with other files is refused naming the file. `model` (feature `dense`) runs it.

#[cfg(feature = "dense")]
pub mod model;

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::checksum::sha256_hex;
use crate::corpus::code_chunks::CodeChunk;
use crate::error::{Error, Result};
use crate::stable_sort;

/// How many of a ranking's head CodeAtlas reranks.
pub const DEFAULT_RERANK_TOP: usize = 30;

/// The files a cross-encoder folder holds, in the order they are checked.
pub const MODEL_FILES: [&str; 3] = ["config.json", "model.safetensors", "tokenizer.json"];

/// What the cross-encoder is shown of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RerankInput {
    /// The chunk's lines alone.
    #[serde(rename = "cross-encoder:text")]
    Text,
    /// `path :: name`, a newline, then its lines: what the embedder sees.
    #[serde(rename = "cross-encoder:prefixed")]
    Prefixed,
}

impl RerankInput {
    /// Both, in CodeAtlas's row order.
    pub const ALL: [RerankInput; 2] = [RerankInput::Text, RerankInput::Prefixed];

    /// `cross-encoder:text` or `cross-encoder:prefixed`.
    pub fn name(self) -> &'static str {
        match self {
            RerankInput::Text => "cross-encoder:text",
            RerankInput::Prefixed => "cross-encoder:prefixed",
        }
    }

    /// The input with this name.
    pub fn from_name(name: &str) -> Option<RerankInput> {
        RerankInput::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What the cross-encoder is shown of `chunk`, whose file's lines are `lines`.
    pub fn passage(self, chunk: &CodeChunk, lines: &[&str]) -> String {
        let start = (chunk.start_line as usize)
            .saturating_sub(1)
            .min(lines.len());
        let end = (chunk.end_line as usize).clamp(start, lines.len());
        let body = lines[start..end].join("\n");
        match self {
            RerankInput::Text => body,
            RerankInput::Prefixed => format!("{}{body}", chunk.prefix()),
        }
    }
}

/// Which cross-encoder a run used: a name (the hub id and revision when known, free text
/// otherwise) and the SHA-256 of each of its files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossEncoderIdentity {
    /// As the user named it (`cross-encoder/ms-marco-MiniLM-L-6-v2@ce5d…`).
    pub name: String,
    /// Each file's lower-case hex SHA-256, by file name.
    pub sha256: BTreeMap<String, String>,
}

impl CrossEncoderIdentity {
    /// The identity of the files `(name, bytes)`, named `name`.
    pub fn of(name: &str, files: &[(&str, &[u8])]) -> CrossEncoderIdentity {
        CrossEncoderIdentity {
            name: name.to_string(),
            sha256: files
                .iter()
                .map(|(file, bytes)| (file.to_string(), sha256_hex(bytes)))
                .sorted_map(),
        }
    }

    /// Refuses `other` unless every file matches this one's, naming the first that does not
    /// (`what` says where this identity comes from: `the run file`, `the grid's settings`).
    pub fn check_same(&self, other: &CrossEncoderIdentity, what: &str) -> Result<()> {
        for file in MODEL_FILES {
            let (mine, theirs) = (self.sha256.get(file), other.sha256.get(file));
            if mine != theirs {
                let show = |h: Option<&String>| h.map_or("(missing)", String::as_str).to_string();
                return Err(Error::CrossEncoder {
                    file: file.to_string(),
                    message: format!(
                        "SHA-256 {} here; {what} was made with {} ({})",
                        show(theirs),
                        show(mine),
                        self.name
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Scores (question, chunk) pairs: the grid's and the rerank stage's view of a loaded
/// cross-encoder with the texts its chunks come from.
pub trait ChunkReranker {
    /// The model's identity.
    fn identity(&self) -> &CrossEncoderIdentity;
    /// The raw logit of each passage against `query`, in order.
    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>>;
    /// What `input` shows of the chunks at `positions` of `table` (their files' texts are the
    /// implementation's).
    fn passages(
        &self,
        table: &[CodeChunk],
        positions: &[usize],
        input: RerankInput,
    ) -> Result<Vec<String>>;
}

/// `ranking` with its first `scores.len()` entries ordered by score, highest first (ties keep
/// their order), and the rest after them unchanged.
pub fn rerank_head(ranking: &[usize], scores: &[f32]) -> Result<Vec<usize>> {
    if scores.len() > ranking.len() {
        return Err(Error::setting(
            "scores",
            scores.len(),
            &format!("at most the ranking's {} entries", ranking.len()),
        ));
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    stable_sort::by(&mut order, |&a, &b| scores[b].total_cmp(&scores[a]));
    let mut out: Vec<usize> = order.iter().map(|&at| ranking[at]).collect();
    out.extend_from_slice(&ranking[scores.len()..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_reordered_by_score_with_ties_in_rank_order_and_the_tail_kept() {
        let ranking = [7, 3, 9, 1, 5];
        assert_eq!(
            rerank_head(&ranking, &[0.1, 2.0, 0.1]).unwrap(),
            [3, 7, 9, 1, 5]
        );
        assert_eq!(rerank_head(&ranking, &[]).unwrap(), ranking);
        assert!(rerank_head(&[1], &[0.0, 1.0]).is_err());
    }

    #[test]
    fn the_prefixed_input_adds_what_the_embedder_sees() {
        let chunk = CodeChunk {
            path: "src/a.rs".into(),
            start_line: 2,
            end_line: 3,
            kind: "function".into(),
            name: "f".into(),
            tokens: 0,
        };
        let lines = ["// a", "fn f() {", "}", "// b"];
        assert_eq!(RerankInput::Text.passage(&chunk, &lines), "fn f() {\n}");
        assert_eq!(
            RerankInput::Prefixed.passage(&chunk, &lines),
            "src/a.rs :: f\nfn f() {\n}"
        );
        assert_eq!(
            RerankInput::from_name("cross-encoder:prefixed"),
            Some(RerankInput::Prefixed)
        );
    }

    #[test]
    fn another_models_files_are_refused_naming_the_file() {
        let files = |w: &'static [u8]| -> Vec<(&'static str, &'static [u8])> {
            vec![
                ("config.json", b"{}"),
                ("model.safetensors", w),
                ("tokenizer.json", b"{}"),
            ]
        };
        let run = CrossEncoderIdentity::of("tiny", &files(b"a"));
        run.check_same(
            &CrossEncoderIdentity::of("other name", &files(b"a")),
            "the run",
        )
        .unwrap();
        let refused = run
            .check_same(&CrossEncoderIdentity::of("tiny", &files(b"b")), "the run")
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("model.safetensors: cross-encoder: SHA-256"),
            "{refused}"
        );
        assert!(refused.contains("the run was made with"), "{refused}");
    }
}
