//! Writing the split index from a whole one (native only, as the bundler does).

use std::collections::BTreeMap;
use std::ops::Range;

use tantivy::postings::Postings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, TERMINATED};

use super::layout::{
    encode_base, encode_pack, encode_page, encode_term, key, Base, PackRange, Posting,
};
use super::{DEFAULT_PACK_BYTES, PACKS_PER_PAGE, SPLIT_FORMAT_PREFIX};
use crate::checksum::{hex, sha256, sha256_hex};
use crate::corpus::bundle::{compress, BundleFile, IndexEntry, DEFAULT_COMPRESSION_LEVEL};
use crate::error::Result;
use crate::retrieval::lexical::fts::{blob, index_error, FtsIndex, INDEX_NAME};
use crate::retrieval::lexical::fts::{CONTENT_TOKENS, FILE_ID, PATH_TOKENS};

/// How the split index is cut and stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitOptions {
    /// The stored size a pack aims at ([`DEFAULT_PACK_BYTES`]).
    pub pack_bytes: usize,
    /// The DEFLATE level of every file.
    pub compression_level: u8,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            pack_bytes: DEFAULT_PACK_BYTES,
            compression_level: DEFAULT_COMPRESSION_LEVEL,
        }
    }
}

/// A split index ready to write: the manifest's `split_index` entry and the files (the base
/// file first, then the packs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitFiles {
    /// The manifest's `split_index` entry, naming the base file.
    pub entry: IndexEntry,
    /// Every file: the base file, then the postings packs and their table's pages, then the
    /// positions packs and theirs.
    pub files: Vec<BundleFile>,
}

/// How many stored bytes DEFLATE makes of a raw pack byte, postings and positions packs: on
/// ansible at `20ec927` (16,128 files), cut at 8 kB raw, the packs' median stored sizes were
/// 4.7 kB and 6.4 kB.
const STORED_PER_RAW: [f64; 2] = [0.58, 0.79];

/// Every term's list, in key order, read from the whole index.
type Terms = Vec<(Vec<u8>, Vec<Posting>)>;

/// Cuts `index` into a base file and packs, every file compressed and named by its hash.
pub fn split_index(index: &FtsIndex, options: SplitOptions) -> Result<SplitFiles> {
    let (terms, lengths) = read_whole(index)?;
    let mut files = Vec::new();
    let mut tables = [Vec::new(), Vec::new()];
    for (table, positions) in tables.iter_mut().zip([false, true]) {
        if positions && !index.spec.positions {
            continue;
        }
        let kind = if positions { "positions" } else { "postings" };
        let mut packs = Vec::new();
        for pack in cut(&terms, positions, options.pack_bytes) {
            let pack = &terms[pack];
            let raw = encode_pack(pack, positions);
            let (range, file) = store(&pack[0].0, &raw, kind, options.compression_level);
            packs.push(range);
            files.push(file);
        }
        for page in packs.chunks(PACKS_PER_PAGE) {
            let raw = encode_page(page);
            let (range, file) = store(&page[0].first_key, &raw, "table", options.compression_level);
            table.push(range);
            files.push(file);
        }
    }
    let [postings, positions] = tables;
    let base = Base {
        format: index.spec.index_format(),
        paths_sha256: blob::paths_sha256(&index.paths),
        lengths,
        postings,
        positions,
    };
    let raw = encode_base(&base);
    let stored = compress(&raw, options.compression_level);
    let sha256 = sha256_hex(&stored);
    let name = format!("index/{sha256}.base.deflate");
    let entry = IndexEntry {
        file: name.clone(),
        sha256,
        bytes: stored.len() as u64,
        raw_bytes: Some(raw.len() as u64),
        format: format!("{SPLIT_FORMAT_PREFIX}{}", base.format),
    };
    files.insert(
        0,
        BundleFile {
            name,
            bytes: stored,
        },
    );
    Ok(SplitFiles { entry, files })
}

/// Compresses a file of the split index and names it by its hash: `index/<sha256>.<kind>.deflate`.
fn store(first_key: &[u8], raw: &[u8], kind: &str, level: u8) -> (PackRange, BundleFile) {
    let stored = compress(raw, level);
    let sha256 = sha256(&stored);
    let name = format!("index/{}.{kind}.deflate", hex(&sha256));
    let range = PackRange {
        first_key: first_key.to_vec(),
        sha256,
        bytes: stored.len() as u64,
        raw_bytes: raw.len() as u64,
    };
    let file = BundleFile {
        name,
        bytes: stored,
    };
    (range, file)
}

/// The terms' lists (keyed by column and token, file ids for documents) and each file's token
/// counts, from every segment of `index`.
fn read_whole(index: &FtsIndex) -> Result<(Terms, Vec<[u64; 2]>)> {
    let err = |error: tantivy::TantivyError| index_error(INDEX_NAME, error);
    let io_err = |error: std::io::Error| index_error(INDEX_NAME, error);
    let option = if index.spec.positions {
        IndexRecordOption::WithFreqsAndPositions
    } else {
        IndexRecordOption::WithFreqs
    };
    let mut terms: BTreeMap<Vec<u8>, Vec<Posting>> = BTreeMap::new();
    let files = index.paths.len();
    let mut lengths = vec![[0u64; 2]; files];
    for segment in index.searcher.segment_readers() {
        let fast = segment.fast_fields();
        let file_ids = fast.u64(FILE_ID).map_err(err)?;
        let path_tokens = fast.u64(PATH_TOKENS).map_err(err)?;
        let content_tokens = fast.u64(CONTENT_TOKENS).map_err(err)?;
        let file_of = |doc| {
            file_ids
                .first(doc)
                .and_then(|id| u32::try_from(id).ok())
                .filter(|&id| (id as usize) < files)
        };
        for doc in 0..segment.max_doc() {
            let file =
                file_of(doc).ok_or_else(|| index_error(INDEX_NAME, "a document has no file id"))?;
            lengths[file as usize] = [
                path_tokens.first(doc).unwrap_or(0),
                content_tokens.first(doc).unwrap_or(0),
            ];
        }
        for (column, field) in [(b'p', index.fields.path), (b'c', index.fields.content)] {
            let inverted = segment.inverted_index(field).map_err(err)?;
            let mut stream = inverted.terms().stream().map_err(io_err)?;
            while stream.advance() {
                let token = String::from_utf8_lossy(stream.key());
                let mut postings = inverted
                    .read_postings_from_terminfo(stream.value(), option)
                    .map_err(io_err)?;
                let list = terms.entry(key(column, &token)).or_default();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    let mut posting = Posting {
                        doc: file_of(doc)
                            .ok_or_else(|| index_error(INDEX_NAME, "a document has no file id"))?,
                        tf: postings.term_freq(),
                        positions: Vec::new(),
                    };
                    if index.spec.positions {
                        postings.positions(&mut posting.positions);
                    }
                    list.push(posting);
                    doc = postings.advance();
                }
            }
        }
    }
    for list in terms.values_mut() {
        crate::stable_sort::by(list, |a: &Posting, b| a.doc.cmp(&b.doc));
    }
    Ok((terms.into_iter().collect(), lengths))
}

/// The terms cut into packs (ranges of `terms`) of about `target` stored bytes. The cut uses
/// each term's raw size times [`STORED_PER_RAW`] so that it needs no compression per term.
fn cut(terms: &Terms, positions: bool, target: usize) -> Vec<Range<usize>> {
    let ratio = STORED_PER_RAW[usize::from(positions)];
    let raw_target = (target as f64 / ratio).max(1.0) as usize;
    let mut packs = Vec::new();
    let mut start = 0;
    let mut size = 0;
    let mut scratch = Vec::new();
    for (at, (key, list)) in terms.iter().enumerate() {
        scratch.clear();
        encode_term(&mut scratch, key, list, positions);
        size += scratch.len();
        if size >= raw_target {
            packs.push(start..at + 1);
            start = at + 1;
            size = 0;
        }
    }
    if start < terms.len() {
        packs.push(start..terms.len());
    }
    packs
}
