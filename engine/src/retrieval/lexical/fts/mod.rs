//! The BM25 arms (`fts5`, `fts5-full`, `path-fts5`) over a tantivy index.
//!
//! The paper used in-memory SQLite FTS5 with the `unicode61` tokenizer, a table
//! `fts5(path, content)`, an OR of the quoted terms, and `ORDER BY bm25(files, 2.0, 1.0), path`.
//! Here the index is built natively by [`build_index_blob`] (in the browser too, on one thread,
//! for a merged site's bundle that stores none: `Manifest::derived_index`), shipped as one blob (layout in [`blob`]), and opened anywhere,
//! the browser included, by [`FtsIndex::open`] from a RAM directory with
//! [`ReloadPolicy::Manual`].
//!
//! **Schema.** `path` and `content`: text fields indexed with term frequencies, field norms and
//! (by default, [`IndexSpec`]) token positions, neither stored; `file_id`: a fast `u64`, the
//! file's position in the path-sorted file list; `path_tokens` and `content_tokens`: fast
//! `u64`s, the exact token counts (tantivy's own field
//! norms are quantised to one byte, and FTS5's formula needs the exact row length). The term
//! dictionary is tantivy's sstable (its `quickwit` feature) rather than its FST: on the demo
//! corpus the segment was serialised in about half the time (34–51 ms against 69–100 ms) and the
//! compressed blob was 606 KB against 851 KB.
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
//! the whole issue for `fts5-full`) go through the same tokenizer; each term is one query
//! phrase, as each double-quoted term is in FTS5: a term that cuts into several tokens
//! (`"empty_set"`) is the phrase `empty set` (adjacent, in one column), matched from the
//! positions. An index built without positions (`routelens bundle --no-positions`, smaller)
//! counts each of such a term's tokens as a phrase of its own, which FTS5 does not. The stock
//! `QueryParser` is not used: its syntax is not FTS5's.
//!
//! **Scoring** ([`Scoring`]). By default, SQLite FTS5's own `bm25()` formula, computed from the
//! postings (weighted term frequencies of both fields) and exact per-file token counts stored as
//! fast fields, each phrase's frequency counted from the positions: on the engine's own sources
//! (81 files) and 60 comment-derived queries its top 8 equalled real FTS5's
//! `bm25(files, 2.0, 1.0), path` top 8 in all 60 (without phrases, 0.952 shared on a 365-file
//! corpus: exactly FTS5's overlap with itself when the phrases are split). On four sympy cases of
//! the paper's archive the `fts5`, `fts5-full` and `path-fts5` top 16 equal the archived ones.
//! tantivy's own per-field BM25 (a `BooleanQuery` of boosted `TermQuery`s, [`Scoring::Tantivy`])
//! is kept as an option; it shared only 0.60 there, because its idf, length normalisation and
//! quantised field lengths all differ from FTS5's. Either way every matching file is scored (no
//! pruning), sorted by score descending, ties by path ascending, and the first `k` kept.
//!
//! **The `code` tokenizer** ([`Tokenizer::Code`], chosen when the bundle is built: `routelens
//! bundle --tokenizer code`). An option for code search beyond the paper: `unicode61`'s cuts, then
//! identifiers cut at case changes ([`code_tokenizer`]), lower-cased, folded, and stemmed with
//! the English Snowball stemmer, so `parsing configs` finds `parseConfig`. The index format names
//! the tokenizer and the reader uses the one the blob was built with; the query goes through the
//! same chain. The paper's arms are defined with `unicode61`, the default.

mod all_matches;
pub mod blob;
pub(super) mod build;
pub mod code_tokenizer;
mod fts5_rank;
mod fts5_score;
mod grouped;
mod grouping;
pub mod split;
mod term_table;
pub mod unicode61;

use std::fmt;
use std::sync::Arc;

use all_matches::AllMatches;
use term_table::TermTable;

use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer,
};
use tantivy::{ReloadPolicy, Score, Searcher, Term};

pub use build::{build_index_blob, build_index_blob_owned, build_index_blob_with};
pub use unicode61::{analyzer, MAX_TOKEN_BYTES};

use super::{sort_and_truncate, ArmOutput};
use crate::corpus::bundle::Manifest;
use crate::error::{Error, Result};
use crate::terms::{extract_terms, first_chars, FIRST_CHARS};

/// The index format of the default index ([`IndexSpec::default`]: `unicode61`, positions kept):
/// tantivy version, tokenizer, `+positions`, and this module's schema version (3: the sstable
/// term dictionary; 2 had tantivy's FST). The manifest records it and [`FtsIndex::open`]
/// refuses any format but the four of [`IndexSpec::ALL`].
pub const INDEX_FORMAT: &str = "tantivy-0.27/unicode61+positions/3";

/// What an index is built with, fixed when the bundle is built: its tokenizer, and whether it
/// keeps each token's positions, which FTS5's phrase terms need (`"foo_bar"` is the phrase
/// `foo bar`). Without positions a phrase's tokens count as phrases of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexSpec {
    /// How text is cut into tokens.
    pub tokenizer: Tokenizer,
    /// Whether token positions are indexed.
    pub positions: bool,
}

impl Default for IndexSpec {
    /// The paper's: `unicode61`, with positions (its quoted terms are phrases).
    fn default() -> Self {
        IndexSpec {
            tokenizer: Tokenizer::Unicode61,
            positions: true,
        }
    }
}

impl IndexSpec {
    /// Every index this build writes and reads.
    pub const ALL: [IndexSpec; 4] = [
        IndexSpec::of(Tokenizer::Unicode61, true),
        IndexSpec::of(Tokenizer::Unicode61, false),
        IndexSpec::of(Tokenizer::Code, true),
        IndexSpec::of(Tokenizer::Code, false),
    ];

    /// The spec of `tokenizer`, with positions or without.
    pub const fn of(tokenizer: Tokenizer, positions: bool) -> IndexSpec {
        IndexSpec {
            tokenizer,
            positions,
        }
    }

    /// The index format string: `tantivy-0.27/<tokenizer>[+positions]/3`.
    pub fn index_format(self) -> String {
        let positions = if self.positions { "+positions" } else { "" };
        format!("tantivy-0.27/{}{positions}/3", self.tokenizer.name())
    }

    /// The spec of an index format string this build reads.
    pub fn from_index_format(format: &str) -> Option<IndexSpec> {
        IndexSpec::ALL
            .into_iter()
            .find(|spec| spec.index_format() == format)
    }

    /// What the index's text fields record.
    fn record_option(self) -> IndexRecordOption {
        if self.positions {
            IndexRecordOption::WithFreqsAndPositions
        } else {
            IndexRecordOption::WithFreqs
        }
    }

    /// Every format this build reads (for error messages).
    pub(in crate::retrieval::lexical) fn formats() -> Vec<String> {
        IndexSpec::ALL.map(IndexSpec::index_format).to_vec()
    }
}

/// How the index cuts text into tokens; fixed when the index is built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    /// SQLite FTS5's `unicode61`, as the paper used it (the default).
    #[default]
    Unicode61,
    /// `unicode61`'s cuts plus identifier splitting and English stemming (an option).
    Code,
}

impl Tokenizer {
    /// Both tokenizers.
    pub const ALL: [Tokenizer; 2] = [Tokenizer::Unicode61, Tokenizer::Code];

    /// The name used on the command line, in the index format and as tantivy's tokenizer name.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Unicode61 => "unicode61",
            Tokenizer::Code => "code",
        }
    }

    /// The tokenizer with this [`Tokenizer::name`].
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Tokenizer::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The analyzer chain shared by the builder and the reader.
    pub fn analyzer(self) -> TextAnalyzer {
        match self {
            Tokenizer::Unicode61 => analyzer(),
            Tokenizer::Code => TextAnalyzer::builder(code_tokenizer::CodeTokenizer)
                .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES + 1))
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .filter(Stemmer::new(Language::English))
                .build(),
        }
    }
}

/// The `path` field's weight, as in `bm25(files, 2.0, 1.0)`.
pub const PATH_BOOST: Score = 2.0;

/// The `content` field's weight.
pub const CONTENT_BOOST: Score = 1.0;

const PATH: &str = "path";
const CONTENT: &str = "content";
const FILE_ID: &str = "file_id";
const PATH_TOKENS: &str = "path_tokens";
const CONTENT_TOKENS: &str = "content_tokens";

/// The name used in errors before the blob has a bundle file name.
const INDEX_NAME: &str = "index";

/// The tokens a `unicode61` index holds for `text` (for tests and for highlighting).
pub fn index_tokens(text: &str) -> Vec<String> {
    tokens_of(&mut analyzer(), text)
}

/// The tokens `analyzer` makes of `text`.
fn tokens_of(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
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
    /// Written by the builder only; the reader reads the fast columns by name.
    file_id: Field,
    path_tokens: Field,
    content_tokens: Field,
}

fn schema(spec: IndexSpec) -> (Schema, Fields) {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(spec.tokenizer.name())
        .set_index_option(spec.record_option());
    let text = TextOptions::default().set_indexing_options(indexing);
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field(PATH, text.clone()),
        content: builder.add_text_field(CONTENT, text),
        file_id: builder.add_u64_field(FILE_ID, FAST),
        path_tokens: builder.add_u64_field(PATH_TOKENS, FAST),
        content_tokens: builder.add_u64_field(CONTENT_TOKENS, FAST),
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
    scoring: Scoring,
    spec: IndexSpec,
    /// Exact token totals of the `path` and `content` fields (FTS5's `avgdl` needs them).
    path_tokens_total: f64,
    content_tokens_total: f64,
    /// Each segment's terms, in the searcher's segment order (shared by clones).
    term_tables: Arc<[TermTable]>,
}

/// How the BM25 arms score a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scoring {
    /// SQLite FTS5's `bm25()`, computed from the index's postings (the default): one BM25 per
    /// file over the column-weighted frequency `f = 2 × tf(path) + 1 × tf(content)`, the file's
    /// exact total length `D` (path and content tokens), `avgdl` over all files, and
    /// `idf = ln((N − n + 0.5) / (n + 0.5))` floored at 1e-6, where `n` counts the files with the
    /// token in any column: `Σ idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))`,
    /// k1 = 1.2, b = 0.75. `path-fts5` is the same over the path column alone.
    #[default]
    Fts5,
    /// tantivy's own BM25: a `BooleanQuery` of per-field `TermQuery`s boosted 2.0 (path) and
    /// 1.0 (content), each field with its own idf (`ln(1 + (N − n + 0.5)/(n + 0.5))`) and its
    /// own quantised length. On a 365-file Rust corpus its top 8 shared only 0.60 of FTS5's.
    Tantivy,
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
        let spec = IndexSpec::from_index_format(&header.format).ok_or_else(|| {
            index_error(
                file,
                format!(
                    "index format {:?}; this build reads {:?}",
                    header.format,
                    IndexSpec::formats()
                ),
            )
        })?;
        let tokenizer = spec.tokenizer;
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
        let index = blob::open_index(file, files)?;
        index
            .tokenizers()
            .register(tokenizer.name(), tokenizer.analyzer());
        let (expected, fields) = schema(spec);
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
        let mut totals = [0.0f64; 2];
        for segment in searcher.segment_readers() {
            for (total, name) in totals.iter_mut().zip([PATH_TOKENS, CONTENT_TOKENS]) {
                let column = segment
                    .fast_fields()
                    .u64(name)
                    .map_err(|error| index_error(file, error))?;
                *total += (0..segment.max_doc())
                    .filter_map(|doc| column.first(doc))
                    .map(|count| count as f64)
                    .sum::<f64>();
            }
        }
        let term_tables = searcher
            .segment_readers()
            .iter()
            .map(|segment| TermTable::read(segment, &[fields.path, fields.content]))
            .collect::<tantivy::Result<Arc<[TermTable]>>>()
            .map_err(|error| index_error(file, error))?;
        Ok(FtsIndex {
            searcher,
            fields,
            paths,
            scoring: Scoring::default(),
            spec,
            path_tokens_total: totals[0],
            content_tokens_total: totals[1],
            term_tables,
        })
    }

    /// The same index with another scoring rule (default [`Scoring::Fts5`]).
    pub fn with_scoring(mut self, scoring: Scoring) -> Self {
        self.scoring = scoring;
        self
    }

    /// Verifies the blob against the manifest (hash, format) and opens it over its paths.
    ///
    /// `stored` is the index file's bytes as fetched (compressed in bundle format 2).
    pub fn from_bundle(manifest: &Manifest, stored: &[u8]) -> Result<FtsIndex> {
        let (entry, blob) = manifest.open_index(stored)?;
        if IndexSpec::from_index_format(&entry.format).is_none() {
            return Err(index_error(
                &entry.file,
                format!(
                    "the manifest lists format {:?}; this build reads {:?}",
                    entry.format,
                    IndexSpec::formats()
                ),
            ));
        }
        let index = FtsIndex::open(&entry.file, &blob, manifest.paths())?;
        if index.spec.index_format() != entry.format {
            return Err(index_error(
                &entry.file,
                format!(
                    "the manifest lists format {:?}, the blob says {:?}",
                    entry.format,
                    index.spec.index_format()
                ),
            ));
        }
        Ok(index)
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
        if self.scoring == Scoring::Fts5 {
            let phrases = query_phrases(self.spec, &terms);
            let results = self.fts5_top(&phrases, fields, k)?;
            return Ok(ArmOutput::new(terms, results));
        }
        let tokens = query_tokens(self.spec.tokenizer, &terms);
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
            .search(
                &BooleanQuery::new(clauses),
                &AllMatches {
                    file_id_field: FILE_ID,
                },
            )
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

/// FTS5's query phrases: one per query term (the OR of quoted terms), in term order, each the
/// term's tokens; a term that makes no token is dropped. Two terms may make the same phrase
/// (`gamma`, `gamma_`): FTS5's `bm25()` sums over the query's phrases, so both count. Without
/// positions in the index, each token of a longer phrase is a phrase of its own.
fn query_phrases(spec: IndexSpec, terms: &[String]) -> Vec<Vec<String>> {
    let mut analyzer = spec.tokenizer.analyzer();
    let mut phrases = Vec::new();
    for term in terms {
        let tokens = tokens_of(&mut analyzer, term);
        if spec.positions {
            if !tokens.is_empty() {
                phrases.push(tokens);
            }
        } else {
            phrases.extend(tokens.into_iter().map(|token| vec![token]));
        }
    }
    phrases
}

/// The distinct index tokens of the query terms, in term order.
fn query_tokens(tokenizer: Tokenizer, terms: &[String]) -> Vec<String> {
    let mut analyzer = tokenizer.analyzer();
    let mut tokens: Vec<String> = Vec::new();
    for term in terms {
        for token in tokens_of(&mut analyzer, term) {
            if !tokens.contains(&token) {
                tokens.push(token);
            }
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_tokenizer_splits_identifiers_and_stems() {
        let code = Tokenizer::Code;
        assert_eq!(
            tokens_of(
                &mut code.analyzer(),
                "parseConfigFiles HTTPServer running_tests"
            ),
            ["pars", "config", "file", "http", "server", "run", "test"]
        );
        assert_eq!(IndexSpec::default().index_format(), INDEX_FORMAT);
        for tokenizer in Tokenizer::ALL {
            assert_eq!(Tokenizer::from_name(tokenizer.name()), Some(tokenizer));
        }
        for spec in IndexSpec::ALL {
            assert_eq!(
                IndexSpec::from_index_format(&spec.index_format()),
                Some(spec)
            );
        }
        // Bundles built before positions (format 3 without them) still open.
        assert_eq!(
            IndexSpec::from_index_format("tantivy-0.27/unicode61/3"),
            Some(IndexSpec::of(Tokenizer::Unicode61, false))
        );
        assert_eq!(
            IndexSpec::from_index_format("tantivy-0.27/unicode61/1"),
            None
        );
    }
}
