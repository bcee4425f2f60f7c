//! The BM25 arms (`fts5`, `fts5-full`, `path-fts5`) over a tantivy index.
//!
//! The paper used in-memory SQLite FTS5 with the `unicode61` tokenizer, a table
//! `fts5(path, content)`, an OR of the quoted terms, and `ORDER BY bm25(files, 2.0, 1.0), path`.
//! Here the index is built natively by [`build_index_blob`] (tantivy's writer needs threads, so
//! it is not compiled for wasm32), shipped as one blob (layout in [`blob`]), and opened anywhere,
//! the browser included, by [`FtsIndex::open`] from a RAM directory with
//! [`ReloadPolicy::Manual`].
//!
//! **Schema.** `path` and `content`: text fields indexed with term frequencies and field norms
//! but no positions (nothing here needs phrases, and positions would triple the index), neither
//! stored; `file_id`: a fast `u64`, the file's position in the path-sorted file list.
//!
//! **Tokenizer** (`unicode61`, [`analyzer`]): split on every character that is not alphabetic or
//! numeric (so `_` separates, as in `unicode61`, where only the categories L*, N* and Co are
//! token characters: `foo_bar` is `foo`, `bar`), lower-case, fold diacritics to ASCII
//! (`unicode61`'s default `remove_diacritics`), and drop tokens over 255 bytes (no issue term is
//! that long). It differs from SQLite only on scripts where Rust's `is_alphanumeric` and the
//! Unicode categories disagree (combining vowel signs) and on foldings tantivy does and SQLite
//! does not (`ß` → `ss`).
//!
//! **Query.** The terms of [`crate::terms`] (first 500 characters for `fts5` and `path-fts5`,
//! the whole issue for `fts5-full`) go through the same tokenizer, and each distinct token
//! becomes `TermQuery`s on `path` (boost 2.0) and `content` (boost 1.0), all `SHOULD` clauses of
//! one `BooleanQuery`; `path-fts5` uses the `path` clause alone. The stock `QueryParser` is not
//! used: it turns a term that splits into several tokens into a phrase query, which needs
//! positions. FTS5 did make `"foo_bar"` a phrase (`foo` then `bar`); here it is `foo OR bar`.
//!
//! **Scoring and order.** tantivy's BM25 (k1 = 1.2, b = 0.75) per field, summed with the boosts;
//! every matching file is scored (no pruning), sorted by score descending, ties by path
//! ascending, and the first `k` kept. Known differences from FTS5's `bm25()`: FTS5 computes one
//! BM25 per row over the weighted sum of column frequencies with the row's total length, tantivy
//! one per field with that field's length; tantivy's idf is `ln(1 + (N − n + 0.5)/(n + 0.5))`
//! where FTS5's is `ln((N − n + 0.5)/(n + 0.5))` (floored at 1e-6); and tantivy stores field
//! lengths quantised to one byte.
//!
//! An identifier-splitting, stemming tokenizer (the issue's option) is not offered yet.

pub mod blob;
#[cfg(not(target_arch = "wasm32"))]
mod build;

use std::fmt;
use std::path::Path;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::directory::RamDirectory;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST};
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer,
};
use tantivy::{DocId, Index, ReloadPolicy, Score, Searcher, SegmentOrdinal, SegmentReader, Term};

#[cfg(not(target_arch = "wasm32"))]
pub use build::build_index_blob;

use super::{sort_and_truncate, ArmOutput};
use crate::bundle::Manifest;
use crate::error::{Error, Result};
use crate::terms::{extract_terms, first_chars, FIRST_CHARS};

/// The index format: tantivy version, tokenizer, and this module's schema version. The manifest
/// records it and [`FtsIndex::open`] refuses any other.
pub const INDEX_FORMAT: &str = "tantivy-0.27/unicode61/1";

/// The tokenizer's registered name.
pub const TOKENIZER: &str = "unicode61";

/// The `path` field's weight, as in `bm25(files, 2.0, 1.0)`.
pub const PATH_BOOST: Score = 2.0;

/// The `content` field's weight.
pub const CONTENT_BOOST: Score = 1.0;

/// Tokens longer than this many bytes are not indexed.
const MAX_TOKEN_BYTES: usize = 255;

const PATH: &str = "path";
const CONTENT: &str = "content";
const FILE_ID: &str = "file_id";

/// The name used in errors before the blob has a bundle file name.
const INDEX_NAME: &str = "index";

/// The tokenizer chain shared by the builder and the reader.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES + 1))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The tokens the index holds for `text` (for tests and for highlighting).
pub fn index_tokens(text: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while let Some(token) = stream.next() {
        tokens.push(token.text.clone());
    }
    tokens
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    path: Field,
    content: Field,
    /// Written by the native builder only; the reader reads the fast column by name.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    file_id: Field,
}

fn schema() -> (Schema, Fields) {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqs);
    let text = TextOptions::default().set_indexing_options(indexing);
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field(PATH, text.clone()),
        content: builder.add_text_field(CONTENT, text),
        file_id: builder.add_u64_field(FILE_ID, FAST),
    };
    (builder.build(), fields)
}

fn index_error(file: &str, error: impl fmt::Display) -> Error {
    Error::Index {
        file: file.to_string(),
        message: error.to_string(),
    }
}

/// An opened index: search it with [`FtsIndex::fts5`], [`FtsIndex::fts5_full`] and
/// [`FtsIndex::path_fts5`].
#[derive(Clone)]
pub struct FtsIndex {
    searcher: Searcher,
    fields: Fields,
    paths: Vec<String>,
}

impl fmt::Debug for FtsIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FtsIndex")
            .field("docs", &self.paths.len())
            .finish_non_exhaustive()
    }
}

impl FtsIndex {
    /// Opens a blob built by [`build_index_blob`] over exactly these paths (sorted, as the
    /// manifest lists them). `file` names the blob in errors.
    pub fn open(file: &str, blob: &[u8], paths: Vec<String>) -> Result<FtsIndex> {
        let (header, files) = blob::decode(file, blob)?;
        if header.format != INDEX_FORMAT {
            return Err(index_error(
                file,
                format!(
                    "index format {:?}; this build reads {INDEX_FORMAT:?}",
                    header.format
                ),
            ));
        }
        if header.docs != paths.len() as u64 || header.paths_sha256 != blob::paths_sha256(&paths) {
            return Err(index_error(
                file,
                format!(
                    "built over {} other paths than the {} given (the manifest does not match)",
                    header.docs,
                    paths.len()
                ),
            ));
        }
        let directory = RamDirectory::create();
        for (name, bytes) in files {
            tantivy::Directory::atomic_write(&directory, Path::new(&name), bytes)
                .map_err(|error| index_error(file, error))?;
        }
        let index = Index::open(directory).map_err(|error| index_error(file, error))?;
        index.tokenizers().register(TOKENIZER, analyzer());
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(index_error(file, "the index schema is not this build's"));
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|error| index_error(file, error))?;
        let searcher = reader.searcher();
        if searcher.num_docs() != header.docs {
            return Err(index_error(
                file,
                format!(
                    "{} documents, the header says {}",
                    searcher.num_docs(),
                    header.docs
                ),
            ));
        }
        Ok(FtsIndex {
            searcher,
            fields,
            paths,
        })
    }

    /// Verifies the blob against the manifest (hash, format) and opens it over its paths.
    pub fn from_bundle(manifest: &Manifest, blob: &[u8]) -> Result<FtsIndex> {
        let entry = manifest.verify_index(blob)?;
        if entry.format != INDEX_FORMAT {
            return Err(index_error(
                &entry.file,
                format!(
                    "the manifest lists format {:?}; this build reads {INDEX_FORMAT:?}",
                    entry.format
                ),
            ));
        }
        FtsIndex::open(&entry.file, blob, manifest.paths())
    }

    /// The number of indexed files.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether the index has no files.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// `fts5`: path and content, terms of the first 500 characters; top `k`.
    pub fn fts5(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        let terms = extract_terms(first_chars(issue, FIRST_CHARS));
        self.search(terms, &self.both_fields(), k)
    }

    /// `fts5-full`: path and content, terms of the whole issue; top `k`.
    pub fn fts5_full(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        self.search(extract_terms(issue), &self.both_fields(), k)
    }

    /// `path-fts5`: the path alone, terms of the first 500 characters; top `k`.
    pub fn path_fts5(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        let terms = extract_terms(first_chars(issue, FIRST_CHARS));
        self.search(terms, &[(self.fields.path, 1.0)], k)
    }

    fn both_fields(&self) -> [(Field, Score); 2] {
        [
            (self.fields.path, PATH_BOOST),
            (self.fields.content, CONTENT_BOOST),
        ]
    }

    fn search(&self, terms: Vec<String>, fields: &[(Field, Score)], k: usize) -> Result<ArmOutput> {
        let mut tokens: Vec<String> = Vec::new();
        for term in &terms {
            for token in index_tokens(term) {
                if !tokens.contains(&token) {
                    tokens.push(token);
                }
            }
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = tokens
            .iter()
            .flat_map(|token| {
                fields.iter().map(move |&(field, boost)| {
                    let query = TermQuery::new(
                        Term::from_field_text(field, token),
                        IndexRecordOption::WithFreqs,
                    );
                    let boosted: Box<dyn Query> = Box::new(BoostQuery::new(Box::new(query), boost));
                    (Occur::Should, boosted)
                })
            })
            .collect();
        if clauses.is_empty() {
            return Ok(ArmOutput::new(terms, Vec::new()));
        }
        let hits = self
            .searcher
            .search(&BooleanQuery::new(clauses), &AllMatches)
            .map_err(|error| index_error(INDEX_NAME, error))?;
        let scored = hits
            .into_iter()
            .filter_map(|(file_id, score)| {
                let path = self.paths.get(usize::try_from(file_id).ok()?)?;
                Some((path.clone(), f64::from(score)))
            })
            .collect();
        Ok(ArmOutput::new(terms, sort_and_truncate(scored, k)))
    }
}

/// Collects every matching document's file id and score, so ties at the cut-off are broken by
/// path, not by tantivy's document order.
struct AllMatches;

struct SegmentMatches {
    file_ids: Column<u64>,
    hits: Vec<(u64, Score)>,
}

impl Collector for AllMatches {
    type Fruit = Vec<(u64, Score)>;
    type Child = SegmentMatches;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentMatches> {
        Ok(SegmentMatches {
            file_ids: reader.fast_fields().u64(FILE_ID)?,
            hits: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(u64, Score)>>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.concat())
    }
}

impl SegmentCollector for SegmentMatches {
    type Fruit = Vec<(u64, Score)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(file_id) = self.file_ids.first(doc) {
            self.hits.push((file_id, score));
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_like_unicode61() {
        assert_eq!(
            index_tokens("src/foo_bar.rs: Parse_JSON(x86_64) Café"),
            ["src", "foo", "bar", "rs", "parse", "json", "x86", "64", "cafe"]
        );
        let long = "a".repeat(300);
        assert!(index_tokens(&long).is_empty());
        assert_eq!(index_tokens(&"b".repeat(255)).len(), 1);
    }
}
