//! The split index (bundle format 5): the BM25 arms' index cut into small content-hashed files,
//! so that a search fetches a small base file and the packs of its own query terms instead of
//! the whole index blob.
//!
//! ```text
//! index/<sha256>.base.deflate       the base file, always fetched before the first search:
//!                                   the index format, the paths' SHA-256, each file's path and
//!                                   content token counts (FTS5's bm25 needs every row's length,
//!                                   and N), and the pages of the two pack tables: each page's
//!                                   first key, the SHA-256 of its stored bytes, stored and raw
//!                                   sizes
//! index/<sha256>.table.deflate      a page of a pack table: the same of up to 128 packs
//!                                   ([`PACKS_PER_PAGE`]), read when a query term falls in it
//! index/<sha256>.postings.deflate   a postings pack: terms in key order, each with every file
//!                                   holding it and its count there
//! index/<sha256>.positions.deflate  a positions pack: the same lists with each occurrence's
//!                                   position, read only for a query term of several tokens
//!                                   (FTS5 matches it as a phrase)
//! ```
//!
//! Every file is DEFLATE-compressed and named by the SHA-256 of its stored bytes; the manifest's
//! `split_index` entry names the base file and its hash, the base file each page's, a page each
//! pack's, and [`SplitIndex::add_file`] refuses a page or pack whose bytes do not hash to it. A
//! query term thus costs its page, then its pack: two rounds of fetches
//! ([`SplitIndex::missing_files`] names the next round's). Range requests are not
//! used: whole small files work on every static host.
//!
//! **Keys.** A term is its column's letter (`c` content, `p` path) and its token's bytes, so a
//! pack holds one column's terms and `path-fts5` reads only path packs. A term's whole list
//! lives in one pack, so the files holding a token, and hence its idf, are exact. Packs are cut
//! after the term that takes one past the target size ([`SplitOptions::pack_bytes`]); a term
//! larger than the target makes a pack of its own.
//!
//! **Same rankings.** The split index is written from the whole index's own postings (same
//! tokens, counts and positions) and scored by the same formula ([`super::fts5_rank`]), so
//! `fts5`, `fts5-full` and `path-fts5` give the same complete ranked lists with the same score
//! bits (`engine/tests/split_index.rs` checks it). Only FTS5's scoring is offered; tantivy's own
//! BM25 ([`super::Scoring::Tantivy`]) needs the whole index (`routelens bundle --no-split`).

mod index;
mod layout;
mod search;
#[cfg(not(target_arch = "wasm32"))]
mod write;

pub use index::{PackFile, SplitIndex};
pub use layout::{decode_any, Posting};
#[cfg(not(target_arch = "wasm32"))]
pub use write::{split_index, SplitFiles, SplitOptions};

/// The prefix of the manifest's `split_index` format: `split-1/` and the whole index's format.
pub const SPLIT_FORMAT_PREFIX: &str = "split-1/";

/// The pack size the bundler aims at by default, in stored (compressed) bytes.
pub const DEFAULT_PACK_BYTES: usize = 4096;

/// How many packs a table page lists: a page of 128 is about 6 kB raw, so a term costs about a
/// page and a pack, while the base file lists one page per 128 packs (on a 50,000-file corpus
/// the flat table of 16,844 packs made the base file 811 kB).
pub const PACKS_PER_PAGE: usize = 128;
