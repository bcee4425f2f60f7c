//! A bundle's opened chunkings: each chunk table with its BM25 index and, when the bundle has
//! them, its vectors, as `routelens search --unit chunk`, `routelens evaluate` and the browser's
//! worker hold them; and the one chunk search they all run (BM25, dense or hybrid, then the
//! per-file cap when one is asked).

use crate::corpus::bundle::Manifest;
use crate::corpus::code_chunks::{Chunker, ChunksByFile, CodeChunk};
use crate::error::{Error, Result};
use crate::retrieval::chunk_search::{
    cap_per_file, fuse_chunk_rankings, prefix_for_caps, ChunkRankings, Retriever, CHUNK_RRF,
};
use crate::retrieval::dense::queries::{check_model, EmbedFn, QueryVectors};
use crate::retrieval::dense::rank::{best, scores, scores_many, VectorTable};
use crate::retrieval::dense::sketch::{Estimates, Sketch};
use std::sync::{Mutex, OnceLock, PoisonError};

use super::chunk_index::{ChunkHit, ChunkIndex};

/// One open chunking.
#[derive(Debug)]
struct Opened {
    chunker: Chunker,
    table: Vec<CodeChunk>,
    index: ChunkIndex,
    vectors: Option<VectorTable>,
    /// `vectors` as 8-bit codes, made on the first question scanned natively (`dense::sketch`;
    /// none in wasm32, or for a table too small to gain from it).
    sketch: OnceLock<Option<Sketch>>,
    /// The question vectors last scanned against `vectors` (one, or a batch the grid
    /// prepared), each with every chunk's score and the deepest ranking read from them: the
    /// grid asks one question of a chunking by dense, by hybrid and as deep as a per-file cap
    /// needs, and each scan reads the whole table (41 MB of halves for the demo's structural
    /// chunking).
    scans: Mutex<Vec<Scan>>,
    /// The last BM25 search (query, depth, hits), which answers any shallower one with the
    /// same query (a shallow search is a prefix of a deep one): hybrid's lexical half.
    last_search: Mutex<Option<Searched>>,
    /// The table grouped by file, made on first need (the grep stage's enclosing chunks).
    by_file: OnceLock<ChunksByFile>,
}

/// A question vector, every chunk's score against it (or every chunk's interval from the
/// sketch, which the best few are found by), and the deepest ranking read from them so far (a
/// shallower one is its prefix).
#[derive(Debug)]
struct Scan {
    vector: Vec<f32>,
    scores: Option<Vec<f32>>,
    estimates: Option<Estimates>,
    ranked: Vec<(usize, f32)>,
}

/// Rows a table needs before a question is ranked from its sketch: below it the full scan is
/// short anyway, and the sketch not worth its memory.
const SKETCH_ROWS: usize = 4096;

/// A BM25 search: its query, how deep it went and what it found.
#[derive(Debug)]
struct Searched {
    query: String,
    depth: usize,
    hits: Vec<ChunkHit>,
}

impl Opened {
    /// The best `depth` chunks for `query` by BM25, from the last search when it went as deep
    /// or found every match.
    fn lexical(&self, query: &str, depth: usize) -> Result<Vec<ChunkHit>> {
        let mut last = self
            .last_search
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = last.as_ref() {
            // A search that found fewer than it asked for found every match.
            if done.query == query && (done.depth >= depth || done.hits.len() < done.depth) {
                return Ok(done.hits.iter().take(depth).copied().collect());
            }
        }
        let hits = self.index.search(query, depth)?;
        *last = Some(Searched {
            query: query.to_string(),
            depth,
            hits: hits.clone(),
        });
        Ok(hits)
    }

    /// The best `depth` chunks by cosine with `vector`, from the last scan when it was of the
    /// same vector (and from its ranking when that went as deep).
    fn dense(&self, vector: &[f32], depth: usize) -> Result<Vec<(usize, f32)>> {
        let table = self
            .vectors
            .as_ref()
            .ok_or_else(|| no_vectors(self.chunker))?;
        let mut scans = self.scans.lock().unwrap_or_else(PoisonError::into_inner);
        let at = match scans.iter().position(|done| done.vector == vector) {
            Some(at) => at,
            None => {
                let estimates = self.sketch().and_then(|sketch| sketch.estimate(vector));
                *scans = vec![Scan {
                    vector: vector.to_vec(),
                    scores: None,
                    estimates,
                    ranked: Vec::new(),
                }];
                0
            }
        };
        let scan = &mut scans[at];
        let whole = scan.ranked.len() == table.len();
        if scan.ranked.len() < depth && !whole {
            let from_sketch = match &scan.estimates {
                Some(estimates) if scan.scores.is_none() => estimates.best(table, vector, depth)?,
                _ => None,
            };
            scan.ranked = match from_sketch {
                Some(ranked) => ranked,
                None => {
                    let all = match scan.scores.take() {
                        Some(all) => all,
                        None => scores(table, vector)?,
                    };
                    let ranked = best(&all, depth);
                    scan.scores = Some(all);
                    ranked
                }
            };
        }
        Ok(scan.ranked.iter().take(depth).copied().collect())
    }

    /// The sketch of this chunking's vectors, made on first need: natively, for a table of at
    /// least [`SKETCH_ROWS`].
    fn sketch(&self) -> Option<&Sketch> {
        if cfg!(target_arch = "wasm32") {
            return None;
        }
        let table = self.vectors.as_ref()?;
        self.sketch
            .get_or_init(|| {
                (table.len() >= SKETCH_ROWS)
                    .then(|| Sketch::of(table))
                    .flatten()
            })
            .as_ref()
    }

    /// Scans `vectors` together (in one pass over the table: [`scores_many`]) and keeps them
    /// in place of the last scans.
    fn scan_batch(&self, vectors: Vec<Vec<f32>>) -> Result<()> {
        let Some(table) = self.vectors.as_ref() else {
            return Ok(());
        };
        let borrowed: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let scored = scores_many(table, &borrowed)?;
        *self.scans.lock().unwrap_or_else(PoisonError::into_inner) = vectors
            .into_iter()
            .zip(scored)
            .map(|(vector, scores)| Scan {
                vector,
                scores: Some(scores),
                estimates: None,
                ranked: Vec::new(),
            })
            .collect();
        Ok(())
    }
}

/// The chunkings opened so far, in the order they were added, and the question vectors.
#[derive(Debug, Default)]
pub struct OpenChunkings {
    entries: Vec<Opened>,
    queries: QueryVectors,
}

impl OpenChunkings {
    /// None open.
    pub fn new() -> Self {
        OpenChunkings::default()
    }

    /// Adds (or replaces) `chunker`'s table and the index opened over it.
    pub fn insert(&mut self, chunker: Chunker, table: Vec<CodeChunk>, index: ChunkIndex) {
        self.entries.retain(|e| e.chunker != chunker);
        self.entries.push(Opened {
            chunker,
            table,
            index,
            vectors: None,
            sketch: OnceLock::new(),
            scans: Mutex::new(Vec::new()),
            last_search: Mutex::new(None),
            by_file: OnceLock::new(),
        });
    }

    /// Opens `chunker`'s chunking from the stored bytes of its table and of its index, each
    /// verified against `manifest` (the browser's path: the CLI reads them from a folder).
    pub fn open_stored(
        &mut self,
        manifest: &Manifest,
        chunker: Chunker,
        table: &[u8],
        index: &[u8],
    ) -> Result<()> {
        let table = manifest.open_chunking(chunker, table)?;
        let (entry, blob) = manifest.open_chunk_index(chunker, index)?;
        let index = ChunkIndex::open(&entry.file, &blob, &table)?;
        self.insert(chunker, table, index);
        Ok(())
    }

    /// Adds the vectors of the open `chunker` from their stored bytes, verified against
    /// `manifest` (by `sha256`, their SHA-256, when the caller computed it:
    /// [`Manifest::open_vectors_digested`]); vectors of another model than the pinned one are
    /// refused naming the file.
    pub fn open_vectors(
        &mut self,
        manifest: &Manifest,
        chunker: Chunker,
        (stored, sha256): (&[u8], Option<&str>),
    ) -> Result<()> {
        let (values, entry) = manifest.open_vectors_digested(chunker, stored, sha256)?;
        check_model(&entry.file, entry.model())?;
        let dimension = entry.dimension as usize;
        let opened = self.opened_mut(chunker)?;
        opened.vectors = Some(VectorTable::of_rows(dimension, values));
        opened.sketch = OnceLock::new();
        opened.scans = Mutex::new(Vec::new());
        Ok(())
    }

    /// Adds the bundle's question vectors from their stored bytes, verified against
    /// `manifest`; another model's are refused naming the file.
    pub fn open_question_vectors(&mut self, manifest: &Manifest, stored: &[u8]) -> Result<()> {
        let (vectors, model) = manifest.open_question_vectors(stored)?;
        let file = manifest
            .question_vectors
            .as_ref()
            .map(|q| q.file.clone())
            .unwrap_or_default();
        self.queries.add_stored(&file, model, vectors)
    }

    /// Embeds questions the bundle has no vector for with `embed` (the CLI's loaded model).
    pub fn set_embedder(&mut self, embed: EmbedFn) {
        self.queries.set_embedder(embed);
    }

    /// Whether `chunker` is open.
    pub fn has(&self, chunker: Chunker) -> bool {
        self.entries.iter().any(|e| e.chunker == chunker)
    }

    /// Whether `chunker` is open with its vectors.
    pub fn has_vectors(&self, chunker: Chunker) -> bool {
        self.entries
            .iter()
            .any(|e| e.chunker == chunker && e.vectors.is_some())
    }

    /// Whether `text` has a vector without the embedder (one of the bundle's questions).
    pub fn has_stored_question(&self, text: &str) -> bool {
        self.queries.has_stored(text)
    }

    /// `chunker`'s table grouped by file ([`ChunksByFile`]), made on first need.
    pub fn chunks_by_file(&self, chunker: Chunker) -> Result<&ChunksByFile> {
        let opened = self.entry(chunker)?;
        Ok(opened
            .by_file
            .get_or_init(|| ChunksByFile::new(&opened.table)))
    }

    fn entry(&self, chunker: Chunker) -> Result<&Opened> {
        self.entries
            .iter()
            .find(|e| e.chunker == chunker)
            .ok_or_else(|| not_loaded(chunker))
    }

    fn opened_mut(&mut self, chunker: Chunker) -> Result<&mut Opened> {
        self.entries
            .iter_mut()
            .find(|e| e.chunker == chunker)
            .ok_or_else(|| not_loaded(chunker))
    }

    /// The best `k` chunks for `query` under `chunker` by `retriever`, each with its score
    /// (BM25, cosine, or fused RRF); with a cap, at most `cap` of a file at the head, the rest
    /// below every survivor (so the ranking is fetched as deep as the cap needs:
    /// [`prefix_for_caps`]).
    pub fn search(
        &self,
        (chunker, retriever): (Chunker, Retriever),
        query: &str,
        k: usize,
        cap: Option<usize>,
    ) -> Result<Vec<ChunkHit>> {
        let opened = self.entry(chunker)?;
        let vector = if retriever.needs_vectors() {
            Some(self.queries.vector(query)?)
        } else {
            None
        };
        let scored = |n: usize| scored(opened, retriever, query, vector.as_deref(), n);
        let Some(cap) = cap else {
            return scored(k);
        };
        let hits = prefix_for_caps(scored, |h| h.chunk, &opened.table, &[cap], k)?;
        let ranking: Vec<usize> = hits.iter().map(|h| h.chunk).collect();
        let capped = cap_per_file(&ranking, &opened.table, cap)?;
        let score_of: std::collections::HashMap<usize, f32> =
            hits.iter().map(|h| (h.chunk, h.score)).collect();
        Ok(capped
            .into_iter()
            .take(k)
            .map(|chunk| ChunkHit {
                chunk,
                score: score_of[&chunk],
            })
            .collect())
    }
}

/// The best `n` chunks of one chunking by `retriever` (`vector`: the query's, for dense and
/// hybrid). Hybrid fuses the top [`CHUNK_RRF`]`.depth` of each, so it never holds more than
/// twice that.
fn scored(
    opened: &Opened,
    retriever: Retriever,
    query: &str,
    vector: Option<&[f32]>,
    n: usize,
) -> Result<Vec<ChunkHit>> {
    let dense = |depth: usize| -> Result<Vec<ChunkHit>> {
        let vector = vector.ok_or_else(|| no_vectors(opened.chunker))?;
        Ok(opened
            .dense(vector, depth)?
            .into_iter()
            .map(|(chunk, score)| ChunkHit { chunk, score })
            .collect())
    };
    match retriever {
        Retriever::Bm25 => opened.lexical(query, n),
        Retriever::Dense => dense(n),
        Retriever::Hybrid => {
            let positions =
                |hits: Vec<ChunkHit>| hits.into_iter().map(|h| h.chunk).collect::<Vec<_>>();
            let lexical = positions(opened.lexical(query, CHUNK_RRF.depth)?);
            let semantic = positions(dense(CHUNK_RRF.depth)?);
            let fused = fuse_chunk_rankings(&lexical, &semantic, &opened.table, CHUNK_RRF)?;
            Ok(fused
                .into_iter()
                .take(n)
                .map(|(chunk, score)| ChunkHit {
                    chunk,
                    score: score as f32,
                })
                .collect())
        }
    }
}

fn not_loaded(chunker: Chunker) -> Error {
    Error::setting(
        "chunker",
        chunker.name(),
        "a chunking loaded from the bundle",
    )
}

fn no_vectors(chunker: Chunker) -> Error {
    Error::setting(
        "retriever",
        format!("dense or hybrid over {}", chunker.name()),
        &format!(
            "a chunking with vectors: rebuild the bundle with `routelens bundle --embed {}`",
            chunker.name()
        ),
    )
}

impl ChunkRankings for OpenChunkings {
    fn chunkers(&self) -> Vec<Chunker> {
        self.entries.iter().map(|e| e.chunker).collect()
    }

    fn table(&self, chunker: Chunker) -> Result<&[CodeChunk]> {
        self.entry(chunker).map(|e| e.table.as_slice())
    }

    fn rank(&self, chunker: Chunker, query: &str, depth: usize) -> Result<Vec<usize>> {
        self.rank_by(chunker, Retriever::Bm25, query, depth)
    }

    /// Scans the stored vectors of `queries` in one pass; a question without one is embedded
    /// (or refused) when it is ranked.
    fn prepare(&self, chunker: Chunker, queries: &[&str]) -> Result<()> {
        let opened = self.entry(chunker)?;
        let vectors = queries
            .iter()
            .filter(|q| self.queries.has_stored(q))
            .map(|q| self.queries.vector(q))
            .collect::<Result<Vec<_>>>()?;
        opened.scan_batch(vectors)
    }

    fn rank_by(
        &self,
        chunker: Chunker,
        retriever: Retriever,
        query: &str,
        depth: usize,
    ) -> Result<Vec<usize>> {
        Ok(self
            .search((chunker, retriever), query, depth, None)?
            .into_iter()
            .map(|h| h.chunk)
            .collect())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::{OpenChunkings, SKETCH_ROWS};
    use crate::corpus::bundle::VectorRows;
    use crate::corpus::code_chunks::{Chunker, CodeChunk};
    use crate::retrieval::chunk_search::Retriever;
    use crate::retrieval::dense::rank::VectorTable;
    use crate::retrieval::lexical::chunk_index::{build_chunk_index, ChunkIndex};
    use std::sync::OnceLock;

    const WORDS: &[&str] = &["cache", "route", "filter", "limit", "evict", "token"];
    const DIMENSION: usize = 16;

    /// A chunking of one-line chunks, ten to a file, over the sketch's threshold, with f16
    /// vectors (a block of rows repeated, for exact ties); `sketched` false keeps it to the
    /// full scan. Each question's vector is near one chunk's, as a real question's head is.
    fn opened(sketched: bool) -> (OpenChunkings, Vec<String>) {
        let mut twister = rand_mt::Mt::new(21);
        let rows = SKETCH_ROWS + 300;
        let chunks: Vec<CodeChunk> = (0..rows)
            .map(|at| CodeChunk {
                path: format!("f{:03}.rs", at / 10),
                start_line: (at % 10) as u32 + 1,
                end_line: (at % 10) as u32 + 1,
                kind: "window".into(),
                name: String::new(),
                tokens: 1,
            })
            .collect();
        let texts: Vec<String> = (0..rows)
            .map(|_| WORDS[twister.next_u32() as usize % WORDS.len()].to_string())
            .collect();
        let blob = build_chunk_index(&chunks, &texts).unwrap();
        let index = ChunkIndex::open("index", &blob, &chunks).unwrap();
        let mut halves: Vec<u16> = (0..(rows - 40) * DIMENSION)
            .map(|_| half::f16::from_f32(twister.next_u32() as f32 / u32::MAX as f32 - 0.5))
            .map(half::f16::to_bits)
            .collect();
        halves.extend_from_within(..40 * DIMENSION);
        let widened = VectorRows::F16(halves.clone()).widened();
        let questions: Vec<(String, Vec<f32>)> = [5, 17, rows - 20]
            .iter()
            .map(|&near| {
                let vector = widened[near * DIMENSION..(near + 1) * DIMENSION]
                    .iter()
                    .map(|x| x + 0.01 * (twister.next_u32() as f32 / u32::MAX as f32))
                    .collect();
                (format!("cache route {near}"), vector)
            })
            .collect();
        let mut open = OpenChunkings::new();
        open.insert(Chunker::Window, chunks, index);
        let entry = open.opened_mut(Chunker::Window).unwrap();
        entry.vectors = Some(VectorTable::of_rows(DIMENSION, VectorRows::F16(halves)));
        if !sketched {
            entry.sketch = OnceLock::from(None);
        }
        let texts = questions.iter().map(|(text, _)| text.clone()).collect();
        open.set_embedder(Box::new(move |text: &str| {
            Ok(questions.iter().find(|(t, _)| t == text).unwrap().1.clone())
        }));
        (open, texts)
    }

    /// Dense and hybrid, capped or not, at every depth and in any order, rank from the sketch
    /// as the full scan ranks, score for score; a shallow dense search leaves the full scan
    /// undone, and one too deep for the sketch does it.
    #[test]
    fn a_sketched_chunking_searches_as_the_full_scan() {
        let (sketched, questions) = opened(true);
        let (full, _) = opened(false);
        for question in &questions {
            for (depth, cap) in [
                (10, None),
                (60, None),
                (10, Some(1)),
                (100, Some(2)),
                (3, None),
            ] {
                for retriever in [Retriever::Dense, Retriever::Hybrid] {
                    let search = |open: &OpenChunkings| {
                        open.search((Chunker::Window, retriever), question, depth, cap)
                            .unwrap()
                            .into_iter()
                            .map(|hit| (hit.chunk, hit.score.to_bits()))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(
                        search(&sketched),
                        search(&full),
                        "{question} {depth} {cap:?}"
                    );
                }
            }
            let entry = sketched.entry(Chunker::Window).unwrap();
            let scans = |open: &OpenChunkings| {
                let entry = open.entry(Chunker::Window).unwrap();
                let scans = entry.scans.lock().unwrap();
                (scans[0].scores.is_some(), scans[0].estimates.is_some())
            };
            assert_eq!(scans(&sketched), (false, true), "{question}");
            assert_eq!(scans(&full), (true, false), "{question}");
            let whole = entry.vectors.as_ref().unwrap().len();
            let deep = |open: &OpenChunkings| {
                open.search((Chunker::Window, Retriever::Dense), question, whole, None)
                    .unwrap()
            };
            assert_eq!(deep(&sketched), deep(&full));
            assert_eq!(scans(&sketched), (true, true), "{question}");
        }
    }
}
