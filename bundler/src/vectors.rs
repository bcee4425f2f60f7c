//! Embedding for bundles (`bundle --embed`, `demo`): each chosen chunking's chunks and the
//! question set, through the pinned all-MiniLM-L6-v2, stored at the chosen precision.
//!
//! Embedding is the slow step of a bundle, so:
//! - vectors are cached by (model, text): `<cache>/<weights SHA-256>.vectors` holds records of
//!   a text's SHA-256 (32 bytes) and its 384 f32, appended after every batch and read back on
//!   the next build, so a rebuild embeds only new text; a record cut short (the process killed
//!   while appending) is ignored;
//! - the embedder batches texts of one length (`Embedder::embed_with_progress`) and candle's
//!   matrix products run on every core;
//! - progress goes to standard error every five seconds: texts done, texts per second, ETA
//!   (and a closing line with the rate, when it took that long);
//! - nothing of the bundle is written before every vector is made, so Ctrl-C leaves the old
//!   bundle (or none) and a cache of whole records.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use routelens_engine::checksum::sha256;
use routelens_engine::corpus::bundle::{
    store_question_vectors, store_vectors, BundleFile, Precision, VectorModel, VectorsEntry,
};
use routelens_engine::retrieval::dense::embedder::{Embedder, DIMENSION};

use crate::failure::Failure;

/// Texts embedded between two cache appends and progress checks.
const SLICE: usize = 256;

/// The vector cache of one model (see the module docs).
pub struct VectorCache {
    path: PathBuf,
    known: HashMap<[u8; 32], Vec<f32>>,
}

/// Bytes of one cache record.
const RECORD: usize = 32 + 4 * DIMENSION;

impl VectorCache {
    /// The cache of the model with these weights in `dir` (default `$ROUTELENS_CACHE/vectors`,
    /// else `~/.cache/routelens/vectors`), read whole.
    pub fn open(dir: Option<&Path>, weights_sha256: &str) -> Result<VectorCache, Failure> {
        let dir = dir.map(Path::to_path_buf).unwrap_or_else(default_dir);
        let path = dir.join(format!("{weights_sha256}.vectors"));
        let mut known = HashMap::new();
        match std::fs::File::open(&path) {
            Ok(mut file) => {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(|e| Failure::read(&path, e))?;
                for record in bytes.chunks_exact(RECORD) {
                    let mut key = [0u8; 32];
                    key.copy_from_slice(&record[..32]);
                    let vector: Vec<f32> = record[32..]
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect();
                    if vector.iter().all(|x| x.is_finite()) {
                        known.insert(key, vector);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::read(&path, e)),
        }
        Ok(VectorCache { path, known })
    }

    /// Appends new records (whole records only: the file is trimmed to whole records first).
    fn append(&mut self, records: Vec<([u8; 32], Vec<f32>)>) -> Result<(), Failure> {
        let failed = |e| Failure::Io {
            context: format!("writing the vector cache {}", self.path.display()),
            source: e,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(failed)?;
        let length = file.metadata().map_err(failed)?.len();
        if length % RECORD as u64 != 0 {
            file.set_len(length - length % RECORD as u64)
                .map_err(failed)?;
        }
        let mut bytes = Vec::with_capacity(records.len() * RECORD);
        for (key, vector) in &records {
            bytes.extend_from_slice(key);
            vector.iter().for_each(|x| bytes.extend(x.to_le_bytes()));
        }
        file.write_all(&bytes).map_err(failed)?;
        self.known.extend(records);
        Ok(())
    }
}

fn default_dir() -> PathBuf {
    match std::env::var_os("ROUTELENS_CACHE") {
        Some(dir) => PathBuf::from(dir).join("vectors"),
        None => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".cache/routelens/vectors"))
            .unwrap_or_else(|| PathBuf::from(".cache/routelens/vectors")),
    }
}

/// What embedding did, for the summary.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct EmbedCounts {
    /// Texts asked for.
    pub texts: usize,
    /// Of them, found in the cache (or repeated).
    pub cached: usize,
    /// Embedded now.
    pub embedded: usize,
    /// Milliseconds embedding.
    pub ms: f64,
}

/// The vectors of `texts` (one row each, in order), from the cache or embedded now; `label`
/// names them in progress lines.
pub fn embed_texts(
    embedder: &Embedder,
    cache: &mut VectorCache,
    texts: &[String],
    label: &str,
) -> Result<(Vec<f32>, EmbedCounts), Failure> {
    let started = Instant::now();
    let keys: Vec<[u8; 32]> = texts.iter().map(|t| sha256(t.as_bytes())).collect();
    let mut missing: Vec<usize> = Vec::new();
    let mut queued = std::collections::HashSet::new();
    for (at, key) in keys.iter().enumerate() {
        if !cache.known.contains_key(key) && queued.insert(*key) {
            missing.push(at);
        }
    }
    let mut progress = Progress::new(label, missing.len());
    for slice in missing.chunks(SLICE) {
        let batch: Vec<&str> = slice.iter().map(|&at| texts[at].as_str()).collect();
        let vectors = embedder.embed(&batch)?;
        cache.append(slice.iter().map(|&at| keys[at]).zip(vectors).collect())?;
        progress.advance(slice.len());
    }
    progress.finish();
    let mut rows = Vec::with_capacity(texts.len() * DIMENSION);
    for key in &keys {
        rows.extend_from_slice(&cache.known[key]);
    }
    let counts = EmbedCounts {
        texts: texts.len(),
        cached: texts.len() - missing.len(),
        embedded: missing.len(),
        ms: crate::clock::elapsed_ms(started),
    };
    Ok((rows, counts))
}

/// The model a bundle's vectors record.
pub fn model_of(embedder: &Embedder) -> (String, String) {
    let pin = embedder.pin();
    let weights = pin
        .files
        .get("model.safetensors")
        .map(|f| f.sha256.clone())
        .unwrap_or_default();
    (pin.name.clone(), weights)
}

/// A chunking's vectors as a bundle file and its entry.
pub fn chunking_vectors(
    (name, weights): (&str, &str),
    rows: &[f32],
    precision: Precision,
) -> (VectorsEntry, BundleFile) {
    let model = VectorModel {
        name,
        weights_sha256: weights,
    };
    store_vectors(model, rows, DIMENSION, precision)
}

/// The question set's vectors (`texts`, their `rows`) as a bundle file and its entry.
pub fn question_vectors(
    (name, weights): (&str, &str),
    texts: &[String],
    rows: &[f32],
) -> (VectorsEntry, BundleFile) {
    let model = VectorModel {
        name,
        weights_sha256: weights,
    };
    let keyed: Vec<([u8; 32], Vec<f32>)> = texts
        .iter()
        .zip(rows.chunks_exact(DIMENSION))
        .map(|(text, row)| (sha256(text.as_bytes()), row.to_vec()))
        .collect();
    store_question_vectors(model, &keyed, DIMENSION)
}

/// Progress lines on standard error: at most one every five seconds.
struct Progress<'l> {
    label: &'l str,
    total: usize,
    done: usize,
    started: Instant,
    last: Instant,
}

impl<'l> Progress<'l> {
    fn new(label: &'l str, total: usize) -> Self {
        let now = Instant::now();
        Progress {
            label,
            total,
            done: 0,
            started: now,
            last: now,
        }
    }

    fn advance(&mut self, n: usize) {
        self.done += n;
        if self.last.elapsed().as_secs() >= 5 && self.done < self.total {
            self.last = Instant::now();
            let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
            let left = (self.total - self.done) as f64 / rate.max(1e-9);
            let _ = writeln!(
                std::io::stderr(),
                "routelens: embedding {}: {} of {} texts, {rate:.1}/s, about {} left",
                self.label,
                self.done,
                self.total,
                duration(left)
            );
        }
    }

    /// The closing line, after a run long enough to have shown progress.
    fn finish(&self) {
        let seconds = self.started.elapsed().as_secs_f64();
        if seconds >= 5.0 {
            let _ = writeln!(
                std::io::stderr(),
                "routelens: embedded {}: {} texts in {}, {:.1}/s",
                self.label,
                self.total,
                duration(seconds),
                self.total as f64 / seconds.max(1e-9)
            );
        }
    }
}

fn duration(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    if whole >= 60 {
        format!("{}m {:02}s", whole / 60, whole % 60)
    } else {
        format!("{whole}s")
    }
}
