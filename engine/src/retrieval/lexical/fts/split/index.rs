//! An opened split index: the base file read, the packs added as they are fetched.

use rustc_hash::FxHashMap;

use super::layout::{decode_base, decode_pack, Base, PackRange, Posting};
use super::SPLIT_FORMAT_PREFIX;
use crate::checksum::sha256_hex;
use crate::corpus::bundle::{decompress, Manifest, MANIFEST_FILE};
use crate::error::{Error, Result};
use crate::retrieval::lexical::fts::{blob, IndexSpec, Tokenizer};

/// One pack file, as a search asks for it: its name in the bundle and its stored size.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackFile {
    /// The file's name relative to the bundle folder.
    pub file: String,
    /// Its stored size in bytes (what fetching it costs).
    pub bytes: u64,
}

/// One of the two pack tables and the terms of the packs added so far.
#[derive(Debug, Clone)]
pub(super) struct Packs {
    positions: bool,
    ranges: Vec<PackRange>,
    loaded: Vec<bool>,
    terms: FxHashMap<Vec<u8>, Vec<Posting>>,
}

impl Packs {
    fn new(ranges: Vec<PackRange>, positions: bool) -> Packs {
        Packs {
            positions,
            loaded: vec![false; ranges.len()],
            ranges,
            terms: FxHashMap::default(),
        }
    }

    /// The file name of pack `at`.
    fn file(&self, at: usize) -> String {
        let kind = if self.positions {
            "positions"
        } else {
            "postings"
        };
        format!("index/{}.{kind}.deflate", hex(&self.ranges[at].sha256))
    }

    /// The pack that would hold `key`, if any could.
    fn pack_of(&self, key: &[u8]) -> Option<usize> {
        let after = self
            .ranges
            .partition_point(|range| range.first_key.as_slice() <= key);
        after.checked_sub(1)
    }

    /// The list of `key`: `None` when no file holds it, an error when its pack was not added.
    pub(super) fn list(&self, key: &[u8]) -> Result<Option<&[Posting]>> {
        let Some(at) = self.pack_of(key) else {
            return Ok(None);
        };
        if !self.loaded[at] {
            return Err(Error::Index {
                file: self.file(at),
                message: "this pack was not fetched before the search that needs it".into(),
            });
        }
        Ok(self.terms.get(key).map(Vec::as_slice))
    }
}

/// A split index opened from its base file: search it with [`SplitIndex::fts5`],
/// [`SplitIndex::fts5_full`] and [`SplitIndex::path_fts5`] once the packs
/// [`SplitIndex::packs_for`] names are added.
#[derive(Debug, Clone)]
pub struct SplitIndex {
    pub(super) spec: IndexSpec,
    pub(super) paths: Vec<String>,
    pub(super) lengths: Vec<[u64; 2]>,
    /// Exact token totals of the path and content columns.
    pub(super) totals: [f64; 2],
    pub(super) postings: Packs,
    pub(super) positions: Packs,
    /// Pack file names to (table, position): which table a fetched file belongs to.
    by_file: FxHashMap<String, (bool, usize)>,
}

impl SplitIndex {
    /// Verifies the base file against the manifest's `split_index` entry (hash, format) and
    /// opens it over the manifest's paths. `stored` is the file's bytes as fetched.
    pub fn from_bundle(manifest: &Manifest, stored: &[u8]) -> Result<SplitIndex> {
        let entry = manifest.split_index.as_ref().ok_or_else(|| {
            Error::field(
                MANIFEST_FILE,
                "split_index",
                "this bundle has no split index",
            )
        })?;
        let actual = sha256_hex(stored);
        if actual != entry.sha256 {
            return Err(Error::ManifestHash {
                file: entry.file.clone(),
                expected: entry.sha256.clone(),
                actual,
            });
        }
        let raw = decompress(&entry.file, stored, entry.raw_bytes.unwrap_or(0) as usize)?;
        let index = SplitIndex::open(&entry.file, &raw, manifest.paths())?;
        let expected = format!("{SPLIT_FORMAT_PREFIX}{}", index.spec.index_format());
        if entry.format != expected {
            return Err(Error::field(
                MANIFEST_FILE,
                "split_index.format",
                format!("{:?}, but the base file is {expected:?}", entry.format),
            ));
        }
        Ok(index)
    }

    /// Opens a decompressed base file over exactly these paths (sorted, as the manifest lists
    /// them). `file` names it in errors.
    pub fn open(file: &str, raw: &[u8], paths: Vec<String>) -> Result<SplitIndex> {
        let Base {
            format,
            paths_sha256,
            lengths,
            postings,
            positions,
        } = decode_base(file, raw)?;
        let spec = IndexSpec::from_index_format(&format).ok_or_else(|| Error::Index {
            file: file.to_string(),
            message: format!("index format {format:?} is not one this build reads"),
        })?;
        if lengths.len() != paths.len() || paths_sha256 != blob::paths_sha256(&paths) {
            return Err(Error::Index {
                file: file.to_string(),
                message: format!(
                    "built over {} other paths than the {} given (the manifest does not match)",
                    lengths.len(),
                    paths.len()
                ),
            });
        }
        if !spec.positions && !positions.is_empty() {
            return Err(Error::Index {
                file: file.to_string(),
                message: "an index without positions lists positions packs".into(),
            });
        }
        let mut totals = [0.0; 2];
        for row in &lengths {
            totals[0] += row[0] as f64;
            totals[1] += row[1] as f64;
        }
        let postings = Packs::new(postings, false);
        let positions = Packs::new(positions, true);
        let mut by_file = FxHashMap::default();
        for (table, packs) in [(false, &postings), (true, &positions)] {
            for at in 0..packs.ranges.len() {
                by_file.insert(packs.file(at), (table, at));
            }
        }
        Ok(SplitIndex {
            spec,
            paths,
            lengths,
            totals,
            postings,
            positions,
            by_file,
        })
    }

    /// Adds a fetched pack after checking its bytes against the base file's hash; adding one
    /// twice does nothing.
    pub fn add_pack(&mut self, file: &str, stored: &[u8]) -> Result<()> {
        let &(is_positions, at) = self.by_file.get(file).ok_or_else(|| Error::Index {
            file: file.to_string(),
            message: "the base file lists no such pack".into(),
        })?;
        let files = self.paths.len();
        let packs = if is_positions {
            &mut self.positions
        } else {
            &mut self.postings
        };
        if packs.loaded[at] {
            return Ok(());
        }
        let range = &packs.ranges[at];
        let actual = sha256_hex(stored);
        if actual != hex(&range.sha256) {
            return Err(Error::Index {
                file: file.to_string(),
                message: format!(
                    "SHA-256 mismatch: the base file lists {}, the bytes hash to {actual}",
                    hex(&range.sha256)
                ),
            });
        }
        let raw = decompress(file, stored, range.raw_bytes as usize)?;
        let until = packs
            .ranges
            .get(at + 1)
            .map(|next| next.first_key.as_slice());
        let terms = decode_pack(file, &raw, is_positions, (&range.first_key, until), files)?;
        packs.terms.extend(terms);
        packs.loaded[at] = true;
        Ok(())
    }

    /// Every pack the file list names (postings, then positions), for a bundle check.
    pub fn all_packs(&self) -> Vec<PackFile> {
        [&self.postings, &self.positions]
            .into_iter()
            .flat_map(|packs| {
                (0..packs.ranges.len()).map(|at| PackFile {
                    file: packs.file(at),
                    bytes: packs.ranges[at].bytes,
                })
            })
            .collect()
    }

    /// Whether pack `file` was added.
    pub fn has_pack(&self, file: &str) -> bool {
        self.by_file.get(file).is_some_and(|&(is_positions, at)| {
            if is_positions {
                self.positions.loaded[at]
            } else {
                self.postings.loaded[at]
            }
        })
    }

    /// The tokenizer the index was built with.
    pub fn tokenizer(&self) -> Tokenizer {
        self.spec.tokenizer
    }

    /// Whether the index keeps positions, so that a term of several tokens is a phrase.
    pub fn has_positions(&self) -> bool {
        self.spec.positions
    }

    /// The number of indexed files.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether the index has no files.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The positions table's file name for `at` (for the search's list of needed packs).
    pub(super) fn pack_file(&self, positions: bool, key: &[u8]) -> Option<PackFile> {
        let packs = if positions {
            &self.positions
        } else {
            &self.postings
        };
        packs.pack_of(key).map(|at| PackFile {
            file: packs.file(at),
            bytes: packs.ranges[at].bytes,
        })
    }
}

/// Lower-case hex of a hash.
pub(super) fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
