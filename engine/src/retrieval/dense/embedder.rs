//! all-MiniLM-L6-v2 exactly as sentence-transformers runs it: the model's WordPiece tokenizer
//! (lower-cased, accents stripped, `[CLS] … [SEP]`) truncated at 256 pieces and never padded
//! alone, BERT's encoder (`encoder`), the mean of the last hidden states over the attention mask, then L2
//! normalisation. Held to sentence-transformers' own vectors by `engine/tests/minilm.rs`.
//!
//! The shipped `tokenizer.json` truncates and pads at 128; both are replaced here, or the
//! vectors of longer texts would differ. Texts are embedded in batches of similar length, so a
//! short text is not padded to a long one; padding inside a batch is masked out of attention and
//! of the mean.

use candle_core::{DType, Device, Tensor};
use candle_transformers::models::bert::Config;
use tokenizers::{Tokenizer, TruncationParams};

use super::encoder::Encoder;
use super::pin::ModelPin;
use super::{page_weights, transposed};
use crate::checksum::sha256_hex;
use crate::error::{Error, Result};
use crate::stable_sort;

/// The longest input, in word pieces with `[CLS]` and `[SEP]` (sentence-transformers'
/// `max_seq_length` for this model).
pub const MAX_PIECES: usize = 256;
/// The vectors' dimension.
pub const DIMENSION: usize = 384;
/// How many texts run through the model at once, at most.
const BATCH: usize = 32;
/// How many word pieces a batch holds at most (texts × its longest), so that long texts run in
/// small batches: a batch's attention scores grow with texts × length², and 32 texts of 256
/// pieces spent their time allocating and faulting in pages rather than multiplying.
const BATCH_PIECES: usize = 2048;

/// The model's three files, as bytes (the engine does no I/O).
#[derive(Clone, Copy)]
pub struct ModelFiles<'a> {
    /// `config.json`.
    pub config: &'a [u8],
    /// `model.safetensors`.
    pub weights: &'a [u8],
    /// `tokenizer.json`.
    pub tokenizer: &'a [u8],
}

/// Each model file's lower-case hex SHA-256, as the files' reader computed them (natively the
/// engine's own hash; in the browser the platform's SubtleCrypto, see [`Embedder::load_digested`]).
pub struct ModelDigests {
    /// `config.json`'s.
    pub config: String,
    /// `model.safetensors`'s.
    pub weights: String,
    /// `tokenizer.json`'s.
    pub tokenizer: String,
}

impl ModelDigests {
    /// The digests of `files`, computed here.
    pub fn of(files: &ModelFiles) -> ModelDigests {
        ModelDigests {
            config: sha256_hex(files.config),
            weights: sha256_hex(files.weights),
            tokenizer: sha256_hex(files.tokenizer),
        }
    }
}

/// A loaded embedder.
pub struct Embedder {
    model: Encoder,
    tokenizer: Tokenizer,
    pin: ModelPin,
    /// One single-thread pool per concurrent batch (see [`Embedder::embed_with_progress`]);
    /// none in wasm32, where a worker has one thread and batches run on it in turn.
    #[cfg(not(target_arch = "wasm32"))]
    pools: Vec<rayon::ThreadPool>,
}

impl Embedder {
    /// Loads the model from its files, each checked against `pin` first.
    pub fn load(files: &ModelFiles, pin: ModelPin) -> Result<Embedder> {
        Embedder::load_digested(files, &ModelDigests::of(files), pin)
    }

    /// As [`Embedder::load`], with each file's SHA-256 already computed by the caller from the
    /// same bytes (the worker has the browser hash them once, natively, before they reach wasm);
    /// sizes and digests are checked against `pin` first.
    pub fn load_digested(
        files: &ModelFiles,
        digests: &ModelDigests,
        pin: ModelPin,
    ) -> Result<Embedder> {
        pin.check_digest("config.json", files.config.len(), &digests.config)?;
        pin.check_digest("model.safetensors", files.weights.len(), &digests.weights)?;
        pin.check_digest("tokenizer.json", files.tokenizer.len(), &digests.tokenizer)?;
        Embedder::from_checked(files, pin)
    }

    /// As [`Embedder::load_digested`], `files.weights` being the page's narrowed weights
    /// (`page_weights`), checked against the pin's and widened before the model is built: what
    /// the browser's worker runs.
    pub fn load_page_weights(
        files: &ModelFiles,
        digests: &ModelDigests,
        pin: ModelPin,
    ) -> Result<Embedder> {
        pin.check_digest("config.json", files.config.len(), &digests.config)?;
        pin.check_page_weights(files.weights.len(), &digests.weights)?;
        pin.check_digest("tokenizer.json", files.tokenizer.len(), &digests.tokenizer)?;
        let name = pin.page_weights()?.file.clone();
        let weights = page_weights::widen(&name, files.weights)?;
        Embedder::from_checked(
            &ModelFiles {
                weights: &weights,
                ..*files
            },
            pin,
        )
    }

    /// As [`Embedder::load`], every f32 weight then rounded to `mantissa_bits` as the page's
    /// weights are: natively, the vectors the page computes (and a measure of other widths).
    pub fn load_rounded(files: &ModelFiles, pin: ModelPin, mantissa_bits: u8) -> Result<Embedder> {
        pin.check("config.json", files.config)?;
        pin.check("model.safetensors", files.weights)?;
        pin.check("tokenizer.json", files.tokenizer)?;
        let weights = page_weights::rounded(files.weights, mantissa_bits)?;
        Embedder::from_checked(
            &ModelFiles {
                weights: &weights,
                ..*files
            },
            pin,
        )
    }

    /// Builds the model from files already checked.
    fn from_checked(files: &ModelFiles, pin: ModelPin) -> Result<Embedder> {
        let config: Config =
            serde_json::from_slice(files.config).map_err(|e| model_error("config.json", e))?;
        // Read in place: candle copies each tensor out of the file as it builds the model (the
        // linear layers transposed on the way, `transposed`).
        let weights = transposed::var_builder(files.weights, DType::F32)
            .map_err(|e| model_error("model.safetensors", e))?;
        let model =
            Encoder::load(weights, &config).map_err(|e| model_error("model.safetensors", e))?;
        let mut tokenizer =
            Tokenizer::from_bytes(files.tokenizer).map_err(|e| model_error("tokenizer.json", e))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_PIECES,
                ..TruncationParams::default()
            }))
            .map_err(|e| model_error("tokenizer.json", e))?;
        tokenizer.with_padding(None);
        #[cfg(not(target_arch = "wasm32"))]
        let pools = {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            (0..threads)
                .map(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build())
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| model_error("model", e))?
        };
        Ok(Embedder {
            model,
            tokenizer,
            pin,
            #[cfg(not(target_arch = "wasm32"))]
            pools,
        })
    }

    /// The pin the vectors are made with.
    pub fn pin(&self) -> &ModelPin {
        &self.pin
    }

    /// How many word pieces `text` takes, `[CLS]` and `[SEP]` included, before truncation.
    pub fn pieces(&self, text: &str) -> Result<usize> {
        let mut plain = self.tokenizer.clone();
        plain
            .with_truncation(None)
            .map_err(|e| model_error("tokenizer.json", e))?;
        let encoding = plain
            .encode(text, true)
            .map_err(|e| model_error("tokenizer.json", e))?;
        Ok(encoding.get_ids().len())
    }

    /// The unit-length vector of each text, in input order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_with_progress(texts, &mut |_| true)
    }

    /// As [`Embedder::embed`], telling `progress` how many texts are done after each batch; it
    /// returns `false` to stop (an error says so).
    pub fn embed_with_progress(
        &self,
        texts: &[&str],
        progress: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_error("tokenizer.json", e))?;
        // Longest first within the order, so each batch holds texts of about one length.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        stable_sort::by_key(&mut order, |&at| {
            std::cmp::Reverse(encodings[at].get_ids().len())
        });
        let mut vectors = vec![Vec::new(); texts.len()];
        let mut done = 0;
        let mut batches = Vec::new();
        let mut rest = order.as_slice();
        while !rest.is_empty() {
            // The first text of each batch is its longest (the order is longest first).
            let longest = encodings[rest[0]].get_ids().len().max(1);
            let size = (BATCH_PIECES / longest).clamp(1, BATCH).min(rest.len());
            let (batch, after) = rest.split_at(size);
            batches.push(batch);
            rest = after;
        }
        // One batch per core at a time, each on a single-thread pool: candle spreads a matrix
        // product over every core but runs its element-wise steps (GELU's erf, softmax's exp)
        // on the calling thread alone, so one batch at a time kept the cores 60 % busy; a batch
        // per core keeps them busy (256 texts of 256 pieces: 31.8 s before, 23 s after).
        for pair in batches.chunks(self.concurrent_batches()) {
            let ids = |batch: &[usize]| -> Vec<&[u32]> {
                batch.iter().map(|&at| encodings[at].get_ids()).collect()
            };
            let results = self.run_together(pair, ids);
            for (batch, result) in pair.iter().zip(results) {
                for (&at, vector) in batch.iter().zip(result?) {
                    vectors[at] = vector;
                }
                done += batch.len();
            }
            if !progress(done) {
                return Err(Error::Model {
                    file: "model".into(),
                    message: format!("stopped after {done} of {} texts", texts.len()),
                });
            }
        }
        Ok(vectors)
    }

    /// How many batches run at once: one per core natively, one in wasm32.
    fn concurrent_batches(&self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        return self.pools.len().max(1);
        #[cfg(target_arch = "wasm32")]
        return 1;
    }

    /// Runs `batches` (at most [`Embedder::concurrent_batches`]) at once, a single one (a typed
    /// question) on this thread.
    fn run_together<'t>(
        &self,
        batches: &[&[usize]],
        ids: impl Fn(&[usize]) -> Vec<&'t [u32]>,
    ) -> Vec<Result<Vec<Vec<f32>>>> {
        if let [batch] = batches {
            // Run on a thread of rayon's pool, where candle's products split: from outside it,
            // each product woke the pool and put this thread to sleep until it was done (about
            // a sixth of a typed question's time went to the system's scheduler).
            #[cfg(not(target_arch = "wasm32"))]
            {
                let ids = ids(batch);
                return vec![rayon::scope(|_| self.run(&ids))];
            }
            #[cfg(target_arch = "wasm32")]
            return vec![self.run(&ids(batch))];
        }
        #[cfg(target_arch = "wasm32")]
        return batches.iter().map(|batch| self.run(&ids(batch))).collect();
        #[cfg(not(target_arch = "wasm32"))]
        std::thread::scope(|scope| {
            let handles: Vec<_> = batches
                .iter()
                .zip(&self.pools)
                .map(|(batch, pool)| {
                    let ids = ids(batch);
                    scope.spawn(move || pool.install(|| self.run(&ids)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    }

    /// One batch through the model: padded to its longest, masked, mean-pooled, normalised.
    fn run(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let lengths: Vec<usize> = batch.iter().map(|ids| ids.len()).collect();
        let width = lengths.iter().copied().max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch.len() * width);
        let mut mask = Vec::with_capacity(batch.len() * width);
        for row in batch {
            ids.extend(
                row.iter()
                    .copied()
                    .chain(std::iter::repeat_n(0, width - row.len())),
            );
            mask.extend((0..width).map(|at| u32::from(at < row.len())));
        }
        let shape = (batch.len(), width);
        let tensor = |values: Vec<u32>| Tensor::from_vec(values, shape, &Device::Cpu);
        let forward = || -> candle_core::Result<Vec<Vec<f32>>> {
            let ids = tensor(ids)?;
            let mask = tensor(mask)?;
            let types = ids.zeros_like()?;
            let hidden = self.model.forward(&ids, &types, &lengths)?;
            let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
            let counts = mask.sum(1)?;
            let mean = summed.broadcast_div(&counts)?;
            let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
            // sentence-transformers' Normalize divides by max(norm, 1e-12).
            let unit = mean.broadcast_div(&norms.clamp(1e-12f32, f32::MAX)?)?;
            unit.to_vec2::<f32>()
        };
        forward().map_err(|e| model_error("model", e))
    }
}

fn model_error(file: &str, error: impl std::fmt::Display) -> Error {
    Error::Model {
        file: file.to_string(),
        message: error.to_string(),
    }
}
