//! The split index's files as bytes: the base file, the table pages and the packs (layouts in
//! [`super`]).
//!
//! Integers are tantivy's variable-length integers (`tantivy-common`'s `VInt`, already in the
//! build with the index). Decoding checks every count against the bytes left and every key's
//! order, so a damaged file is refused naming it instead of read as something else.

use tantivy_common::VInt;

use crate::error::{Error, Result};

/// The base file's first bytes.
pub(super) const BASE_MAGIC: &[u8; 8] = b"RLSPLB01";
/// A postings pack's first bytes.
pub(super) const POSTINGS_MAGIC: &[u8; 8] = b"RLSPLP01";
/// A positions pack's first bytes.
pub(super) const POSITIONS_MAGIC: &[u8; 8] = b"RLSPLQ01";
/// A table page's first bytes.
pub(super) const PAGE_MAGIC: &[u8; 8] = b"RLSPLT01";

/// The base file's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Base {
    /// The index format of the whole index it was split from (its tokenizer and positions).
    pub format: String,
    /// SHA-256 of the indexed paths joined with `\n` (as the index blob's header has it).
    pub paths_sha256: String,
    /// Per file, in file-id order: its path's and its content's token counts.
    pub lengths: Vec<[u64; 2]>,
    /// The pages of the postings packs' table, in key order.
    pub postings: Vec<PackRange>,
    /// The pages of the positions packs' table, in key order (none without positions).
    pub positions: Vec<PackRange>,
}

/// One file as the file above it lists it: a page of a pack table as the base file lists it,
/// or a pack as its page does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PackRange {
    /// Its first key; it covers every key from here to the next one's first.
    pub first_key: Vec<u8>,
    /// SHA-256 of its stored (compressed) bytes.
    pub sha256: [u8; 32],
    /// Its stored size.
    pub bytes: u64,
    /// Its size once decompressed.
    pub raw_bytes: u64,
}

/// One file's entry in a term's list: the file id, the term's count there, and (in a positions
/// pack) its positions, ascending.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Posting {
    /// The file's id: its position in the path-sorted file list.
    pub doc: u32,
    /// How often the term occurs in the file's column.
    pub tf: u32,
    /// Its token positions (positions packs only).
    pub positions: Vec<u32>,
}

/// A term's key: its column's letter (`c` content, `p` path) then its token's bytes, so each
/// column's terms sit together in key order.
pub(super) fn key(column: u8, token: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(token.len() + 1);
    key.push(column);
    key.extend_from_slice(token.as_bytes());
    key
}

#[cfg(not(target_arch = "wasm32"))]
fn put(out: &mut Vec<u8>, value: u64) {
    VInt(value).serialize_into_vec(out);
}

#[cfg(not(target_arch = "wasm32"))]
fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(not(target_arch = "wasm32"))]
/// The base file's bytes.
pub(super) fn encode_base(base: &Base) -> Vec<u8> {
    let mut out = BASE_MAGIC.to_vec();
    put_bytes(&mut out, base.format.as_bytes());
    put_bytes(&mut out, base.paths_sha256.as_bytes());
    put(&mut out, base.lengths.len() as u64);
    for [path, content] in &base.lengths {
        put(&mut out, *path);
        put(&mut out, *content);
    }
    for pages in [&base.postings, &base.positions] {
        put_ranges(&mut out, pages);
    }
    out
}

/// A table page's bytes: the ranges of the packs it lists, in key order.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn encode_page(packs: &[PackRange]) -> Vec<u8> {
    let mut out = PAGE_MAGIC.to_vec();
    put_ranges(&mut out, packs);
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn put_ranges(out: &mut Vec<u8>, ranges: &[PackRange]) {
    put(out, ranges.len() as u64);
    for range in ranges {
        put_bytes(out, &range.first_key);
        out.extend_from_slice(&range.sha256);
        put(out, range.bytes);
        put(out, range.raw_bytes);
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// A pack's bytes: its terms in key order, each with its list (positions only when `positions`).
pub(super) fn encode_pack(terms: &[(Vec<u8>, Vec<Posting>)], positions: bool) -> Vec<u8> {
    let mut out = if positions {
        POSITIONS_MAGIC.to_vec()
    } else {
        POSTINGS_MAGIC.to_vec()
    };
    put(&mut out, terms.len() as u64);
    for (key, list) in terms {
        encode_term(&mut out, key, list, positions);
    }
    out
}

#[cfg(not(target_arch = "wasm32"))]
/// One term's key and list, appended to `out`: doc ids as gaps, positions as gaps.
pub(super) fn encode_term(out: &mut Vec<u8>, key: &[u8], list: &[Posting], positions: bool) {
    put_bytes(out, key);
    put(out, list.len() as u64);
    let mut last_doc = 0;
    for posting in list {
        put(out, u64::from(posting.doc - last_doc));
        last_doc = posting.doc;
        put(out, u64::from(posting.tf));
        if positions {
            let mut last = 0;
            for &position in &posting.positions {
                put(out, u64::from(position - last));
                last = position;
            }
        }
    }
}

/// Reads a file's bytes front to back, every error naming the file.
struct Reader<'a> {
    file: &'a str,
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(file: &'a str, bytes: &'a [u8], magic: &[u8; 8]) -> Result<Reader<'a>> {
        let rest = bytes.strip_prefix(magic.as_slice()).ok_or_else(|| {
            broken(
                file,
                "it does not start as this build's split index files do",
            )
        })?;
        Ok(Reader { file, rest })
    }

    fn number(&mut self) -> Result<u64> {
        VInt::deserialize_u64(&mut self.rest).map_err(|_| broken(self.file, "it ends early"))
    }

    /// A count of items that each take at least one byte, checked against the bytes left.
    fn count(&mut self) -> Result<usize> {
        let count = self.number()?;
        usize::try_from(count)
            .ok()
            .filter(|&count| count <= self.rest.len())
            .ok_or_else(|| broken(self.file, format!("it counts {count} items in fewer bytes")))
    }

    fn small(&mut self) -> Result<u32> {
        let value = self.number()?;
        u32::try_from(value).map_err(|_| broken(self.file, format!("{value} is out of range")))
    }

    fn bytes(&mut self, length: usize) -> Result<&'a [u8]> {
        if self.rest.len() < length {
            return Err(broken(self.file, "it ends early"));
        }
        let (taken, rest) = self.rest.split_at(length);
        self.rest = rest;
        Ok(taken)
    }

    fn prefixed(&mut self) -> Result<&'a [u8]> {
        let length = self.count()?;
        self.bytes(length)
    }

    fn text(&mut self) -> Result<String> {
        let bytes = self.prefixed()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| broken(self.file, "a name is not UTF-8"))
    }

    /// A list of ranges, each after the one before in key order.
    fn ranges(&mut self) -> Result<Vec<PackRange>> {
        let count = self.count()?;
        let mut ranges: Vec<PackRange> = Vec::with_capacity(count);
        for _ in 0..count {
            let first_key = self.prefixed()?.to_vec();
            if ranges
                .last()
                .is_some_and(|last| last.first_key >= first_key)
            {
                return Err(broken(self.file, "its ranges are out of key order"));
            }
            let mut sha256 = [0u8; 32];
            sha256.copy_from_slice(self.bytes(32)?);
            ranges.push(PackRange {
                first_key,
                sha256,
                bytes: self.number()?,
                raw_bytes: self.number()?,
            });
        }
        Ok(ranges)
    }

    fn end(self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(broken(
                self.file,
                format!("{} bytes follow its end", self.rest.len()),
            ))
        }
    }
}

fn broken(file: &str, message: impl Into<String>) -> Error {
    Error::Parse {
        file: file.to_string(),
        message: message.into(),
    }
}

/// Decodes a split index file's raw (decompressed) bytes by its first bytes, as the reader does
/// once its hash has been checked: a base file, a table page (its packs starting at its own first
/// key), or a pack (its terms in key order, file ids below `files`). For the fuzz target, which
/// cannot forge the hashes in front of the decoders.
pub fn decode_any(file: &str, raw: &[u8], files: usize) -> Result<()> {
    if raw.starts_with(BASE_MAGIC) {
        decode_base(file, raw).map(|_| ())
    } else if raw.starts_with(PAGE_MAGIC) {
        let first = Reader::new(file, raw, PAGE_MAGIC)?.ranges()?;
        let from = first
            .first()
            .map(|range| range.first_key.clone())
            .unwrap_or_default();
        decode_page(file, raw, (&from, None)).map(|_| ())
    } else {
        let positions = raw.starts_with(POSITIONS_MAGIC);
        decode_pack(file, raw, positions, (&[], None), files).map(|_| ())
    }
}

/// Reads a base file.
pub(super) fn decode_base(file: &str, bytes: &[u8]) -> Result<Base> {
    let mut reader = Reader::new(file, bytes, BASE_MAGIC)?;
    let format = reader.text()?;
    let paths_sha256 = reader.text()?;
    let files = reader.count()?;
    let mut lengths = Vec::with_capacity(files);
    for _ in 0..files {
        lengths.push([reader.number()?, reader.number()?]);
    }
    let postings = reader.ranges()?;
    let positions = reader.ranges()?;
    reader.end()?;
    Ok(Base {
        format,
        paths_sha256,
        lengths,
        postings,
        positions,
    })
}

/// Reads a table page: the ranges of its packs, the first starting at the page's own first key
/// and every one before `until` (the next page's first key).
pub(super) fn decode_page(
    file: &str,
    bytes: &[u8],
    (from, until): (&[u8], Option<&[u8]>),
) -> Result<Vec<PackRange>> {
    let mut reader = Reader::new(file, bytes, PAGE_MAGIC)?;
    let ranges = reader.ranges()?;
    reader.end()?;
    let starts = ranges.first().is_some_and(|first| first.first_key == from);
    let inside = ranges
        .last()
        .is_some_and(|last| until.is_none_or(|until| last.first_key.as_slice() < until));
    if !starts || !inside {
        return Err(broken(file, "its packs do not cover the page's key range"));
    }
    Ok(ranges)
}

/// Reads a pack: its terms in key order, each from `from` up to (not including) `until`, every
/// file id below `files`.
pub(super) fn decode_pack(
    file: &str,
    bytes: &[u8],
    positions: bool,
    (from, until): (&[u8], Option<&[u8]>),
    files: usize,
) -> Result<Vec<(Vec<u8>, Vec<Posting>)>> {
    let magic = if positions {
        POSITIONS_MAGIC
    } else {
        POSTINGS_MAGIC
    };
    let mut reader = Reader::new(file, bytes, magic)?;
    let count = reader.count()?;
    let mut terms: Vec<(Vec<u8>, Vec<Posting>)> = Vec::with_capacity(count);
    for _ in 0..count {
        let key = reader.prefixed()?.to_vec();
        let after_last = terms.last().is_none_or(|(last, _)| *last < key);
        let in_range = key.as_slice() >= from && until.is_none_or(|until| key.as_slice() < until);
        if !after_last || !in_range {
            return Err(broken(
                file,
                "a term is out of the pack's key range or order",
            ));
        }
        let docs = reader.count()?;
        let mut list = Vec::with_capacity(docs);
        let mut doc = 0u32;
        for at in 0..docs {
            let gap = reader.small()?;
            doc = doc
                .checked_add(gap)
                .filter(|&doc| (doc as usize) < files && (at == 0 || gap > 0))
                .ok_or_else(|| broken(file, "a file id is out of order or range"))?;
            let tf = reader.small()?;
            let mut posting = Posting {
                doc,
                tf,
                positions: Vec::new(),
            };
            if positions {
                if tf as usize > reader.rest.len() {
                    return Err(broken(file, "it ends early"));
                }
                posting.positions.reserve(tf as usize);
                let mut position = 0u32;
                for _ in 0..tf {
                    position = position
                        .checked_add(reader.small()?)
                        .ok_or_else(|| broken(file, "a position is out of range"))?;
                    posting.positions.push(position);
                }
            }
            list.push(posting);
        }
        terms.push((key, list));
    }
    reader.end()?;
    Ok(terms)
}
