//! Chunk BM25: a tantivy index over one chunking's code chunks, each indexed with its prefix
//! (`path :: name`) and its lines, scored by tantivy's BM25 (k1 1.2, b 0.75).
//!
//! **Tokenizer** ([`chunk_analyzer`]): the `code` tokenizer's cuts (non-alphanumeric characters and
//! identifier case changes: `RateLimitFilter` is `Rate`, `Limit`, `Filter`), lower-cased, folded,
//! English stop words dropped (Lucene's English set), then Snowball-stemmed, so "rate limit"
//! reaches `RateLimitFilter`. The query goes through the same chain; each distinct token is one
//! optional term. Results are sorted by score, ties by chunk position (file, then line), and
//! cut at the asked depth.
//!
//! The blob is [`super::fts::blob`]'s layout; its `paths_sha256` hashes the chunks' keys
//! (`path#Lstart-Lend`, in table order), so an index opens only over the table it was built from.

use crate::stable_sort;
use std::cmp::Reverse;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter,
    TextAnalyzer,
};
use tantivy::{DocId, ReloadPolicy, Score, Searcher, SegmentReader, Term};

use super::fts::blob;
use super::fts::code_tokenizer::CodeTokenizer;
use super::fts::MAX_TOKEN_BYTES;
use crate::corpus::code_chunks::CodeChunk;
use crate::error::{Error, Result};

/// What reads a chunk index: tantivy version, tokenizer chain, schema version.
pub const CHUNK_INDEX_FORMAT: &str = "tantivy-0.27/code-stop-stem/1";

/// Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`).
pub const STOP_WORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

const TOKENIZER: &str = "chunk_code";
const TEXT: &str = "text";
const CHUNK: &str = "chunk";

/// The analyzer of chunk texts and of queries.
pub fn chunk_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer)
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES + 1))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(STOP_WORDS.map(str::to_string)))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The tokens the chunk index holds for `text`.
pub fn chunk_tokens(text: &str) -> Vec<String> {
    let mut analyzer = chunk_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while let Some(token) = stream.next() {
        tokens.push(token.text.clone());
    }
    tokens
}

fn schema() -> (Schema, Field, Field) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqs);
    let text = builder.add_text_field(TEXT, TextOptions::default().set_indexing_options(indexing));
    let chunk = builder.add_u64_field(CHUNK, FAST);
    (builder.build(), text, chunk)
}

fn index_error(file: &str, error: impl std::fmt::Display) -> Error {
    Error::Index {
        file: file.to_string(),
        message: error.to_string(),
    }
}

/// The key of a chunk in the index's hash: `path#Lstart-Lend`.
fn key(chunk: &CodeChunk) -> String {
    format!("{}#L{}-L{}", chunk.path, chunk.start_line, chunk.end_line)
}

/// Builds the index over `chunks` (in table order) whose indexed texts (prefix and lines) are
/// `texts`, one per chunk.
#[cfg(not(target_arch = "wasm32"))]
pub fn build_chunk_index(chunks: &[CodeChunk], texts: &[String]) -> Result<Vec<u8>> {
    use tantivy::directory::RamDirectory;
    use tantivy::{Index, IndexSettings, TantivyDocument};
    const NAME: &str = "chunk index";
    if chunks.len() != texts.len() {
        return Err(index_error(
            NAME,
            format!("{} chunks, {} texts", chunks.len(), texts.len()),
        ));
    }
    let (schema, text, chunk) = schema();
    let directory = RamDirectory::create();
    let tokenizers = tantivy::tokenizer::TokenizerManager::default();
    tokenizers.register(TOKENIZER, chunk_analyzer());
    let mut writer = Index::builder()
        .schema(schema)
        .settings(IndexSettings::default())
        .tokenizers(tokenizers)
        .single_segment_index_writer(directory.clone(), 16 * 1024 * 1024)
        .map_err(|e| index_error(NAME, e))?;
    for (at, body) in texts.iter().enumerate() {
        let mut document = TantivyDocument::default();
        document.add_text(text, body);
        document.add_u64(chunk, at as u64);
        writer
            .add_document(document)
            .map_err(|e| index_error(NAME, e))?;
    }
    let files = super::fts::build::written_files(writer, &directory)?;
    let keys: Vec<String> = chunks.iter().map(key).collect();
    Ok(blob::encode(
        CHUNK_INDEX_FORMAT,
        chunks.len() as u64,
        blob::paths_sha256(&keys),
        &files,
    ))
}

/// An opened chunk index.
pub struct ChunkIndex {
    searcher: Searcher,
    text: Field,
    docs: usize,
}

impl std::fmt::Debug for ChunkIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkIndex")
            .field("docs", &self.docs)
            .finish_non_exhaustive()
    }
}

/// One chunk a search found: its position in the table and its BM25 score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkHit {
    /// Index into the chunk table.
    pub chunk: usize,
    /// tantivy's BM25 score.
    pub score: f32,
}

impl ChunkIndex {
    /// Opens a blob built by [`build_chunk_index`] over exactly these `chunks`; `file` names
    /// the blob in errors.
    pub fn open(file: &str, blob: &[u8], chunks: &[CodeChunk]) -> Result<ChunkIndex> {
        let (header, files) = blob::decode(file, blob)?;
        if header.format != CHUNK_INDEX_FORMAT {
            return Err(index_error(
                file,
                format!(
                    "index format {:?}; this build reads {CHUNK_INDEX_FORMAT:?}",
                    header.format
                ),
            ));
        }
        let keys: Vec<String> = chunks.iter().map(key).collect();
        if header.docs != chunks.len() as u64 || header.paths_sha256 != blob::paths_sha256(&keys) {
            return Err(index_error(
                file,
                format!(
                    "built over {} other chunks than the {} of its table",
                    header.docs,
                    chunks.len()
                ),
            ));
        }
        let index = blob::open_index(file, files)?;
        index.tokenizers().register(TOKENIZER, chunk_analyzer());
        let (expected, text, _) = schema();
        if index.schema() != expected {
            return Err(index_error(file, "the index schema is not this build's"));
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| index_error(file, e))?;
        let searcher = reader.searcher();
        if searcher.num_docs() != header.docs {
            return Err(index_error(file, "document count differs from the header"));
        }
        Ok(ChunkIndex {
            searcher,
            text,
            docs: chunks.len(),
        })
    }

    /// The number of chunks.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// Whether the index holds no chunk.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The best `depth` chunks for `query`, by score, ties by table position.
    pub fn search(&self, query: &str, depth: usize) -> Result<Vec<ChunkHit>> {
        let mut tokens = chunk_tokens(query);
        stable_sort::sort(&mut tokens);
        tokens.dedup();
        if tokens.is_empty() || depth == 0 {
            return Ok(Vec::new());
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = tokens
            .iter()
            .map(|token| {
                let term = Term::from_field_text(self.text, token);
                let query: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, query)
            })
            .collect();
        let query = BooleanQuery::new(clauses);
        // Ranked by (score, then table position) inside tantivy's collector: the best `depth`
        // are exactly the first `depth` of the whole ranking, ties included. A sort key of our
        // own also keeps tantivy from pruning (block-max WAND), whose summation order follows
        // its threshold, so that a chunk's f32 score — and with it the order of two chunks
        // whose scores agree to the last bits — would depend on how deep the search went.
        let err = |e: tantivy::TantivyError| index_error("chunk index", e);
        let by_score_then_position = TopDocs::with_limit(depth.min(self.docs.max(1))).tweak_score(
            |segment: &SegmentReader| {
                let column = segment.fast_fields().u64(CHUNK).ok();
                move |doc: DocId, score: Score| {
                    let chunk = column.as_ref().and_then(|c| c.first(doc));
                    (score, Reverse(chunk.unwrap_or(u64::MAX)))
                }
            },
        );
        let found = self
            .searcher
            .search(&query, &by_score_then_position)
            .map_err(err)?;
        let mut hits = Vec::with_capacity(found.len());
        for ((score, Reverse(chunk)), _) in found {
            if chunk as usize >= self.docs {
                return Err(index_error("chunk index", "a document without its chunk"));
            }
            hits.push(ChunkHit {
                chunk: chunk as usize,
                score,
            });
        }
        hits.truncate(depth);
        Ok(hits)
    }
}

/// The text a chunk is indexed with: its prefix, then its lines of its file's `lines` (a range
/// past the file's end gives what there is).
pub fn chunk_text(chunk: &CodeChunk, lines: &[&str]) -> String {
    let start = (chunk.start_line as usize)
        .saturating_sub(1)
        .min(lines.len());
    let end = (chunk.end_line as usize).clamp(start, lines.len());
    format!("{}{}", chunk.prefix(), lines[start..end].join("\n"))
}

/// The indexed texts of `chunks`, each file's lines split once (`text_of` gives a file's text).
pub fn chunk_texts<'t>(chunks: &[CodeChunk], text_of: impl Fn(&str) -> &'t str) -> Vec<String> {
    let mut out = Vec::with_capacity(chunks.len());
    let mut current: Option<(&str, Vec<&str>)> = None;
    for chunk in chunks {
        if current.as_ref().is_none_or(|(path, _)| *path != chunk.path) {
            current = Some((chunk.path.as_str(), text_of(&chunk.path).lines().collect()));
        }
        let (_, lines) = current.as_ref().expect("set above");
        out.push(chunk_text(chunk, lines));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::code_chunks::test_chunk as chunk;

    #[test]
    fn rate_limit_reaches_rate_limit_filter_and_stop_words_do_not_count() {
        assert_eq!(chunk_tokens("RateLimitFilter"), ["rate", "limit", "filter"]);
        assert_eq!(chunk_tokens("the limits of it"), ["limit"]);
        let chunks = vec![
            chunk("a.py", 1, 3, "RateLimitFilter.allow"),
            chunk("b.py", 1, 2, "parse_config"),
            chunk("c.py", 1, 2, "the_of_and"),
        ];
        let texts: Vec<String> = [
            "class RateLimitFilter:\n  def allow(self): pass",
            "def parse_config(path): return path",
            "def the_of_and(): return 1",
        ]
        .iter()
        .zip(&chunks)
        .map(|(body, c)| format!("{}{body}", c.prefix()))
        .collect();
        let blob = build_chunk_index(&chunks, &texts).unwrap();
        let index = ChunkIndex::open("idx", &blob, &chunks).unwrap();
        let hits = index.search("how is the rate limit applied", 10).unwrap();
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].chunk, 0);
        assert!(index.search("the of and", 10).unwrap().is_empty());
        // The index refuses another table.
        let mut other = chunks.clone();
        other[1].end_line = 3;
        let err = ChunkIndex::open("idx", &blob, &other)
            .unwrap_err()
            .to_string();
        assert!(err.contains("other chunks"), "{err}");
    }

    #[test]
    fn a_shallow_search_is_a_prefix_of_a_deeper_one_ties_by_position() {
        // Many chunks of a few texts, so that scores tie and many terms meet in each document.
        let words = [
            "rate", "limit", "filter", "cache", "route", "token", "parse", "retry",
        ];
        let chunks: Vec<CodeChunk> = (0..400)
            .map(|at| chunk(&format!("f{}.py", at % 37), at + 1, at + 1, ""))
            .collect();
        let texts: Vec<String> = (0..400_usize)
            .map(|at| {
                (0..1 + at % 7)
                    .map(|w| words[(at * 3 + w * 5) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let blob = build_chunk_index(&chunks, &texts).unwrap();
        let index = ChunkIndex::open("idx", &blob, &chunks).unwrap();
        let query = "rate limit filter cache route token parse retry";
        let all = index.search(query, usize::MAX).unwrap();
        assert!(all.len() > 300, "{}", all.len());
        for pair in all.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(
                a.score > b.score || (a.score == b.score && a.chunk < b.chunk),
                "{pair:?}"
            );
        }
        for depth in [1, 2, 7, 10, 64, 100, 299] {
            assert_eq!(
                index.search(query, depth).unwrap(),
                all[..depth],
                "depth {depth}"
            );
        }
    }
}
