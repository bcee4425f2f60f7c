//! Code chunks: a file cut into line ranges for chunk retrieval, the way the CodeAtlas seed
//! compares boundaries (`../shared/seeds/004_*.txt`).
//!
//! Three chunkers, one token budget (default [`DEFAULT_BUDGET`] = 254 cl100k_base tokens for the
//! chunk's `path :: name` prefix plus its text, the embedder's window in CodeAtlas), so a
//! comparison is about where boundaries fall, not how big chunks are:
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

use crate::error::Result;
use crate::tokens::TokenCounter;

#[cfg(feature = "chunkers")]
pub use language::SourceLanguage;
pub use sizing::{window_chunks, Measured};

/// The default budget: CodeAtlas's embedder window, in tokens, for prefix and text together.
pub const DEFAULT_BUDGET: usize = 254;

/// How a file is cut into chunks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Chunker {
    /// Structural units, consecutive siblings merged while they fit.
    Structural,
    /// One chunk per structural unit.
    StructuralUnmerged,
    /// Overlapping windows of lines.
    Window,
    /// CodeNib's: one chunk per definition at depth 2, split by lines ([`codenib`]).
    Codenib,
}

impl Chunker {
    /// Every chunker, in the order tables list them.
    pub const ALL: [Chunker; 4] = [
        Chunker::Structural,
        Chunker::StructuralUnmerged,
        Chunker::Window,
        Chunker::Codenib,
    ];

    /// The name on the command line and in bundles (`structural-unmerged`).
    pub fn name(self) -> &'static str {
        match self {
            Chunker::Structural => "structural",
            Chunker::StructuralUnmerged => "structural-unmerged",
            Chunker::Window => "window",
            Chunker::Codenib => "codenib",
        }
    }

    /// The chunker with this name.
    pub fn from_name(name: &str) -> Option<Chunker> {
        Chunker::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One chunk of a file: lines `start_line..=end_line` (1-based).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CodeChunk {
    /// Repository-relative path of its file.
    pub path: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, inclusive.
    pub end_line: u32,
    /// What it holds: `function`, `method`, `class`, `struct`, `impl`, `interface`, `trait`,
    /// `enum`, `type`, `namespace`, `imports`, `module`, `section` (Markdown) or `window`.
    pub kind: String,
    /// Its qualified name (`RateLimitFilter.allow`; a Markdown heading path `Guide > Install`;
    /// names of merged units joined by `, `), empty for module code and windows.
    pub name: String,
    /// cl100k_base tokens of its prefix and text (the budget's measure).
    pub tokens: u32,
}

impl CodeChunk {
    /// The text the chunk is indexed and embedded with before its lines: `path :: name`, or the
    /// path alone for a chunk without a name.
    pub fn prefix(&self) -> String {
        prefix(&self.path, &self.name)
    }
}

/// The prefix line of a chunk of `path` named `name`, with its newline.
pub(crate) fn prefix(path: &str, name: &str) -> String {
    if name.is_empty() {
        format!("{path}\n")
    } else {
        format!("{path} :: {name}\n")
    }
}

/// A file's chunks under one chunker, in line order, with why it was cut into windows when a
/// structural chunker was asked for and could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChunks {
    /// The chunks.
    pub chunks: Vec<CodeChunk>,
    /// Set when a structural chunker fell back to windows: the file's syntax errors (a file
    /// with no grammar falls back silently, as every chunker treats it alike).
    pub note: Option<String>,
}

/// CodeNib's line limit for the reranking experiment (its production BM25 index: 300).
pub const CODENIB_MAX_LINES: usize = 100;

/// The chunkers' settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkConfig {
    /// Tokens for prefix plus text (default [`DEFAULT_BUDGET`]); CodeNib's chunker has none.
    pub budget: usize,
    /// CodeNib's chunker: lines a chunk may hold before it is split (default 100).
    pub max_lines: usize,
    /// CodeNib's chunker: also the lines before the first definition and after the last
    /// (default no, as in the experiment; CodeNib's production index has them).
    pub header_epilogue: bool,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            budget: DEFAULT_BUDGET,
            max_lines: CODENIB_MAX_LINES,
            header_epilogue: false,
        }
    }
}

impl ChunkConfig {
    /// Refuses a budget too small to hold a prefix and a line.
    pub fn validated(self) -> Result<Self> {
        if self.budget < 16 {
            return Err(crate::error::Error::setting(
                "budget",
                self.budget,
                "at least 16 tokens",
            ));
        }
        if self.max_lines == 0 {
            return Err(crate::error::Error::setting(
                "max_lines",
                0,
                "at least 1 line",
            ));
        }
        Ok(self)
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

/// One structural unit of a file's outline: where it starts, what it is, and which container it
/// belongs to. Units are in line order, strictly increasing; each runs to the line before the next.
#[cfg(feature = "chunkers")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// First line, 0-based.
    pub start: usize,
    /// Its kind.
    pub kind: &'static str,
    /// Its qualified name.
    pub name: String,
    /// The container it is in (0: the file).
    pub group: usize,
    /// For a container's header, the container it opens.
    pub opens: Option<usize>,
}

/// The outline of a file: its units and, per container id, the container's parent (index 0 is
/// the file itself, its own parent).
#[cfg(feature = "chunkers")]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Outline {
    /// Units in line order.
    pub units: Vec<Unit>,
    /// `parents[c]` is container `c`'s parent container.
    pub parents: Vec<usize>,
}
