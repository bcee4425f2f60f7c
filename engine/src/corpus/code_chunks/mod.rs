//! Code chunks: a file cut into line ranges for chunk retrieval, the way the CodeAtlas seed
//! compares boundaries (`../shared/seeds/004_*.txt`).
//!
//! Three chunkers, one token budget (default [`DEFAULT_BUDGET`] = 254 of the embedder's word
//! pieces for the chunk's `path :: name` prefix plus its text, the embedder's window in CodeAtlas;
//! [`BudgetCounter`] says what counts them, cl100k_base on request), so a comparison is about
//! where boundaries fall, not how big chunks are:
//!
//! - **structural-unmerged** ([`Chunker::StructuralUnmerged`]): one chunk per structural unit of
//!   a tree-sitter parse (Python, Java, Rust, Go, JavaScript, TypeScript/TSX, C, C++) or per
//!   Markdown section. A class (struct with impl, interface, trait, …) is a header chunk — its
//!   signature, fields and docstring, up to its first method — plus one chunk per method, named
//!   `Class.method`; a top-level function is one chunk; runs of imports and of other module-level
//!   code are chunks of their own; comments and attributes directly above a definition belong to
//!   it. Every line of the file is in exactly one chunk: a unit runs from its first line to the
//!   line before the next unit. Markdown splits at headings and names each section by its heading
//!   path (`Guide > Install`), which the prefix carries into the chunk's text.
//! - **structural** ([`Chunker::Structural`]): the same units, consecutive siblings (members of
//!   one class, top-level items of one file, a whole small class with its neighbours) combined
//!   while the combination fits the budget.
//! - **window** ([`Chunker::Window`]): the baseline, lines packed to the budget, each window
//!   repeating the last quarter of the previous one's lines.
//!
//! A unit longer than the budget is split into consecutive parts of whole lines with the unit's
//! kind and name. A line is never split, so a single line longer than the budget is a chunk of its
//! own over the budget (its `tokens` say so). A file without a grammar (YAML, JSON, shell, …) is
//! cut into windows by every chunker, and so is a file whose parse has syntax errors, with a note
//! that says so ([`FileChunks::note`]).

mod by_file;
mod chunk;
#[cfg(feature = "chunkers")]
pub mod codenib;
#[cfg(feature = "chunkers")]
mod codenib_rules;
#[cfg(feature = "chunkers")]
mod language;
#[cfg(feature = "chunkers")]
mod markdown;
#[cfg(feature = "chunkers")]
mod outline;
mod sizing;
#[cfg(feature = "chunkers")]
mod structural;

use crate::corpus::tokens::TokenCounter;
use crate::error::Result;

pub use by_file::{ChunksByFile, SpansOfFile};
pub use chunk::{
    BudgetCounter, ChunkConfig, Chunker, CodeChunk, FileChunks, CODENIB_MAX_LINES, DEFAULT_BUDGET,
};
#[cfg(feature = "chunkers")]
pub use language::SourceLanguage;
pub use sizing::{window_chunks, Measured};

/// A chunk for tests: a `function` of `path` over lines `start..=end`, no token count.
#[cfg(test)]
pub(crate) fn test_chunk(path: &str, start: u32, end: u32, name: &str) -> CodeChunk {
    CodeChunk {
        path: path.into(),
        start_line: start,
        end_line: end,
        kind: "function".into(),
        name: name.into(),
        tokens: 0,
    }
}

/// Cuts one file (`path`, its UTF-8 `text`) with `chunker`, counting tokens with `counter`.
#[cfg(feature = "chunkers")]
pub fn chunk_file(
    path: &str,
    text: &str,
    chunker: Chunker,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<FileChunks> {
    let mut all = chunk_file_all(path, text, &[chunker], config, counter)?;
    Ok(all.remove(0))
}

/// Cuts one file with each of `chunkers` (one result each, in order), counting its lines and
/// parsing it once for all of them.
#[cfg(feature = "chunkers")]
pub fn chunk_file_all(
    path: &str,
    text: &str,
    chunkers: &[Chunker],
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<FileChunks>> {
    let config = config.validated()?;
    let mut measured = Measured::new(text, counter)?;
    let needs_outline = chunkers
        .iter()
        .any(|c| matches!(c, Chunker::Structural | Chunker::StructuralUnmerged));
    let outline = match SourceLanguage::of_path(path) {
        Some(_) if !needs_outline => None,
        Some(SourceLanguage::Markdown) => Some(Ok(markdown::outline(text))),
        Some(code) => Some(outline::outline(code, text)),
        None => None,
    };
    let mut out = Vec::with_capacity(chunkers.len());
    for &chunker in chunkers {
        if chunker == Chunker::Codenib {
            out.push(codenib::codenib_chunks(
                path,
                text,
                &mut measured,
                config,
                counter,
            )?);
            continue;
        }
        let file = match (&outline, chunker) {
            (Some(Ok(units)), Chunker::Structural | Chunker::StructuralUnmerged) => FileChunks {
                chunks: structural::structural_chunks(
                    path,
                    &mut measured,
                    units,
                    chunker == Chunker::Structural,
                    config,
                    counter,
                )?,
                note: None,
            },
            (Some(Err(errors)), Chunker::Structural | Chunker::StructuralUnmerged) => FileChunks {
                chunks: window_chunks(path, &mut measured, config, counter)?,
                note: Some(format!("{path}: {errors}; cut into windows instead")),
            },
            _ => FileChunks {
                chunks: window_chunks(path, &mut measured, config, counter)?,
                note: None,
            },
        };
        out.push(file);
    }
    Ok(out)
}

/// Cuts one file by windows only: what every chunker does to a file without a grammar, and all
/// that a build without the `chunkers` feature can do.
pub fn chunk_file_by_windows(
    path: &str,
    text: &str,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<CodeChunk>> {
    let mut measured = Measured::new(text, counter)?;
    window_chunks(path, &mut measured, config.validated()?, counter)
}
