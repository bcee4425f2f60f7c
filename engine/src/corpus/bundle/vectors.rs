//! Embedding vectors in a bundle (format 4): each chunking's chunk vectors, and the question
//! set's vectors, so dense retrieval and the grid need no model to rank a bundle's own questions.
//!
//! ```text
//! vectors/<sha256>.f16         a chunking's vectors, one row per chunk in chunk-table order,
//!                              `dimension` numbers each, little-endian: .f32, .f16 (IEEE
//!                              half) or .int8 (per row an f32 scale, then `dimension` signed
//!                              bytes; a number is byte × scale)
//! vectors/<sha256>.questions   the question set's vectors: per question the SHA-256 of its
//!                              text (32 bytes), then `dimension` f32
//! ```
//!
//! The manifest names the model that made them (its hub name and the SHA-256 of its weights)
//! so that vectors of another model are refused by name where a question is embedded, and the
//! precision the rows are stored at. Opening checks the file's hash, its length against the
//! count and dimension, the count against the chunking's chunks, and that every number is
//! finite; an error names the file.

use half::f16;

use super::{Manifest, MANIFEST_FILE};
use crate::corpus::code_chunks::Chunker;
use crate::error::{Error, Result};

/// How a chunking's vector rows are stored.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, Hash,
)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Four bytes a number, as the model gives them.
    F32,
    /// Two bytes a number (IEEE half), widened exactly where read: the default, chosen by
    /// measurement (docs/dense.md).
    #[default]
    F16,
    /// One signed byte a number and an f32 scale per row.
    Int8,
}

impl Precision {
    /// Every precision, default first.
    pub const ALL: [Precision; 3] = [Precision::F16, Precision::F32, Precision::Int8];

    /// Its name, also the stored file's extension (`f16`).
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
            Precision::Int8 => "int8",
        }
    }

    /// The precision with this name.
    pub fn from_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Bytes of one stored row.
    pub fn row_bytes(self, dimension: usize) -> usize {
        match self {
            Precision::F32 => 4 * dimension,
            Precision::F16 => 2 * dimension,
            Precision::Int8 => 4 + dimension,
        }
    }
}

/// A vectors file, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorsEntry {
    /// The model's hub name (`sentence-transformers/all-MiniLM-L6-v2`).
    pub model: String,
    /// SHA-256 of the model's weights file.
    pub weights_sha256: String,
    /// How the rows are stored (the questions file: always f32).
    pub precision: Precision,
    /// Numbers per vector.
    pub dimension: u32,
    /// How many vectors.
    pub count: u64,
    /// The file, `vectors/<sha256>.<precision>` or `vectors/<sha256>.questions`.
    pub file: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
}

/// Stored question vectors: each question's text SHA-256 (lower-case hex) and its vector.
pub type QuestionVectors = Vec<(String, Vec<f32>)>;

/// The model a vectors file was made with: its hub name and its weights' SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorModel<'a> {
    /// The hub name.
    pub name: &'a str,
    /// The weights' SHA-256.
    pub weights_sha256: &'a str,
}

/// The rows as stored at `precision`, each `dimension` long (the caller checked); native only, as
/// encoding a bundle is.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn encode_rows(rows: &[f32], dimension: usize, precision: Precision) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(rows.len() / dimension.max(1) * precision.row_bytes(dimension));
    for row in rows.chunks_exact(dimension.max(1)) {
        match precision {
            Precision::F32 => row.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Precision::F16 => row
                .iter()
                .for_each(|x| out.extend(f16::from_f32(*x).to_le_bytes())),
            Precision::Int8 => {
                let largest = row.iter().fold(0f32, |m, x| m.max(x.abs()));
                let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
                out.extend(scale.to_le_bytes());
                out.extend(
                    row.iter()
                        .map(|x| ((x / scale).round().clamp(-127.0, 127.0) as i8) as u8),
                );
            }
        }
    }
    out
}

/// A chunking's vectors as opened: f32 numbers (stored as f32, or int8 widened), or the IEEE
/// halves of an f16 file as stored, which a scan reads at half the bytes and widens exactly as
/// it goes (`retrieval::dense::rank`).
#[derive(Debug, Clone, PartialEq)]
pub enum VectorRows {
    /// Four bytes a number.
    F32(Vec<f32>),
    /// The bits of each IEEE half, every one finite.
    F16(Vec<u16>),
}

impl VectorRows {
    /// The position of the first number that is an infinity or a NaN, if any.
    pub fn first_not_finite(&self) -> Option<usize> {
        match self {
            VectorRows::F32(values) => values.iter().position(|x| !x.is_finite()),
            // A half with every exponent bit set is an infinity or a NaN.
            VectorRows::F16(halves) => halves.iter().position(|h| h & 0x7c00 == 0x7c00),
        }
    }

    /// How many numbers it holds.
    pub fn numbers(&self) -> usize {
        match self {
            VectorRows::F32(values) => values.len(),
            VectorRows::F16(halves) => halves.len(),
        }
    }

    /// Every number as an f32: halves widened exactly.
    pub fn widened(self) -> Vec<f32> {
        match self {
            VectorRows::F32(values) => values,
            VectorRows::F16(halves) => {
                let widened = f16_table();
                halves
                    .into_iter()
                    .map(|bits| widened[usize::from(bits)])
                    .collect()
            }
        }
    }
}

/// Every IEEE half's f32 value, by its bits: widening a chunking's vectors by table is exact (the
/// table is `half`'s own conversion) and, in wasm, where `half` has no hardware conversion, twice
/// as fast as converting each number (the demo's three chunkings hold 65 million: about 320 ms
/// of the worker's profile, 155 by table). Hand-written because no crate offers the table;
/// 256 kB, made per call.
fn f16_table() -> Vec<f32> {
    (0..=u16::MAX)
        .map(|bits| f16::from_bits(bits).to_f32())
        .collect()
}

/// The rows stored in `bytes` at `precision` (the length was checked): f16 kept as its halves.
fn decode_rows(bytes: &[u8], dimension: usize, precision: Precision) -> VectorRows {
    match precision {
        Precision::F32 => VectorRows::F32(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        ),
        Precision::F16 => VectorRows::F16(
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect(),
        ),
        Precision::Int8 => {
            let mut out = Vec::with_capacity(bytes.len() / (4 + dimension) * dimension);
            for row in bytes.chunks_exact(4 + dimension) {
                let scale = f32::from_le_bytes([row[0], row[1], row[2], row[3]]);
                out.extend(row[4..].iter().map(|&b| f32::from(b as i8) * scale));
            }
            VectorRows::F32(out)
        }
    }
}

/// The stored question file: each question's text hash and vector.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn encode_question_rows(questions: &[([u8; 32], Vec<f32>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (hash, vector) in questions {
        out.extend_from_slice(hash);
        vector.iter().for_each(|x| out.extend(x.to_le_bytes()));
    }
    out
}

impl Manifest {
    /// The vectors entry of `chunker`'s chunking, or an error that says how to get one.
    pub fn vectors_entry(&self, chunker: Chunker) -> Result<&VectorsEntry> {
        self.chunking_or_error(chunker)?
            .vectors
            .as_ref()
            .ok_or_else(|| {
                Error::field(
                    MANIFEST_FILE,
                    "chunkings",
                    format!(
                        "the {} chunking has no vectors; rebuild the bundle with `routelens bundle --embed {}`",
                        chunker.name(),
                        chunker.name()
                    ),
                )
            })
    }

    /// Verifies and reads the vectors of `chunker`'s chunking: one row per chunk, in table
    /// order, with their entry (the model that made them, the dimension).
    pub fn open_vectors(
        &self,
        chunker: Chunker,
        stored: &[u8],
    ) -> Result<(VectorRows, &VectorsEntry)> {
        self.open_vectors_digested(chunker, stored, None)
    }

    /// [`Manifest::open_vectors`] with the SHA-256 of `stored` computed by the caller when it
    /// has one (the browser's own, native, where the engine's in wasm took about 400 ms of the
    /// worker's profile for the demo's three chunkings), checked against the manifest in place
    /// of hashing here.
    pub fn open_vectors_digested(
        &self,
        chunker: Chunker,
        stored: &[u8],
        sha256: Option<&str>,
    ) -> Result<(VectorRows, &VectorsEntry)> {
        let chunking = self.chunking_or_error(chunker)?;
        let entry = self.vectors_entry(chunker)?;
        if entry.count != chunking.chunks {
            return Err(Error::field(
                MANIFEST_FILE,
                format!("{}.vectors.count", chunker.name()),
                format!("{} vectors for {} chunks", entry.count, chunking.chunks),
            ));
        }
        let values = open_checked(
            entry,
            stored,
            entry.precision.row_bytes(entry.dimension as usize),
            sha256,
        )?;
        let rows = decode_rows(values, entry.dimension as usize, entry.precision);
        finite(&entry.file, &rows, entry.dimension as usize)?;
        Ok((rows, entry))
    }

    /// Verifies and reads the question set's vectors: each question's text hash (lower-case
    /// hex) and vector.
    pub fn open_question_vectors(
        &self,
        stored: &[u8],
    ) -> Result<(QuestionVectors, VectorModel<'_>)> {
        let entry = self.question_vectors.as_ref().ok_or_else(|| {
            Error::field(
                MANIFEST_FILE,
                "question_vectors",
                "this bundle stores no question vectors",
            )
        })?;
        let dimension = entry.dimension as usize;
        let values = open_checked(entry, stored, 32 + 4 * dimension, None)?;
        let mut out = Vec::with_capacity(entry.count as usize);
        for row in values.chunks_exact(32 + 4 * dimension) {
            let hash = crate::checksum::hex(&row[..32]);
            let vector = decode_rows(&row[32..], dimension, Precision::F32);
            finite(&entry.file, &vector, dimension)?;
            out.push((hash, vector.widened()));
        }
        Ok((out, entry.model()))
    }

    /// Checks every vectors entry's names and numbers (part of opening the manifest).
    pub(super) fn check_vectors(&self) -> Result<()> {
        let chunkings =
            self.chunkings.iter().enumerate().filter_map(|(at, c)| {
                Some((format!("chunkings[{at}].vectors"), c.vectors.as_ref()?))
            });
        let questions = self
            .question_vectors
            .as_ref()
            .map(|q| ("question_vectors".to_string(), q));
        for (field, entry) in chunkings.chain(questions) {
            super::decode::check_hex(&entry.sha256, &format!("{field}.sha256"))?;
            super::decode::check_hex(&entry.weights_sha256, &format!("{field}.weights_sha256"))?;
            let extension = if field == "question_vectors" {
                ".questions".to_string()
            } else {
                format!(".{}", entry.precision.name())
            };
            super::decode::check_named(&entry.file, "vectors/", &entry.sha256, &extension, &field)?;
            if entry.dimension == 0 {
                return Err(Error::field(
                    MANIFEST_FILE,
                    format!("{field}.dimension"),
                    "0; a vector has at least one number",
                ));
            }
        }
        Ok(())
    }
}

/// The stored bytes after their hash (`sha256` when the caller computed it) and length are
/// checked against `entry`.
fn open_checked<'b>(
    entry: &VectorsEntry,
    stored: &'b [u8],
    row_bytes: usize,
    sha256: Option<&str>,
) -> Result<&'b [u8]> {
    match sha256 {
        Some(actual) if actual != entry.sha256 => {
            return Err(Error::ManifestHash {
                file: entry.file.clone(),
                expected: entry.sha256.clone(),
                actual: actual.to_string(),
            })
        }
        Some(_) => {}
        None => super::decode::verify_hash(&entry.file, &entry.sha256, stored)?,
    }
    let want = (entry.count as usize).checked_mul(row_bytes);
    if want != Some(stored.len()) || stored.len() as u64 != entry.bytes {
        return Err(Error::field(
            &entry.file,
            "bytes",
            format!(
                "{} bytes; {} vectors of {} numbers at {} take {} (the manifest says {})",
                stored.len(),
                entry.count,
                entry.dimension,
                entry.precision.name(),
                want.map_or_else(|| "too many".to_string(), |w| w.to_string()),
                entry.bytes
            ),
        ));
    }
    Ok(stored)
}

/// Every number of `rows` is finite, or an error names the file and the vector.
fn finite(file: &str, rows: &VectorRows, dimension: usize) -> Result<()> {
    match rows.first_not_finite() {
        None => Ok(()),
        Some(at) => Err(Error::field(
            file,
            format!("vector {}", at / dimension.max(1)),
            "a number that is not finite",
        )),
    }
}

impl VectorsEntry {
    /// The model the vectors were made with.
    pub fn model(&self) -> VectorModel<'_> {
        VectorModel {
            name: &self.model,
            weights_sha256: &self.weights_sha256,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_rows, f16, Precision};

    /// Every one of the 65,536 halves widens by table to `half`'s own f32, bit for bit (NaN
    /// payloads and signed zeros included).
    #[test]
    fn the_f16_table_widens_every_half_as_half_does() {
        let bytes: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let widened = decode_rows(&bytes, 1, Precision::F16).widened();
        assert_eq!(widened.len(), 65_536);
        for (bits, value) in (0..=u16::MAX).zip(&widened) {
            assert_eq!(
                value.to_bits(),
                f16::from_bits(bits).to_f32().to_bits(),
                "{bits:#06x}"
            );
        }
    }
}
