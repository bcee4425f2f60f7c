//! Retrieve, then rerank — CodeNib's two stages (`../shared/seeds/003_*.txt`) over a chunking of
//! a bundle: a **candidate pool** of chunks (chunk BM25 over the issue, model-planned grep
//! actions mapped to their enclosing chunks, or both interleaved), then a **reranker** that
//! judges each candidate and keeps the best few.
//!
//! - [`plan`]: a grep plan (1–6 actions: a Rust regex, a glob, case sensitivity), read from JSON
//!   and checked action by action.
//! - [`planner`]: the offline planner, a deterministic plan from the identifiers and rare
//!   terms, so a pool forms with no key; [`chat_planner`] the live one, a model asked through an
//!   OpenAI-compatible chat-completions endpoint, as a step machine, recorded and replayable.
//! - [`grep_pool`]: a plan run over the bundle's texts with CodeNib's limits, each matched line
//!   mapped to the smallest chunk holding it, the actions merged round-robin; [`needle`] the
//!   literal each pattern requires, searched for first so that only the lines holding it are
//!   tested; [`file_trigrams`] which files hold each trigram, so that a file without the
//!   literal's is not read.
//! - [`pools`]: the BM25 pool, the union of two pools, and what of a candidate a reranker sees.
//! - [`reranker`]: the reranker interface, with the pool's own order ("no reranker") and an
//!   offline lexical judge as implementations; [`jev`] the Jev Score judge over the decision
//!   API as a step machine a driver sends for, recorded and replayable.
//! - `run` (feature `lexical`): both stages for one question over a bundle's opened chunking,
//!   as the CLI and the browser's worker run them; [`settings`] what it is asked and gives.
//!
//! - [`coverage`]: the coverage audit, target blocks a pool reaches at depths 50 to 1,000.
//! - [`record`]: the rerank run file, every planning and judging exchange, replayed exactly.
//!
//! No I/O: texts, chunk tables and rankings come in; pools and orders go out.

pub mod chat_planner;
pub mod coverage;
pub mod file_trigrams;
pub mod grep_pool;
pub mod jev;
pub mod needle;
pub mod plan;
pub mod planner;
pub mod pools;
pub mod record;
pub mod reranker;
#[cfg(feature = "lexical")]
pub mod run;
pub mod settings;
