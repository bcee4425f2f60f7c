//! Format 7's version packs: the texts of many snapshots of one repository, each file's versions
//! side by side and compressed together, so a version that differs from the one before it by a
//! few lines costs about those lines.
//!
//! ```text
//! chunks/<sha256>.zst      a Zstandard frame of:
//!   "RLVERS01"             magic
//!   count                  u32, little-endian: the pack's entries
//!   count × 32 bytes       each entry's SHA-256
//!   count × 8 bytes        each entry's size, u64 little-endian
//!   the entries' bytes     concatenated in entry order
//! ```
//!
//! A pack holds every version of a run of paths, path by path (`routelens merge --versions`
//! writes them), so each snapshot's files, in path order, lie in the packs in order too: a
//! bundle's `chunks` list the packs that hold its files, each with the entries that are its
//! own (`ChunkEntry::entries`, increasing), and the file list places them as in format 6.
//!
//! Why Zstandard and not the DEFLATE of every other chunk: DEFLATE sees 32 KiB back, and most of
//! a repository's files are longer than that, so two versions of one file compress no better
//! together than apart. Measured on sympy's 8 snapshots in the fastindex ledger (157.8 MB of
//! distinct file versions, 35.0 MB in one snapshot): DEFLATE over the versions side by side
//! 21.7 MB, Zstandard (level 19, 4 MiB packs) 7.1 MB, about one snapshot's DEFLATE chunks.
//! Written natively by libzstd (the `zstd` crate), read anywhere by `ruzstd` (pure Rust).

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"RLVERS01";

/// The Zstandard level `routelens merge --versions` writes by default. Measured on sympy's 8
/// snapshots (157.8 MB of versions, one thread): level 19 7.1 MB in 20 s, 12 8.0 MB in 1.4 s,
/// 6 8.3 MB in 0.5 s. A site is merged once and fetched by every reader.
pub const DEFAULT_PACK_LEVEL: i32 = 19;

/// The uncompressed size a pack aims for: a pack is fetched whole to read one of its files.
pub const DEFAULT_PACK_TARGET_BYTES: usize = 4 * 1024 * 1024;

/// The header's length for a pack of `count` entries.
pub fn pack_header_len(count: usize) -> usize {
    MAGIC.len() + 4 + 40 * count
}

/// The uncompressed bytes of a pack of `entries`, in order.
#[cfg(not(target_arch = "wasm32"))]
pub fn encode_pack(entries: &[&[u8]]) -> Vec<u8> {
    use crate::checksum::sha256;
    let body: usize = entries.iter().map(|e| e.len()).sum();
    let mut out = Vec::with_capacity(pack_header_len(entries.len()) + body);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for entry in entries {
        out.extend_from_slice(&sha256(entry));
    }
    for entry in entries {
        out.extend_from_slice(&(entry.len() as u64).to_le_bytes());
    }
    for entry in entries {
        out.extend_from_slice(entry);
    }
    out
}

/// Compresses a pack's bytes as one Zstandard frame at `level`, its window as large as the pack
/// (so the last version of a file still sees the first).
#[cfg(not(target_arch = "wasm32"))]
pub fn compress_pack(raw: &[u8], level: i32) -> Vec<u8> {
    use zstd::zstd_safe::CParameter;
    // The window: the pack's size rounded up to a power of two, within libzstd's bounds.
    let window_log = (usize::BITS - raw.len().max(1).leading_zeros()).clamp(10, 27);
    let mut compressor = zstd::bulk::Compressor::new(level).expect("a level libzstd clamps");
    // Setting a parameter fails only for an unknown one or a value out of bounds, neither here.
    let _ = compressor.set_parameter(CParameter::WindowLog(window_log));
    let _ = compressor.set_parameter(CParameter::ContentSizeFlag(true));
    compressor
        .compress(raw)
        .expect("compressing to a growable buffer")
}

/// Decompresses a stored pack that the manifest says holds `raw_bytes` bytes; more or fewer is
/// an error naming `file`, and reading stops one byte past the limit, so a hostile pack cannot
/// make it allocate more than the manifest announced.
#[cfg(feature = "version-packs")]
pub fn decompress_pack(file: &str, stored: &[u8], raw_bytes: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let broken = |message: String| Error::Parse {
        file: file.to_string(),
        message,
    };
    let decoder = ruzstd::decoding::StreamingDecoder::new(stored)
        .map_err(|error| broken(format!("not a Zstandard frame: {error}")))?;
    let mut raw = Vec::with_capacity(raw_bytes);
    decoder
        .take(raw_bytes as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|error| broken(format!("not a valid Zstandard frame: {error}")))?;
    if raw.len() != raw_bytes {
        return Err(broken(format!(
            "decompresses to {}{} bytes, the manifest says {raw_bytes}",
            raw.len(),
            if raw.len() > raw_bytes {
                " or more"
            } else {
                ""
            }
        )));
    }
    Ok(raw)
}

/// Without the decoder (the page's own module): a version pack is read by the live worker.
#[cfg(not(feature = "version-packs"))]
pub fn decompress_pack(file: &str, _stored: &[u8], _raw_bytes: usize) -> Result<Vec<u8>> {
    Err(Error::Parse {
        file: file.to_string(),
        message: "a version pack: this build reads them only in the live worker".into(),
    })
}

/// Where each entry of a pack lies in its uncompressed bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackEntries {
    /// Each entry's byte range.
    pub ranges: Vec<std::ops::Range<usize>>,
}

impl PackEntries {
    /// The SHA-256 of entry `at`, from the pack's header.
    pub fn sha256<'r>(&self, raw: &'r [u8], at: usize) -> Option<&'r [u8]> {
        let start = MAGIC.len() + 4 + 32 * at;
        (at < self.ranges.len()).then(|| raw.get(start..start + 32))?
    }
}

/// Checks a pack's header against its bytes (magic, count, sizes summing to the rest), naming
/// `file`, and returns its entries.
pub fn decode_pack(file: &str, raw: &[u8]) -> Result<PackEntries> {
    let broken = |what: String| Error::Parse {
        file: file.to_string(),
        message: format!("not a version pack: {what}"),
    };
    let rest = raw
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| broken("it does not start with RLVERS01".into()))?;
    let count = rest
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| broken("no entry count".into()))?;
    if count > raw.len() / 40 {
        return Err(broken(format!("{count} entries in {} bytes", raw.len())));
    }
    let header = pack_header_len(count);
    let sizes = raw
        .get(MAGIC.len() + 4 + 32 * count..header)
        .ok_or_else(|| broken("its header ends early".into()))?;
    let mut ranges = Vec::with_capacity(count);
    let mut at = header;
    for size in sizes.chunks_exact(8) {
        let size = u64::from_le_bytes(size.try_into().unwrap_or_default());
        let end = usize::try_from(size)
            .ok()
            .and_then(|size| at.checked_add(size))
            .filter(|&end| end <= raw.len())
            .ok_or_else(|| broken(format!("entry {} runs past its end", ranges.len())))?;
        ranges.push(at..end);
        at = end;
    }
    if at != raw.len() {
        return Err(broken(format!(
            "{} bytes after the last entry",
            raw.len() - at
        )));
    }
    Ok(PackEntries { ranges })
}

#[cfg(all(test, feature = "version-packs"))]
mod tests {
    use super::*;
    use crate::checksum::sha256;

    #[test]
    fn a_pack_round_trips_through_zstandard() {
        let first = "def f():\n    return 1\n".repeat(3000);
        let second = first.replace("return 1", "return 2");
        let entries: [&[u8]; 3] = [first.as_bytes(), b"", second.as_bytes()];
        let raw = encode_pack(&entries);
        let stored = compress_pack(&raw, 3);
        assert!(stored.len() < first.len() / 20, "{}", stored.len());
        let back = decompress_pack("p", &stored, raw.len()).unwrap();
        assert_eq!(back, raw);
        let pack = decode_pack("p", &back).unwrap();
        for (at, entry) in entries.iter().enumerate() {
            assert_eq!(&back[pack.ranges[at].clone()], *entry);
            assert_eq!(pack.sha256(&back, at).unwrap(), sha256(entry));
        }
        assert_eq!(pack.sha256(&back, 3), None);
    }

    #[test]
    fn a_damaged_pack_is_named() {
        let raw = encode_pack(&[b"one", b"two"]);
        let stored = compress_pack(&raw, 3);
        let short = decompress_pack("chunks/p.zst", &stored, raw.len() - 1)
            .unwrap_err()
            .to_string();
        assert!(
            short.starts_with("chunks/p.zst: decompresses to"),
            "{short}"
        );
        assert!(short.contains("or more"), "{short}");
        let long = decompress_pack("p", &stored, raw.len() + 1).unwrap_err();
        assert!(long.to_string().contains("the manifest says"), "{long}");
        assert!(decompress_pack("p", b"not zstd", 3).is_err());
        for cut in [0, 8, 12, raw.len() - 1] {
            let error = decode_pack("chunks/p", &raw[..cut])
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("chunks/p: not a version pack"), "{error}");
        }
        let mut longer = raw.clone();
        longer.push(b'!');
        assert!(decode_pack("p", &longer)
            .unwrap_err()
            .to_string()
            .contains("after the last entry"));
        let mut huge = raw.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_pack("p", &huge).is_err());
    }
}
