//! The embedding model's weights as the page fetches them: the pinned f32 file with every f32
//! weight rounded to fewer mantissa bits (its full exponent kept), stored as byte planes and
//! DEFLATE-compressed, then widened back to an f32 safetensors file in the worker. The model
//! still runs in f32; only the bytes over the wire shrink (issue 33: at most 50 MB transferred).
//!
//! Why hand-written: no crate stores floats this way. f16 (`half`) keeps 10 mantissa bits but
//! also narrows the exponent, and measured on the demo it swapped two chunks of one question's
//! dense top 10 (docs/dense.md); a rounded f32 keeps the exponent, and its sign-and-exponent
//! byte, split out into a plane of its own, compresses to about a third. The compression itself
//! is DEFLATE, as for every bundle chunk (`corpus::bundle::chunk`).
//!
//! The file (`model.safetensors.rlpw`):
//!
//! ```text
//! bytes 0..8    b"RLPW\x01\0\0\0"      magic and format version 1
//! byte  8       mantissa bits kept (1..=23)
//! bytes 9..17   u64 LE: the payload's length
//! bytes 17..    the payload, raw DEFLATE
//! payload:      the f32 file's header, verbatim (its u64 LE length and JSON);
//!               then the words of every F32 tensor in file order, as byte planes: the most
//!               significant byte of every word, then the next byte of every word, for as many
//!               bytes as sign, exponent and kept mantissa bits fill (the rest are zero);
//!               then every other tensor's bytes, in file order
//! ```
//!
//! Widening puts each tensor back where the header says, so the widened file is the f32 file
//! with its mantissas rounded ([`rounded`]), byte for byte: `widen(narrow(f, b)) ==
//! rounded(f, b)`. The page checks the fetched file's SHA-256 against the pin before widening.

use safetensors::tensor::{Dtype, Metadata};

use crate::corpus::bundle as chunk;
use crate::error::{Error, Result};

/// The file's first eight bytes: its magic and format version.
const MAGIC: &[u8; 8] = b"RLPW\x01\0\0\0";
/// The magic, the mantissa bits and the payload's length.
const PREFIX: usize = 8 + 1 + 8;

/// The tensors of a safetensors file, in file order: whether each is F32, and its byte range
/// within the data that follows the header. Also the header's length (8 + JSON) and the data's.
struct Layout {
    header: usize,
    tensors: Vec<(bool, std::ops::Range<usize>)>,
    /// The data's length.
    data: usize,
}

/// The layout the safetensors header at the start of `bytes` describes (the tensors' offsets
/// checked contiguous and sized by their shapes, by the safetensors crate); the data that
/// follows the header is not read.
fn layout(file: &str, bytes: &[u8]) -> Result<Layout> {
    let json_len = bytes
        .get(..8)
        .map(|n| u64::from_le_bytes(n.try_into().unwrap_or_default()))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| model_error(file, "shorter than a safetensors header"))?;
    let json = 8usize
        .checked_add(json_len)
        .and_then(|end| bytes.get(8..end))
        .ok_or_else(|| model_error(file, "its safetensors header runs past its end"))?;
    let metadata: Metadata = serde_json::from_slice(json).map_err(|e| model_error(file, e))?;
    let mut tensors: Vec<(bool, std::ops::Range<usize>)> = metadata
        .tensors()
        .values()
        .map(|info| {
            let (start, end) = info.data_offsets;
            (info.dtype == Dtype::F32, start..end)
        })
        .collect();
    tensors.sort_by_key(|(_, range)| range.start);
    Ok(Layout {
        header: 8 + json_len,
        tensors,
        data: metadata.data_len(),
    })
}

/// The layout of a whole safetensors file, its length checked against it.
fn file_layout(file: &str, bytes: &[u8]) -> Result<Layout> {
    let layout = layout(file, bytes)?;
    if layout.header + layout.data != bytes.len() {
        return Err(model_error(
            file,
            format!(
                "{} bytes; its header describes {}",
                bytes.len(),
                layout.header + layout.data
            ),
        ));
    }
    Ok(layout)
}

/// How many of a word's bytes, from the most significant, hold its sign, exponent and `bits`
/// mantissa bits.
fn planes(bits: u8) -> usize {
    (9 + usize::from(bits)).div_ceil(8)
}

fn check_bits(bits: u8) -> Result<()> {
    if (1..=23).contains(&bits) {
        Ok(())
    } else {
        Err(Error::Model {
            file: "model.safetensors".into(),
            message: format!("{bits} mantissa bits: an f32 keeps 1 to 23"),
        })
    }
}

/// `word` (an f32's bits) rounded to `bits` mantissa bits, to nearest with ties to even, as a
/// float's rounding does (a carry moves into the exponent); infinities and NaNs are kept.
pub fn round_word(word: u32, bits: u8) -> u32 {
    let dropped = 23 - u32::from(bits.min(23));
    if dropped == 0 || (word >> 23) & 0xff == 0xff {
        return word;
    }
    let half = 1u32 << (dropped - 1);
    let odd = (word >> dropped) & 1;
    (word + (half - 1) + odd) & !((1u32 << dropped) - 1)
}

/// The f32 safetensors file `weights` with every F32 tensor's mantissas rounded to `bits`: what
/// the page's weights widen to.
pub fn rounded(weights: &[u8], bits: u8) -> Result<Vec<u8>> {
    check_bits(bits)?;
    let layout = file_layout("model.safetensors", weights)?;
    let mut out = weights.to_vec();
    let data = &mut out[layout.header..];
    for (is_f32, range) in &layout.tensors {
        if *is_f32 {
            for word in data[range.clone()].chunks_exact_mut(4) {
                let bits32 = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                word.copy_from_slice(&round_word(bits32, bits).to_le_bytes());
            }
        }
    }
    Ok(out)
}

/// The page's file for the f32 safetensors file `weights`, its mantissas rounded to `bits`,
/// compressed at DEFLATE `level` (see [`chunk::compress`]). Native only: the page reads it.
#[cfg(not(target_arch = "wasm32"))]
pub fn narrow(weights: &[u8], bits: u8, level: u8) -> Result<Vec<u8>> {
    check_bits(bits)?;
    let layout = file_layout("model.safetensors", weights)?;
    let data = &weights[layout.header..];
    let kept = planes(bits);
    let words: Vec<u32> = layout
        .tensors
        .iter()
        .filter(|(is_f32, _)| *is_f32)
        .flat_map(|(_, range)| data[range.clone()].chunks_exact(4))
        .map(|w| round_word(u32::from_le_bytes([w[0], w[1], w[2], w[3]]), bits))
        .collect();
    let mut payload = Vec::with_capacity(layout.header + words.len() * kept);
    payload.extend_from_slice(&weights[..layout.header]);
    for plane in 0..kept {
        let shift = 24 - 8 * plane;
        payload.extend(words.iter().map(|w| (w >> shift) as u8));
    }
    for (_, range) in layout.tensors.iter().filter(|(is_f32, _)| !is_f32) {
        payload.extend_from_slice(&data[range.clone()]);
    }
    let mut out = Vec::with_capacity(PREFIX + payload.len() / 2);
    out.extend_from_slice(MAGIC);
    out.push(bits);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&chunk::compress(&payload, level));
    Ok(out)
}

/// The f32 safetensors file that `file` (the page's weights, named `name` in errors) widens to;
/// a file that is not one, or whose parts do not add up, is an error naming it.
pub fn widen(name: &str, file: &[u8]) -> Result<Vec<u8>> {
    let bad = |message: String| Error::Model {
        file: name.to_string(),
        message,
    };
    if file.len() < PREFIX || &file[..8] != MAGIC {
        return Err(bad("not routelens page weights (format 1)".into()));
    }
    let bits = file[8];
    check_bits(bits).map_err(|e| bad(e.to_string()))?;
    let length = u64::from_le_bytes(file[9..PREFIX].try_into().unwrap_or_default());
    let length = usize::try_from(length).map_err(|e| bad(e.to_string()))?;
    let payload = chunk::decompress(name, &file[PREFIX..], length)?;
    let layout = layout(name, &payload)?;
    let data_len = layout.data;
    let f32_bytes: usize = layout
        .tensors
        .iter()
        .filter(|(is_f32, _)| *is_f32)
        .map(|(_, r)| r.len())
        .sum();
    let words = f32_bytes / 4;
    let kept = planes(bits);
    let others = data_len - f32_bytes;
    if payload.len() != layout.header + words * kept + others {
        return Err(bad(format!(
            "{} bytes of header, planes and other tensors; its header describes {}",
            payload.len(),
            layout.header + words * kept + others
        )));
    }
    let (header, rest) = payload.split_at(layout.header);
    let (plane_bytes, mut other) = rest.split_at(words * kept);
    let mut out = Vec::with_capacity(layout.header + data_len);
    out.extend_from_slice(header);
    out.resize(layout.header + data_len, 0);
    let data = &mut out[layout.header..];
    let mut word = 0;
    for (is_f32, range) in &layout.tensors {
        if *is_f32 {
            for slot in data[range.clone()].chunks_exact_mut(4) {
                // Little-endian: the most significant byte (plane 0) goes last.
                for plane in 0..kept {
                    slot[3 - plane] = plane_bytes[plane * words + word];
                }
                word += 1;
            }
        } else {
            let (these, after) = other.split_at(range.len());
            data[range.clone()].copy_from_slice(these);
            other = after;
        }
    }
    Ok(out)
}

fn model_error(file: &str, error: impl std::fmt::Display) -> Error {
    Error::Model {
        file: file.to_string(),
        message: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use safetensors::tensor::{SafeTensors, TensorView};

    /// A safetensors file of two F32 tensors with an I64 one between them, as the model has.
    fn file(a: &[f32], ids: &[i64], b: &[f32]) -> Vec<u8> {
        let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let (a, b) = (bytes(a), bytes(b));
        let ids: Vec<u8> = ids.iter().flat_map(|x| x.to_le_bytes()).collect();
        let views = [
            (
                "a",
                TensorView::new(Dtype::F32, vec![a.len() / 4], &a).unwrap(),
            ),
            (
                "ids",
                TensorView::new(Dtype::I64, vec![ids.len() / 8], &ids).unwrap(),
            ),
            (
                "b",
                TensorView::new(Dtype::F32, vec![b.len() / 4], &b).unwrap(),
            ),
        ];
        safetensors::tensor::serialize(views, None).unwrap()
    }

    #[test]
    fn rounds_to_nearest_with_ties_to_even() {
        // 1 + 2^-23 (the last bit set) keeps 22 bits: a tie, to the even neighbour 1.0.
        assert_eq!(round_word(0x3f80_0001, 22), 0x3f80_0000);
        // 1 + 3·2^-23: a tie between 1 + 2·2^-23 (odd at 22 bits) and 1 + 4·2^-23 (even).
        assert_eq!(round_word(0x3f80_0003, 22), 0x3f80_0004);
        // The largest mantissa carries into the exponent: just below 2.0 rounds to 2.0.
        assert_eq!(f32::from_bits(round_word(0x3fff_ffff, 12)), 2.0);
        // Sign kept; NaN and infinity untouched.
        assert_eq!(f32::from_bits(round_word((-1.5f32).to_bits(), 1)), -1.5);
        assert_eq!(round_word(0x7fc0_0001, 4), 0x7fc0_0001);
        assert_eq!(
            round_word(f32::INFINITY.to_bits(), 4),
            f32::INFINITY.to_bits()
        );
        assert_eq!(round_word(0x1234_5678, 23), 0x1234_5678);
    }

    #[test]
    fn refuses_other_files_naming_them() {
        let weights = file(&[1.0], &[7], &[2.0]);
        let narrowed = narrow(&weights, 12, 6).unwrap();
        let error = widen("w.rlpw", &weights).unwrap_err().to_string();
        assert!(
            error.starts_with("w.rlpw: embedding model: not routelens"),
            "{error}"
        );
        let mut cut = narrowed.clone();
        cut.truncate(cut.len() - 3);
        assert!(widen("w.rlpw", &cut)
            .unwrap_err()
            .to_string()
            .starts_with("w.rlpw"));
        let mut longer = narrowed;
        longer[9] += 1;
        assert!(widen("w.rlpw", &longer).is_err());
        assert!(rounded(&weights, 0).is_err());
        assert!(narrow(&weights, 24, 6).is_err());
    }

    proptest! {
        /// What the page widens is the f32 file rounded, byte for byte, and every weight is
        /// within half a unit of the last kept bit; other tensors are untouched.
        #[test]
        fn widening_gives_the_rounded_file(
            a in prop::collection::vec(-4.0f32..4.0, 0..40),
            ids in prop::collection::vec(any::<i64>(), 0..5),
            b in prop::collection::vec(any::<f32>(), 1..40),
            bits in 1u8..=23,
        ) {
            let weights = file(&a, &ids, &b);
            let page = rounded(&weights, bits).unwrap();
            prop_assert_eq!(widen("w", &narrow(&weights, bits, 6).unwrap()).unwrap(), page.clone());
            let stored = SafeTensors::deserialize(&page).unwrap();
            let read = |name: &str| stored.tensor(name).unwrap().data().to_vec();
            let id_bytes: Vec<u8> = ids.iter().flat_map(|x| x.to_le_bytes()).collect();
            prop_assert_eq!(read("ids"), id_bytes);
            let widened: Vec<f32> = read("a").chunks_exact(4)
                .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
            for (x, y) in a.iter().zip(&widened) {
                // The kept last bit's weight at x's binary exponent (x is normal here).
                let exponent = ((x.to_bits() >> 23) & 0xff) as i32 - 127;
                let ulp = 2f32.powi(exponent - i32::from(bits));
                prop_assert!((x - y).abs() <= ulp / 2.0 || *x == 0.0, "{x} {y} {bits}");
            }
        }
    }
}
