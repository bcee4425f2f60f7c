//! The bundle's chunkings: every file cut by each chosen chunker (engine `code_chunks`), each
//! chunking's table and its chunk BM25 index (engine `lexical::chunk_index`), ready for the
//! manifest. The files are split between two threads, each with its own token counter.

use std::time::Instant;

use routelens_engine::corpus::bundle::{encode_chunking, StoredChunking, StoredIndex};
use std::path::PathBuf;

use routelens_engine::corpus::bundle::{BundleFile, Precision, VectorsEntry};
use routelens_engine::corpus::code_chunks::{
    chunk_file_all, BudgetCounter, ChunkConfig, Chunker, CodeChunk,
};
use routelens_engine::corpus::tokens::{Cl100k, TokenCache, TokenCounter};
use routelens_engine::corpus::wordpiece::WordPieces;
use routelens_engine::retrieval::dense::pin::ModelPin;
use routelens_engine::retrieval::lexical::chunk_index::{
    build_chunk_index, chunk_texts, CHUNK_INDEX_FORMAT,
};
use routelens_engine::FileEntry;

use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::vectors::{chunking_vectors, embed_texts, model_of, EmbedCounts, VectorCache};

/// Which chunkings a bundle gets, and their budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkingOptions {
    /// Tokens per chunk, prefix included (default 254, CodeAtlas's).
    pub budget: usize,
    /// What counts them (default the embedder's word pieces).
    pub counter: BudgetCounter,
    /// The embedding model's folder (default: where scripts/install-model.py puts it).
    pub model: Option<PathBuf>,
    /// Whether each of [`Chunker::ALL`] is embedded (default none).
    pub embed: [bool; Chunker::ALL.len()],
    /// How the vectors are stored.
    pub precision: Precision,
    /// The vector cache's folder (default `$ROUTELENS_CACHE/vectors` or `~/.cache`'s).
    pub vector_cache: Option<PathBuf>,
    /// The question set embedded beside the chunks (its texts), when one is given.
    pub questions: Vec<String>,
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
            counter: BudgetCounter::default(),
            model: None,
            embed: [false; Chunker::ALL.len()],
            precision: Precision::default(),
            vector_cache: None,
            questions: Vec::new(),
            codenib: (
                routelens_engine::corpus::code_chunks::CODENIB_MAX_LINES,
                false,
            ),
            chunkers: [true; Chunker::ALL.len()],
        }
    }
}

impl ChunkingOptions {
    /// The options `--chunkers`, `--chunk-budget` and `--chunk-counter` ask for (`none`: no
    /// chunkings).
    pub fn from_args(
        args: &crate::cli::ChunkingArgs,
        embed_default: &[Chunker],
    ) -> Result<ChunkingOptions, Failure> {
        let counter = BudgetCounter::from_name(&args.chunk_counter).ok_or_else(|| {
            Failure::Usage(format!(
                "--chunk-counter: unknown counter {:?}; expected minilm or cl100k",
                args.chunk_counter
            ))
        })?;
        let chunkers = crate::cli::parse_chunkers(&args.chunkers)?;
        let embed = match &args.embed {
            // The default only among the chunkings built.
            None => embed_default
                .iter()
                .copied()
                .filter(|c| chunkers.contains(c))
                .collect(),
            // Every chunking built.
            Some(names) if names.iter().any(|n| n == "all") => chunkers.clone(),
            Some(names) => crate::cli::parse_chunkers(names)?,
        };
        let precision = Precision::from_name(&args.vector_precision).ok_or_else(|| {
            Failure::Usage(format!(
                "--vector-precision: unknown precision {:?}; expected f16, f32 or int8",
                args.vector_precision
            ))
        })?;
        let options = ChunkingOptions {
            codenib: (args.codenib_max_lines, args.codenib_header_epilogue),
            counter,
            model: args.model.clone(),
            embed: Chunker::ALL.map(|c| embed.contains(&c)),
            precision,
            vector_cache: args.vector_cache.clone(),
            questions: Vec::new(),
            ..ChunkingOptions::of(&chunkers, args.chunk_budget)
        };
        if let Some(missing) = options
            .embedded()
            .into_iter()
            .find(|c| !chunkers.contains(c))
        {
            return Err(Failure::Usage(format!(
                "--embed: {} is not among the chunkings built (--chunkers)",
                missing.name()
            )));
        }
        Ok(options)
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

    /// The embedding model's folder.
    pub fn model_folder(&self) -> PathBuf {
        crate::model::model_folder(self.model.as_deref(), &ModelPin::minilm())
    }

    /// Whether a chunking has CodeNib's header and epilogue chunks.
    pub fn header_epilogue(&self, chunker: Chunker) -> bool {
        chunker == Chunker::Codenib && self.codenib.1
    }

    /// The chunkers embedded, in [`Chunker::ALL`]'s order.
    pub fn embedded(&self) -> Vec<Chunker> {
        Chunker::ALL
            .into_iter()
            .zip(self.embed)
            .filter_map(|(c, on)| on.then_some(c))
            .collect()
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
    /// Milliseconds spent chunking, counting, indexing and embedding.
    pub ms: f64,
    /// The question set's vectors, when it was embedded.
    pub question_vectors: Option<(VectorsEntry, BundleFile)>,
    /// What embedding did, per chunking embedded and for the questions.
    pub embedding: Vec<(String, EmbedCounts)>,
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
    let counter = match options.counter {
        BudgetCounter::Cl100k => BudgetTokens::Cl100k(Cl100k::embedded()?),
        BudgetCounter::Minilm => {
            let folder = options.model_folder();
            let bytes = crate::model::read_model_file(&folder, "tokenizer.json")?;
            let bad = |source| Failure::Bundle {
                dir: folder.clone(),
                source,
            };
            ModelPin::minilm()
                .check("tokenizer.json", &bytes)
                .map_err(bad)?;
            BudgetTokens::WordPieces(Box::new(
                WordPieces::from_tokenizer_json(&bytes).map_err(bad)?,
            ))
        }
    };
    let (by_chunker, notes) = chunk_all(texts, &chunkers, config, &counter)?;
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
        let mut chunking =
            encode_chunking(files, (chunker, limit, options.counter), chunks, level)?;
        chunking.entry.header_epilogue = options.header_epilogue(chunker);
        chunking.entry.index = Some(index.entry);
        chunking.index_file = Some(index.file);
        Ok(chunking)
    };
    let mut stored = std::thread::scope(|scope| {
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
    let (mut question_vectors, mut embedding) = (None, Vec::new());
    let embedded = options.embedded();
    if !embedded.is_empty() || !options.questions.is_empty() {
        let embedder =
            crate::model::load_embedder(&options.model_folder(), crate::model::EmbedRun::Batches)?;
        let model = model_of(&embedder);
        let model = (model.0.as_str(), model.1.as_str());
        let mut cache = VectorCache::open(options.vector_cache.as_deref(), model.1)?;
        for (chunking, chunks) in stored.iter_mut().zip(&by_chunker) {
            let chunker = chunking.entry.chunker;
            if !embedded.contains(&chunker) {
                continue;
            }
            let texts = chunk_texts(chunks, |path| {
                by_path.get(path).copied().unwrap_or_default()
            });
            let label = format!("{} chunks", chunker.name());
            let (rows, counts) = embed_texts(&embedder, &mut cache, &texts, &label)?;
            let (entry, file) = chunking_vectors(model, &rows, options.precision);
            chunking.entry.vectors = Some(entry);
            chunking.vectors_file = Some(file);
            embedding.push((chunker.name().to_string(), counts));
        }
        if !options.questions.is_empty() {
            let (rows, counts) =
                embed_texts(&embedder, &mut cache, &options.questions, "questions")?;
            question_vectors = Some(crate::vectors::question_vectors(
                model,
                &options.questions,
                &rows,
            ));
            embedding.push(("questions".to_string(), counts));
        }
    }
    Ok(Chunked {
        stored,
        notes,
        ms: elapsed_ms(started),
        question_vectors,
        embedding,
    })
}

/// Chunks of every file under each chunker (one list per chunker, in file order), and the
/// files a structural chunker cut into windows; each file is parsed and counted once, and the
/// files are split between two threads.
fn chunk_all(
    texts: &[(String, String)],
    chunkers: &[Chunker],
    config: ChunkConfig,
    counter: &BudgetTokens,
) -> Result<(Vec<Vec<CodeChunk>>, Vec<String>), Failure> {
    let (first, second) = texts.split_at(texts.len() / 2);
    let work = |part: &[(String, String)]| -> Result<(Vec<Vec<CodeChunk>>, Vec<String>), Failure> {
        // Lines repeat (braces, blank lines, `return Ok(())`): counted once each.
        let mut counter = TokenCache::new(counter.clone());
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

/// The budget's counter, one copy per chunking thread.
#[derive(Clone)]
enum BudgetTokens {
    Cl100k(Cl100k),
    WordPieces(Box<WordPieces>),
}

impl TokenCounter for BudgetTokens {
    fn count_tokens(&mut self, text: &str) -> routelens_engine::Result<usize> {
        match self {
            BudgetTokens::Cl100k(counter) => counter.count_tokens(text),
            BudgetTokens::WordPieces(counter) => counter.count_tokens(text),
        }
    }

    fn newline_tokens(&self) -> usize {
        match self {
            BudgetTokens::Cl100k(counter) => counter.newline_tokens(),
            BudgetTokens::WordPieces(counter) => counter.newline_tokens(),
        }
    }
}
