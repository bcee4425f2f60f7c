//! An opened split index: the base file read, the table pages and packs added as they are
//! fetched.

use rustc_hash::FxHashMap;

use super::layout::{decode_base, decode_pack, decode_page, Base, PackRange, Posting};
use super::SPLIT_FORMAT_PREFIX;
use crate::checksum::{hex, sha256_hex};
use crate::corpus::bundle::{decompress, Manifest, MANIFEST_FILE};
use crate::error::{Error, Result};
use crate::retrieval::lexical::fts::{blob, IndexSpec};

/// One file of the split index (a table page or a pack), as a search asks for it: its name in
/// the bundle and its stored size.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackFile {
    /// The file's name relative to the bundle folder.
    pub file: String,
    /// Its stored size in bytes (what fetching it costs).
    pub bytes: u64,
}

/// Where a key's list is, as far as what is added tells.
enum Located {
    /// Before every key of the table: no file holds it.
    Nowhere,
    /// In page `page`, not added yet.
    Page(usize),
    /// In pack `pack` of page `page`.
    Pack(usize, usize),
}

/// One of the two pack tables: its pages, the packs of the pages added, and the terms of the
/// packs added.
#[derive(Debug, Clone)]
pub(super) struct Packs {
    positions: bool,
    pages: Vec<PackRange>,
    /// Per page, once added: its packs and whether each was added.
    packs: Vec<Option<Vec<(PackRange, bool)>>>,
    terms: FxHashMap<Vec<u8>, Vec<Posting>>,
}

impl Packs {
    fn new(pages: Vec<PackRange>, positions: bool) -> Packs {
        Packs {
            positions,
            packs: vec![None; pages.len()],
            pages,
            terms: FxHashMap::default(),
        }
    }

    fn kind(&self) -> &'static str {
        if self.positions {
            "positions"
        } else {
            "postings"
        }
    }

    fn page_file(&self, page: usize) -> PackFile {
        let range = &self.pages[page];
        PackFile {
            file: format!("index/{}.table.deflate", hex(&range.sha256)),
            bytes: range.bytes,
        }
    }

    fn pack_file(&self, range: &PackRange) -> PackFile {
        PackFile {
            file: format!("index/{}.{}.deflate", hex(&range.sha256), self.kind()),
            bytes: range.bytes,
        }
    }

    fn locate(&self, key: &[u8]) -> Located {
        let after = self
            .pages
            .partition_point(|range| range.first_key.as_slice() <= key);
        let Some(page) = after.checked_sub(1) else {
            return Located::Nowhere;
        };
        match &self.packs[page] {
            None => Located::Page(page),
            // A page's first pack starts at the page's own first key (checked when added).
            Some(packs) => Located::Pack(
                page,
                packs
                    .partition_point(|(range, _)| range.first_key.as_slice() <= key)
                    .saturating_sub(1),
            ),
        }
    }

    /// The files that reading `key` takes: its page, and once the page is added, its pack.
    fn files_for(&self, key: &[u8], out: &mut Vec<PackFile>) {
        match self.locate(key) {
            Located::Nowhere => {}
            Located::Page(page) => out.push(self.page_file(page)),
            Located::Pack(page, at) => {
                out.push(self.page_file(page));
                if let Some(packs) = &self.packs[page] {
                    out.push(self.pack_file(&packs[at].0));
                }
            }
        }
    }

    /// The list of `key`: `None` when no file holds it, an error naming the page or pack not
    /// added yet.
    pub(super) fn list(&self, key: &[u8]) -> Result<Option<&[Posting]>> {
        let missing = |file: PackFile| Error::Index {
            file: file.file,
            message: "this part of the index was not fetched before the search that needs it"
                .into(),
        };
        match self.locate(key) {
            Located::Nowhere => Ok(None),
            Located::Page(page) => Err(missing(self.page_file(page))),
            Located::Pack(page, at) => {
                let (range, added) =
                    &self.packs[page].as_ref().expect("located in an added page")[at];
                if !added {
                    return Err(missing(self.pack_file(range)));
                }
                Ok(self.terms.get(key).map(Vec::as_slice))
            }
        }
    }

    /// Every page, and every pack of the pages added.
    fn known(&self, out: &mut Vec<(PackFile, bool)>) {
        for page in 0..self.pages.len() {
            out.push((self.page_file(page), self.packs[page].is_some()));
            for (range, added) in self.packs[page].iter().flatten() {
                out.push((self.pack_file(range), *added));
            }
        }
    }
}

/// What a file name of the split index is.
#[derive(Debug, Clone, Copy)]
enum Part {
    Page {
        positions: bool,
        page: usize,
    },
    Pack {
        positions: bool,
        page: usize,
        at: usize,
    },
}

/// A split index opened from its base file: search it with [`SplitIndex::fts5`],
/// [`SplitIndex::fts5_full`] and [`SplitIndex::path_fts5`] once the files
/// [`SplitIndex::missing_files`] names are added (two rounds: pages, then packs).
#[derive(Debug, Clone)]
pub struct SplitIndex {
    pub(super) spec: IndexSpec,
    pub(super) paths: Vec<String>,
    pub(super) lengths: Vec<[u64; 2]>,
    /// Exact token totals of the path and content columns.
    pub(super) totals: [f64; 2],
    pub(super) postings: Packs,
    pub(super) positions: Packs,
    /// Every page's and known pack's file name, and what it is.
    by_file: FxHashMap<String, Part>,
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
        for packs in [&postings, &positions] {
            for page in 0..packs.pages.len() {
                let part = Part::Page {
                    positions: packs.positions,
                    page,
                };
                by_file.insert(packs.page_file(page).file, part);
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

    fn table(&self, positions: bool) -> &Packs {
        if positions {
            &self.positions
        } else {
            &self.postings
        }
    }

    fn table_mut(&mut self, positions: bool) -> &mut Packs {
        if positions {
            &mut self.positions
        } else {
            &mut self.postings
        }
    }

    /// Adds a fetched table page or pack after checking its bytes against the hash its parent
    /// lists; adding one twice does nothing.
    pub fn add_file(&mut self, file: &str, stored: &[u8]) -> Result<()> {
        let part = *self.by_file.get(file).ok_or_else(|| Error::Index {
            file: file.to_string(),
            message: "the base file and the pages added list no such file".into(),
        })?;
        let files = self.paths.len();
        match part {
            Part::Page { positions, page } => {
                let packs = self.table_mut(positions);
                if packs.packs[page].is_some() {
                    return Ok(());
                }
                let raw = checked(file, &packs.pages[page], stored)?;
                let until = packs.pages.get(page + 1).map(|next| next.first_key.clone());
                let ranges =
                    decode_page(file, &raw, (&packs.pages[page].first_key, until.as_deref()))?;
                let named: Vec<(String, Part)> = ranges
                    .iter()
                    .enumerate()
                    .map(|(at, range)| {
                        let part = Part::Pack {
                            positions,
                            page,
                            at,
                        };
                        (packs.pack_file(range).file, part)
                    })
                    .collect();
                packs.packs[page] = Some(ranges.into_iter().map(|r| (r, false)).collect());
                self.by_file.extend(named);
            }
            Part::Pack {
                positions,
                page,
                at,
            } => {
                let packs = self.table_mut(positions);
                let Some(page_packs) = &packs.packs[page] else {
                    return Err(Error::Index {
                        file: file.to_string(),
                        message: "a pack added before its table page".into(),
                    });
                };
                let (range, added) = &page_packs[at];
                if *added {
                    return Ok(());
                }
                let raw = checked(file, range, stored)?;
                let until = match page_packs.get(at + 1) {
                    Some((next, _)) => Some(next.first_key.clone()),
                    None => packs.pages.get(page + 1).map(|next| next.first_key.clone()),
                };
                let terms = decode_pack(
                    file,
                    &raw,
                    positions,
                    (&range.first_key, until.as_deref()),
                    files,
                )?;
                packs.terms.extend(terms);
                if let Some(page_packs) = &mut packs.packs[page] {
                    page_packs[at].1 = true;
                }
            }
        }
        Ok(())
    }

    /// Every file known so far (every page, and the packs of the pages added) and whether it
    /// is added: a caller adds the ones not added, then asks again, until all are.
    pub fn known_files(&self) -> Vec<(PackFile, bool)> {
        let mut out = Vec::new();
        self.postings.known(&mut out);
        self.positions.known(&mut out);
        out
    }

    /// Whether `file` (a page or a pack) was added.
    pub fn has_file(&self, file: &str) -> bool {
        match self.by_file.get(file) {
            Some(&Part::Page { positions, page }) => self.table(positions).packs[page].is_some(),
            Some(&Part::Pack {
                positions,
                page,
                at,
            }) => self.table(positions).packs[page]
                .as_ref()
                .is_some_and(|page_packs| page_packs[at].1),
            None => false,
        }
    }

    /// The files reading `key` of the postings or positions table takes, as far as known.
    pub(super) fn files_of(&self, positions: bool, key: &[u8], out: &mut Vec<PackFile>) {
        self.table(positions).files_for(key, out);
    }
}

/// `stored` checked against `range`'s hash and decompressed.
fn checked(file: &str, range: &PackRange, stored: &[u8]) -> Result<Vec<u8>> {
    let actual = sha256_hex(stored);
    if actual != hex(&range.sha256) {
        return Err(Error::Index {
            file: file.to_string(),
            message: format!(
                "SHA-256 mismatch: the index lists {}, the bytes hash to {actual}",
                hex(&range.sha256)
            ),
        });
    }
    decompress(file, stored, range.raw_bytes as usize)
}
