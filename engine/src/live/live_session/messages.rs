//! The messages between the page and its live worker, as JSON: a [`Call`] carries an id and what
//! to do; every [`Answer`] to it carries the same id, any number of [`AnswerBody::Progress`] lines
//! first and then exactly one final answer. A call is answered in the order it arrived, except
//! [`CallBody::Cancel`], which is heard while a long call (timing, a question set) runs.
//!
//! Errors cross as their messages: [`WireRun::into_run`] turns one back into an
//! [`Error::Relayed`] that displays exactly as it did in the worker.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::corpus::code_chunks::Chunker;
use crate::delivery::context::{ContextReport, ContextSettings, RecomputedLines};
use crate::error::Error;
use crate::evaluate::{GridReport, GridSettings};
use crate::remote::rerank::settings::{QuestionRun, RerankSettings};
use crate::retrieval::chunk_search::Retriever;
use crate::retrieval::lexical::issue_run::ArmRun;
use crate::retrieval::lexical::timing::ArmTiming;
use crate::retrieval::lexical::ArmOutput;
use crate::study::GoldSpan;

/// Where a bundle's files are: under one URL, or (a folder picked in the page) each at its own
/// blob URL. URLs are absolute: a worker has no page to resolve against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleUrls {
    /// The URL the files are under (empty for a picked folder).
    pub base: String,
    /// A picked folder's files: each one's URL by its path inside the bundle.
    #[serde(default)]
    pub each: BTreeMap<String, String>,
}

impl BundleUrls {
    /// The URL of the bundle's file `file` (a picked folder without it answers `None`).
    pub fn url_of(&self, file: &str) -> Option<String> {
        if self.base.is_empty() {
            self.each.get(file).cloned()
        } else {
            Some(format!("{}/{file}", self.base.trim_end_matches('/')))
        }
    }
}

/// Where a cross-encoder's three files are (`config.json`, `model.safetensors`,
/// `tokenizer.json`: under a URL, or a picked folder's blob URLs), and how reports name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossEncoderAt {
    /// Its files.
    pub files: BundleUrls,
    /// Its hub id and revision when known, free text otherwise.
    pub name: String,
}

impl CrossEncoderAt {
    /// What the session keys a loaded model by: its files' URLs and its name.
    pub fn key(&self) -> String {
        let urls: Vec<String> = crate::retrieval::cross_encoder::MODEL_FILES
            .iter()
            .map(|file| self.files.url_of(file).unwrap_or_default())
            .collect();
        format!("{} {}", urls.join(" "), self.name)
    }
}

/// A call from the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// Chosen by the page; every answer repeats it.
    pub id: u64,
    /// What to do.
    pub body: CallBody,
}

/// What the page asks of the worker. Calls over a bundle name it: a call for a bundle the
/// session does not hold fails, naming both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum CallBody {
    /// Makes `bundle` (served under `base`) the session's bundle and loads its manifest (unless
    /// it is the session's bundle already) and the parts asked for; parts already loaded for it
    /// are kept, another bundle's are dropped.
    Load {
        /// The bundle's name.
        bundle: String,
        /// Where its files are.
        files: BundleUrls,
        /// The SHA-256 of the manifest the page read (and, on a published site, checked against
        /// its `CHECKSUMS`): a manifest that hashes otherwise is refused, so every file the
        /// worker loads is vouched for by what the page checked.
        manifest_sha256: Option<String>,
        /// Load the search index.
        index: bool,
        /// Load every chunk (every file's text).
        texts: bool,
        /// Load these chunkings (each table and chunk index), for chunk search and the grid.
        #[serde(default)]
        chunkings: Vec<Chunker>,
        /// Load the vectors of each of these chunkings that has them, and the question set's
        /// stored vectors: what dense and hybrid read.
        #[serde(default)]
        vectors: bool,
    },
    /// Fetches the cl100k_base rank table at `url` and builds the counter, once per session.
    LoadCounter {
        /// The rank table's absolute URL.
        url: String,
    },
    /// Every lexical arm over one issue, then the fusion of `fused` (two or more arms).
    RunIssue {
        /// The bundle the arms search.
        bundle: String,
        /// The issue text.
        issue: String,
        /// Results per arm.
        k: usize,
        /// The arms to fuse.
        fused: Vec<String>,
    },
    /// [`CallBody::RunIssue`] for each issue in turn, with progress; cancellable.
    RunIssues {
        /// The bundle the arms search.
        bundle: String,
        /// The issue texts.
        issues: Vec<String>,
        /// Results per arm.
        k: usize,
        /// The arms to fuse.
        fused: Vec<String>,
    },
    /// Selects and packs each ranking for one issue, scored against `gold` when it is not empty.
    Pack {
        /// The bundle whose texts are packed.
        bundle: String,
        /// The issue text.
        issue: String,
        /// `(arm, ranking)` pairs, each packed on its own.
        rankings: Vec<(String, Vec<String>)>,
        /// k, budget, radius and anchors.
        settings: ContextSettings,
        /// Gold line spans (empty: no line scores).
        gold: Vec<GoldSpan>,
    },
    /// Line recall of every ranking of every job, with progress; cancellable.
    LineScores {
        /// The bundle whose texts are packed.
        bundle: String,
        /// The issues.
        jobs: Vec<LineJob>,
        /// k, budget, radius and anchors.
        settings: ContextSettings,
    },
    /// Times every lexical arm over the questions, `rounds` passes each, the way the native
    /// benchmark does ([`crate::retrieval::lexical::timing`]), with progress; cancellable.
    Time {
        /// The bundle the arms search.
        bundle: String,
        /// The question texts.
        questions: Vec<String>,
        /// Passes per arm (at least 1).
        rounds: usize,
        /// Results per call.
        k: usize,
    },
    /// Times select + pack over the engine's benchmark corpus ([`crate::delivery::synthetic`]).
    PackBench,
    /// Chunk BM25 over one loaded chunking, optionally capped per file.
    ChunkSearch {
        /// The bundle searched.
        bundle: String,
        /// The chunking.
        chunker: Chunker,
        /// The question.
        query: String,
        /// Results.
        k: usize,
        /// At most this many chunks of a file at the head.
        cap: Option<usize>,
        /// The ranker (bm25 when absent).
        #[serde(default = "bm25")]
        retriever: Retriever,
        /// The absolute URL of the embedding model's folder, fetched (once, with progress) for
        /// a dense or hybrid question whose vector the bundle does not store.
        #[serde(default)]
        model: Option<String>,
        /// Whether that folder holds the page's narrowed weights (the pin's `page_weights`
        /// file, about half the bytes), fetched instead of the full `model.safetensors`.
        #[serde(default)]
        page_weights: bool,
    },
    /// CodeNib's two stages for one question ([`crate::remote::rerank::run`]) over a loaded chunking and
    /// the bundle's texts.
    Rerank {
        /// The bundle searched.
        bundle: String,
        /// The question.
        query: String,
        /// Routes, rerankers, pool (its `plan` is ignored: the plan comes as text).
        settings: RerankSettings,
        /// The grep plan as typed (JSON), read and checked in the worker so that the page never
        /// carries the regex and glob compilers; none: the offline planner plans.
        plan: Option<String>,
        /// The cross-encoder of the cross-encoder rerankers, fetched (once, with progress) and
        /// loaded before the run.
        #[serde(default)]
        reranker_model: Option<CrossEncoderAt>,
    },
    /// The CodeAtlas grid ([`crate::evaluate::GridRun`]) of the question set at `questions`
    /// over the bundle's loaded chunkings, with progress; cancellable. A set that pins its
    /// corpus is checked against the bundle first.
    Evaluate {
        /// The bundle evaluated.
        bundle: String,
        /// The question set's absolute URL (fetched by the worker, named in errors).
        questions: String,
        /// What the grid runs. With reranker rows and a model, its `reranker_model` is the
        /// loaded model's identity (a different one given is refused, naming the file).
        settings: GridSettings,
        /// The cross-encoder of the reranker rows (none: they are listed as needing one).
        #[serde(default)]
        reranker_model: Option<CrossEncoderAt>,
        /// A second question set of the same questions (the adjudicated gold): the same grid
        /// is scored against it too, side by side, with how far the two golds agree.
        #[serde(default)]
        also_questions: Option<String>,
    },
    /// One file's text, from the chunk that holds it, fetched and verified: how the page shows a
    /// file stored in a version pack (format 7), whose decoder only the worker carries. The
    /// bundle is loaded first ([`CallBody::Load`], with or without parts).
    FileText {
        /// The bundle holding the file.
        bundle: String,
        /// The file's path.
        path: String,
    },
    /// Stops the running call `call` at its next step; it answers with what it has.
    Cancel {
        /// The id of the call to stop.
        call: u64,
    },
}

fn bm25() -> Retriever {
    Retriever::Bm25
}

/// One issue of a [`CallBody::LineScores`] call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineJob {
    /// The case's (or question's) index, carried into the scores.
    pub index: usize,
    /// The issue text.
    pub text: String,
    /// Its gold spans.
    pub gold: Vec<GoldSpan>,
    /// `(arm, ranking)` pairs.
    pub rankings: Vec<(String, Vec<String>)>,
}

/// An answer from the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The call's id.
    pub id: u64,
    /// The answer.
    pub body: AnswerBody,
}

/// What the worker answers. Every variant but `Progress` is final.
///
/// Externally tagged (`{"progress": {"text": …}}`), not internally: serde reads an internally
/// tagged enum by buffering the whole answer into its generic `Content` tree first, which cost
/// the page's first load about 100 KB of wasm and copied every ranking twice on arrival.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerBody {
    /// A progress line while the call runs.
    Progress {
        /// What is happening, in words.
        text: String,
        /// Bytes fetched and expected, while a large file (the embedding model) comes in.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<[u64; 2]>,
    },
    /// The bundle and the parts asked for are loaded.
    Loaded {
        /// The bundle's files.
        files: usize,
        /// The chunks the bundle stores them in.
        chunks: usize,
        /// The bytes of its chunks and index, as its manifest lists them.
        stored_bytes: u64,
        /// Whether every file's text is loaded (asked for now or by an earlier call).
        texts: bool,
    },
    /// [`CallBody::FileText`]'s text.
    FileText {
        /// The file's text, verified against its SHA-256.
        text: String,
    },
    /// The counter is built.
    CounterReady {
        /// How long fetching and building took, in ms.
        ms: f64,
    },
    /// [`CallBody::RunIssue`]'s arms.
    Ran {
        /// Every arm, failed ones with their message, then the fusion.
        runs: Vec<WireRun>,
    },
    /// [`CallBody::RunIssues`]'s arms, per issue (fewer than asked when cancelled).
    RanAll {
        /// Per issue, every arm.
        issues: Vec<Vec<WireRun>>,
        /// Whether the call was cancelled.
        cancelled: bool,
    },
    /// [`CallBody::Pack`]'s packs, in the rankings' order.
    Packed {
        /// Per ranking.
        packs: Vec<PackAnswer>,
    },
    /// [`CallBody::LineScores`]'s rows, one per arm.
    Lines {
        /// Per arm, the scores of the jobs it could be scored on.
        rows: Vec<RecomputedLines>,
        /// Whether the call was cancelled.
        cancelled: bool,
    },
    /// [`CallBody::Time`]'s summary, per arm.
    Timed {
        /// Per arm, medians and percentiles over the questions.
        arms: Vec<ArmTiming>,
        /// Whether the call was cancelled (the summary holds the calls made).
        cancelled: bool,
    },
    /// [`CallBody::PackBench`]'s figures.
    Bench {
        /// The first pack (every block encoded), median of 5, in ms.
        cold_ms: f64,
        /// A re-pack after a budget change (every count from the memo), median of 20, in ms.
        warm_ms: f64,
        /// Tokens packed.
        tokens: usize,
    },
    /// [`CallBody::ChunkSearch`]'s chunks, best first.
    ChunkHits {
        /// The chunks with their scores.
        hits: Vec<ChunkResult>,
        /// The query's time in ms.
        ms: f64,
    },
    /// [`CallBody::Rerank`]'s run.
    Reranked {
        /// The plan, the grep pool, every route × reranker.
        run: Box<QuestionRun>,
        /// The run's time in ms.
        ms: f64,
    },
    /// [`CallBody::Evaluate`]'s report (none when cancelled).
    Evaluated {
        /// The grid's report.
        report: Option<Box<GridReport>>,
        /// The same grid against the second gold, when one was given.
        #[serde(default)]
        also: Option<Box<AlsoGold>>,
        /// Steps done.
        done: usize,
        /// Steps in all.
        total: usize,
        /// The whole call's time in ms, fetching the questions included.
        ms: f64,
    },
    /// The call failed.
    Failed {
        /// Why, naming the file, bundle or arm.
        message: String,
    },
}

impl AnswerBody {
    /// The answer's kind, as it crosses the wire (`ran`, `packed`, …): what a message about an
    /// answer that does not fit its call names, without printing the answer itself.
    pub fn kind(&self) -> &'static str {
        match self {
            AnswerBody::Progress { .. } => "progress",
            AnswerBody::Loaded { .. } => "loaded",
            AnswerBody::FileText { .. } => "file_text",
            AnswerBody::CounterReady { .. } => "counter_ready",
            AnswerBody::Ran { .. } => "ran",
            AnswerBody::RanAll { .. } => "ran_all",
            AnswerBody::Packed { .. } => "packed",
            AnswerBody::Lines { .. } => "lines",
            AnswerBody::Timed { .. } => "timed",
            AnswerBody::Bench { .. } => "bench",
            AnswerBody::ChunkHits { .. } => "chunk_hits",
            AnswerBody::Reranked { .. } => "reranked",
            AnswerBody::Evaluated { .. } => "evaluated",
            AnswerBody::Failed { .. } => "failed",
        }
    }
}

impl AnswerBody {
    /// Whether this answer ends its call.
    pub fn is_final(&self) -> bool {
        !matches!(self, AnswerBody::Progress { .. })
    }
}

/// [`CallBody::Evaluate`]'s grid against the second gold as it crosses: the report, and how far
/// the two golds agree as sentences (the page shows them; the whole agreement report stays in the
/// worker, which keeps its decoder out of the page's module).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlsoGold {
    /// The second question set's URL.
    pub questions: String,
    /// The grid against it.
    pub report: GridReport,
    /// Each agreement statistic's sentence, the first gold against the second
    /// ([`crate::evaluate::adjudication_report::gold_agreement`]).
    pub agreement: Vec<String>,
}

/// One arm's answer as it crosses: [`ArmRun`] with its error as a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireRun {
    /// The arm's name.
    pub arm: String,
    /// Its output, or why it has none.
    pub output: Result<ArmOutput, String>,
    /// The arm's run time in ms (`None` for a fusion).
    pub ms: Option<f64>,
}

impl From<ArmRun> for WireRun {
    fn from(run: ArmRun) -> Self {
        WireRun {
            arm: run.arm,
            output: run.output.map_err(|error| error.to_string()),
            ms: run.ms,
        }
    }
}

impl WireRun {
    /// The run again, its error [`Error::Relayed`].
    pub fn into_run(self) -> ArmRun {
        ArmRun {
            arm: self.arm,
            output: self.output.map_err(|message| Error::Relayed { message }),
            ms: self.ms,
        }
    }
}

/// One chunk a chunk search found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkResult {
    /// Its file.
    pub path: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, inclusive.
    pub end_line: u32,
    /// Its kind (`function`, `window`, …).
    pub kind: String,
    /// Its qualified name.
    pub name: String,
    /// Its BM25 score.
    pub score: f32,
}

/// One ranking's pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackAnswer {
    /// The arm.
    pub arm: String,
    /// The pack, or why it could not be made.
    pub result: Result<PackedReport, String>,
}

/// A pack with what the page needs to show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackedReport {
    /// The selector's and packer's report.
    pub report: ContextReport,
    /// Select + pack time in ms.
    pub ms: f64,
    /// The text of every file the report names (ranked files and gold files), by path: the page
    /// keeps no texts of its own.
    pub texts: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer crosses as `{"id", "body": {"<kind>": {…}}}`, and `kind` names the same key.
    #[test]
    fn an_answer_crosses_externally_tagged_under_its_kind() {
        for body in [
            AnswerBody::Progress {
                text: "x".into(),
                bytes: Some([1, 2]),
            },
            AnswerBody::CounterReady { ms: 1.0 },
            AnswerBody::Ran { runs: Vec::new() },
            AnswerBody::Failed {
                message: "no".into(),
            },
        ] {
            let answer = Answer { id: 7, body };
            let json = serde_json::to_value(&answer).unwrap();
            let keys: Vec<&String> = json["body"].as_object().unwrap().keys().collect();
            assert_eq!(keys, [answer.body.kind()]);
            let back: Answer = serde_json::from_value(json).unwrap();
            assert_eq!(back, answer);
        }
    }
}
