//! Per-case score tables: a study of values, not rankings.
//!
//! Some papers publish one row per case with a score per arm and metric (CodeNib's
//! `jev_candidates_cases.csv`: 100 issues, 25 repositories). Such a table opens as a study of
//! values: every column's mean with its cluster-bootstrap interval, and paired comparisons of two
//! columns, but nothing that needs a ranking.
//!
//! A [`Mapping`] says how the columns read, declaratively, so another paper's table opens the same
//! way (JSON, every field optional except `id` and `cluster`):
//!
//! ```json
//! {"id": "instance_id", "cluster": "repo", "labels": ["language_group"],
//!  "frames": {"base_aligned/": "base_aligned"}, "default_frame": "published",
//!  "cases_are": "issues", "headline_frame": "base_aligned", "headline_metric": "span_recall@5",
//!  "pairs": [["grep/typesafe/jev-1.13", "bm25/typesafe/jev-1.13"]]}
//! ```
//!
//! - `id`: the case id column (each id once); `cluster`: the column the bootstrap resamples by
//!   (CodeNib's repository); `labels`: other text columns, kept with each case.
//! - Every other column is a number for every case. A column whose name starts with a key of
//!   `frames` belongs to that frame (CodeNib's `base_aligned/`: the corrected label coordinates),
//!   the prefix removed; the rest belong to `default_frame`.
//! - What remains of the name splits at its **last** `/` into arm and metric
//!   (`grep/typesafe/jev-1.13/span_recall@5`: arm `grep/typesafe/jev-1.13`, metric
//!   `span_recall@5`). A name without `/` is a measure of the case itself (CodeNib's coverage
//!   audits, candidate counts): arm [`CASE_ARM`], metric the name.
//! - `cases_are`: the word the sentences use for cases (`issues`, `questions`).
//! - `headline_frame`, `headline_metric`, `pairs`: what is shown and compared when the reader
//!   asks for nothing else (CodeNib: base-aligned Recall@5 and the article's seven comparisons).
//!
//! The clusters are the `cluster` column's values, or each case alone
//! ([`ScoreTable::clustered_by_case`], as CodeAtlas resamples questions).

use crate::stable_sort::Sorted;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::scoring::numpy_bootstrap;
use crate::scoring::paired::{Outcome, Units};
use crate::scoring::stats::{cluster_bootstrap_with, BootstrapConfig, BootstrapRule, ClusterDraws};
use crate::table::{Cell, Table};

/// The arm of a column that measures the case rather than an arm.
pub const CASE_ARM: &str = "case";

/// How a score table's columns read (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// The case id column.
    pub id: String,
    /// The column the bootstrap resamples by.
    pub cluster: String,
    /// Other text columns, kept as labels.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Column-name prefixes that name a frame, and the frame each names.
    #[serde(default)]
    pub frames: BTreeMap<String, String>,
    /// The frame of columns without a frame prefix.
    #[serde(default = "default_frame")]
    pub default_frame: String,
    /// The word for cases in sentences.
    #[serde(default = "default_cases_are")]
    pub cases_are: String,
    /// The frame shown first (and scored when none is asked for); `default_frame` when absent.
    #[serde(default)]
    pub headline_frame: Option<String>,
    /// The metric shown first (and scored when none is asked for); every metric when absent.
    #[serde(default)]
    pub headline_metric: Option<String>,
    /// The comparisons the source reports, left − right (compared when none is asked for).
    #[serde(default)]
    pub pairs: Vec<(String, String)>,
    /// Whose bootstrap the source drew (default the fastindex paper's, Python's generator).
    #[serde(default = "python_rule")]
    pub bootstrap: BootstrapRule,
    /// The source's resamples and seed, the defaults when none are asked for.
    #[serde(default)]
    pub resamples: Option<usize>,
    /// The source's seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// How the source writes its means and differences (default fractions; CodeNib's article:
    /// percentages and percentage points).
    #[serde(default)]
    pub units: Units,
}

fn python_rule() -> BootstrapRule {
    BootstrapRule::Python
}

fn default_frame() -> String {
    "published".into()
}

fn default_cases_are() -> String {
    "cases".into()
}

impl Mapping {
    /// CodeNib's `jev_candidates_cases.csv`: cases by `instance_id`, clustered by `repo`, the
    /// `base_aligned/` columns in the corrected label frame and the others `published`.
    pub fn codenib() -> Mapping {
        Mapping {
            id: "instance_id".into(),
            cluster: "repo".into(),
            labels: vec!["language_group".into()],
            frames: [("base_aligned/".into(), "base_aligned".into())]
                .into_iter()
                .sorted_map(),
            default_frame: default_frame(),
            cases_are: "issues".into(),
            headline_frame: Some("base_aligned".into()),
            headline_metric: Some("span_recall@5".into()),
            // The article's claims: each reranker's route improvement, and Jev against the
            // dedicated rerankers within each pool.
            pairs: [
                ("grep/typesafe/jev-1.13", "bm25/typesafe/jev-1.13"),
                (
                    "grep/Qwen/Qwen3-Reranker-0.6B",
                    "bm25/Qwen/Qwen3-Reranker-0.6B",
                ),
                ("grep/Qwen/Qwen3-Reranker-4B", "bm25/Qwen/Qwen3-Reranker-4B"),
                ("grep/typesafe/jev-1.13", "grep/Qwen/Qwen3-Reranker-4B"),
                ("bm25/typesafe/jev-1.13", "bm25/Qwen/Qwen3-Reranker-4B"),
                ("grep/typesafe/jev-1.13", "grep/Qwen/Qwen3-Reranker-0.6B"),
                ("bm25/typesafe/jev-1.13", "bm25/Qwen/Qwen3-Reranker-0.6B"),
            ]
            .iter()
            .map(|(l, r)| (l.to_string(), r.to_string()))
            .collect(),
            // The article's own rule (`paired_bootstrap` in its benchmark script).
            bootstrap: BootstrapRule::Numpy,
            resamples: Some(numpy_bootstrap::CODENIB_RESAMPLES),
            seed: Some(numpy_bootstrap::CODENIB_SEED),
            units: Units::Percent,
        }
    }

    /// The source's bootstrap settings where it records them, else `fallback`'s.
    pub fn bootstrap_config(&self, fallback: BootstrapConfig) -> BootstrapConfig {
        BootstrapConfig {
            resamples: self.resamples.unwrap_or(fallback.resamples),
            seed: self.seed.unwrap_or(fallback.seed),
        }
    }

    /// The built-in mapping whose id and cluster columns the table's header line has (CodeNib's),
    /// or `None`: the reader must then say how the columns read.
    pub fn detect(header: &str) -> Option<Mapping> {
        let columns: Vec<&str> = header.trim_end().split(',').map(str::trim).collect();
        let codenib = Mapping::codenib();
        (columns.contains(&codenib.id.as_str()) && columns.contains(&codenib.cluster.as_str()))
            .then_some(codenib)
    }

    /// The frame to show when none is asked for.
    pub fn headline_frame(&self) -> &str {
        self.headline_frame
            .as_deref()
            .unwrap_or(&self.default_frame)
    }

    /// Reads a mapping from JSON (`file` names it in errors).
    pub fn from_json(file: &str, text: &str) -> Result<Mapping> {
        crate::json_path::from_slice(text.as_bytes())
            .map_err(|err| Error::field(file, err.path, err.error.to_string()))
    }
}

/// One case (row).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreCase {
    /// Its id.
    pub id: String,
    /// Its cluster.
    pub cluster: String,
    /// Its label columns' values.
    pub labels: BTreeMap<String, String>,
}

/// One score column: a frame, an arm, a metric, a value per case.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreColumn {
    /// The column's name in the file.
    pub name: String,
    /// Its frame.
    pub frame: String,
    /// Its arm ([`CASE_ARM`] for a measure of the case).
    pub arm: String,
    /// Its metric.
    pub metric: String,
    /// One value per case, in case order.
    pub values: Vec<f64>,
}

/// A score table as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreTable {
    /// The file it came from.
    pub file: String,
    /// How its columns read.
    pub mapping: Mapping,
    /// The cases, in file order.
    pub cases: Vec<ScoreCase>,
    /// The score columns, in file order.
    pub columns: Vec<ScoreColumn>,
}

/// A column's mean with its 95% percentile cluster-bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSummary {
    /// The arm.
    pub arm: String,
    /// The metric.
    pub metric: String,
    /// The frame.
    pub frame: String,
    /// The mean over cases.
    pub mean: f64,
    /// 2.5th percentile of the resampled means.
    pub ci_low: f64,
    /// 97.5th percentile of the resampled means.
    pub ci_high: f64,
    /// Cases.
    pub n: usize,
}

/// Two columns of the same frame and metric compared over the same cases (left − right).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScorePair {
    /// The left arm.
    pub left: String,
    /// The right arm.
    pub right: String,
    /// The metric.
    pub metric: String,
    /// The frame.
    pub frame: String,
    /// Cases.
    pub n: usize,
    /// Clusters.
    pub clusters: usize,
    /// The left arm's mean.
    pub left_mean: f64,
    /// The right arm's mean.
    pub right_mean: f64,
    /// Mean of left − right.
    pub mean: f64,
    /// 2.5th percentile of the resampled mean differences.
    pub ci_low: f64,
    /// 97.5th percentile of the resampled mean differences.
    pub ci_high: f64,
    /// Cases where the left arm is higher.
    pub wins: usize,
    /// Cases where the right arm is higher.
    pub losses: usize,
    /// Cases where they are equal.
    pub ties: usize,
    /// Exact two-sided sign test over the cases that differ.
    pub sign_test_p: f64,
    /// The comparison in words.
    pub sentence: String,
}

/// The whole study scored: every column's summary, and every pair of arms of each frame and
/// metric (each unordered pair once, in column order; measures of the case are not arms).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyScores {
    /// Every column's mean and interval, in column order.
    pub summaries: Vec<CellSummary>,
    /// Every pair.
    pub pairs: Vec<ScorePair>,
}

/// Reads a score table from CSV text (`file` names it in errors, with the line of a bad value).
pub fn load_score_table(file: &str, text: &str, mapping: &Mapping) -> Result<ScoreTable> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|err| Error::Parse {
            file: file.to_string(),
            message: format!("not CSV: {err}"),
        })?
        .iter()
        .map(str::to_string)
        .collect();
    let position = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            Error::field(
                file,
                name,
                format!("no such column; the columns are {}", headers.join(", ")),
            )
        })
    };
    let (id_at, cluster_at) = (position(&mapping.id)?, position(&mapping.cluster)?);
    let label_at: Vec<(String, usize)> = mapping
        .labels
        .iter()
        .map(|label| Ok((label.clone(), position(label)?)))
        .collect::<Result<_>>()?;
    let special: BTreeSet<usize> = [id_at, cluster_at]
        .into_iter()
        .chain(label_at.iter().map(|(_, at)| *at))
        .sorted_set();
    let mut columns: Vec<(usize, ScoreColumn)> = Vec::new();
    let mut seen_columns = BTreeSet::new();
    for (at, name) in headers.iter().enumerate() {
        if special.contains(&at) {
            continue;
        }
        let column =
            classify(name, mapping).map_err(|message| Error::field(file, name.clone(), message))?;
        if !seen_columns.insert((
            column.frame.clone(),
            column.arm.clone(),
            column.metric.clone(),
        )) {
            return Err(Error::field(
                file,
                name.clone(),
                format!(
                    "a second column for arm {:?}, metric {:?} in frame {:?}",
                    column.arm, column.metric, column.frame
                ),
            ));
        }
        columns.push((at, column));
    }
    let mut cases = Vec::new();
    let mut ids = BTreeSet::new();
    for (row, record) in reader.records().enumerate() {
        let line = row + 2;
        let record = record.map_err(|err| Error::line(file, line, format!("not CSV: {err}")))?;
        let cell = |at: usize| record.get(at).unwrap_or_default().to_string();
        let id = cell(id_at);
        if id.is_empty() {
            return Err(Error::line(
                file,
                line,
                format!("column {}: empty case id", mapping.id),
            ));
        }
        if !ids.insert(id.clone()) {
            return Err(Error::line(
                file,
                line,
                format!("case {id:?} appears twice"),
            ));
        }
        for (at, column) in &mut columns {
            let text = cell(*at);
            let value: f64 = text.trim().parse().map_err(|_| {
                Error::line(
                    file,
                    line,
                    format!(
                        "column {}: {text:?} is not a number (a text column goes in the \
                         mapping's labels)",
                        column.name
                    ),
                )
            })?;
            if !value.is_finite() {
                return Err(Error::line(
                    file,
                    line,
                    format!("column {}: {text:?} is not a finite number", column.name),
                ));
            }
            column.values.push(value);
        }
        cases.push(ScoreCase {
            id,
            cluster: cell(cluster_at),
            labels: label_at
                .iter()
                .map(|(name, at)| (name.clone(), cell(*at)))
                .sorted_map(),
        });
    }
    if cases.is_empty() {
        return Err(Error::Parse {
            file: file.to_string(),
            message: "no cases (only a header line)".into(),
        });
    }
    Ok(ScoreTable {
        file: file.to_string(),
        mapping: mapping.clone(),
        cases,
        columns: columns.into_iter().map(|(_, column)| column).collect(),
    })
}

/// A column's frame, arm and metric from its name.
fn classify(name: &str, mapping: &Mapping) -> std::result::Result<ScoreColumn, String> {
    let (frame, rest) = mapping
        .frames
        .iter()
        .find_map(|(prefix, frame)| name.strip_prefix(prefix.as_str()).map(|rest| (frame, rest)))
        .unwrap_or((&mapping.default_frame, name));
    let (arm, metric) = match rest.rsplit_once('/') {
        Some((arm, metric)) if !arm.is_empty() && !metric.is_empty() => (arm, metric),
        Some(_) => return Err("an empty arm or metric around its last '/'".into()),
        None => (CASE_ARM, rest),
    };
    Ok(ScoreColumn {
        name: name.to_string(),
        frame: frame.clone(),
        arm: arm.to_string(),
        metric: metric.to_string(),
        values: Vec::new(),
    })
}

impl ScoreTable {
    /// The frames, in order of first appearance.
    pub fn frames(&self) -> Vec<&str> {
        let mut frames: Vec<&str> = Vec::new();
        for column in &self.columns {
            if !frames.contains(&column.frame.as_str()) {
                frames.push(&column.frame);
            }
        }
        frames
    }

    /// The metrics of `frame`, in order of first appearance.
    pub fn metrics(&self, frame: &str) -> Vec<&str> {
        let mut metrics: Vec<&str> = Vec::new();
        for column in self.columns.iter().filter(|c| c.frame == frame) {
            if !metrics.contains(&column.metric.as_str()) {
                metrics.push(&column.metric);
            }
        }
        metrics
    }

    /// The columns of `frame` and `metric`, in file order.
    pub fn columns_of<'a>(
        &'a self,
        frame: &'a str,
        metric: &'a str,
    ) -> impl Iterator<Item = &'a ScoreColumn> {
        self.columns
            .iter()
            .filter(move |c| c.frame == frame && c.metric == metric)
    }

    /// The column of `arm`, `metric` in `frame`; the error lists what the frame has.
    pub fn column(&self, frame: &str, arm: &str, metric: &str) -> Result<&ScoreColumn> {
        if !self.frames().contains(&frame) {
            return Err(Error::setting(
                "frame",
                frame,
                &format!("one of {}", self.frames().join(", ")),
            ));
        }
        self.columns
            .iter()
            .find(|c| c.frame == frame && c.arm == arm && c.metric == metric)
            .ok_or_else(|| {
                let arms: Vec<&str> = self
                    .columns_of(frame, metric)
                    .map(|c| c.arm.as_str())
                    .collect();
                if arms.is_empty() {
                    Error::setting(
                        "metric",
                        metric,
                        &format!("one of frame {frame}'s: {}", self.metrics(frame).join(", ")),
                    )
                } else {
                    Error::UnknownArm {
                        name: arm.to_string(),
                        known: format!("{} (metric {metric}, frame {frame})", arms.join(", ")),
                    }
                }
            })
    }

    /// Each case's value of `column`, grouped by cluster in sorted cluster order.
    fn by_cluster(&self, values: &[f64]) -> Vec<Vec<f64>> {
        let mut clusters: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (case, value) in self.cases.iter().zip(values) {
            clusters.entry(&case.cluster).or_default().push(*value);
        }
        clusters.into_values().collect()
    }

    /// The same table with every case its own cluster (a bootstrap over cases).
    pub fn clustered_by_case(mut self) -> ScoreTable {
        for case in &mut self.cases {
            case.cluster = case.id.clone();
        }
        self
    }

    /// The number of clusters.
    pub fn cluster_count(&self) -> usize {
        self.cases.iter().map(|c| &c.cluster).sorted_set().len()
    }

    /// The bootstrap draws for this table's clusters (shared by every summary and pair).
    pub fn draws(&self, bootstrap: BootstrapConfig) -> Result<ClusterDraws> {
        match self.mapping.bootstrap {
            BootstrapRule::Python => ClusterDraws::new(self.cluster_count(), bootstrap),
            BootstrapRule::Numpy => ClusterDraws::numpy(self.cluster_count(), bootstrap),
        }
    }

    /// A column's mean with its interval.
    pub fn summary(&self, column: &ScoreColumn, draws: &ClusterDraws) -> Result<CellSummary> {
        let interval = cluster_bootstrap_with(&self.by_cluster(&column.values), draws)?;
        Ok(CellSummary {
            arm: column.arm.clone(),
            metric: column.metric.clone(),
            frame: column.frame.clone(),
            mean: interval.mean,
            ci_low: interval.low,
            ci_high: interval.high,
            n: column.values.len(),
        })
    }

    /// Compares `left` and `right` on `metric` in `frame`.
    pub fn compare(
        &self,
        frame: &str,
        left: &str,
        right: &str,
        metric: &str,
        draws: &ClusterDraws,
    ) -> Result<ScorePair> {
        let (l, r) = (
            self.column(frame, left, metric)?,
            self.column(frame, right, metric)?,
        );
        let deltas: Vec<f64> = l.values.iter().zip(&r.values).map(|(a, b)| a - b).collect();
        let outcome = Outcome::of(&self.by_cluster(&deltas), draws)?;
        let mean_of = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
        let (left_mean, right_mean) = (mean_of(&l.values), mean_of(&r.values));
        let sentence = outcome.sentence(
            (left, left_mean),
            (right, right_mean),
            metric,
            &self.mapping.cases_are,
            self.mapping.units,
        );
        Ok(ScorePair {
            left: left.to_string(),
            right: right.to_string(),
            metric: metric.to_string(),
            frame: frame.to_string(),
            n: deltas.len(),
            clusters: self.cluster_count(),
            left_mean,
            right_mean,
            mean: outcome.interval.mean,
            ci_low: outcome.interval.low,
            ci_high: outcome.interval.high,
            wins: outcome.wins,
            losses: outcome.losses,
            ties: outcome.ties,
            sign_test_p: outcome.sign_test_p,
            sentence,
        })
    }

    /// One metric of one frame as a table: each arm's mean and interval.
    pub fn metric_table(&self, frame: &str, metric: &str, draws: &ClusterDraws) -> Result<Table> {
        let units = self.mapping.units;
        let mut table = Table::new(
            &format!(
                "{metric} by arm ({frame} frame, {} cases)",
                self.cases.len()
            ),
            &[
                "arm",
                &units.header(metric, false),
                "95% low",
                "95% high",
                "n",
            ],
        );
        let columns: Vec<&ScoreColumn> = self.columns_of(frame, metric).collect();
        if columns.is_empty() {
            self.column(frame, "", metric)?;
        }
        for column in columns {
            let cell = self.summary(column, draws)?;
            table.rows.push(vec![
                Cell::text(&column.arm),
                units.mean_cell(cell.mean),
                units.mean_cell(cell.ci_low),
                units.mean_cell(cell.ci_high),
                Cell::count(cell.n),
            ]);
        }
        Ok(table)
    }

    /// Scores the whole study with one set of draws (what the benchmark times).
    pub fn score_all(&self, bootstrap: BootstrapConfig) -> Result<StudyScores> {
        let draws = self.draws(bootstrap)?;
        let summaries = self
            .columns
            .iter()
            .map(|column| self.summary(column, &draws))
            .collect::<Result<Vec<_>>>()?;
        let mut pairs = Vec::new();
        for frame in self.frames() {
            for metric in self.metrics(frame) {
                let arms: Vec<&str> = self
                    .columns_of(frame, metric)
                    .filter(|c| c.arm != CASE_ARM)
                    .map(|c| c.arm.as_str())
                    .collect();
                for (at, left) in arms.iter().enumerate() {
                    for right in &arms[at + 1..] {
                        pairs.push(self.compare(frame, left, right, metric, &draws)?);
                    }
                }
            }
        }
        Ok(StudyScores { summaries, pairs })
    }

    /// Paired comparisons as a table, one row each.
    pub fn pair_table(&self, pairs: &[ScorePair]) -> Table {
        let units = self.mapping.units;
        let (mean, diff) = (
            |n: &str| units.header(n, false),
            |n: &str| units.header(n, true),
        );
        let mut shown = Table::new(
            &format!(
                "Paired comparisons (left − right), {}-cluster bootstrap",
                self.cluster_count()
            ),
            &[
                "left",
                "right",
                "metric",
                "frame",
                &mean("left mean"),
                &mean("right mean"),
                &diff("diff"),
                "95% low",
                "95% high",
                "wins",
                "losses",
                "ties",
                "sign p",
            ],
        );
        for pair in pairs {
            shown.rows.push(vec![
                Cell::text(&pair.left),
                Cell::text(&pair.right),
                Cell::text(&pair.metric),
                Cell::text(&pair.frame),
                units.mean_cell(pair.left_mean),
                units.mean_cell(pair.right_mean),
                units.difference_cell(pair.mean),
                units.difference_cell(pair.ci_low),
                units.difference_cell(pair.ci_high),
                Cell::count(pair.wins),
                Cell::count(pair.losses),
                Cell::count(pair.ties),
                Cell::p_value(pair.sign_test_p),
            ]);
        }
        shown
    }
}
