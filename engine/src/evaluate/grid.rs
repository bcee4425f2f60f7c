//! The whole CodeAtlas grid as one run in steps, so `routelens evaluate` runs it to the end and
//! the browser's worker runs it a step at a time, showing progress and hearing a cancel between
//! steps — the same numbers either way.
//!
//! A [`GridRun`] is built from a question set and [`GridSettings`] (checked then: every name,
//! cut-off and count), and stepped over a [`ChunkRankings`](crate::retrieval::chunk_search::ChunkRankings) (each chunking's table and its BM25
//! ranker): one step per question per chunking, one to build the study, one per metric for the
//! intervals, one per metric for the pairs, one for the dev/test split, one per analysed
//! configuration. [`GridRun::report`] then gives the [`GridReport`], which serialises whole (the
//! CLI's `--format json`, the worker's answer) and renders through
//! [`crate::evaluate::grid_tables`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    choose_on_dev, dev_test_split, evaluation_study, failure_analysis_drawn, mean_over,
    relevance_of, Configuration, FailureAnalysis, Retriever, TwoSampleDraws,
};
use crate::corpus::code_chunks::Chunker;
use crate::error::{Error, Result};
use crate::load::question_set::QuestionSet;
use crate::retrieval::chunk_search::{prefix_for_caps, ChunkRankings};
use crate::retrieval::cross_encoder::{
    rerank_head, ChunkReranker, CrossEncoderIdentity, RerankInput, DEFAULT_RERANK_TOP,
};
use crate::scoring::paired::PairedComparison;
use crate::scoring::stats::{BootstrapConfig, ClusterDraws};
use crate::scoring::unit_metrics::{
    compare_metric_pairs_drawn, summarize_metrics, summarize_metrics_drawn, Clustering, Metric,
    MetricSummary, Relevance,
};
use crate::study::Study;

/// What the grid runs. Empty lists mean the defaults: every chunking the bundle has, BM25 (dense
/// and hybrid read the bundle's vectors, so they run when asked), no caps, the default metrics for
/// `k` and the relevance, the default pairs (CodeAtlas's: [`default_pairs`], and the shipped
/// configuration against the next best cell on each metric).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GridSettings {
    /// The chunkings, in grid order.
    pub chunkers: Vec<Chunker>,
    /// The rankers.
    pub retrievers: Vec<Retriever>,
    /// Per-file caps beside each uncapped ranking; with caps the dev half chooses one.
    pub caps: Vec<usize>,
    /// The retrievers whose rankings the caps apply to (empty: every one; CodeAtlas capped
    /// hybrid only).
    pub capped: Vec<Retriever>,
    /// Cross-encoder rows: each input reranks every chunking's hybrid ranking (CodeAtlas ran
    /// both, text and prefixed).
    pub rerankers: Vec<RerankInput>,
    /// How many of hybrid's head the cross-encoder reorders (CodeAtlas: 30).
    pub rerank_top: usize,
    /// The cross-encoder the run scores with; without one the reranker rows are listed as
    /// needing a model, never dropped or scored.
    pub reranker_model: Option<CrossEncoderIdentity>,
    /// Cut-offs of the default metrics (hit@k and file_recall@k each, then mrr and ndcg@10).
    pub k: Vec<usize>,
    /// Metric names (`hit@5`, `mrr`, …), replacing the defaults.
    pub metrics: Vec<String>,
    /// Configuration pairs (left − right), replacing the defaults.
    pub pairs: Vec<(String, String)>,
    /// The metric the dev half chooses caps by.
    pub select_by: String,
    /// The one configuration whose misses are analysed (default every one), at the largest k.
    pub failures: Option<String>,
    /// What intervals resample: questions (CodeAtlas) or projects.
    pub clustering: Clustering,
    /// How many chunks of each ranking are scored.
    pub depth: usize,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
}

impl Default for GridSettings {
    fn default() -> Self {
        GridSettings {
            chunkers: Vec::new(),
            retrievers: Vec::new(),
            caps: Vec::new(),
            capped: Vec::new(),
            rerankers: Vec::new(),
            rerank_top: DEFAULT_RERANK_TOP,
            reranker_model: None,
            k: vec![1, 5, 10],
            metrics: Vec::new(),
            pairs: Vec::new(),
            select_by: "ndcg@10".into(),
            failures: None,
            clustering: Clustering::Case,
            depth: 100,
            resamples: 10_000,
            seed: 0,
        }
    }
}

/// The cap chosen on the dev half for one chunker and retriever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitChoice {
    /// The configuration without a cap.
    pub base: String,
    /// The configuration chosen (possibly the uncapped one).
    pub chosen: String,
    /// Its dev mean of the selection metric.
    pub dev_mean: f64,
    /// Its mean on the test half.
    pub test_mean: f64,
    /// Its mean on all questions, with the interval.
    pub all: Option<MetricSummary>,
}

/// The dev/test split and what it chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridSplit {
    /// The dev half's question ids.
    pub dev: Vec<String>,
    /// The test half's.
    pub test: Vec<String>,
    /// The metric the choice maximises on dev.
    pub selection_metric: String,
    /// One choice per uncapped configuration.
    pub chosen: Vec<SplitChoice>,
}

/// Everything the grid found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridReport {
    /// Questions (cases).
    pub questions: usize,
    /// `file` or `span`.
    pub relevance: String,
    /// `case` or `project`.
    pub cluster: String,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Chunks scored per ranking.
    pub depth: usize,
    /// The dev half's metric (the text output's pairs are on it).
    pub selection_metric: String,
    /// The configurations, in grid order.
    pub configurations: Vec<String>,
    /// The metrics, in the order asked.
    pub metric_names: Vec<String>,
    /// Every configuration's every metric with its interval, configuration by configuration.
    pub metrics: Vec<MetricSummary>,
    /// Every pair on every metric, with its sentence.
    pub paired: Vec<PairedComparison>,
    /// The split, when there are caps to choose.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub split: Option<GridSplit>,
    /// The failure analyses.
    pub failures: Vec<FailureAnalysis>,
    /// The cross-encoder the reranker rows were scored with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reranker_model: Option<CrossEncoderIdentity>,
    /// How many of hybrid's head they reorder (when there are reranker rows).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rerank_top: Option<usize>,
    /// Reranker rows asked for without a model: listed, not scored.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub needs_model: Vec<String>,
}

/// What one step did: the run is working (`done` of `total` steps, the next one named) or done.
#[derive(Debug, Clone, PartialEq)]
pub enum GridStep {
    /// More to do.
    Working {
        /// Steps done.
        done: usize,
        /// Steps in all.
        total: usize,
        /// What the next step does.
        next: String,
    },
    /// Every step is done: [`GridRun::report`] has the report.
    Done,
}

/// Questions a source is readied for at once ([`ChunkRankings::prepare`]): a dense scan of eight
/// reads the chunk vectors once for all of them, and eight scans' scores of the demo's largest
/// chunking take 2 MB.
const QUESTION_BATCH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Rank { chunker: usize, question: usize },
    Rerank { chunker: usize, question: usize },
    Study,
    Summary(usize),
    Pairs(usize),
    Split,
    Failures(usize),
    Done,
}

/// The grid in progress (see the module docs).
#[derive(Debug)]
pub struct GridRun {
    set: QuestionSet,
    settings: GridSettings,
    chunkers: Vec<Chunker>,
    configs: Vec<Configuration>,
    metrics: Vec<Metric>,
    pairs: Vec<(String, String)>,
    select_by: Metric,
    relevance: Relevance,
    bootstrap: BootstrapConfig,
    analysed: Vec<String>,
    retrievers: Vec<Retriever>,
    rankings: BTreeMap<(Chunker, Retriever), Vec<Vec<usize>>>,
    /// The reranker inputs scored (empty without a model).
    rerankers: Vec<RerankInput>,
    reranked: BTreeMap<(Chunker, RerankInput), Vec<Vec<usize>>>,
    needs_model: Vec<String>,
    pairs_scored: usize,
    study: Option<Study>,
    /// The bootstrap's draws, made once for every summary and comparison.
    draws: Option<ClusterDraws>,
    /// The failure analyses' last draws, for the next arm with as many misses and hits.
    failure_draws: Option<TwoSampleDraws>,
    summaries: Vec<MetricSummary>,
    paired: Vec<PairedComparison>,
    split: Option<GridSplit>,
    failures: Vec<FailureAnalysis>,
    stage: Stage,
    done: usize,
}

impl GridRun {
    /// A run of `settings` over the questions of `set` (named `file` in errors) on a bundle
    /// with the chunkings `available`; every setting is checked here.
    pub fn new(
        file: &str,
        set: QuestionSet,
        settings: GridSettings,
        available: &[Chunker],
    ) -> Result<GridRun> {
        let bootstrap = BootstrapConfig {
            resamples: settings.resamples,
            seed: settings.seed,
        }
        .validated()?;
        if set.questions.is_empty() {
            return Err(Error::field(file, "questions", "no questions"));
        }
        if settings.depth == 0 {
            return Err(Error::setting("depth", 0, "at least 1"));
        }
        if let Some(&cap) = settings.caps.iter().find(|&&c| c == 0) {
            return Err(Error::setting("cap", cap, "at least 1"));
        }
        if available.is_empty() {
            return Err(Error::setting(
                "chunker",
                "(none)",
                "a bundle with chunkings: rebuild it with `routelens bundle`",
            ));
        }
        let chunkers = if settings.chunkers.is_empty() {
            available.to_vec()
        } else {
            settings.chunkers.clone()
        };
        if let Some(missing) = chunkers.iter().find(|c| !available.contains(c)) {
            let names: Vec<&str> = available.iter().map(|c| c.name()).collect();
            return Err(Error::setting(
                "chunker",
                missing.name(),
                &format!("a chunking of the bundle: {}", names.join(", ")),
            ));
        }
        if !settings.rerankers.is_empty() && settings.rerank_top == 0 {
            return Err(Error::setting("rerank-top", 0, "at least 1"));
        }
        // Dense and hybrid read the bundle's vectors: only when asked.
        let mut retrievers = if settings.retrievers.is_empty() {
            vec![Retriever::Bm25]
        } else {
            settings.retrievers.clone()
        };
        if let Some(other) = settings.capped.iter().find(|r| !retrievers.contains(r)) {
            let names: Vec<&str> = retrievers.iter().map(|r| r.name()).collect();
            return Err(Error::setting(
                "capped",
                other.name(),
                &format!("a retriever of the grid: {}", names.join(", ")),
            ));
        }
        let mut configs = Vec::new();
        let mut needs_model = Vec::new();
        for &chunker in &chunkers {
            for &retriever in &retrievers {
                let caps = if settings.capped.is_empty() || settings.capped.contains(&retriever) {
                    settings.caps.as_slice()
                } else {
                    &[]
                };
                for cap in std::iter::once(None).chain(caps.iter().map(|&c| Some(c))) {
                    configs.push(Configuration {
                        chunker,
                        retriever,
                        cap,
                        reranker: None,
                    });
                }
            }
            for &input in &settings.rerankers {
                let config = Configuration {
                    chunker,
                    retriever: Retriever::Hybrid,
                    cap: None,
                    reranker: Some(input),
                };
                match settings.reranker_model {
                    Some(_) => configs.push(config),
                    None => needs_model.push(config.name()),
                }
            }
        }
        let rerankers = match settings.reranker_model {
            Some(_) => settings.rerankers.clone(),
            None => Vec::new(),
        };
        // The reranker rows reorder hybrid's ranking, ranked even when hybrid is not a row.
        if !rerankers.is_empty() && !retrievers.contains(&Retriever::Hybrid) {
            retrievers.push(Retriever::Hybrid);
        }
        let relevance = relevance_of(&set.questions);
        let metrics = metrics_of(&settings, relevance)?;
        let select_by = Metric::parse(&settings.select_by)?;
        let names: Vec<String> = configs.iter().map(Configuration::name).collect();
        let known = |name: &str, setting: &str| {
            if names.iter().any(|n| n == name) {
                Ok(())
            } else {
                Err(Error::setting(
                    setting,
                    name,
                    &format!("a configuration of the grid: {}", names.join(", ")),
                ))
            }
        };
        let pairs = if settings.pairs.is_empty() {
            default_pairs(&configs)
        } else {
            settings.pairs.clone()
        };
        for (left, right) in &pairs {
            known(left, "pair")?;
            known(right, "pair")?;
        }
        let analysed = match &settings.failures {
            Some(name) => {
                known(name, "failures")?;
                vec![name.clone()]
            }
            None => names,
        };
        Ok(GridRun {
            set,
            chunkers,
            retrievers,
            rerankers,
            reranked: BTreeMap::new(),
            needs_model,
            pairs_scored: 0,
            configs,
            metrics,
            pairs,
            select_by,
            relevance,
            bootstrap,
            analysed,
            rankings: BTreeMap::new(),
            study: None,
            draws: None,
            failure_draws: None,
            summaries: Vec::new(),
            paired: Vec::new(),
            split: None,
            failures: Vec::new(),
            stage: Stage::Rank {
                chunker: 0,
                question: 0,
            },
            done: 0,
            settings,
        })
    }

    /// The chunkings the grid reads, in its order (the ones to load).
    pub fn chunkers(&self) -> &[Chunker] {
        &self.chunkers
    }

    /// Whether `retriever` is needed (a row's, or the ranking the reranker rows reorder).
    pub fn needs_retriever(&self, retriever: Retriever) -> bool {
        self.retrievers.contains(&retriever)
    }

    /// Whether the run scores reranker rows, and so needs [`GridRun::step_with`]'s reranker.
    pub fn needs_reranker(&self) -> bool {
        !self.rerankers.is_empty()
    }

    /// The (question, chunk) pairs the cross-encoder has scored so far, and how many it will
    /// score at most in all (each ranking's head may be shorter).
    pub fn pairs(&self) -> (usize, usize) {
        let most = self.rerankers.len()
            * self.settings.rerank_top
            * self.chunkers.len()
            * self.set.questions.len();
        (self.pairs_scored, most)
    }

    /// Steps in all.
    pub fn total(&self) -> usize {
        let rerank = if self.rerankers.is_empty() { 0 } else { 1 };
        (1 + rerank) * self.chunkers.len() * self.set.questions.len()
            + 1
            + 2 * self.metrics.len()
            + 1
            + self.analysed.len()
    }

    /// Does the next step over `source` (a run without reranker rows).
    pub fn step(&mut self, source: &dyn ChunkRankings) -> Result<GridStep> {
        self.step_with(source, None)
    }

    /// Does the next step over `source`, scoring the reranker rows with `reranker` (which a run
    /// with such rows needs: its identity must be the settings' `reranker_model`).
    pub fn step_with(
        &mut self,
        source: &dyn ChunkRankings,
        reranker: Option<&dyn ChunkReranker>,
    ) -> Result<GridStep> {
        self.stage = match self.stage {
            Stage::Rank { chunker, question } => {
                let which = self.chunkers[chunker];
                if question % QUESTION_BATCH == 0
                    && self.retrievers.iter().any(|r| r.needs_vectors())
                {
                    let batch: Vec<&str> = self.set.questions[question..]
                        .iter()
                        .take(QUESTION_BATCH)
                        .map(|q| q.question.as_str())
                        .collect();
                    source.prepare(which, &batch)?;
                }
                let q = &self.set.questions[question];
                for &retriever in &self.retrievers {
                    let rank = |n| source.rank_by(which, retriever, &q.question, n);
                    let ranking = if self.settings.caps.is_empty() {
                        rank(self.settings.depth)?
                    } else {
                        prefix_for_caps(
                            rank,
                            |&at| at,
                            source.table(which)?,
                            &self.settings.caps,
                            self.settings.depth,
                        )?
                    };
                    self.rankings
                        .entry((which, retriever))
                        .or_default()
                        .push(ranking);
                }
                if question + 1 < self.set.questions.len() {
                    Stage::Rank {
                        chunker,
                        question: question + 1,
                    }
                } else if chunker + 1 < self.chunkers.len() {
                    Stage::Rank {
                        chunker: chunker + 1,
                        question: 0,
                    }
                } else if !self.rerankers.is_empty() {
                    Stage::Rerank {
                        chunker: 0,
                        question: 0,
                    }
                } else {
                    Stage::Study
                }
            }
            Stage::Rerank { chunker, question } => {
                self.rerank(source, reranker, chunker, question)?;
                if question + 1 < self.set.questions.len() {
                    Stage::Rerank {
                        chunker,
                        question: question + 1,
                    }
                } else if chunker + 1 < self.chunkers.len() {
                    Stage::Rerank {
                        chunker: chunker + 1,
                        question: 0,
                    }
                } else {
                    Stage::Study
                }
            }
            Stage::Study => {
                self.study = Some(self.build_study(source)?);
                Stage::Summary(0)
            }
            Stage::Summary(at) => {
                let study = study_of(&self.study)?;
                let metric = self.metrics[at];
                let rows = summarize_metrics_drawn(
                    study,
                    &[metric],
                    (self.settings.clustering, self.relevance),
                    self.bootstrap,
                    &mut self.draws,
                )?;
                self.summaries.extend(rows);
                next_or(at, self.metrics.len(), Stage::Summary, Stage::Pairs(0))
            }
            Stage::Pairs(at) => {
                let study = study_of(&self.study)?;
                let all: Vec<usize> = (0..study.cases.len()).collect();
                let mut pairs = self.pairs.clone();
                if self.settings.pairs.is_empty() {
                    let metric = self.metrics[at].name();
                    pairs.extend(shipped_against_next_best(
                        &self.configs,
                        &self.summaries,
                        &metric,
                    ));
                }
                let rows = compare_metric_pairs_drawn(
                    (study, &pairs, self.metrics[at]),
                    (self.settings.clustering, self.relevance),
                    &all,
                    self.bootstrap,
                    &mut self.draws,
                )?;
                self.paired.extend(rows);
                next_or(at, self.metrics.len(), Stage::Pairs, Stage::Split)
            }
            Stage::Split => {
                self.split = self.choose_caps()?;
                if self.analysed.is_empty() {
                    Stage::Done
                } else {
                    Stage::Failures(0)
                }
            }
            Stage::Failures(at) => {
                let study = study_of(&self.study)?;
                let k = self.settings.k.iter().copied().max().unwrap_or(10);
                let set = &self.set;
                let analysis = failure_analysis_drawn(
                    study,
                    &self.analysed[at],
                    (k, self.relevance, self.bootstrap),
                    &|path| set.project_of(path),
                    &mut self.failure_draws,
                )?;
                self.failures.push(analysis);
                next_or(at, self.analysed.len(), Stage::Failures, Stage::Done)
            }
            Stage::Done => return Ok(GridStep::Done),
        };
        self.done += 1;
        Ok(match self.stage {
            Stage::Done => GridStep::Done,
            next => GridStep::Working {
                done: self.done,
                total: self.total(),
                next: self.describe(next),
            },
        })
    }

    /// Steps until done.
    pub fn run(self, source: &dyn ChunkRankings) -> Result<GridReport> {
        self.run_with(source, None)
    }

    /// Steps until done, scoring the reranker rows with `reranker`.
    pub fn run_with(
        mut self,
        source: &dyn ChunkRankings,
        reranker: Option<&dyn ChunkReranker>,
    ) -> Result<GridReport> {
        while self.step_with(source, reranker)? != GridStep::Done {}
        self.report()
    }

    /// One question's hybrid ranking under one chunking, its head reordered by each input.
    fn rerank(
        &mut self,
        source: &dyn ChunkRankings,
        reranker: Option<&dyn ChunkReranker>,
        chunker: usize,
        question: usize,
    ) -> Result<()> {
        let (Some(reranker), Some(model)) = (reranker, &self.settings.reranker_model) else {
            return Err(Error::setting(
                "reranker",
                "(none)",
                "a loaded cross-encoder for the grid's reranker rows",
            ));
        };
        if question == 0 && chunker == 0 {
            model.check_same(reranker.identity(), "the grid's settings")?;
        }
        let which = self.chunkers[chunker];
        let hybrid = self
            .rankings
            .get(&(which, Retriever::Hybrid))
            .and_then(|r| r.get(question))
            .ok_or_else(|| Error::setting("grid", "no hybrid ranking", "ranked before reranked"))?;
        let head = &hybrid[..self.settings.rerank_top.min(hybrid.len())];
        let table = source.table(which)?;
        let query = &self.set.questions[question].question;
        for &input in &self.rerankers {
            let passages = reranker.passages(table, head, input)?;
            let scores = reranker.score(query, &passages)?;
            self.pairs_scored += scores.len();
            let ranking = rerank_head(hybrid, &scores)?;
            self.reranked
                .entry((which, input))
                .or_default()
                .push(ranking);
        }
        Ok(())
    }

    /// The report of a finished run (an unfinished one is refused).
    pub fn report(self) -> Result<GridReport> {
        if self.stage != Stage::Done {
            return Err(Error::setting(
                "grid",
                "unfinished",
                "a run stepped until done",
            ));
        }
        // Configuration by configuration, each in the metrics' order (the steps went metric
        // by metric).
        let mut metrics = Vec::with_capacity(self.summaries.len());
        for config in &self.configs {
            let name = config.name();
            for metric in &self.metrics {
                let metric = metric.name();
                if let Some(row) = self
                    .summaries
                    .iter()
                    .find(|s| s.arm == name && s.metric == metric)
                {
                    metrics.push(row.clone());
                }
            }
        }
        Ok(GridReport {
            questions: self.set.questions.len(),
            relevance: match self.relevance {
                Relevance::File => "file",
                Relevance::Span => "span",
            }
            .into(),
            cluster: match self.settings.clustering {
                Clustering::Case => "case",
                Clustering::Repo => "project",
            }
            .into(),
            resamples: self.bootstrap.resamples,
            seed: self.bootstrap.seed,
            depth: self.settings.depth,
            selection_metric: self.select_by.name(),
            configurations: self.configs.iter().map(Configuration::name).collect(),
            metric_names: self.metrics.iter().map(Metric::name).collect(),
            metrics,
            paired: self.paired,
            split: self.split,
            failures: self.failures,
            reranker_model: self
                .settings
                .reranker_model
                .filter(|_| !self.rerankers.is_empty()),
            rerank_top: (!self.settings.rerankers.is_empty()).then_some(self.settings.rerank_top),
            needs_model: self.needs_model,
        })
    }

    fn study(&self) -> Result<&Study> {
        study_of(&self.study)
    }

    fn describe(&self, stage: Stage) -> String {
        match stage {
            Stage::Rank { chunker, question } => format!(
                "ranking question {}/{} under {}",
                question + 1,
                self.set.questions.len(),
                self.chunkers[chunker].name()
            ),
            Stage::Rerank { chunker, question } => format!(
                "reranking question {}/{} under {} ({} pairs)",
                question + 1,
                self.set.questions.len(),
                self.chunkers[chunker].name(),
                self.rerankers.len() * self.settings.rerank_top
            ),
            Stage::Study => "scoring every configuration".into(),
            Stage::Summary(at) => format!(
                "intervals of {} ({} resamples)",
                self.metrics[at].name(),
                self.bootstrap.resamples
            ),
            Stage::Pairs(at) => format!("pairs on {}", self.metrics[at].name()),
            Stage::Split => "the dev/test split".into(),
            Stage::Failures(at) => format!("failure analysis of {}", self.analysed[at]),
            Stage::Done => "done".into(),
        }
    }

    fn build_study(&self, source: &dyn ChunkRankings) -> Result<Study> {
        let mut tables = BTreeMap::new();
        for &chunker in &self.chunkers {
            tables.insert(chunker, source.table(chunker)?);
        }
        let empty = Vec::new();
        let ranked: Vec<super::Ranked> = self
            .configs
            .iter()
            .map(|config| {
                let rankings = match config.reranker {
                    Some(input) => self.reranked.get(&(config.chunker, input)),
                    None => self.rankings.get(&(config.chunker, config.retriever)),
                }
                .unwrap_or(&empty);
                (*config, tables[&config.chunker], rankings.as_slice())
            })
            .collect();
        let set = &self.set;
        evaluation_study(
            &set.questions,
            &|path| set.project_of(path),
            &ranked,
            self.settings.depth,
        )
    }

    /// With caps: each uncapped configuration that has capped variants, its best of itself and them on the
    /// dev half, reported on test and on all questions.
    fn choose_caps(&self) -> Result<Option<GridSplit>> {
        if self.settings.caps.is_empty() {
            return Ok(None);
        }
        let study = self.study()?;
        let (dev, test) = dev_test_split(study);
        let selected = if self.metrics.contains(&self.select_by) {
            self.summaries.clone()
        } else {
            summarize_metrics(
                study,
                &[self.select_by],
                self.settings.clustering,
                self.relevance,
                self.bootstrap,
            )?
        };
        let metric = self.select_by.name();
        let mut chosen = Vec::new();
        for config in self.configs.iter().filter(|c| c.cap.is_none()) {
            let candidates: Vec<String> = self
                .configs
                .iter()
                .filter(|c| c.uncapped() == *config)
                .map(Configuration::name)
                .collect();
            // A retriever the caps do not apply to (`capped`) has nothing to choose.
            if candidates.len() < 2 {
                continue;
            }
            let (best, dev_mean) =
                choose_on_dev(study, &candidates, self.select_by, self.relevance, &dev)?;
            let test_mean = mean_over(study, &best, self.select_by, self.relevance, &test)?;
            let all = selected
                .iter()
                .find(|s| s.arm == best && s.metric == metric)
                .cloned();
            chosen.push(SplitChoice {
                base: config.name(),
                chosen: best,
                dev_mean,
                test_mean,
                all,
            });
        }
        let ids = |cases: &[usize]| cases.iter().map(|&c| study.cases[c].id.clone()).collect();
        Ok(Some(GridSplit {
            dev: ids(&dev),
            test: ids(&test),
            selection_metric: metric,
            chosen,
        }))
    }
}

/// The run's study, once its ranking steps are done.
fn study_of(study: &Option<Study>) -> Result<&Study> {
    study
        .as_ref()
        .ok_or_else(|| Error::setting("grid", "no study", "a run past its ranking steps"))
}

fn next_or(at: usize, len: usize, more: fn(usize) -> Stage, then: Stage) -> Stage {
    if at + 1 < len {
        more(at + 1)
    } else {
        then
    }
}

/// The metrics asked for, or the defaults for `k` and the relevance.
fn metrics_of(settings: &GridSettings, relevance: Relevance) -> Result<Vec<Metric>> {
    if !settings.metrics.is_empty() {
        return settings.metrics.iter().map(|n| Metric::parse(n)).collect();
    }
    if settings.k.is_empty() {
        return Err(Error::setting("k", "(none)", "at least one cut-off"));
    }
    let mut metrics = Vec::new();
    for &k in &settings.k {
        Metric::parse(&format!("hit@{k}"))?;
        metrics.extend([Metric::Hit(k), Metric::FileRecall(k)]);
    }
    metrics.extend([Metric::Mrr, Metric::Ndcg(10)]);
    if relevance == Relevance::Span {
        let k = settings.k.iter().copied().max().unwrap_or(10);
        metrics.extend([Metric::SpanRecall(k), Metric::SpanMrr]);
    }
    metrics.dedup();
    Ok(metrics)
}

/// CodeAtlas's comparisons among `configs`: structural against window and unmerged chunks under
/// the same retriever and cap, hybrid against dense and against BM25 on the same chunks and cap,
/// each cap against no cap, each reranker row against hybrid without it, and the prefixed reranker
/// against the text-only one.
pub fn default_pairs(configs: &[Configuration]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for config in configs.iter().filter(|c| c.chunker == Chunker::Structural) {
        for other in [Chunker::Window, Chunker::StructuralUnmerged] {
            let right = Configuration {
                chunker: other,
                ..*config
            };
            if configs.contains(&right) {
                out.push((config.name(), right.name()));
            }
        }
    }
    for config in configs.iter().filter(|c| c.retriever == Retriever::Hybrid) {
        for other in [Retriever::Dense, Retriever::Bm25] {
            let right = Configuration {
                retriever: other,
                ..*config
            };
            if configs.contains(&right) {
                out.push((config.name(), right.name()));
            }
        }
    }
    for config in configs.iter().filter(|c| c.cap.is_some()) {
        out.push((config.name(), config.uncapped().name()));
    }
    for config in configs.iter().filter(|c| c.reranker.is_some()) {
        let hybrid = Configuration {
            reranker: None,
            ..*config
        };
        if configs.contains(&hybrid) {
            out.push((config.name(), hybrid.name()));
        }
        if config.reranker == Some(RerankInput::Prefixed) {
            let text = Configuration {
                reranker: Some(RerankInput::Text),
                ..*config
            };
            if configs.contains(&text) {
                out.push((config.name(), text.name()));
            }
        }
    }
    out
}

/// CodeAtlas's shipped configuration: merged structural chunks, hybrid retrieval, a per-file cap
/// of 1.
pub const SHIPPED: Configuration = Configuration {
    chunker: Chunker::Structural,
    retriever: Retriever::Hybrid,
    cap: Some(1),
    reranker: None,
};

/// The shipped configuration against the best other cell on `metric` (`summaries` of the
/// grid's configurations; ties to the first listed), when the grid has it and another cell.
fn shipped_against_next_best(
    configs: &[Configuration],
    summaries: &[MetricSummary],
    metric: &str,
) -> Option<(String, String)> {
    let shipped = SHIPPED.name();
    if !configs.contains(&SHIPPED) {
        return None;
    }
    let mut best: Option<(&str, f64)> = None;
    for config in configs.iter().filter(|c| **c != SHIPPED) {
        let name = config.name();
        let Some(row) = summaries
            .iter()
            .find(|s| s.arm == name && s.metric == metric)
        else {
            continue;
        };
        if best.is_none_or(|(_, mean)| row.mean > mean) {
            best = Some((&row.arm, row.mean));
        }
    }
    best.map(|(name, _)| (shipped, name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::code_chunks::CodeChunk;
    use crate::load::question_set::Question;

    /// Two chunkings of the same two files; each question's ranking names the file it wants
    /// first under `structural` and second under `window`.
    struct Fixed {
        table: Vec<CodeChunk>,
    }

    impl ChunkRankings for Fixed {
        fn chunkers(&self) -> Vec<Chunker> {
            vec![Chunker::Structural, Chunker::Window]
        }
        fn table(&self, _: Chunker) -> Result<&[CodeChunk]> {
            Ok(&self.table)
        }
        fn rank(&self, chunker: Chunker, query: &str, depth: usize) -> Result<Vec<usize>> {
            let wanted = usize::from(query.contains("beta"));
            let mut ranking = match chunker {
                Chunker::Window => vec![1 - wanted, wanted],
                _ => vec![wanted, 1 - wanted],
            };
            ranking.truncate(depth);
            Ok(ranking)
        }
    }

    fn fixed() -> Fixed {
        let chunk = |path: &str| CodeChunk {
            path: path.into(),
            start_line: 1,
            end_line: 3,
            kind: "function".into(),
            name: String::new(),
            tokens: 4,
        };
        Fixed {
            table: vec![chunk("a/alpha.rs"), chunk("b/beta.rs")],
        }
    }

    fn set() -> QuestionSet {
        let question = |id: &str, text: &str, gold: &str| Question {
            id: id.into(),
            question: text.into(),
            gold: vec![gold.into()],
            gold_lines: Vec::new(),
        };
        QuestionSet {
            questions: vec![
                question("q1", "alpha", "a/alpha.rs"),
                question("q2", "beta", "b/beta.rs"),
                question("q3", "alpha again", "a/alpha.rs"),
            ],
            ..QuestionSet::default()
        }
    }

    fn settings() -> GridSettings {
        GridSettings {
            resamples: 50,
            caps: vec![1],
            ..GridSettings::default()
        }
    }

    #[test]
    fn stepping_reports_progress_and_ends_where_running_does() {
        let source = fixed();
        let available = source.chunkers();
        let mut run = GridRun::new("q.jsonl", set(), settings(), &available).unwrap();
        let total = run.total();
        let mut seen = 0;
        while let GridStep::Working { done, total: t, .. } = run.step(&source).unwrap() {
            assert_eq!(t, total);
            seen = done;
        }
        assert_eq!(seen + 1, total, "one Working per step but the last");
        let stepped = run.report().unwrap();
        let whole = GridRun::new("q.jsonl", set(), settings(), &available)
            .unwrap()
            .run(&source)
            .unwrap();
        assert_eq!(stepped, whole);
        assert_eq!(
            whole.configurations,
            [
                "structural/bm25",
                "structural/bm25/cap1",
                "window/bm25",
                "window/bm25/cap1"
            ]
        );
        let hit1 = |arm: &str| {
            whole
                .metrics
                .iter()
                .find(|s| s.arm == arm && s.metric == "hit@1")
                .unwrap()
                .mean
        };
        assert_eq!(hit1("structural/bm25"), 1.0);
        assert_eq!(hit1("window/bm25"), 0.0);
        let split = whole.split.as_ref().unwrap();
        assert_eq!(split.dev.len() + split.test.len(), 3);
        assert_eq!(whole.failures.len(), 4);
        assert!(whole
            .paired
            .iter()
            .any(|p| p.left == "structural/bm25" && p.right == "window/bm25"));
    }

    /// [`Fixed`] ranking the same way by every retriever, so that a grid holds the shipped
    /// configuration.
    struct EveryRetriever(Fixed);

    impl ChunkRankings for EveryRetriever {
        fn chunkers(&self) -> Vec<Chunker> {
            self.0.chunkers()
        }
        fn table(&self, chunker: Chunker) -> Result<&[CodeChunk]> {
            self.0.table(chunker)
        }
        fn rank(&self, chunker: Chunker, query: &str, depth: usize) -> Result<Vec<usize>> {
            self.0.rank(chunker, query, depth)
        }
        fn rank_by(&self, c: Chunker, _: Retriever, q: &str, depth: usize) -> Result<Vec<usize>> {
            self.0.rank(c, q, depth)
        }
    }

    /// A cross-encoder that scores a passage 1 when it holds the query's first word, else 0;
    /// passages are the chunk's path, prefixed or not.
    struct PathJudge(CrossEncoderIdentity);

    impl ChunkReranker for PathJudge {
        fn identity(&self) -> &CrossEncoderIdentity {
            &self.0
        }
        fn score(&self, query: &str, passages: &[String]) -> Result<Vec<f32>> {
            let word = query.split(' ').next().unwrap_or_default();
            Ok(passages
                .iter()
                .map(|p| f32::from(u8::from(p.contains(word))))
                .collect())
        }
        fn passages(
            &self,
            table: &[CodeChunk],
            positions: &[usize],
            input: RerankInput,
        ) -> Result<Vec<String>> {
            Ok(positions
                .iter()
                .map(|&at| match input {
                    RerankInput::Prefixed => table[at].path.clone(),
                    RerankInput::Text => String::new(),
                })
                .collect())
        }
    }

    fn identity(weights: &[u8]) -> CrossEncoderIdentity {
        CrossEncoderIdentity::of(
            "judge",
            &[
                ("config.json", b"{}"),
                ("model.safetensors", weights),
                ("tokenizer.json", b"{}"),
            ],
        )
    }

    #[test]
    fn reranker_rows_reorder_hybrids_head_or_are_listed_as_needing_a_model() {
        let source = EveryRetriever(fixed());
        let codeatlas = GridSettings {
            retrievers: Retriever::ALL.to_vec(),
            caps: vec![1],
            capped: vec![Retriever::Hybrid],
            rerankers: RerankInput::ALL.to_vec(),
            ..settings()
        };
        // Without a model: the rows are named, never scored.
        let report = GridRun::new("q.jsonl", set(), codeatlas.clone(), &source.chunkers())
            .unwrap()
            .run(&source)
            .unwrap();
        assert_eq!(report.configurations.len(), 8);
        assert_eq!(
            report.needs_model,
            [
                "structural/hybrid/cross-encoder:text",
                "structural/hybrid/cross-encoder:prefixed",
                "window/hybrid/cross-encoder:text",
                "window/hybrid/cross-encoder:prefixed"
            ]
        );
        assert!(report.metrics.iter().all(|m| !m.arm.contains("cross")));
        // With one: CodeAtlas's six rows per chunking.
        let with_model = GridSettings {
            reranker_model: Some(identity(b"a")),
            ..codeatlas
        };
        let judge = PathJudge(identity(b"a"));
        let run = GridRun::new("q.jsonl", set(), with_model.clone(), &source.chunkers()).unwrap();
        assert!(run.needs_reranker());
        let report = run.run_with(&source, Some(&judge)).unwrap();
        assert_eq!(
            &report.configurations[..6],
            [
                "structural/bm25",
                "structural/dense",
                "structural/hybrid",
                "structural/hybrid/cap1",
                "structural/hybrid/cross-encoder:text",
                "structural/hybrid/cross-encoder:prefixed"
            ]
        );
        assert_eq!(report.configurations.len(), 12);
        assert!(report.needs_model.is_empty());
        assert_eq!(report.rerank_top, Some(30));
        let hit1 = |arm: &str| {
            report
                .metrics
                .iter()
                .find(|s| s.arm == arm && s.metric == "hit@1")
                .unwrap()
                .mean
        };
        // Window's hybrid puts the wanted file second; the path judge lifts it to first, and
        // the text-only input, seeing no path, keeps hybrid's order.
        assert_eq!(hit1("window/hybrid"), 0.0);
        assert_eq!(hit1("window/hybrid/cross-encoder:prefixed"), 1.0);
        assert_eq!(hit1("window/hybrid/cross-encoder:text"), 0.0);
        for (left, right) in [
            ("window/hybrid/cross-encoder:text", "window/hybrid"),
            (
                "window/hybrid/cross-encoder:prefixed",
                "window/hybrid/cross-encoder:text",
            ),
        ] {
            assert!(report
                .paired
                .iter()
                .any(|p| p.left == left && p.right == right));
        }
        // A reranker of other files than the settings name is refused, naming the file.
        let other = PathJudge(identity(b"b"));
        let refused = GridRun::new("q.jsonl", set(), with_model.clone(), &source.chunkers())
            .unwrap()
            .run_with(&source, Some(&other))
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("model.safetensors: cross-encoder:"),
            "{refused}"
        );
        let refused = GridRun::new("q.jsonl", set(), with_model, &source.chunkers())
            .unwrap()
            .run(&source)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("a loaded cross-encoder"), "{refused}");
    }

    #[test]
    fn codeatlas_columns_and_a_metrics_chart_name_the_shipped_configuration() {
        let source = EveryRetriever(fixed());
        let settings = GridSettings {
            retrievers: vec![Retriever::Bm25, Retriever::Hybrid],
            ..settings()
        };
        let report = GridRun::new("q.jsonl", set(), settings, &source.chunkers())
            .unwrap()
            .run(&source)
            .unwrap();
        let headline = crate::evaluate::headline_table(&report);
        assert_eq!(
            headline.headers,
            ["configuration", "hit@5", "file_recall@5", "mrr"]
        );
        assert_eq!(headline.rows.len(), report.configurations.len());
        let shipped: Vec<&str> = headline
            .rows
            .iter()
            .map(|row| row[0].text.as_str())
            .filter(|name| name.ends_with("(shipped)"))
            .collect();
        assert_eq!(shipped, ["structural/hybrid/cap1 (shipped)"]);
        let mrr = crate::evaluate::metric_column(&report, "mrr");
        let at = report
            .configurations
            .iter()
            .position(|c| c == "window/bm25")
            .unwrap();
        let summary = report
            .metrics
            .iter()
            .find(|s| s.arm == "window/bm25" && s.metric == "mrr")
            .unwrap();
        assert_eq!(mrr.rows[at][1].value, Some(summary.mean));
        assert_eq!(
            mrr.rows[at][1].interval,
            Some((summary.ci_low, summary.ci_high))
        );
        assert_eq!(headline.rows[at][3], mrr.rows[at][1]);
    }

    #[test]
    fn the_report_round_trips_through_json_and_renders_every_table() {
        let source = fixed();
        let report = GridRun::new("q.jsonl", set(), settings(), &source.chunkers())
            .unwrap()
            .run(&source)
            .unwrap();
        let json = serde_json::to_string(&report).unwrap();
        let back: GridReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
        let tables = crate::evaluate::grid_tables(&report);
        assert_eq!(tables.len(), 4, "grid, pairs, split, failures");
        assert_eq!(tables[0].rows.len(), 4);
        assert_eq!(tables[0].headers[0], "configuration");
        assert_eq!(tables[0].headers.len(), 1 + report.metric_names.len());
    }

    #[test]
    fn a_sign_flip_not_computed_for_many_questions_crosses_json_as_nan() {
        let source = fixed();
        let mut many = set();
        many.questions = (0..30)
            .map(|at| Question {
                id: format!("q{at}"),
                question: if at % 2 == 0 { "alpha" } else { "beta" }.into(),
                gold: vec![if at % 3 == 0 {
                    "a/alpha.rs"
                } else {
                    "b/beta.rs"
                }
                .into()],
                gold_lines: Vec::new(),
            })
            .collect();
        let report = GridRun::new("q.jsonl", many, settings(), &source.chunkers())
            .unwrap()
            .run(&source)
            .unwrap();
        assert!(report.paired.iter().all(|p| p.sign_flip_p.is_nan()));
        let json = serde_json::to_string(&report).unwrap();
        let back: GridReport = serde_json::from_str(&json).unwrap();
        assert!(back.paired.iter().all(|p| p.sign_flip_p.is_nan()));
        let same = back.paired.iter().zip(&report.paired).all(|(b, r)| {
            b.sentence == r.sentence && (b.mean - r.mean).abs() < 1e-12 && b.wins == r.wins
        });
        assert!(same && back.paired.len() == report.paired.len());
        assert_eq!(back.metrics.len(), report.metrics.len());
    }

    #[test]
    fn settings_naming_what_the_grid_lacks_are_refused_by_name() {
        let available = [Chunker::Structural];
        let refused = |settings: GridSettings| {
            GridRun::new("q.jsonl", set(), settings, &available)
                .unwrap_err()
                .to_string()
        };
        let message = refused(GridSettings {
            chunkers: vec![Chunker::Window],
            ..GridSettings::default()
        });
        assert!(
            message.contains("window") && message.contains("structural"),
            "{message}"
        );
        let message = refused(GridSettings {
            pairs: vec![("structural/bm25".into(), "window/bm25".into())],
            ..GridSettings::default()
        });
        assert!(
            message.contains("pair") && message.contains("window/bm25"),
            "{message}"
        );
        let message = refused(GridSettings {
            depth: 0,
            ..GridSettings::default()
        });
        assert!(message.contains("depth"), "{message}");
        let message = GridRun::new(
            "q.jsonl",
            QuestionSet::default(),
            GridSettings::default(),
            &available,
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.contains("q.jsonl") && message.contains("no questions"),
            "{message}"
        );
        assert!(GridRun::new("q.jsonl", set(), GridSettings::default(), &[]).is_err());
    }

    #[test]
    fn an_unfinished_run_has_no_report() {
        let source = fixed();
        let mut run = GridRun::new("q.jsonl", set(), settings(), &source.chunkers()).unwrap();
        run.step(&source).unwrap();
        assert!(run.report().is_err());
    }
}
