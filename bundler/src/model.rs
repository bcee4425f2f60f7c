//! The embedding model on disk: where the pinned all-MiniLM-L6-v2 is installed, its files read
//! (a missing one says how to install it), and the embedder loaded from them, for every command
//! that embeds (`embed`, `bundle --embed`, `search` and `evaluate` with dense or hybrid); and a
//! cross-encoder the user brings (`evaluate --reranker-model`, `rerank --reranker-model`).

use std::path::{Path, PathBuf};

use routelens_engine::retrieval::cross_encoder::model::{CrossEncoder, CrossEncoderFiles};
use routelens_engine::retrieval::dense::embedder::{Embedder, ModelFiles};
use routelens_engine::retrieval::dense::pin::ModelPin;

use crate::cli::WeightsChoice;
use crate::failure::Failure;

/// The folder the pinned model is installed in: `--model`, else
/// `$ROUTELENS_MODELS/<install_as>`, else `~/.cache/routelens/models/<install_as>`.
pub fn model_folder(given: Option<&Path>, pin: &ModelPin) -> PathBuf {
    if let Some(folder) = given {
        return folder.to_path_buf();
    }
    let home = std::env::var_os("ROUTELENS_MODELS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/routelens/models"))
        })
        .unwrap_or_else(|| PathBuf::from(".cache/routelens/models"));
    home.join(&pin.install_as)
}

/// Which embedding model a command loads: its folder (default the installed one) and, with
/// `--weights page`, the mantissa bits its f32 weights are rounded to.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelChoice<'a> {
    /// `--model`.
    pub folder: Option<&'a Path>,
    /// The mantissa bits kept (`--weights page`); `None` for the full weights.
    pub mantissa_bits: Option<u8>,
}

impl<'a> ModelChoice<'a> {
    /// `--model FOLDER --weights W [--mantissa-bits B]`: `B` only with the page's weights,
    /// whose pinned width is the default.
    pub fn new(
        folder: Option<&'a Path>,
        weights: WeightsChoice,
        bits: Option<u8>,
    ) -> Result<ModelChoice<'a>, Failure> {
        let mantissa_bits = match (weights, bits) {
            (WeightsChoice::Full, Some(_)) => {
                return Err(Failure::Usage(
                    "--mantissa-bits rounds the page's weights; give --weights page too".into(),
                ))
            }
            (WeightsChoice::Full, None) => None,
            (WeightsChoice::Page, Some(bits)) => Some(bits),
            (WeightsChoice::Page, None) => Some(ModelPin::minilm().page_weights()?.mantissa_bits),
        };
        Ok(ModelChoice {
            folder,
            mantissa_bits,
        })
    }

    /// Loads the embedder this choice names, for `run`.
    pub fn load(&self, run: EmbedRun) -> Result<Embedder, Failure> {
        load_embedder_rounded(
            &model_folder(self.folder, &ModelPin::minilm()),
            self.mantissa_bits,
            run,
        )
    }
}

/// How a command runs the embedder, which decides how many threads each of candle's matrix
/// products splits over. candle reads that from `RAYON_NUM_THREADS` on every product, so it is
/// set once, before the model is loaded, while no other thread of ours runs; a value the user
/// set is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedRun {
    /// Many texts (`embed`, `bundle --embed`): the embedder runs a batch per core on
    /// single-thread pools, so each product stays on its batch's thread. Splitting each over
    /// both cores while both are busy cost a fifth of the throughput (docs/commands/embed.md).
    Batches,
    /// One question at a time (`search`, `evaluate` and `label` with typed questions): each
    /// product split over every core, which took the demo's typed dense query from a p50 of
    /// 18.5-20.1 ms to 15.3-15.5 ms (docs/dense.md).
    Questions,
}

impl EmbedRun {
    /// The thread count candle's products are told.
    fn product_threads(self) -> usize {
        match self {
            EmbedRun::Batches => 1,
            EmbedRun::Questions => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Loads the pinned embedder from `folder` for `run`; a missing file says how to install it,
/// other bytes are refused naming the file on disk.
pub fn load_embedder(folder: &Path, run: EmbedRun) -> Result<Embedder, Failure> {
    load_embedder_rounded(folder, None, run)
}

/// As [`load_embedder`], every f32 weight rounded to `mantissa_bits` when given, as the page's
/// narrowed weights are (`embed --weights page`).
pub fn load_embedder_rounded(
    folder: &Path,
    mantissa_bits: Option<u8>,
    run: EmbedRun,
) -> Result<Embedder, Failure> {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", run.product_threads().to_string());
    }
    let read = |name: &str| read_model_file(folder, name);
    let (config, weights, tokenizer) = (
        read("config.json")?,
        read("model.safetensors")?,
        read("tokenizer.json")?,
    );
    let files = ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
    };
    let pin = ModelPin::minilm();
    match mantissa_bits {
        None => Embedder::load(&files, pin),
        Some(bits) => Embedder::load_rounded(&files, pin, bits),
    }
    .map_err(|source| Failure::Bundle {
        dir: folder.to_path_buf(),
        source,
    })
}

/// Reads one of the model's files; a missing one says how to install the model.
pub fn read_model_file(folder: &Path, name: &str) -> Result<Vec<u8>, Failure> {
    let path = folder.join(name);
    std::fs::read(&path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            Failure::Missing {
                path,
                message: "not found; install the model with `python3 scripts/install-model.py` \
                          (scripts/setup.sh does), or name its folder with --model"
                    .into(),
            }
        } else {
            Failure::read(&path, source)
        }
    })
}

/// Loads the cross-encoder in `folder`, named `name` (default the folder's name) in reports.
pub fn load_cross_encoder(folder: &Path, name: Option<&str>) -> Result<CrossEncoder, Failure> {
    let read = |file: &str| {
        let path = folder.join(file);
        std::fs::read(&path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                Failure::Missing {
                    path,
                    message: "not found; a cross-encoder folder holds config.json, \
                              model.safetensors and tokenizer.json (docs/reranker.md)"
                        .into(),
                }
            } else {
                Failure::read(&path, source)
            }
        })
    };
    let (config, weights, tokenizer) = (
        read("config.json")?,
        read("model.safetensors")?,
        read("tokenizer.json")?,
    );
    let folder_name = folder.file_name().map_or_else(
        || folder.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    CrossEncoder::load(
        &CrossEncoderFiles {
            config: &config,
            weights: &weights,
            tokenizer: &tokenizer,
        },
        name.unwrap_or(&folder_name),
    )
    .map_err(|source| Failure::Bundle {
        dir: folder.to_path_buf(),
        source,
    })
}
