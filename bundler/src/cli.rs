//! The command line's shape. Each option's help states its default; the defaults are the paper's.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use routelens_engine::corpus::bundle::{DEFAULT_COMPRESSION_LEVEL, MAX_COMPRESSION_LEVEL};
use routelens_engine::corpus::policy::PolicyName;
use routelens_engine::delivery::context::DEFAULT_CONTEXT_K;
use routelens_engine::delivery::pack::DEFAULT_BUDGET_TOKENS;
use routelens_engine::delivery::select::{DEFAULT_ANCHORS_PER_FILE, DEFAULT_RADIUS_LINES};
use routelens_engine::retrieval::lexical::fts::split::DEFAULT_PACK_BYTES;
use routelens_engine::retrieval::lexical::fts::Tokenizer;
use routelens_engine::LexicalArm;

use crate::failure::Failure;

/// Re-score code-retrieval studies, build and search index bundles, and serve the routelens app.
#[derive(Debug, Parser)]
#[command(name = "routelens", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands. Later ones (`route`) join this enum.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-score a study: Table 2 (file recall), Table 4 (paired differences) and sign-flip tests.
    Score(ScoreArgs),
    /// Check every number the paper prints against its recomputation from the study's data.
    Check(CheckArgs),
    /// Build an index bundle from a working tree or a git commit, or explain one file's verdict.
    Bundle(BundleArgs),
    /// Run a lexical arm (or all of them) over a bundle's files, or chunk BM25 over its chunks.
    Search(SearchArgs),
    /// One bundle per case of the paper's study at its base commit, from a folder of clones,
    /// each checked against the archive's file count; or (--plan) their commands.
    Snapshots(SnapshotsArgs),
    /// Join finished bundles (format 6) into one folder whose content-addressed files are stored
    /// once, in a shared store: the snapshots of one study as one site.
    Merge(MergeArgs),
    /// Print the code chunks of a bundle's chunking, of one file or of all.
    Chunks(ChunksArgs),
    /// Evaluate chunk retrieval configurations on a question set, as CodeAtlas does.
    Evaluate(EvaluateArgs),
    /// Embed texts with all-MiniLM-L6-v2, as sentence-transformers does (dense retrieval's model).
    Embed(EmbedArgs),
    /// Two labellers' agreement on a labelling task: coverage, the grades' confusion matrix,
    /// percent agreement, Cohen's κ, weighted κ, Krippendorff's α, with intervals.
    Agreement(AgreementArgs),
    /// A labelling task for a second labelling round: each question's pool from the top K files
    /// of arms and imported runs, plus its gold, shuffled per labeller; its sources kept apart.
    LabelTask(LabelTaskArgs),
    /// A second labelling round's disputes for the adjudicator, or with the adjudicator's log the
    /// adjudicated qrels and a new question set.
    Adjudicate(AdjudicateArgs),
    /// Retrieve a candidate pool of chunks (BM25, planned grep or both), then rerank it, as
    /// CodeNib does.
    Rerank(RerankArgs),
    /// Select and pack a ranking's files of a bundle into the token budget, and score the
    /// delivered lines against gold spans.
    Pack(PackArgs),
    /// Build the demo bundle: this repository and its pinned dependencies, with a question set.
    Demo(DemoArgs),
    /// Serve the built app on 127.0.0.1, with the paper's archive and the bundles mounted
    /// read-only.
    Serve(ServeArgs),
    /// Write a static supplement site (the built app, studies, bundles, site.json, CHECKSUMS), or
    /// re-check a deployed copy with --verify.
    Publish(PublishArgs),
    /// Route an issue through a bundle's folder tree (or the flat tournament) with a decider.
    Route(RouteArgs),
    /// Replay a live study exported by the app (its run files and searches) over its bundle,
    /// offline, and check that every recorded ranking comes out identical.
    ReplayStudy(ReplayStudyArgs),
    /// A loopback server speaking TypeSafe's System One protocol, with scripted faults (tests).
    #[command(hide = true)]
    TypesafeStub(StubArgs),
}

/// `--decider`: who answers the router's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeciderChoice {
    /// The deterministic lexical scorer; needs no key.
    Offline,
    /// TypeSafe's API (or a gateway) over HTTP, with the key from TYPESAFE_API_KEY.
    Http,
    /// The exchanges of a recorded run file, with no network.
    Replay(PathBuf),
}

/// Parses `offline`, `http` or `replay:RUN.json`.
pub fn parse_decider(text: &str) -> Result<DeciderChoice, String> {
    match text {
        "offline" => Ok(DeciderChoice::Offline),
        "http" => Ok(DeciderChoice::Http),
        _ => match text.strip_prefix("replay:") {
            Some(path) if !path.is_empty() => Ok(DeciderChoice::Replay(PathBuf::from(path))),
            _ => Err("expected offline, http or replay:RUN.json".into()),
        },
    }
}

/// `--strategy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// The paper's tree router.
    #[default]
    Tree,
    /// The flat tournament (the paper's exploratory control).
    Flat,
}

/// Options of `routelens replay-study`.
#[derive(Debug, Args)]
pub struct ReplayStudyArgs {
    /// The live study export (`routelens-live-study/1` JSON, the app's "Download study with
    /// runs").
    #[arg(value_name = "EXPORT.json")]
    pub export: PathBuf,

    /// The bundle folder the study's arms ran over.
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// Output format of the per-arm table.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Options of `routelens route`.
#[derive(Debug, Args)]
pub struct RouteArgs {
    /// The bundle folder (written by `routelens bundle` or `routelens demo`).
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// The issue to route.
    #[command(flatten)]
    pub query: RouteQuery,

    /// Who answers: offline (lexical, no key), http (the API; key from TYPESAFE_API_KEY), or
    /// replay:RUN.json (a recorded run, no network; its settings and strategy are used).
    #[arg(long, value_name = "DECIDER", value_parser = parse_decider)]
    pub decider: DeciderChoice,

    /// The API's base URL for --decider http; a gateway that proxies to TypeSafe works too.
    #[arg(long, value_name = "URL", default_value = routelens_engine::remote::route::protocol::DEFAULT_BASE)]
    pub base: String,

    /// The model to ask.
    #[arg(long, value_name = "NAME", default_value = routelens_engine::remote::route::protocol::DEFAULT_MODEL)]
    pub model: String,

    /// Write the run (every request and response, never the key) to this file for replay
    /// (default: not recorded).
    #[arg(long, value_name = "RUN.json")]
    pub record: Option<PathBuf>,

    /// The procedure: the tree walk or the flat tournament.
    #[arg(long, value_enum, default_value_t = StrategyArg::Tree)]
    pub strategy: StrategyArg,

    /// The issue's id: the flat tournament orders paths by SHA-256 of `<id>\0<path>`, as the
    /// paper did with the case id (default empty; a replay uses the recorded id).
    #[arg(long, value_name = "ID", default_value = "")]
    pub issue_id: String,

    /// Output format: the ranking and costs as text, or the run as one JSON object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,

    /// Give up on one HTTP request after this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub timeout_ms: u64,

    /// The router's parameters (the paper's values are the defaults).
    #[command(flatten)]
    pub router: RouterArgs,
}

/// Where `route` takes its issue from: exactly one of these.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct RouteQuery {
    /// The issue text.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,

    /// A file holding the issue text.
    #[arg(long, value_name = "FILE")]
    pub query_file: Option<PathBuf>,
}

/// Options of the hidden `routelens typesafe-stub`.
#[derive(Debug, Args)]
pub struct StubArgs {
    /// The address to listen on; port 0 picks a free one (the first line printed names it).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    pub addr: String,

    /// Seeds the tie-breaking jitter of the lexical probabilities (0: none).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
}

/// How `bundle`, `search`, `pack` and `demo` print.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned plain text.
    #[default]
    Table,
    /// JSON.
    Json,
}

/// The `--arm` value that runs every arm.
pub const ALL_ARMS: &str = "all";

/// `--arm`: an arm's name or `all`.
fn arm_names() -> PossibleValuesParser {
    let mut names: Vec<&'static str> = LexicalArm::ALL.iter().map(|arm| arm.name()).collect();
    names.push(ALL_ARMS);
    PossibleValuesParser::new(names)
}

/// Options of `routelens merge` (see `merge.rs`).
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Bundle folders, or folders of them (as `routelens snapshots --out` writes).
    #[arg(value_name = "BUNDLE_DIR", required = true)]
    pub bundles: Vec<PathBuf>,

    /// The merged folder: `<DIR>/<bundle>/manifest.json` for each bundle, `<DIR>/store/` their
    /// files. `routelens serve --bundles DIR` serves it; `routelens publish` takes its bundles.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Store the texts in version packs shared by every bundle (format 7): each path's versions
    /// side by side, compressed together by Zstandard, so a file that changed a little between
    /// snapshots costs about its change. Every distinct version is held in memory while packing.
    #[arg(long)]
    pub versions: bool,

    /// Store no search index: the reader (the page's worker, or `routelens search`) builds each
    /// bundle's from its texts on its first search, as `routelens bundle` built it. A site of
    /// many snapshots is then far smaller, and a first search fetches every text of its snapshot.
    #[arg(long)]
    pub derive_index: bool,

    /// The Zstandard level of the version packs (1 to 22).
    #[arg(long, value_name = "N", default_value_t = routelens_engine::corpus::bundle::DEFAULT_PACK_LEVEL,
          value_parser = clap::value_parser!(i32).range(1..=22), requires = "versions")]
    pub level: i32,
}

/// Options of `routelens snapshots` (see `snapshots.rs`).
#[derive(Debug, Args)]
pub struct SnapshotsArgs {
    /// The paper's archive folder (its case ledger gives each case's repository and base
    /// commit, its flat-paths results each snapshot's file count).
    #[arg(value_name = "ARCHIVE_DIR")]
    pub archive: PathBuf,

    /// A folder of git clones, each named `owner+name` or `owner/name`; cases of other
    /// repositories are skipped, saying so.
    #[arg(long, value_name = "DIR")]
    pub repos: PathBuf,

    /// Where each case's bundle goes, as `<DIR>/<case id>`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Only the cases of this repository (`owner/name`).
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,

    /// Print one `routelens bundle` command per case instead of building, for a job array or GNU
    /// parallel.
    #[arg(long)]
    pub plan: bool,
}

/// Options of `routelens bundle`.
#[derive(Debug, Args)]
pub struct BundleArgs {
    /// The repository: a working tree, or with --commit a git repository.
    #[arg(value_name = "REPO_DIR")]
    pub repo: PathBuf,

    /// Read the files of this commit (a hash, branch or tag) with git instead of the working
    /// tree (default: the working tree).
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,

    /// The bundle folder to write. It is written beside, then renamed into place; an existing
    /// bundle there is replaced, any other existing folder refused.
    #[arg(long, value_name = "DIR", required_unless_present = "explain")]
    pub out: Option<PathBuf>,

    /// The searchable-file policy: `paper` (the paper's loader: hidden directories entered,
    /// hidden file names and index.md, log.md, _error.log dropped, no size cap) or `strict`
    /// (no hidden component, vendor/ skipped, a 1 MiB cap).
    #[arg(long, value_name = "NAME", default_value = "paper")]
    pub policy: PolicyName,

    /// Files larger than this many bytes are excluded (too-large). Default: the policy's own
    /// (none under paper, 1048576 under strict).
    #[arg(long, value_name = "N")]
    pub max_file_bytes: Option<u64>,

    /// The source name written into the manifest (default: the repository folder's name).
    #[arg(long, value_name = "NAME")]
    pub source_name: Option<String>,

    /// Print why the file PATH (relative to REPO_DIR, `/`-separated) is in or out of the bundle,
    /// and write nothing.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["out", "gold_file", "source_name"])]
    pub explain: Option<String>,

    /// A JSON list of gold paths; each one outside the bundle is reported with its reason
    /// (default: none).
    #[arg(long, value_name = "FILE")]
    pub gold_file: Option<PathBuf>,

    /// A question set (JSON Lines, `{"id", "question", …}`) whose questions are embedded and
    /// stored, so dense and hybrid rank them with no model at run time (default: none).
    #[arg(long, value_name = "FILE")]
    pub embed_questions: Option<PathBuf>,

    /// The search index's tokenizer: the paper's `unicode61`, or `code` (identifiers split at
    /// case changes, English stemming).
    #[arg(long, value_enum, default_value_t = TokenizerArg::Unicode61)]
    pub tokenizer: TokenizerArg,

    /// Build the search index without token positions: smaller, but a query term that cuts into
    /// several tokens (`empty_set`) then matches its tokens anywhere instead of as FTS5's phrase.
    #[arg(long)]
    pub no_positions: bool,

    /// Write today's single-index layout for comparison (bundle format 4: one index blob, the
    /// manifest listing every file) instead of format 6 (the default: a base file and packs
    /// fetched by need, the file list apart, each file's hash in its chunk's header).
    #[arg(long)]
    pub no_split: bool,

    /// The stored size each index pack aims at, in bytes (a term's whole list stays in one
    /// pack, so a pack may be larger).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_PACK_BYTES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(64..))]
    pub pack_bytes: usize,

    /// DEFLATE level of the chunks and the index (libdeflate's), 0 (store) to 12.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_COMPRESSION_LEVEL,
          value_parser = clap::value_parser!(u8).range(0..=MAX_COMPRESSION_LEVEL as i64))]
    pub compression_level: u8,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,

    /// The chunkings to store and their budget.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// The chunkings `bundle` and `demo` store.
#[derive(Debug, Args)]
pub struct ChunkingArgs {
    /// The chunkings of code chunks to store, comma separated: structural, structural-unmerged,
    /// window, codenib, or none (default all four).
    #[arg(
        long,
        value_name = "NAME,...",
        value_delimiter = ',',
        default_value = "structural,structural-unmerged,window,codenib"
    )]
    pub chunkers: Vec<String>,

    /// CodeNib's chunker: lines a chunk may hold before it is split into balanced pieces
    /// (default 100, its reranking experiment; 300 is its production BM25 index's).
    #[arg(long, value_name = "N", default_value_t = routelens_engine::corpus::code_chunks::CODENIB_MAX_LINES)]
    pub codenib_max_lines: usize,

    /// CodeNib's chunker: also chunk the lines before the first definition and after the last
    /// (its production index does; the experiment did not).
    #[arg(long)]
    pub codenib_header_epilogue: bool,

    /// Tokens per code chunk, its `path :: name` prefix included (default 254, CodeAtlas's
    /// embedder window less [CLS] and [SEP]).
    #[arg(long, value_name = "N", default_value_t = routelens_engine::corpus::code_chunks::DEFAULT_BUDGET)]
    pub chunk_budget: usize,

    /// What the budget counts: minilm (the embedder's own word pieces, CodeAtlas's measure;
    /// needs the model's tokenizer.json) or cl100k (OpenAI's cl100k_base). CodeNib's chunker
    /// splits by lines whichever is chosen.
    #[arg(long, value_name = "COUNTER", default_value = "minilm")]
    pub chunk_counter: String,

    /// The chunkings whose chunks are embedded (all-MiniLM-L6-v2), comma separated, or all (every
    /// chunking built) or none (default none; embedding runs at about 10 chunks a second on two cores, and a
    /// cache keeps every vector for the next build).
    #[arg(long, value_name = "NAME,...|all|none", value_delimiter = ',')]
    pub embed: Option<Vec<String>>,

    /// How embedded vectors are stored: f16 (default), f32 or int8 (docs/dense.md measures
    /// each).
    #[arg(long, value_name = "PRECISION", default_value = "f16")]
    pub vector_precision: String,

    /// The vector cache's folder (default $ROUTELENS_CACHE/vectors, else
    /// ~/.cache/routelens/vectors): a rebuild embeds only text it has not seen.
    #[arg(long, value_name = "DIR")]
    pub vector_cache: Option<PathBuf>,

    /// The embedding model's folder, for its tokenizer (the minilm counter) and its weights
    /// (--embed); default $ROUTELENS_MODELS/all-MiniLM-L6-v2 (ROUTELENS_MODELS defaults to
    /// ~/.cache/routelens/models).
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,
}

/// Reads one chunker name, refusing an unknown one with the names.
pub fn parse_chunker(
    name: &str,
) -> Result<routelens_engine::corpus::code_chunks::Chunker, Failure> {
    routelens_engine::corpus::code_chunks::Chunker::from_name(name).ok_or_else(|| {
        Failure::Usage(format!(
            "--chunker: unknown chunker {name:?}; expected structural, structural-unmerged, window or codenib"
        ))
    })
}

/// Reads one retriever name, refusing an unknown one with the names.
pub fn parse_retriever(
    name: &str,
) -> Result<routelens_engine::retrieval::chunk_search::Retriever, Failure> {
    routelens_engine::retrieval::chunk_search::Retriever::from_name(name).ok_or_else(|| {
        Failure::Usage(format!(
            "--retriever: unknown retriever {name:?}; expected bm25, dense or hybrid"
        ))
    })
}

/// Reads a cross-encoder input's name, refusing an unknown one with the names.
pub fn parse_rerank_input(
    name: &str,
) -> Result<routelens_engine::retrieval::cross_encoder::RerankInput, Failure> {
    routelens_engine::retrieval::cross_encoder::RerankInput::from_name(name).ok_or_else(|| {
        Failure::Usage(format!(
            "--reranker: unknown reranker {name:?}; expected cross-encoder:text or \
             cross-encoder:prefixed"
        ))
    })
}

/// Reads chunker names (`none` for no chunker), refusing an unknown one with the names.
pub fn parse_chunkers(
    names: &[String],
) -> Result<Vec<routelens_engine::corpus::code_chunks::Chunker>, Failure> {
    use routelens_engine::corpus::code_chunks::Chunker;
    if names.iter().any(|n| n == "none") {
        return Ok(Vec::new());
    }
    names
        .iter()
        .map(|name| {
            Chunker::from_name(name).ok_or_else(|| {
                Failure::Usage(format!(
                    "--chunkers: unknown chunker {name:?}; expected structural, \
                     structural-unmerged, window, codenib or none"
                ))
            })
        })
        .collect()
}

/// The index tokenizers, as `--tokenizer` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TokenizerArg {
    /// SQLite FTS5's `unicode61`, as the paper used it.
    Unicode61,
    /// `unicode61` plus identifier splitting and English stemming.
    Code,
}

impl From<TokenizerArg> for Tokenizer {
    fn from(arg: TokenizerArg) -> Tokenizer {
        match arg {
            TokenizerArg::Unicode61 => Tokenizer::Unicode61,
            TokenizerArg::Code => Tokenizer::Code,
        }
    }
}

/// The router's parameters on the command line; each default is the paper's (see
/// `routelens_engine::remote::route::RouteSettings`). A run file replays with its own recorded settings.
#[derive(Debug, Args)]
pub struct RouterArgs {
    /// Stop after nominating this many files.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_files: usize,
    /// Stop before a call beyond this many (the tree walk; the flat tournament has no cap, as
    /// in the paper, unless --flat-max-calls is given).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub max_calls: usize,
    /// Stop once this many seconds have passed (the tree walk; likewise --flat-max-seconds).
    #[arg(long, value_name = "S", default_value_t = 180)]
    pub max_seconds: u64,
    /// How many paths each flat menu advances, and how few end the tournament (the archive's
    /// `top_k`).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub flat_top_k: usize,
    /// How many paths a flat menu holds at most (the archive's `menu_limit`).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub flat_menu_limit: usize,
    /// The flat tournament's call cap (default none).
    #[arg(long, value_name = "N")]
    pub flat_max_calls: Option<usize>,
    /// The flat tournament's time cap in seconds (default none).
    #[arg(long, value_name = "S")]
    pub flat_max_seconds: Option<u64>,
    /// Keep a child whose probability is at least this ...
    #[arg(long, value_name = "P", default_value_t = 0.01)]
    pub min_probability: f64,
    /// ... and at least this times the best child's probability.
    #[arg(long, value_name = "R", default_value_t = 0.01)]
    pub relative_probability: f64,
    /// Split a menu with more options than this into several calls.
    #[arg(long, value_name = "N", default_value_t = 254)]
    pub max_menu_options: usize,
    /// Split a menu whose state plus options would pass this many characters.
    #[arg(long, value_name = "N", default_value_t = 48_000)]
    pub max_menu_chars: usize,
    /// Cut each option to this many characters.
    #[arg(long, value_name = "N", default_value_t = 800)]
    pub max_option_chars: usize,
    /// Price estimate: dollars per million input tokens (output is free).
    #[arg(long, value_name = "USD", default_value_t = 0.042)]
    pub usd_per_million_input: f64,
}

/// Options of `routelens search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The bundle folder (written by `routelens bundle` or `routelens demo`).
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// The arm to run over files: fts5, fts5-full, path-fts5, basename, rg, rg-first500,
    /// rg-feedback, or all (with --unit chunk the ranker is chunk BM25 and --arm is not given).
    #[arg(long, value_name = "ARM", value_parser = arm_names(), required_unless_present = "unit")]
    pub arm: Option<String>,

    /// What is ranked: files (the paper's arms), or the code chunks of a chunking.
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,

    /// With --unit chunk: the chunking searched (structural, structural-unmerged, window).
    #[arg(long, value_name = "NAME", default_value = "structural")]
    pub chunker: String,

    /// With --unit chunk: at most N chunks of a file at the head of the ranking; the rest follow
    /// every survivor (nothing is dropped).
    #[arg(long, value_name = "N")]
    pub cap: Option<usize>,

    /// With --unit chunk: the ranker, bm25, dense (cosine over the chunking's stored vectors)
    /// or hybrid (RRF, k = 60, of bm25's and dense's top 60).
    #[arg(long, value_name = "NAME", default_value = "bm25")]
    pub retriever: String,

    /// With --retriever dense or hybrid: the embedding model's folder, loaded only for a
    /// question the bundle stores no vector for (default $ROUTELENS_MODELS/all-MiniLM-L6-v2,
    /// ROUTELENS_MODELS defaulting to ~/.cache/routelens/models).
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,

    /// Which weights embed such a question: full, or page (rounded as the page's narrowed
    /// copy is: the browser's answer to a typed question).
    #[arg(long, value_enum, default_value_t = WeightsChoice::Full)]
    pub weights: WeightsChoice,

    /// With --weights page: the mantissa bits kept (1-23) instead of the pin's.
    #[arg(long, value_name = "BITS", value_parser = clap::value_parser!(u8).range(1..=23))]
    pub mantissa_bits: Option<u8>,

    /// What to search for.
    #[command(flatten)]
    pub query: QueryInput,

    /// How many paths each arm returns (the paper's 16).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub k: usize,

    /// Output format: tables, or JSON (one object; a list with --arm all; JSON Lines with
    /// --queries).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// What `search` ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnitArg {
    /// Files, by the paper's arms.
    File,
    /// Code chunks, by chunk BM25.
    Chunk,
}

/// Options of `routelens evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// The bundle folder (with chunkings: `routelens bundle` or `routelens demo`).
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// The question set (JSON Lines; gold files, optionally gold spans, projects and a corpus
    /// pin).
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,

    /// A second question set of the same questions with other gold (e.g. `adjudicate
    /// --new-questions`'s): the grid is scored against both, side by side.
    #[arg(long, value_name = "FILE")]
    pub also_questions: Option<PathBuf>,

    /// A chunking to evaluate (repeatable; default every chunking of the bundle).
    #[arg(long = "chunker", value_name = "NAME")]
    pub chunkers: Vec<String>,

    /// A ranker: bm25, dense or hybrid (repeatable; default all three when every chunking
    /// evaluated has vectors, else bm25).
    #[arg(long = "retriever", value_name = "NAME")]
    pub retrievers: Vec<String>,

    /// The embedding model's folder, loaded only when a question has no stored vector (default
    /// $ROUTELENS_MODELS/all-MiniLM-L6-v2, ROUTELENS_MODELS defaulting to
    /// ~/.cache/routelens/models).
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,

    /// A per-file cap to add beside the uncapped ranking (repeatable; default none). With caps,
    /// the best of each chunker's capped and uncapped rankings is chosen on the dev half.
    #[arg(long = "cap", value_name = "N")]
    pub caps: Vec<usize>,

    /// A retriever the caps apply to (repeatable; default every one). CodeAtlas capped hybrid
    /// only: `--cap 1 --capped hybrid`.
    #[arg(long = "capped", value_name = "NAME")]
    pub capped: Vec<String>,

    /// A cross-encoder row over each chunking's hybrid ranking: cross-encoder:text (the chunk's
    /// lines) or cross-encoder:prefixed (`path :: name` first, as the embedder sees it)
    /// (repeatable; default none). Without --reranker-model the rows are listed as needing one.
    #[arg(long = "reranker", value_name = "NAME")]
    pub rerankers: Vec<String>,

    /// The cross-encoder's folder (config.json, model.safetensors, tokenizer.json), e.g.
    /// cross-encoder/ms-marco-MiniLM-L-6-v2's files.
    #[arg(long, value_name = "DIR")]
    pub reranker_model: Option<PathBuf>,

    /// How the reports name the cross-encoder: its hub id and revision when known (default the
    /// folder's name).
    #[arg(long, value_name = "TEXT")]
    pub reranker_name: Option<String>,

    /// How many of hybrid's head the cross-encoder reorders (CodeAtlas: 30).
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub rerank_top: usize,

    /// Cut-offs of the default metrics (hit@k and file_recall@k for each, then mrr and ndcg@10).
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [1, 5, 10])]
    pub k: Vec<usize>,

    /// The metrics (repeatable; default as --k says, plus span_recall@k and span_mrr when every
    /// question has gold spans).
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,

    /// A comparison of two configurations, left minus right (repeatable; default structural
    /// against window and against structural-unmerged, and each cap against no cap).
    #[arg(long, value_name = "LEFT:RIGHT", value_parser = parse_pair)]
    pub pair: Vec<Pair>,

    /// The metric the dev half chooses the cap by (default ndcg@10).
    #[arg(long, value_name = "NAME", default_value = "ndcg@10")]
    pub select_by: String,

    /// The configuration whose misses are analysed (default every one), at the largest --k.
    #[arg(long, value_name = "CONFIG")]
    pub failures: Option<String>,

    /// What intervals resample: single questions (CodeAtlas) or whole projects.
    #[arg(long, value_enum, default_value_t = ClusterArg::Case)]
    pub cluster: ClusterArg,

    /// How many chunks of each ranking are scored.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub depth: usize,

    /// Bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: usize,

    /// Bootstrap seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Options of `routelens rerank`.
#[derive(Debug, Args)]
pub struct RerankArgs {
    /// The bundle folder (with chunkings).
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// Where the question comes from.
    #[command(flatten)]
    pub input: RerankInput,

    /// The pool: bm25, grep or union (repeatable; with --questions every route × reranker is
    /// an arm).
    #[arg(long = "route", value_name = "ROUTE", default_values_t = ["bm25".to_string()])]
    pub routes: Vec<String>,

    /// The grep plan, JSON (`{"actions": [{"pattern", "glob", "case_sensitive"}]}`), for one
    /// question; without it the planner plans.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,

    /// Who plans grep actions: offline (deterministic, from the issue's identifiers and rare
    /// terms), http (a model through an OpenAI-compatible chat-completions endpoint, the key
    /// from OPENROUTER_API_KEY) or replay:FILE (a rerank run file's recorded planning).
    #[arg(long, value_name = "NAME", default_value = "offline")]
    pub planner: String,

    /// The reranker: none (the pool's order), offline (a deterministic lexical judge), http
    /// (the Jev Score judge over the decision API, the key from TYPESAFE_API_KEY) or
    /// replay:FILE (a rerank run file's recorded judgments), cross-encoder:text or
    /// cross-encoder:prefixed (a cross-encoder from --reranker-model, shown the chunk's lines, or
    /// `path :: name` then its lines) (repeatable).
    #[arg(long = "reranker", value_name = "NAME", default_values_t = ["offline".to_string()])]
    pub rerankers: Vec<String>,

    /// The cross-encoder's folder (config.json, model.safetensors, tokenizer.json) for the
    /// cross-encoder rerankers.
    #[arg(long, value_name = "DIR")]
    pub reranker_model: Option<PathBuf>,

    /// How the output names the cross-encoder: its hub id and revision when known (default the
    /// folder's name).
    #[arg(long, value_name = "TEXT")]
    pub reranker_name: Option<String>,

    /// Write every planning and judging exchange to this rerank run file (rewritten after
    /// every judged pool, marked partial until the run ends).
    #[arg(long, value_name = "RUN.json")]
    pub record: Option<PathBuf>,

    /// The decision API's base URL for the Jev judge.
    #[arg(long, value_name = "URL", default_value = routelens_engine::remote::route::protocol::DEFAULT_BASE)]
    pub base: String,

    /// The Jev judge's model (CodeNib: jev-1.13).
    #[arg(long, value_name = "NAME", default_value = routelens_engine::remote::rerank::jev::DEFAULT_JEV_MODEL)]
    pub jev_model: String,

    /// The live planner's base URL (its path gets /chat/completions).
    #[arg(long, value_name = "URL", default_value = routelens_engine::remote::rerank::chat_planner::DEFAULT_PLANNER_BASE)]
    pub planner_base: String,

    /// The live planner's model (CodeNib: anthropic/claude-sonnet-4.6).
    #[arg(long, value_name = "NAME", default_value = routelens_engine::remote::rerank::chat_planner::DEFAULT_PLANNER_MODEL)]
    pub planner_model: String,

    /// The live planner waits at least this × 2^attempt ms before retrying a 429 (CodeNib:
    /// 30,000), or the server's Retry-After when longer.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub planner_retry_ms: u64,

    /// The repository's name in the planner's prompt (default: the bundle's).
    #[arg(long, value_name = "NAME")]
    pub repo: Option<String>,

    /// With --questions, audit each route's pool at these depths (CodeNib:
    /// 50,100,200,500,1000): the share of target blocks any candidate covers, the questions with
    /// none and with all.
    #[arg(long, value_name = "DEPTHS", value_delimiter = ',', num_args = 1..)]
    pub coverage: Option<Vec<usize>>,

    /// Per-request timeout for the planner and the judge, in ms.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub timeout_ms: u64,

    /// Wait this long before each question's two stages (after a live planner's call), untimed:
    /// to time the stages as a page clicked question by question runs them, idle between
    /// questions (the browser benchmark's native peer; idling slows the next question).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub pause_ms: u64,

    /// The chunking the pools are drawn from (CodeNib's: codenib).
    #[arg(long, value_name = "NAME", default_value = "codenib")]
    pub chunker: String,

    /// Candidates per pool (CodeNib: 100).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub pool: usize,

    /// Results kept after reranking (CodeNib: 5).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,

    /// Candidates per judging batch (CodeNib: 10).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub batch: usize,

    /// Bootstrap resamples for --questions.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: usize,

    /// Bootstrap seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Where `rerank` takes its question from: exactly one of these.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct RerankInput {
    /// The issue text.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,

    /// A file holding the issue text.
    #[arg(long, value_name = "FILE")]
    pub query_file: Option<PathBuf>,

    /// A question set: every question is a case of one study whose arms are route × reranker.
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,
}

/// Options of `routelens chunks`.
#[derive(Debug, Args)]
pub struct ChunksArgs {
    /// The bundle folder.
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// The chunking: structural, structural-unmerged or window.
    #[arg(long, value_name = "NAME", default_value = "structural")]
    pub chunker: String,

    /// Only the chunks of this file (default: every file's).
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,

    /// Output format: a table, or JSON `[{"path", "start_line", "end_line", "kind", "name"}]`.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Where `search` takes its query from: exactly one of these.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct QueryInput {
    /// The issue text.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,

    /// A file holding the issue text.
    #[arg(long, value_name = "FILE")]
    pub query_file: Option<PathBuf>,

    /// A question set, JSON Lines {"id", "question", "gold"}: every question is searched.
    #[arg(long, value_name = "FILE")]
    pub queries: Option<PathBuf>,
}

/// Options of `routelens pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The bundle folder whose files are packed (written by `routelens bundle` or `routelens
    /// demo`).
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// A file holding the issue text (its terms choose the lines).
    #[arg(long, value_name = "FILE")]
    pub issue_file: PathBuf,

    /// The ranking: one bundle path per line, best first.
    #[arg(long, value_name = "FILE")]
    pub ranking_file: PathBuf,

    /// How many ranked paths are packed, from the top (the paper's 8).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONTEXT_K)]
    pub k: usize,

    /// The token budget, in cl100k_base tokens (the paper's 16,000).
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_BUDGET_TOKENS)]
    pub budget: usize,

    /// Lines kept before and after each anchor line (the paper's 200).
    #[arg(long, value_name = "LINES", default_value_t = DEFAULT_RADIUS_LINES)]
    pub radius: usize,

    /// Anchor lines per file: its best-scoring lines (the paper's 4).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ANCHORS_PER_FILE)]
    pub anchors: usize,

    /// Gold spans, JSON [{"path", "start_line", "end_line"}...]: adds line recall (default:
    /// none, no scores).
    #[arg(long, value_name = "FILE")]
    pub gold_file: Option<PathBuf>,

    /// Output format: a table of blocks and the scores, or one JSON object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Options of `routelens demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The demo bundle folder to write; its question set is written into it as
    /// `questions.jsonl`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// This repository's checkout: its files go under `routelens/`, and its Cargo.lock pins the
    /// crates.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,

    /// Cargo's home, whose `registry/src/*/` holds the unpacked crates (default: $CARGO_HOME,
    /// else ~/.cargo).
    #[arg(long, value_name = "DIR")]
    pub cargo_home: Option<PathBuf>,

    /// The crates to include, one name a line (default: the built-in bundler/demo/crates.txt).
    #[arg(long, value_name = "FILE")]
    pub crates: Option<PathBuf>,

    /// The question set (default: the built-in bundler/demo/questions.jsonl).
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,

    /// Rebuild even when the bundle is up to date (default: skip it when its manifest lists
    /// exactly the files it would hold, with the same hashes).
    #[arg(long)]
    pub force: bool,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,

    /// The chunkings to store and their budget.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// How `score` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned plain-text tables.
    Table,
    /// One JSON object (the engine's `ScoreReport`).
    Json,
    /// The tables as CSV, separated by a blank line.
    Csv,
}

/// Two arms to compare, left minus right, written `LEFT:RIGHT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The arm whose advantage is counted positive.
    pub left: String,
    /// The arm it is compared with.
    pub right: String,
}

/// Parses `LEFT:RIGHT`. Arm names may contain `+` (fusions) but not `:`.
pub fn parse_pair(text: &str) -> Result<Pair, String> {
    match text.split_once(':') {
        Some((left, right)) if !left.is_empty() && !right.is_empty() && !right.contains(':') => {
            Ok(Pair {
                left: left.to_string(),
                right: right.to_string(),
            })
        }
        _ => Err("expected two arm names as LEFT:RIGHT, e.g. tree:fts5".into()),
    }
}

/// Parses a fusion written as its arms joined by `+` (`tree+fts5`), the fusion's own name.
pub fn parse_fusion(text: &str) -> Result<Vec<String>, String> {
    let parts: Vec<String> = text.split('+').map(str::to_string).collect();
    if parts.len() < 2 || parts.iter().any(String::is_empty) {
        return Err("expected two or more arm names joined by +, e.g. tree+fts5".into());
    }
    Ok(parts)
}

/// Which of the model's weights `routelens embed` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightsChoice {
    /// The pinned f32 file.
    Full,
    /// The pinned file rounded as the page's narrowed weights are.
    Page,
}

/// Options of `routelens embed`.
#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// A text to embed; repeatable. Embedded in order, before the lines of --file.
    #[arg(long = "text", value_name = "TEXT")]
    pub texts: Vec<String>,

    /// A JSON Lines file of `{"text": …}` objects, one per line.
    #[arg(long, value_name = "F.jsonl")]
    pub file: Option<PathBuf>,

    /// The model folder (config.json, model.safetensors, tokenizer.json), each file checked
    /// against its pinned SHA-256. Default: where scripts/setup.sh installs it,
    /// $ROUTELENS_MODELS/all-MiniLM-L6-v2 (ROUTELENS_MODELS defaults to ~/.cache/routelens/models).
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,

    /// Which weights embed: full (the pinned f32 file) or page (its weights rounded as the
    /// page's narrowed copy is, to the pin's mantissa bits, 13 of 23: the vectors a browser
    /// computes for a typed question).
    #[arg(long, value_enum, default_value_t = WeightsChoice::Full)]
    pub weights: WeightsChoice,

    /// With --weights page: keep this many mantissa bits (1-23) instead of the pin's, to measure
    /// another width (docs/dense.md).
    #[arg(long, value_name = "BITS", value_parser = clap::value_parser!(u8).range(1..=23))]
    pub mantissa_bits: Option<u8>,

    /// Output format: JSON is `{"model": {"name", "sha256"}, "vectors": [[…], …]}`, in input
    /// order (with --weights page, `model` also says the `mantissa_bits` kept); the table prints
    /// each text's first components.
    #[arg(long, value_enum, default_value_t = OutputFormat::Json)]
    pub format: OutputFormat,
}

/// Options of `routelens label-task`.
#[derive(Debug, Args)]
pub struct LabelTaskArgs {
    /// The bundle folder the arms search.
    #[arg(value_name = "BUNDLE_DIR")]
    pub bundle: PathBuf,

    /// The question set (its gold files join each pool).
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,

    /// An arm and how many of its files to pool, ARM@K: a lexical arm (fts5, fts5-full,
    /// path-fts5, rg, rg-first500, rg-feedback, basename) or CHUNKER/RETRIEVER (e.g.
    /// structural/hybrid, the chunks' files in order of first appearance); repeatable.
    #[arg(long = "pool", value_name = "ARM@K")]
    pub pools: Vec<String>,

    /// A TREC run and how many of its files to pool, FILE@K; each tag is an arm; repeatable.
    #[arg(long = "run", value_name = "FILE@K")]
    pub runs: Vec<String>,

    /// How many labellers (each gets a seed and an order).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub labellers: usize,

    /// The first labeller's seed (the next ones count up from it).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// The task file to write (`routelens-label-task/1`).
    #[arg(long, value_name = "TASK.json")]
    pub out: PathBuf,

    /// The coordinator's file: which arm pooled each file and which are gold (default beside the
    /// task, TASK.coordinator.json). Labellers never open it.
    #[arg(long, value_name = "FILE")]
    pub coordinator: Option<PathBuf>,
}

/// Options of `routelens adjudicate`.
#[derive(Debug, Args)]
pub struct AdjudicateArgs {
    /// The labelling task (`routelens-label-task/1`).
    #[arg(value_name = "TASK")]
    pub task: PathBuf,

    /// The first labeller's labels (`routelens-labels/1`).
    #[arg(value_name = "LABELS_A")]
    pub labels_a: PathBuf,

    /// The second labeller's labels.
    #[arg(value_name = "LABELS_B")]
    pub labels_b: PathBuf,

    /// The adjudicator's log (`routelens-adjudication/1`); without it, the disputes are listed.
    #[arg(long, value_name = "LOG.jsonl")]
    pub log: Option<PathBuf>,

    /// The question set the task was pooled for (its gold is replaced in the new set).
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,

    /// Write the adjudicated qrels here (`qid 0 path grade`, judged negatives as 0).
    #[arg(long, value_name = "FILE")]
    pub qrels: Option<PathBuf>,

    /// Write the new question set here (gold: every file at or above the cut).
    #[arg(long, value_name = "FILE")]
    pub new_questions: Option<PathBuf>,

    /// A file is gold at this grade or above.
    #[arg(long, value_name = "GRADE", default_value_t = 2)]
    pub cut: u8,

    /// Bootstrap resamples for the original gold's agreement with the outcome.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: usize,

    /// Bootstrap seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Output format of the disputes (JSON: one dispute a line).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Options of `routelens agreement`.
#[derive(Debug, Args)]
pub struct AgreementArgs {
    /// The labelling task (`routelens-label-task/1`).
    #[arg(value_name = "TASK")]
    pub task: PathBuf,

    /// The first labeller's labels (`routelens-labels/1`).
    #[arg(value_name = "LABELS_A")]
    pub labels_a: PathBuf,

    /// The second labeller's labels.
    #[arg(value_name = "LABELS_B")]
    pub labels_b: PathBuf,

    /// A file is relevant at this grade or above (0 not relevant, 1 related, 2 answers part, 3
    /// answers it; TREC's binary cut).
    #[arg(long, value_name = "GRADE", default_value_t = 2)]
    pub cut: u8,

    /// Bootstrap resamples over questions.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: usize,

    /// Bootstrap seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Options of `routelens check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The study: the paper's archive folder (checked against the fastindex paper's printed
    /// numbers), CodeNib's per-case score table (.csv, against the article's), a JSON Lines file
    /// or a TREC run file (with --qrels) given with --printed.
    #[arg(value_name = "STUDY")]
    pub study: PathBuf,

    /// The qrels of a TREC run file; makes STUDY a TREC run.
    #[arg(long, value_name = "FILE")]
    pub qrels: Option<PathBuf>,

    /// The printed numbers (`routelens-printed/1` JSON). Default: the built-in ones of the
    /// fastindex paper for a study of rankings, of the CodeNib article for a score table.
    #[arg(long, value_name = "FILE")]
    pub printed: Option<PathBuf>,

    /// The study's name in the summary line (default fastindex or codenib).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Options of `routelens score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// The study: the paper's archive folder, a JSON Lines file (.jsonl), a TREC run file (with
    /// --qrels), or a per-case score table (.csv, read through --mapping).
    #[arg(value_name = "STUDY")]
    pub study: PathBuf,

    /// The qrels of a TREC run file (`qid 0 docid relevance`); makes STUDY a TREC run.
    #[arg(long, value_name = "FILE")]
    pub qrels: Option<PathBuf>,

    /// Candidate limits to report, comma separated, each from 1 to 16.
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [8, 16])]
    pub k: Vec<usize>,

    /// Add a reciprocal-rank fusion of two or more arms, named by joining them with + (repeatable;
    /// default none, though the archive already has tree+fts5).
    #[arg(long, value_name = "ARM+ARM", value_parser = parse_fusion)]
    pub fuse: Vec<Vec<String>>,

    /// The RRF rank constant, applied to every fusion in the report, the archive's included.
    #[arg(long, value_name = "NUMBER", default_value_t = 60.0)]
    pub rrf_k: f64,

    /// Repository-cluster bootstrap resamples per paired comparison (default 10,000, the
    /// fastindex paper's; for a score table its source's own: CodeNib's 5,000).
    #[arg(long, value_name = "N")]
    pub resamples: Option<usize>,

    /// Bootstrap seed (default 0 with Python's random.Random(seed), as the fastindex paper drew;
    /// for a score table its source's own: CodeNib's 20260923 with numpy's default_rng).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Compare two arms, left minus right (repeatable; default tree:fts5 when the study has both
    /// arms, else none; a score table's mapping's pairs).
    #[arg(long, value_name = "LEFT:RIGHT", value_parser = parse_pair)]
    pub pair: Vec<Pair>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// A score table (.csv) only: the metrics to report (repeatable; default the mapping's
    /// headline metric, else every metric of the frame).
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,

    /// A score table only: the label frame (default the mapping's headline frame; CodeNib's is
    /// base_aligned, its unprefixed columns are published).
    #[arg(long, value_name = "NAME")]
    pub frame: Option<String>,

    /// What the bootstrap resamples: each cluster of the table's cluster column (repository), or
    /// each case alone.
    #[arg(long, value_enum, default_value_t = ClusterArg::Repo)]
    pub cluster: ClusterArg,

    /// With --metric, for arms that rank spans: a unit is relevant when its file is gold
    /// (`file`, CodeAtlas) or when it overlaps a gold span of its file (`span`, CodeNib).
    #[arg(long, value_enum, default_value_t = RelevanceArg::File)]
    pub relevance: RelevanceArg,

    /// Score only the first N units of every ranking, 1 to 1,000 (default: all of them). Fusions
    /// fuse the cut rankings.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,

    /// A score table only: how its columns read, a JSON mapping file or `codenib` (default:
    /// CodeNib's, when the table has its instance_id and repo columns).
    #[arg(long, value_name = "FILE|codenib")]
    pub mapping: Option<String>,
}

/// When a ranked unit counts as relevant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RelevanceArg {
    /// Its file is a gold file.
    File,
    /// It overlaps a gold span of its file.
    Span,
}

/// What a bootstrap resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClusterArg {
    /// Whole clusters (repositories), keeping their cases together.
    Repo,
    /// Single cases.
    Case,
}

/// Options of `routelens publish`.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The site folder to write (atomically; an existing folder is replaced only when it is a
    /// site, i.e. holds a site.json, or is empty).
    #[arg(long, value_name = "SITE_DIR", required_unless_present = "verify")]
    pub out: Option<PathBuf>,

    /// A study to publish: the fastindex archive folder (the one holding paper/data/), a JSON
    /// Lines study (.jsonl), a live study export (.json), a score table (.csv, CodeNib's) or a
    /// TREC run (any other file, with --qrels). Repeatable; the id is the folder's or file's name.
    #[arg(long = "study", value_name = "PATH")]
    pub studies: Vec<PathBuf>,

    /// The qrels of a TREC run given as --study (`qid 0 docid relevance`), published beside it:
    /// one for every run, in the order of the runs, or one that every run shares (default: none).
    #[arg(long = "qrels", value_name = "FILE")]
    pub qrels: Vec<PathBuf>,

    /// A bundle folder to publish (verified in full first). Repeatable; the name is the folder's.
    #[arg(long = "bundle", value_name = "DIR")]
    pub bundles: Vec<PathBuf>,

    /// A study's printed numbers (`routelens-printed/1` JSON; fastindex's and CodeNib's are
    /// committed as engine/src/check/papers/*.json), as ID=FILE, or FILE when one study is
    /// published: checked against the study and published with it, which then opens on its
    /// paper page, every printed number beside its recomputation. Repeatable (default: none).
    #[arg(long = "printed", value_name = "[ID=]FILE")]
    pub printed: Vec<String>,

    /// A study's issue texts, which archives leave out, as ID=PATH, or PATH when one study is
    /// published: a folder of `<case id>.txt` files, or a JSON object `{"<id>": "<text>"}`, a
    /// JSON list of `{"id", "text"}` or JSON Lines of the same. Each text must hash to its
    /// case's `query_sha256` (else publishing stops, naming the case); the page then knows them
    /// without the reader loading them, so a case with a snapshot runs its live arms at once.
    /// Repeatable (default: none).
    #[arg(long = "issue-texts", value_name = "[ID=]PATH")]
    pub issue_texts: Vec<String>,

    /// The site's title, shown on its home page.
    #[arg(long, default_value = "routelens supplement")]
    pub title: String,

    /// The URL path the site will be served under (/paper/ for user.github.io/paper/): written
    /// into index.html as its base URL. Without it every URL stays relative to the page, which
    /// works under any path.
    #[arg(long, value_name = "PATH")]
    pub base_path: Option<String>,

    /// Another origin the published page may connect to, besides the site itself, the decision
    /// API, the planner's default endpoint and the pinned archive (the Content-Security-Policy's
    /// connect-src, written into index.html); repeat for more (default: none)
    #[arg(long = "connect-src", value_name = "URL")]
    pub connect_src: Vec<String>,

    /// The built app to publish (release build: trunk build --release).
    #[arg(long, value_name = "DIR", default_value = "dist")]
    pub dist: PathBuf,

    /// The embedding model's folder (each file checked against its pin), copied into the site
    /// at models/all-MiniLM-L6-v2/ for typed dense and hybrid questions (default: no model;
    /// questions of a bundle's set still run from their stored vectors)
    #[arg(long, value_name = "DIR", conflicts_with = "model_url")]
    pub model: Option<PathBuf>,

    /// The embedding model's folder at another origin instead (a model hub at a pinned
    /// revision): named in site.json and added to connect-src; the page checks every file
    /// against its pin
    #[arg(long, value_name = "URL")]
    pub model_url: Option<String>,

    /// A cross-encoder's folder (config.json, model.safetensors, tokenizer.json), copied into the
    /// site at models/cross-encoder/ for the Evaluate view's reranker rows and the Rerank view
    /// (default: none; the reader brings one by URL or folder). Its licence must allow it.
    #[arg(long, value_name = "DIR")]
    pub reranker_model: Option<PathBuf>,

    /// Re-check a published site instead: every file against its CHECKSUMS, and no file
    /// unlisted.
    #[arg(long, value_name = "SITE_DIR", conflicts_with_all = ["out", "studies", "qrels", "bundles", "printed", "base_path", "model", "model_url", "reranker_model"])]
    pub verify: Option<PathBuf>,
}

/// Options of `routelens serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1; 0 picks a free one (the URL printed names it).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,

    /// The built app to serve at / (Trunk's output folder).
    #[arg(long, value_name = "DIR", default_value = "dist")]
    pub dist: PathBuf,

    /// The paper's archive, mounted read-only at /data/fastindex/ when the folder exists.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/fastindex")]
    pub data: PathBuf,

    /// CodeNib's per-issue results (the folder holding jev_candidates_cases.csv), mounted
    /// read-only at /data/codenib/ and listed as a study when the file exists.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/codenib")]
    pub codenib: PathBuf,

    /// A folder of bundle folders, each served read-only at /bundles/<name>/ and listed in
    /// /site.json when the folder exists.
    #[arg(long, value_name = "DIR", default_value = "target/bundles")]
    pub bundles: PathBuf,

    /// Where POST /typesafe/v1/systemone is forwarded, with the key from TYPESAFE_API_KEY added
    /// (the page never holds the key).
    #[arg(long, value_name = "URL", default_value = routelens_engine::remote::route::protocol::DEFAULT_BASE)]
    pub typesafe_base: String,

    /// Another origin the page may connect to, besides this server, --typesafe-base, the
    /// planner's default endpoint and the pinned archive (the Content-Security-Policy's
    /// connect-src); repeat for more (default: none)
    #[arg(long = "connect-src", value_name = "URL")]
    pub connect_src: Vec<String>,

    /// The embedding model's folder, served at /models/all-MiniLM-L6-v2/ and named in
    /// /site.json, for typed dense and hybrid questions (default: the installed copy,
    /// $ROUTELENS_MODELS/all-MiniLM-L6-v2 or ~/.cache/routelens/models/all-MiniLM-L6-v2, when it
    /// is there)
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,

    /// A cross-encoder's folder (config.json, model.safetensors, tokenizer.json), served at
    /// /models/cross-encoder/ and named in /site.json for the reranker rows and the Rerank view
    /// (default: none; the reader brings one by URL or folder).
    #[arg(long, value_name = "DIR")]
    pub reranker_model: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn pairs_and_fusions_parse() {
        assert_eq!(
            parse_pair("tree+fts5:tree"),
            Ok(Pair {
                left: "tree+fts5".into(),
                right: "tree".into()
            })
        );
        for bad in ["tree", "tree:", ":fts5", "a:b:c"] {
            assert!(parse_pair(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_fusion("a+b+c").unwrap(), ["a", "b", "c"]);
        for bad in ["tree", "tree+", "+fts5", "a++b"] {
            assert!(parse_fusion(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn defaults_are_the_papers() {
        let cli = Cli::try_parse_from(["routelens", "score", "study.jsonl"]).unwrap();
        let Command::Score(args) = cli.command else {
            panic!("score expected")
        };
        assert_eq!(args.k, [8, 16]);
        // Unset: the fastindex paper's 10,000 and 0, or a score table source's own.
        assert_eq!((args.rrf_k, args.resamples, args.seed), (60.0, None, None));
        assert!(args.pair.is_empty() && args.fuse.is_empty());
        assert_eq!(args.format, Format::Table);
        let cli = Cli::try_parse_from([
            "routelens",
            "score",
            "s",
            "--k",
            "1,4",
            "--fuse",
            "a+b",
            "--fuse",
            "a+c",
        ])
        .unwrap();
        let Command::Score(args) = cli.command else {
            panic!("score expected")
        };
        assert_eq!(args.k, [1, 4]);
        assert_eq!(args.fuse, [["a", "b"], ["a", "c"]]);
    }
}
