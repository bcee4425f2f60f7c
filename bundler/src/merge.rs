//! `routelens merge`: finished bundles joined into one folder whose content-addressed files are
//! stored once.
//!
//! ```text
//! <out>/<bundle>/manifest.json     each bundle's manifest, naming the store ("store": "../store")
//! <out>/<bundle>/questions.jsonl   its question set, when it has one
//! <out>/store/…                    every bundle's other files (file list, chunks, index, chunkings,
//!                                  vectors), each once: they are named by their hash
//! <out>/merged.json                what was merged: `{"format": "routelens-merged/1", "store",
//!                                  "bundles": [names]}`
//! ```
//!
//! It is the last step of building a study's snapshots past one machine: each case's bundle is an
//! independent job (`routelens snapshots --plan`), and this joins what the jobs wrote. Each
//! bundle's files are verified before any of them is written, and written as they are read, one
//! bundle at a time, so a merge needs memory for one bundle rather than the whole site; the folder
//! is still put in place whole or not at all (`folder::FolderWriter`). Only format-6 bundles merge: the manifest's `store` is a
//! format-6 field, and format 6 cuts chunks by content, so unchanged stretches of a repository
//! give the same chunk files in every snapshot.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use routelens_engine::corpus::bundle::{
    decode_listed_manifest, ChunkEntry, Manifest, LISTED_FORMAT_VERSION, MANIFEST_FILE,
    VERSIONED_FORMAT_VERSION,
};
use routelens_engine::retrieval::lexical::fts::split::SPLIT_FORMAT_PREFIX;

use crate::cli::MergeArgs;
use crate::failure::Failure;
use crate::folder::{BundleFolder, FolderKind, FolderWriter};
use crate::input::read_text;
use crate::version_packs::VersionPacks;

/// The shared store's folder, beside the bundles.
pub const STORE: &str = "store";

/// A bundle's question set, copied with its manifest.
const QUESTIONS_FILE: &str = "questions.jsonl";

/// A merged folder: it holds `merged.json`.
const MERGED: FolderKind = FolderKind {
    what: "merged folder",
    marker: "merged.json",
};

/// Runs `merge`.
pub fn run(args: &MergeArgs, out: &mut dyn Write) -> Result<(), Failure> {
    crate::folder::check_target_of(MERGED, &args.out)?;
    let dirs = bundle_dirs(&args.bundles)?;
    // Version packs need every bundle's texts at once; everything else is written as read, one
    // bundle at a time, so a site of many snapshots need not fit in memory.
    let packs = if args.versions {
        for (_, dir) in &dirs {
            check_mergeable(dir, &BundleFolder::open(dir)?.manifest)?;
        }
        writeln!(out, "packing   the texts of {} bundles", dirs.len()).map_err(Failure::output)?;
        Some(VersionPacks::build(&dirs, args.level)?)
    } else {
        None
    };
    // Nothing is in place until `finish`; an error removes what was written.
    let mut folder = FolderWriter::begin(MERGED, &args.out)?;
    let mut stored: BTreeSet<String> = BTreeSet::new();
    let mut apart = 0u64;
    for (entry, bytes) in packs.iter().flat_map(|packs| &packs.packs) {
        folder.add(&format!("{STORE}/{}", entry.file), bytes)?;
        stored.insert(entry.file.clone());
    }
    for (nth, (name, dir)) in dirs.iter().enumerate() {
        let bundle = BundleFolder::open(dir)?;
        check_mergeable(dir, &bundle.manifest)?;
        // What the merged bundle no longer stores: its chunks when packed, its index when built
        // by the reader. Counted among the bundles' bytes apart all the same.
        let mut replaced: BTreeSet<String> = BTreeSet::new();
        if packs.is_some() {
            replaced.extend(bundle.manifest.chunks.iter().map(|c| c.file.clone()));
        }
        if args.derive_index {
            replaced.extend(bundle.index_files()?.into_iter().map(|pack| pack.file));
        }
        for file in bundle.verified_files()? {
            let bytes = bundle.read(&file)?;
            apart += bytes.len() as u64;
            if !stored.contains(&file) && !replaced.contains(&file) {
                folder.add(&format!("{STORE}/{file}"), &bytes)?;
                stored.insert(file);
            }
        }
        let manifest = std::fs::read(dir.join(MANIFEST_FILE))
            .map_err(|err| Failure::read(&dir.join(MANIFEST_FILE), err))?;
        apart += manifest.len() as u64;
        let list = bundle.manifest.file_list.as_ref().map(|l| l.file.clone());
        let list = bundle.read(&list.unwrap_or_default())?;
        let rewrite = Rewrite {
            chunks: packs.as_ref().map(|packs| packs.chunks_of(nth)),
            derive_index: args.derive_index,
        };
        let (merged, decoded) = with_store(dir, &manifest, &list, &rewrite)?;
        if let Some(packs) = &packs {
            packs
                .check(nth, &decoded)
                .map_err(|source| Failure::Bundle {
                    dir: dir.clone(),
                    source,
                })?;
        }
        folder.add(&format!("{name}/{MANIFEST_FILE}"), &merged)?;
        let questions = dir.join(QUESTIONS_FILE);
        if questions.is_file() {
            let text = read_text(&questions)?;
            apart += text.len() as u64;
            folder.add(&format!("{name}/{QUESTIONS_FILE}"), text.as_bytes())?;
        }
        writeln!(out, "read      {name} ({})", dir.display()).map_err(Failure::output)?;
    }
    let names: Vec<&str> = dirs.iter().map(|(name, _)| name.as_str()).collect();
    let listing = serde_json::json!({
        "format": "routelens-merged/1",
        "store": STORE,
        "bundles": names,
    });
    folder.add(MERGED.marker, format!("{listing}\n").as_bytes())?;
    let written = folder.finish()?;
    writeln!(
        out,
        "merged    {} bundles into {}: {} stored files, {written} bytes; the bundles apart \
         {apart} bytes ({:.2}x)",
        dirs.len(),
        args.out.display(),
        stored.len(),
        apart as f64 / written.max(1) as f64
    )
    .map_err(Failure::output)?;
    Ok(())
}

/// Each bundle to merge with its name (its folder's): a folder holding `manifest.json` is one,
/// any other folder stands for the bundle folders directly inside it. Names must be unique and
/// not the store's.
fn bundle_dirs(given: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, Failure> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in given {
        if dir.join(MANIFEST_FILE).is_file() {
            dirs.push(dir.clone());
            continue;
        }
        let listing = std::fs::read_dir(dir).map_err(|err| Failure::read(dir, err))?;
        let mut inside: Vec<PathBuf> = listing
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.join(MANIFEST_FILE).is_file())
            .collect();
        if inside.is_empty() {
            return Err(Failure::Usage(format!(
                "{}: neither a bundle folder nor a folder of them (no {MANIFEST_FILE})",
                dir.display()
            )));
        }
        inside.sort();
        dirs.extend(inside);
    }
    let mut named: Vec<(String, PathBuf)> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.starts_with('.'))
            .ok_or_else(|| Failure::Usage(format!("{}: no usable folder name", dir.display())))?
            .to_string();
        if name == STORE || named.iter().any(|(other, _)| *other == name) {
            return Err(Failure::Usage(format!(
                "{}: a second bundle named {name:?}, or the store's name; bundles are named by \
                 their folder",
                dir.display()
            )));
        }
        named.push((name, dir));
    }
    Ok(named)
}

/// Refuses a bundle merge cannot take: not format 6, or already merged.
fn check_mergeable(dir: &Path, manifest: &Manifest) -> Result<(), Failure> {
    if manifest.format_version == LISTED_FORMAT_VERSION && manifest.store.is_none() {
        return Ok(());
    }
    Err(Failure::Usage(format!(
        "{}: bundle format {}{}; merge takes format-{LISTED_FORMAT_VERSION} bundles as \
         `routelens bundle` writes them (not --no-split, not already merged)",
        dir.display(),
        manifest.format_version,
        if manifest.store.is_some() {
            ", already merged"
        } else {
            ""
        }
    )))
}

/// How a bundle's manifest changes beyond naming the store (format 7).
struct Rewrite {
    /// Its chunks, when its texts are in version packs.
    chunks: Option<Vec<ChunkEntry>>,
    /// Whether its index is left for the reader to build.
    derive_index: bool,
}

/// The manifest's bytes naming the shared store (`"store": "../store"`), rewritten as `rewrite`
/// says, and the manifest they decode to with the bundle's file list, as a reader decodes it.
fn with_store(
    dir: &Path,
    manifest: &[u8],
    file_list: &[u8],
    rewrite: &Rewrite,
) -> Result<(Vec<u8>, Manifest), Failure> {
    let bad = |source| Failure::Bundle {
        dir: dir.to_path_buf(),
        source,
    };
    let mut value: serde_json::Value = serde_json::from_slice(manifest).map_err(|err| {
        bad(routelens_engine::Error::Parse {
            file: MANIFEST_FILE.into(),
            message: err.to_string(),
        })
    })?;
    if let Some(object) = value.as_object_mut() {
        object.insert("store".into(), format!("../{STORE}").into());
        let versioned = rewrite.chunks.is_some() || rewrite.derive_index;
        if let Some(chunks) = &rewrite.chunks {
            object.insert("chunks".into(), serde_json::json!(chunks));
        }
        // The index's format (a split index's, without its prefix): what the reader builds.
        let format = ["split_index", "index"]
            .iter()
            .find_map(|field| object.get(*field)?.get("format")?.as_str())
            .map(|format| format.trim_start_matches(SPLIT_FORMAT_PREFIX).to_string());
        if let (true, Some(format)) = (rewrite.derive_index, format) {
            object.remove("index");
            object.remove("split_index");
            object.insert("derived_index".into(), format.into());
        }
        if versioned {
            object.insert("format_version".into(), VERSIONED_FORMAT_VERSION.into());
        }
    }
    let mut bytes = serde_json::to_vec(&value).unwrap_or_default();
    bytes.push(b'\n');
    let decoded = decode_listed_manifest(&bytes, Some(file_list)).map_err(bad)?;
    Ok((bytes, decoded))
}
