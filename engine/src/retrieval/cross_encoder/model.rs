//! A cross-encoder as `transformers`' `BertForSequenceClassification` with one label runs it:
//! `[CLS] query [SEP] passage [SEP]` with the tokenizer's pair template's token types (0, then
//! 1), truncated longest-first to the model's maximum length (at most 512 pieces) and never
//! padded alone; BERT's encoder for the body (`dense::encoder`, under the `bert.` prefix or none); then
//! `classifier(tanh(pooler(h_[CLS])))`, a raw logit (a sigmoid would not change the order). Held
//! to `transformers`' and `sentence-transformers`' own logits by `engine/tests/cross_encoder.rs`.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{linear, Linear};
use candle_transformers::models::bert::Config;
use tokenizers::{Tokenizer, TruncationParams};

use super::{ChunkReranker, CrossEncoderIdentity, RerankInput};
use crate::corpus::code_chunks::CodeChunk;
use crate::error::{Error, Result};
use crate::retrieval::dense::embedder::ModelFiles;
use crate::retrieval::dense::encoder::Encoder;
use crate::retrieval::dense::transposed;
use crate::stable_sort;

/// The longest input CodeAtlas's reranker takes, in word pieces with `[CLS]` and both `[SEP]`.
pub const MAX_PIECES: usize = 512;
/// How many word pieces a batch holds at most (pairs × its longest): attention grows with
/// pairs × length², so long pairs run in small batches.
const BATCH_PIECES: usize = 4096;
/// How many pairs run through the model at once, at most.
const BATCH: usize = 32;

/// The model's three files, as bytes (the engine does no I/O): the same three a BERT embedder
/// reads.
pub type CrossEncoderFiles<'a> = ModelFiles<'a>;

/// A loaded cross-encoder.
pub struct CrossEncoder {
    body: Encoder,
    pooler: Linear,
    classifier: Linear,
    tokenizer: Tokenizer,
    identity: CrossEncoderIdentity,
}

impl CrossEncoder {
    /// Loads the model from its files; `name` is how runs will name it.
    pub fn load(files: &CrossEncoderFiles, name: &str) -> Result<CrossEncoder> {
        let identity = CrossEncoderIdentity::of(
            name,
            &[
                ("config.json", files.config),
                ("model.safetensors", files.weights),
                ("tokenizer.json", files.tokenizer),
            ],
        );
        let config: Config =
            serde_json::from_slice(files.config).map_err(|e| failed("config.json", e))?;
        let labels = label_count(files.config)?;
        if labels != 1 {
            return Err(failed(
                "config.json",
                format!("{labels} labels; a cross-encoder reranker has one score"),
            ));
        }
        let weights = transposed::var_builder(files.weights, DType::F32)
            .map_err(|e| failed("model.safetensors", e))?;
        let head = |prefix: &str, size: usize| -> Result<Linear> {
            let at = ["bert.", ""]
                .into_iter()
                .map(|root| format!("{root}{prefix}"))
                .find(|at| weights.contains_tensor(&format!("{at}.weight")))
                .ok_or_else(|| failed("model.safetensors", format!("no {prefix}.weight")))?;
            linear(config.hidden_size, size, weights.pp(at))
                .map_err(|e| failed("model.safetensors", e))
        };
        let pooler = head("pooler.dense", config.hidden_size)?;
        let classifier = head("classifier", 1)?;
        let body = Encoder::load(weights, &config).map_err(|e| failed("model.safetensors", e))?;
        let mut tokenizer =
            Tokenizer::from_bytes(files.tokenizer).map_err(|e| failed("tokenizer.json", e))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_PIECES.min(config.max_position_embeddings),
                ..TruncationParams::default()
            }))
            .map_err(|e| failed("tokenizer.json", e))?;
        tokenizer.with_padding(None);
        Ok(CrossEncoder {
            body,
            pooler,
            classifier,
            tokenizer,
            identity,
        })
    }

    /// Which files it was loaded from.
    pub fn identity(&self) -> &CrossEncoderIdentity {
        &self.identity
    }

    /// The raw logit of each passage against `query`, in order.
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        self.score_with_progress(query, passages, &mut |_| true)
    }

    /// As [`CrossEncoder::score`], telling `progress` how many pairs are scored after each
    /// batch; it returns `false` to stop (an error says so).
    pub fn score_with_progress(
        &self,
        query: &str,
        passages: &[&str],
        progress: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Vec<f32>> {
        let pairs: Vec<(&str, &str)> = passages.iter().map(|&p| (query, p)).collect();
        let encodings = self
            .tokenizer
            .encode_batch(pairs, true)
            .map_err(|e| failed("tokenizer.json", e))?;
        // Longest first, so each batch holds pairs of about one length.
        let mut order: Vec<usize> = (0..passages.len()).collect();
        stable_sort::by_key(&mut order, |&at| {
            std::cmp::Reverse(encodings[at].get_ids().len())
        });
        let mut scores = vec![0.0; passages.len()];
        let mut done = 0;
        let mut rest = order.as_slice();
        while !rest.is_empty() {
            let longest = encodings[rest[0]].get_ids().len().max(1);
            let size = (BATCH_PIECES / longest).clamp(1, BATCH).min(rest.len());
            let (batch, after) = rest.split_at(size);
            let rows: Vec<(&[u32], &[u32])> = batch
                .iter()
                .map(|&at| (encodings[at].get_ids(), encodings[at].get_type_ids()))
                .collect();
            for (&at, score) in batch.iter().zip(self.run(&rows)?) {
                scores[at] = score;
            }
            done += batch.len();
            rest = after;
            if !progress(done) {
                return Err(failed(
                    "model",
                    format!("stopped after {done} of {} pairs", passages.len()),
                ));
            }
        }
        Ok(scores)
    }

    /// One batch of (ids, type ids) through the model, padded to its longest and masked.
    fn run(&self, batch: &[(&[u32], &[u32])]) -> Result<Vec<f32>> {
        let lengths: Vec<usize> = batch.iter().map(|(ids, _)| ids.len()).collect();
        let width = lengths.iter().copied().max().unwrap_or(0);
        let (mut ids, mut types) = (Vec::new(), Vec::new());
        for (row, row_types) in batch {
            let pad = width - row.len();
            ids.extend(row.iter().copied().chain(std::iter::repeat_n(0, pad)));
            types.extend(row_types.iter().copied().chain(std::iter::repeat_n(0, pad)));
        }
        let shape = (batch.len(), width);
        let tensor = |values: Vec<u32>| Tensor::from_vec(values, shape, &Device::Cpu);
        let forward = || -> candle_core::Result<Vec<f32>> {
            let hidden = self
                .body
                .forward(&tensor(ids)?, &tensor(types)?, &lengths)?;
            let first = hidden.narrow(1, 0, 1)?.squeeze(1)?;
            let pooled = self.pooler.forward(&first)?.tanh()?;
            self.classifier
                .forward(&pooled)?
                .squeeze(1)?
                .to_vec1::<f32>()
        };
        forward().map_err(|e| failed("model", e))
    }
}

/// A loaded cross-encoder over chunks whose files' texts `text_of` gives (the CLI's bundle
/// folder, the worker's session).
pub struct ChunkTexts<'m, 't> {
    /// The model.
    pub model: &'m CrossEncoder,
    /// A file's text by path (none: the bundle does not hold it).
    pub text_of: &'m dyn Fn(&str) -> Option<&'t str>,
}

impl ChunkReranker for ChunkTexts<'_, '_> {
    fn identity(&self) -> &CrossEncoderIdentity {
        self.model.identity()
    }

    fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>> {
        let passages: Vec<&str> = passages.iter().map(String::as_str).collect();
        self.model.score(query, &passages)
    }

    fn passages(
        &self,
        table: &[CodeChunk],
        positions: &[usize],
        input: RerankInput,
    ) -> Result<Vec<String>> {
        positions
            .iter()
            .map(|&at| {
                let chunk = table.get(at).ok_or_else(|| {
                    Error::setting("chunk", at, &format!("a position below {}", table.len()))
                })?;
                let text = (self.text_of)(&chunk.path)
                    .ok_or_else(|| Error::field(&chunk.path, "text", "not in the bundle"))?;
                let lines: Vec<&str> = text.lines().collect();
                Ok(input.passage(chunk, &lines))
            })
            .collect()
    }
}

/// `config.json`'s label count (`num_labels`, else the size of `id2label`, else transformers'
/// default of 2).
fn label_count(config: &[u8]) -> Result<usize> {
    #[derive(serde::Deserialize)]
    struct Labels {
        num_labels: Option<usize>,
        id2label: Option<std::collections::BTreeMap<String, String>>,
    }
    let labels: Labels = serde_json::from_slice(config).map_err(|e| failed("config.json", e))?;
    Ok(labels
        .num_labels
        .or(labels.id2label.map(|m| m.len()))
        .unwrap_or(2))
}

fn failed(file: &str, error: impl std::fmt::Display) -> Error {
    Error::CrossEncoder {
        file: file.to_string(),
        message: error.to_string(),
    }
}
