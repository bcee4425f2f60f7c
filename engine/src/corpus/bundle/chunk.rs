//! File contents packed into compressed chunks.
//!
//! Packing is a pure function of the files, in path order: a file goes into the current chunk
//! unless that would take the chunk's uncompressed size past the target and the chunk already
//! holds something, in which case a new chunk starts. A file is never split, so a chunk is at most
//! `max(target, largest file)` bytes before compression. Neighbouring paths share a chunk, which
//! suits both compression (similar files) and fetching (a directory's files arrive together).
//!
//! Format 6 cuts by content instead ([`plan_chunks_by_content`]): whether a chunk ends after a
//! file depends on that file alone (its path and size), so a snapshot of the same repository at
//! another commit, where most files are unchanged, cuts most chunks at the same files and
//! stores them as the same bytes under the same names.
//!
//! A chunk's uncompressed bytes are its files' bytes concatenated in path order (format 6: after
//! a header with each file's SHA-256, see `listing`); the stored
//! chunk is that, compressed as raw DEFLATE (RFC 1951, no zlib or gzip header): written by
//! libdeflate (native), read by `miniz_oxide` (pure Rust, so also in the browser).

use crate::error::{Error, Result};

/// The default uncompressed chunk size to aim for: 256 KiB.
pub const DEFAULT_CHUNK_TARGET_BYTES: usize = 256 * 1024;

/// The default DEFLATE level (libdeflate's 0–12): 1.
///
/// Measured on the demo corpus (13.9 MB of source in 256 KiB chunks, one core), libdeflate:
/// level 1 61 ms for 0.244 of the raw bytes, 3 94 ms for 0.230, 6 145 ms for 0.218;
/// `miniz_oxide`, used before: level 2 112 ms for 0.250, 6 413 ms for 0.219. Compressing was
/// half the bundle build, and past level 1 each byte saved costs several times more time.
pub const DEFAULT_COMPRESSION_LEVEL: u8 = 1;

/// The highest DEFLATE level.
pub const MAX_COMPRESSION_LEVEL: u8 = 12;

/// Where one file sits in the packing: its chunk and byte offset in the uncompressed chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The chunk's position in the chunk list.
    pub chunk: usize,
    /// The file's first byte in the chunk's uncompressed bytes.
    pub offset: usize,
}

/// Assigns each file (given by its size, in path order) to a chunk.
pub fn plan_chunks(sizes: &[usize], target_bytes: usize) -> Vec<Placement> {
    let mut placements = Vec::with_capacity(sizes.len());
    let (mut chunk, mut used) = (0usize, 0usize);
    for &size in sizes {
        if used > 0 && used.saturating_add(size) > target_bytes {
            chunk += 1;
            used = 0;
        }
        placements.push(Placement {
            chunk,
            offset: used,
        });
        used += size;
    }
    placements
}

/// Assigns each file (given by its path and size, in path order) to a chunk, cutting by
/// content: after a file, the chunk ends with probability `size / target` (at least one), drawn
/// from the path's SHA-256, so each byte ends a chunk with chance `1 / target` and chunks average
/// about `target` bytes whatever the files' sizes. A chunk is never cut below a quarter of the
/// target, and a file that would take it past four times the target starts a new one (as
/// [`plan_chunks`], a file is never split).
///
/// Content-defined chunking usually rolls a hash over the bytes; here the unit is the file,
/// since a file is never split and its text is read whole, so a hash of its path decides.
pub fn plan_chunks_by_content(files: &[(&str, usize)], target_bytes: usize) -> Vec<Placement> {
    let target = target_bytes.max(1);
    let mut placements = Vec::with_capacity(files.len());
    let (mut chunk, mut used, mut closed) = (0usize, 0usize, false);
    for &(path, size) in files {
        if closed || (used > 0 && used.saturating_add(size) > target.saturating_mul(4)) {
            chunk += 1;
            used = 0;
        }
        placements.push(Placement {
            chunk,
            offset: used,
        });
        used += size;
        closed = used >= target / 4 && ends_chunk(path, size, target);
    }
    placements
}

/// Whether a chunk ends after the file at `path` of `size` bytes: the path's hash, as a
/// fraction of 2^64, below `size / target`.
fn ends_chunk(path: &str, size: usize, target: usize) -> bool {
    let digest = crate::checksum::sha256(path.as_bytes());
    let draw = u64::from_le_bytes(digest[..8].try_into().unwrap_or_default());
    (draw as f64 / 2f64.powi(64)) < size as f64 / target as f64
}

/// Compresses a chunk's bytes as raw DEFLATE at `level` (0–[`MAX_COMPRESSION_LEVEL`]; higher is
/// taken as the maximum), with libdeflate. Native only: the browser reads bundles, never writes.
#[cfg(not(target_arch = "wasm32"))]
pub fn compress(raw: &[u8], level: u8) -> Vec<u8> {
    let level = libdeflater::CompressionLvl::new(i32::from(level.min(MAX_COMPRESSION_LEVEL)))
        .unwrap_or_default();
    let mut compressor = libdeflater::Compressor::new(level);
    let mut out = vec![0; compressor.deflate_compress_bound(raw.len())];
    // libdeflate fails only when the output is smaller than its own bound.
    let written = compressor
        .deflate_compress(raw, &mut out)
        .expect("an output of deflate_compress_bound bytes fits");
    out.truncate(written);
    out
}

/// Decompresses a stored chunk that the manifest says holds `raw_bytes` bytes; more or fewer
/// is an error naming `file`, and decompression stops at the limit, so a hostile chunk cannot
/// make it allocate more than the manifest announced.
pub fn decompress(file: &str, stored: &[u8], raw_bytes: usize) -> Result<Vec<u8>> {
    let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(stored, raw_bytes.max(1))
        .map_err(|error| Error::Parse {
            file: file.to_string(),
            message: format!("not a valid DEFLATE stream of {raw_bytes} bytes: {error}"),
        })?;
    if raw.len() != raw_bytes {
        return Err(Error::Parse {
            file: file.to_string(),
            message: format!(
                "decompresses to {} bytes, the manifest says {raw_bytes}",
                raw.len()
            ),
        });
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_by_target_without_splitting_files() {
        let at = |chunk, offset| Placement { chunk, offset };
        assert_eq!(
            plan_chunks(&[4, 4, 3, 10, 0, 1], 10),
            [at(0, 0), at(0, 4), at(1, 0), at(2, 0), at(2, 10), at(3, 0)]
        );
        // An oversized first file gets a chunk of its own; empty input, no chunks.
        assert_eq!(plan_chunks(&[25, 1], 10), [at(0, 0), at(1, 0)]);
        assert!(plan_chunks(&[], 10).is_empty());
        // Empty files join the current chunk.
        assert_eq!(plan_chunks(&[0, 0], 10), [at(0, 0), at(0, 0)]);
    }

    #[test]
    fn cuts_by_content_so_an_edit_moves_only_its_own_chunk() {
        let files: Vec<(String, usize)> = (0..2000)
            .map(|i| (format!("src/m{i:04}.rs"), 500 + (i * 7919) % 9000))
            .collect();
        fn view(files: &[(String, usize)]) -> Vec<(&str, usize)> {
            files.iter().map(|(p, s)| (p.as_str(), *s)).collect()
        }
        let target = 64 * 1024;
        let plan = plan_chunks_by_content(&view(&files), target);
        let chunks = plan.last().unwrap().chunk + 1;
        let total: usize = files.iter().map(|f| f.1).sum();
        // About `target` bytes a chunk on average, and within the bounds.
        let mean = total / chunks;
        assert!(mean > target / 2 && mean < target * 2, "mean {mean}");
        let mut sizes = vec![0usize; chunks];
        for ((_, size), at) in files.iter().zip(&plan) {
            sizes[at.chunk] += size;
        }
        assert!(sizes.iter().all(|&s| s <= 4 * target));
        // A file inserted early, and one grown, leave the cuts after them where they were.
        let mut edited = files.clone();
        edited.insert(10, ("src/m0009b.rs".into(), 3000));
        edited[1500].1 += 100;
        let again = plan_chunks_by_content(&view(&edited), target);
        let groups = |files: &[(String, usize)], plan: &[Placement]| {
            let mut out: Vec<Vec<(String, usize)>> = Vec::new();
            for (file, at) in files.iter().zip(plan) {
                if out.len() <= at.chunk {
                    out.push(Vec::new());
                }
                out[at.chunk].push(file.clone());
            }
            out
        };
        let (before, after) = (groups(&files, &plan), groups(&edited, &again));
        let kept = after.iter().filter(|g| before.contains(g)).count();
        assert!(kept + 4 >= before.len(), "{kept} of {} kept", before.len());
        // The offsets run within each chunk.
        assert_eq!(
            plan[0],
            Placement {
                chunk: 0,
                offset: 0
            }
        );
    }

    #[test]
    fn round_trips_and_checks_the_size() {
        let raw = b"fn main() { println!(\"hello\"); }\n".repeat(50);
        let stored = compress(&raw, DEFAULT_COMPRESSION_LEVEL);
        assert!(stored.len() < raw.len() / 5);
        assert_eq!(decompress("c", &stored, raw.len()).unwrap(), raw);
        let short = decompress("c", &stored, raw.len() + 1).unwrap_err();
        assert!(
            short.to_string().starts_with("c: decompresses to"),
            "{short}"
        );
        let long = decompress("c", &stored, raw.len() - 1).unwrap_err();
        assert!(long.to_string().contains("not a valid DEFLATE"), "{long}");
        assert!(decompress("c", b"\xff\xff\xff", 10).is_err());
        assert_eq!(decompress("c", &compress(b"", 6), 0).unwrap(), b"");
    }
}
