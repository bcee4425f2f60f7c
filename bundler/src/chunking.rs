//! The bundle's chunkings: every file cut by each chosen chunker (engine `code_chunks`), each
//! chunking's table and its chunk BM25 index (engine `lexical::chunk_index`), ready for the
//! manifest. The files are split between two threads, each with its own token counter.

use std::time::Instant;

use routelens_engine::corpus::bundle::{encode_chunking, StoredChunking, StoredIndex};
use routelens_engine::corpus::code_chunks::{chunk_file_all, ChunkConfig, Chunker, CodeChunk};
use routelens_engine::corpus::tokens::{Cl100k, TokenCache};
use routelens_engine::retrieval::lexical::chunk_index::{
    build_chunk_index, chunk_texts, CHUNK_INDEX_FORMAT,
};
use routelens_engine::FileEntry;

use crate::clock::elapsed_ms;
use crate::failure::Failure;

/// Which chunkings a bundle gets, and their budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkingOptions {
    /// Tokens per chunk, prefix included (default 254, CodeAtlas's).
    pub budget: usize,
    /// CodeNib's chunker: lines per chunk before a split (default 100) and whether the lines
    /// before the first and after the last definition are chunks too (default no).
    pub codenib: (usize, bool),
    /// Whether each of [`Chunker::ALL`] is built (default all).
    pub chunkers: [bool; Chunker::ALL.len()],
}

impl Default for ChunkingOptions {
    fn default() -> Self {
        ChunkingOptions {
            budget: routelens_engine::corpus::code_chunks::DEFAULT_BUDGET,
            codenib: (
                routelens_engine::corpus::code_chunks::CODENIB_MAX_LINES,
                false,
            ),
            chunkers: [true; Chunker::ALL.len()],
        }
    }
}

impl ChunkingOptions {
    /// The options `--chunkers` and `--chunk-budget` ask for (`none`: no chunkings).
    pub fn from_args(args: &crate::cli::ChunkingArgs) -> Result<ChunkingOptions, Failure> {
        Ok(ChunkingOptions {
            codenib: (args.codenib_max_lines, args.codenib_header_epilogue),
            ..ChunkingOptions::of(
                &crate::cli::parse_chunkers(&args.chunkers)?,
                args.chunk_budget,
            )
        })
    }

    /// The options for exactly these chunkers.
    pub fn of(chunkers: &[Chunker], budget: usize) -> ChunkingOptions {
        ChunkingOptions {
            budget,
            chunkers: Chunker::ALL.map(|c| chunkers.contains(&c)),
            ..ChunkingOptions::default()
        }
    }

    /// What a chunking's manifest entry records as its budget: the token budget, or for
    /// CodeNib's chunker (which has none) its line limit.
    pub fn limit(&self, chunker: Chunker) -> usize {
        match chunker {
            Chunker::Codenib => self.codenib.0,
            _ => self.budget,
        }
    }

    /// Whether a chunking has CodeNib's header and epilogue chunks.
    pub fn header_epilogue(&self, chunker: Chunker) -> bool {
        chunker == Chunker::Codenib && self.codenib.1
    }

    /// The chunkers chosen, in [`Chunker::ALL`]'s order.
    pub fn chosen(&self) -> Vec<Chunker> {
        Chunker::ALL
            .into_iter()
            .zip(self.chunkers)
            .filter_map(|(c, on)| on.then_some(c))
            .collect()
    }
}

/// What chunking built: the stored chunkings, the files a structural chunker fell back on, and
/// the time it took.
pub struct Chunked {
    /// One per chosen chunker, with its index.
    pub stored: Vec<StoredChunking>,
    /// Files cut into windows because their parse had syntax errors (once per file).
    pub notes: Vec<String>,
    /// Milliseconds spent chunking, counting and indexing.
    pub ms: f64,
}

/// Cuts `texts` (the bundle's files, in the manifest's order) with each chosen chunker and
/// builds each chunking's table and index.
pub fn build_chunkings(
    files: &[FileEntry],
    texts: &[(String, String)],
    options: ChunkingOptions,
    level: u8,
) -> Result<Chunked, Failure> {
    let started = Instant::now();
    let config = ChunkConfig {
        budget: options.budget,
        max_lines: options.codenib.0,
        header_epilogue: options.codenib.1,
    }
    .validated()?;
    let chunkers = options.chosen();
    let (by_chunker, notes) = chunk_all(texts, &chunkers, config)?;
    let by_path: std::collections::HashMap<&str, &str> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    // Each chunking's table and index on a thread of its own.
    let store = |chunker: Chunker, chunks: &[CodeChunk]| -> Result<StoredChunking, Failure> {
        let indexed = chunk_texts(chunks, |path| {
            by_path.get(path).copied().unwrap_or_default()
        });
        let blob = build_chunk_index(chunks, &indexed)?;
        let index = StoredIndex::new(&blob, CHUNK_INDEX_FORMAT.to_string(), level);
        let limit = options.limit(chunker) as u32;
        let mut chunking = encode_chunking(files, (chunker, limit), chunks, level)?;
        chunking.entry.header_epilogue = options.header_epilogue(chunker);
        chunking.entry.index = Some(index.entry);
        chunking.index_file = Some(index.file);
        Ok(chunking)
    };
    let stored = std::thread::scope(|scope| {
        let handles: Vec<_> = chunkers
            .iter()
            .zip(&by_chunker)
            .map(|(&chunker, chunks)| scope.spawn(move || store(chunker, chunks)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<Result<Vec<_>, Failure>>()
    })?;
    Ok(Chunked {
        stored,
        notes,
        ms: elapsed_ms(started),
    })
}

/// Chunks of every file under each chunker (one list per chunker, in file order), and the
/// files a structural chunker cut into windows; each file is parsed and counted once, and the
/// files are split between two threads.
fn chunk_all(
    texts: &[(String, String)],
    chunkers: &[Chunker],
    config: ChunkConfig,
) -> Result<(Vec<Vec<CodeChunk>>, Vec<String>), Failure> {
    let (first, second) = texts.split_at(texts.len() / 2);
    let work = |part: &[(String, String)]| -> Result<(Vec<Vec<CodeChunk>>, Vec<String>), Failure> {
        // Lines repeat (braces, blank lines, `return Ok(())`): counted once each.
        let mut counter = TokenCache::new(Cl100k::embedded()?);
        let mut lists = vec![Vec::new(); chunkers.len()];
        let mut notes = Vec::new();
        for (path, text) in part {
            let cut = chunk_file_all(path, text, chunkers, config, &mut counter)?;
            // Windows instead of structure; CodeNib's skipped files are its rule, not a fallback.
            let fell_back = cut
                .iter()
                .zip(chunkers)
                .filter(|(_, c)| **c != Chunker::Codenib)
                .find_map(|(file, _)| file.note.clone());
            if let Some(note) = fell_back {
                notes.push(note);
            }
            for (list, file) in lists.iter_mut().zip(cut) {
                list.extend(file.chunks);
            }
        }
        Ok((lists, notes))
    };
    let (mine, theirs) = std::thread::scope(|scope| {
        let other = scope.spawn(|| work(second));
        let mine = work(first);
        (
            mine,
            other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    let (mut lists, mut notes) = mine?;
    let (more, more_notes) = theirs?;
    for (list, rest) in lists.iter_mut().zip(more) {
        list.extend(rest);
    }
    notes.extend(more_notes);
    Ok((lists, notes))
}
