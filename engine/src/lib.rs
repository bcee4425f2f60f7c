//! # routelens engine
//!
//! The pure-Rust core of routelens, compiled natively (for the `routelens` command line) and to
//! wasm32 (for the browser app and its live worker). It has no I/O: callers hand it bytes and get
//! results back.
//!
//! ## Layers
//!
//! The modules stand on nine floors, and every import points down (or along one floor, never in a
//! circle): `scripts/imports.py` checks it in the lint step against the list in ARCHITECTURE.md.
//! Bottom first:
//!
//! 1. **foundation**: [`error`] (one error type naming file, field or line), [`json_path`],
//!    [`terms`] (the paper's term extraction), [`table`] (a table with CSV export),
//!    [`checksum`] (SHA-256 hex).
//! 2. **[`corpus`]**: what a searchable corpus is: the file [`policy`](corpus::policy), the index
//!    [`bundle`](corpus::bundle) format, the [`code_chunks`](corpus::code_chunks) chunkers and the
//!    cl100k [`tokens`](corpus::tokens) counter.
//! 3. **[`study`]**: the model everything builds on: cases with gold, arms with rankings.
//! 4. **[`scoring`]** (metrics, fusion, statistics, paired comparisons, tables) and, beside it,
//!    **[`delivery`]** (the line selector, the token packer, line recall: the context a model
//!    would be handed).
//! 5. **[`load`]**: the study loaders (the fastindex archive, TREC and JSON Lines runs, issue
//!    texts, question sets) and, beside them, **[`check`]**: a paper's printed numbers against
//!    their recomputation.
//! 6. **[`retrieval`]**: the lexical arms over a bundle and chunk search.
//! 7. **[`evaluate`]**: the CodeAtlas-style grid over chunk rankings.
//! 8. **[`remote`]**: the protocols that call a model: live [`route`](remote::route) walks and
//!    CodeNib's [`rerank`](remote::rerank) stages, as step machines the caller drives.
//! 9. **[`live`]** (live arms with their evidence, the worker's session) and **[`publish`]** (a
//!    published site's index and checksums, the Content-Security-Policy).
//!
//! ## Data flow
//!
//! Files → engine types → computations → views: a loader turns bytes into a [`Study`]; scoring
//! turns a study into numbers and tables; retrieval and the remote protocols make new arms, which
//! join a study as any archived arm does. The most-used names are re-exported here.
//!
//! ```
//! use routelens_engine::{load_jsonl, score, ScoreConfig};
//! let study = load_jsonl("demo.jsonl", r#"{"id": "r::1", "gold": ["a.rs"]}
//! {"id": "r::1", "arm": "x", "paths": ["b.rs", "a.rs"]}
//! {"id": "r::1", "arm": "y", "paths": ["a.rs"]}"#).unwrap();
//! let config = ScoreConfig { ks: vec![1], pairs: vec![("x".into(), "y".into())], ..Default::default() };
//! let (_, report) = score(&study, &config).unwrap();
//! assert_eq!(report.arms[0].file_recall, 0.0);
//! assert_eq!(report.arms[1].file_recall, 1.0);
//! ```

// Floor 1: foundation.
pub mod checksum;
pub mod error;
pub mod json_path;
pub mod stable_sort;
pub mod table;
pub mod terms;
// Floors 2 to 9.
pub mod check;
pub mod corpus;
pub mod delivery;
pub mod evaluate;
pub mod live;
pub mod load;
pub mod publish;
pub mod remote;
pub mod retrieval;
pub mod scoring;
pub mod study;

pub use checksum::sha256_hex;
pub use corpus::bundle::{
    decode_manifest, Chunk, ChunkEntry, DirTree, ExcludedFile, FileEntry, IndexEntry, Manifest,
    SourceFile,
};
#[cfg(not(target_arch = "wasm32"))]
pub use corpus::bundle::{encode_bundle, BundleFile, BundleInput, BundleOptions, EncodedBundle};
pub use corpus::policy::{Decision, ExclusionReason, Policy, PolicyName};
pub use corpus::tokens::{Cl100k, TokenCache, TokenCounter};
pub use delivery::linescore::{clip_gold, score_lines, ClippedSpan, FileLines, LineScore};
pub use delivery::pack::{pack, render_block, Pack, PackConfig, PackedBlock, SkipReason};
pub use delivery::select::{
    count_lines, select_file, select_files, split_lines, Anchor, FileSelection, QueryTerms,
    SelectConfig, Window,
};
pub use error::{Error, Result};
pub use load::archive::{
    load_archive, match_picked_files, ArchiveBytes, ARCHIVE_FILES, PINNED_ARCHIVE_URL,
};
pub use load::issue_text::{
    check_issue_texts, parse_issue_texts, CheckedTexts, IssueText, Refusal,
};
pub use load::runfile::{load_jsonl, load_trec};
pub use retrieval::lexical::{run_arm, ArmOutput, LexicalArm, Sources, TextCorpus};
pub use scoring::fusion::{add_fusion, fusion_name, rrf, rrf_scored, RrfConfig};
pub use scoring::metrics::{first_gold_rank, score_ranking, summarize, ArmSummary, CaseScore};
pub use scoring::paired::{compare, PairedComparison, PairedMetric};
pub use scoring::report::{score, ScoreConfig, ScoreReport};
pub use scoring::stats::{cluster_bootstrap, sign_flip, sign_test, BootstrapConfig, Interval};
pub use study::subset::Subset;
pub use study::{Arm, ArmOrigin, Case, GoldSpan, Study, MAX_K};
pub use table::{Cell, Table};
pub use terms::{extract_terms, first_chars};
