//! # routelens engine
//!
//! The pure-Rust core of routelens, compiled natively (for the `routelens` command line) and to
//! wasm32 (for the browser app). It has no I/O: callers hand it bytes and get results.
//!
//! Data flows one way:
//!
//! 1. **Load** a [`Study`]: the paper's archive ([`load_archive`], every file checked against its
//!    listed SHA-256), a TREC run with qrels ([`load_trec`]) or JSON Lines ([`load_jsonl`]).
//! 2. **Fuse** arms with reciprocal-rank fusion ([`add_fusion`]; ties by path, see [`fusion`]).
//! 3. **Score** rankings against gold files ([`summarize`]) at any k from 1 to 16.
//! 4. **Compare** two arms ([`compare`]): repository-cluster bootstrap intervals drawn exactly as
//!    the paper's script drew them, the exact sign test and the exact sign-flip test.
//! 5. **Report**: [`score`] for the command line's JSON, [`tables`] for the app and CSV files.
//! 6. **Deliver context**: [`select_files`] picks each ranked file's lines around the issue's
//!    terms, [`pack`] fits the blocks into the token budget (cl100k_base via [`Cl100k`], built
//!    from a rank table loaded on first use, memoised by [`TokenCache`]), and [`score_lines`]
//!    scores the delivered lines against gold spans; [`context::build_context`] does all three
//!    for one issue and ranking (the `routelens pack` command and the app's Context view).
//! 7. **Route live**: [`route`] walks a bundle's folder tree (or runs the flat tournament) through
//!    TypeSafe's System One choice API as a step machine the caller drives: natively with a
//!    [`route::Decider`], in the browser with its own async transport; runs record and replay
//!    exactly.
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

pub mod archive;
pub mod bundle;
pub mod chunk_search;
pub mod code_chunks;
pub mod context;
pub mod csp;
pub mod error;
pub mod evaluate;
pub mod evidence;
pub mod fusion;
pub mod issue_text;
pub mod json_path;
pub mod lexical;
pub mod linescore;
pub mod live_session;
pub mod metric_tables;
pub mod metrics;
pub mod pack;
pub mod paired;
pub mod policy;
pub mod question_set;
pub mod report;
pub mod rerank;
pub mod route;
pub mod runfile;
pub mod score_table;
pub mod select;
pub mod site;
pub mod stats;
pub mod study;
pub mod subset;
pub mod synthetic;
pub mod table;
pub mod tables;
pub mod terms;
pub mod tokens;
pub mod unit_metrics;

pub use archive::{
    load_archive, match_picked_files, sha256_hex, ArchiveBytes, ARCHIVE_FILES, PINNED_ARCHIVE_URL,
};
pub use bundle::{
    decode_manifest, Chunk, ChunkEntry, DirTree, ExcludedFile, FileEntry, IndexEntry, Manifest,
    SourceFile,
};
#[cfg(not(target_arch = "wasm32"))]
pub use bundle::{encode_bundle, BundleFile, BundleInput, BundleOptions, EncodedBundle};
pub use error::{Error, Result};
pub use fusion::{add_fusion, fusion_name, rrf, rrf_scored, RrfConfig};
pub use issue_text::{check_issue_texts, parse_issue_texts, CheckedTexts, IssueText, Refusal};
pub use lexical::{run_arm, ArmOutput, LexicalArm, Sources, TextCorpus};
pub use linescore::{clip_gold, score_lines, ClippedSpan, FileLines, LineScore};
pub use metrics::{first_gold_rank, score_ranking, summarize, ArmSummary, CaseScore};
pub use pack::{pack, render_block, Pack, PackConfig, PackedBlock, SkipReason};
pub use paired::{compare, PairedComparison, PairedMetric};
pub use policy::{Decision, ExclusionReason, Policy, PolicyName};
pub use report::{score, ScoreConfig, ScoreReport};
pub use runfile::{load_jsonl, load_trec};
pub use select::{
    count_lines, select_file, select_files, split_lines, Anchor, FileSelection, QueryTerms,
    SelectConfig, Window,
};
pub use stats::{cluster_bootstrap, sign_flip, sign_test, BootstrapConfig, Interval};
pub use study::{Arm, ArmOrigin, Case, GoldSpan, Study, MAX_K};
pub use subset::Subset;
pub use table::{Cell, Table};
pub use terms::{extract_terms, first_chars};
pub use tokens::{Cl100k, TokenCache, TokenCounter};
