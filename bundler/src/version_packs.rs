//! `routelens merge --versions`: the texts of every bundle to merge, as version packs shared by
//! all of them (the pack format is the engine's `corpus::bundle::versions`).
//!
//! Every bundle's files are read and verified, and each distinct version of each path kept once,
//! in the order the bundles first hold it. Paths are then packed in order, all of a path's
//! versions in one pack, a pack closing once it reaches the target size; the packs are
//! compressed on two threads. Each bundle's `chunks` become the packs that hold its files, with
//! its own entries in each, and are checked by reading every file back through them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use routelens_engine::checksum::{sha256, sha256_hex};
use routelens_engine::corpus::bundle::{
    compress_pack, encode_pack, ChunkEntry, Manifest, DEFAULT_PACK_TARGET_BYTES,
};

use crate::failure::Failure;
use crate::folder::BundleFolder;

/// One bundle's files as the packs hold them: each path with the SHA-256 of its text, and
/// where that version is, (pack, entry).
struct Holding {
    files: Vec<(String, [u8; 32])>,
    places: Vec<(usize, u32)>,
}

/// A pack's manifest entry (without a bundle's `entries`) and its stored bytes.
pub type StoredPack = (ChunkEntry, Vec<u8>);

/// The packs of every bundle's texts, stored, and where each bundle's files are in them.
pub struct VersionPacks {
    /// Each pack, in path order.
    pub packs: Vec<StoredPack>,
    holdings: Vec<Holding>,
}

impl VersionPacks {
    /// Reads every bundle of `dirs` (each verified; the caller has checked that merge takes
    /// them) and packs their texts at `level`.
    pub fn build(dirs: &[(String, PathBuf)], level: i32) -> Result<VersionPacks, Failure> {
        let mut versions: BTreeMap<String, Vec<([u8; 32], String)>> = BTreeMap::new();
        let mut held_files = Vec::with_capacity(dirs.len());
        for (_, dir) in dirs {
            let bundle = BundleFolder::open(dir)?;
            let mut files = Vec::with_capacity(bundle.manifest.files.len());
            for (path, text) in bundle.read_all_texts()? {
                let hash = sha256(text.as_bytes());
                let held = versions.entry(path.clone()).or_default();
                if !held.iter().any(|(known, _)| *known == hash) {
                    held.push((hash, text));
                }
                files.push((path, hash));
            }
            held_files.push(files);
        }
        // Where each version is: (path, SHA-256) to (pack, entry).
        let mut places = BTreeMap::new();
        let mut planned: Vec<Vec<&[u8]>> = vec![Vec::new()];
        let mut used = 0usize;
        for (path, held) in &versions {
            if used >= DEFAULT_PACK_TARGET_BYTES {
                planned.push(Vec::new());
                used = 0;
            }
            let pack = planned.len() - 1;
            for (hash, text) in held {
                let entries = &mut planned[pack];
                places.insert((path.clone(), *hash), (pack, entries.len() as u32));
                entries.push(text.as_bytes());
                used += text.len();
            }
        }
        let holdings = held_files
            .into_iter()
            .map(|files| Holding {
                // Every version held was placed above.
                places: files
                    .iter()
                    .filter_map(|(path, hash)| places.get(&(path.clone(), *hash)).copied())
                    .collect(),
                files,
            })
            .collect();
        Ok(VersionPacks {
            packs: compress_all(&planned, level),
            holdings,
        })
    }

    /// The `chunks` of the `nth` bundle given to [`VersionPacks::build`]: the packs holding its
    /// files, in order, each with its entries.
    pub fn chunks_of(&self, nth: usize) -> Vec<ChunkEntry> {
        let mut chunks: Vec<(usize, ChunkEntry)> = Vec::new();
        for &(pack, entry) in &self.holdings[nth].places {
            if chunks.last().is_none_or(|(last, _)| *last != pack) {
                chunks.push((pack, self.packs[pack].0.clone()));
            }
            if let Some((_, chunk)) = chunks.last_mut() {
                chunk.entries.get_or_insert_with(Vec::new).push(entry);
                chunk.files = Some(chunk.files.unwrap_or_default() + 1);
            }
        }
        chunks.into_iter().map(|(_, chunk)| chunk).collect()
    }

    /// Checks that the `nth` bundle's files read back through its rewritten manifest (the
    /// packs' stored bytes, verified as a reader verifies them) as the texts it was read with.
    pub fn check(&self, nth: usize, manifest: &Manifest) -> Result<(), routelens_engine::Error> {
        let stored: Vec<&[u8]> = manifest
            .chunks
            .iter()
            .map(|chunk| {
                self.packs
                    .iter()
                    .find(|(pack, _)| pack.sha256 == chunk.sha256)
                    .map_or(&[][..], |(_, bytes)| bytes.as_slice())
            })
            .collect();
        let read = manifest.read_all(&stored)?;
        let held = &self.holdings[nth].files;
        let same = read.len() == held.len()
            && read
                .iter()
                .zip(held)
                .all(|((path, text), (held_path, hash))| {
                    path == held_path && sha256(text.as_bytes()) == *hash
                });
        if same {
            Ok(())
        } else {
            Err(routelens_engine::Error::field(
                "manifest.json",
                "chunks",
                "the version packs do not give back the bundle's files",
            ))
        }
    }
}

/// Each planned pack encoded and compressed, on two threads (a pack at level 19 takes about
/// half a second a megabyte), in plan order.
fn compress_all(planned: &[Vec<&[u8]>], level: i32) -> Vec<StoredPack> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<StoredPack>>> = Mutex::new(vec![None; planned.len()]);
    let work = || loop {
        let at = next.fetch_add(1, Ordering::Relaxed);
        let Some(entries) = planned.get(at) else {
            break;
        };
        let raw = encode_pack(entries);
        let stored = compress_pack(&raw, level);
        let sha256 = sha256_hex(&stored);
        let entry = ChunkEntry {
            file: format!("chunks/{sha256}.zst"),
            sha256,
            bytes: stored.len() as u64,
            raw_bytes: raw.len() as u64,
            files: None,
            entries: None,
        };
        if let Ok(mut done) = done.lock() {
            done[at] = Some((entry, stored));
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(work);
        work();
    });
    done.into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}
