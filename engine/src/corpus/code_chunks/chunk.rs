//! What a chunk is: the chunkers' names, a chunk with its `path :: name` prefix, a file's
//! chunks, the settings every chunker takes, and the outline the structural chunkers cut by. The
//! chunkers (the sibling files) build on these, and the folder's `mod.rs` dispatches to them.

use crate::error::Result;

/// The default budget: CodeAtlas's embedder window (256 word pieces less `[CLS]` and `[SEP]`),
/// for prefix and text together.
pub const DEFAULT_BUDGET: usize = 254;

/// What the structural and window chunkers count their budget in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BudgetCounter {
    /// The embedder's own word pieces (all-MiniLM-L6-v2's WordPiece tokenizer), as CodeAtlas
    /// sized its chunks: the default.
    #[default]
    Minilm,
    /// OpenAI's cl100k_base, the context packer's measure (this build's only counter before).
    Cl100k,
}

impl BudgetCounter {
    /// Both, default first.
    pub const ALL: [BudgetCounter; 2] = [BudgetCounter::Minilm, BudgetCounter::Cl100k];

    /// The name on the command line (`minilm`, `cl100k`).
    pub fn name(self) -> &'static str {
        match self {
            BudgetCounter::Minilm => "minilm",
            BudgetCounter::Cl100k => "cl100k",
        }
    }

    /// The counter with this command-line name.
    pub fn from_name(name: &str) -> Option<BudgetCounter> {
        BudgetCounter::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What a chunking's manifest entry records as its counter (`ChunkingEntry::counter`).
    pub fn recorded(self) -> &'static str {
        match self {
            BudgetCounter::Minilm => "all-MiniLM-L6-v2 wordpiece",
            BudgetCounter::Cl100k => "cl100k_base",
        }
    }
}

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
    /// Tokens of its prefix and text under the budget's counter ([`BudgetCounter`]).
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
