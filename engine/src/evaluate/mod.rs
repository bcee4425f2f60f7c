//! The CodeAtlas evaluation harness (`../shared/seeds/004_*.txt`) over chunk rankings: every
//! configuration (chunker × retriever × per-file cap) is an arm of one study whose cases are the
//! questions, so every metric, interval, pair and sentence of [`crate::scoring::unit_metrics`] applies.
//!
//! - **Configurations** ([`Configuration`]) are named `chunker/retriever` or
//!   `chunker/retriever/capN` (`structural/bm25/cap2`).
//! - **Relevance**: a chunk is relevant when its file is gold, unless every question carries gold
//!   spans; then when it overlaps one ([`relevance_of`]).
//! - **Dev/test split** ([`dev_test_split`]): the questions sorted by the SHA-256 of their id, the
//!   first half (rounded up) dev, the rest test — deterministic and independent of file order. A
//!   setting is chosen on dev ([`choose_on_dev`]: the highest dev mean of one metric, ties to the
//!   first listed) and then reported on all questions with its interval.
//! - **Failure analysis** ([`failure_analysis`]): for a configuration at k, what fills the top k
//!   of the questions it misses against those it hits — the share of documentation and the share
//!   from another project than the gold's — each a difference of means (misses − hits) with a 95%
//!   percentile bootstrap interval that resamples each group's questions.
//! - **The grid** ([`GridRun`]): all of the above for one question set and one set of
//!   [`GridSettings`], as a run of steps the CLI drives to the end and the browser's worker
//!   drives between frames.
//! - **A labelling task** ([`label_task`]) for the second labelling round CodeAtlas specified:
//!   each question's pool from the arms' top K files and its gold, and each labeller's order;
//!   its disputes and adjudication ([`adjudication`]) and what the adjudicated round gives the
//!   study ([`adjudication_report`]): qrels, the new gold, the original gold's agreement.

pub mod adjudication;
pub mod adjudication_report;
mod failures;
mod grid;
pub mod label_task;
mod report_tables;

pub use failures::{
    counted, failure_analysis, failure_analysis_drawn, is_documentation, FailureAnalysis,
    ShareDifference, TwoSampleDraws,
};
pub use grid::{GridReport, GridRun, GridSettings, GridSplit, GridStep, SplitChoice};
pub use report_tables::{grid_tables, headline_table, metric_column, HEADLINE_METRICS};

use crate::corpus::code_chunks::{Chunker, CodeChunk};
use crate::error::{Error, Result};
use crate::load::question_set::Question;
pub use crate::retrieval::chunk_search::Retriever;
use crate::retrieval::chunk_search::{cap_per_file, ranking_units};
pub use crate::retrieval::cross_encoder::RerankInput;
use crate::scoring::unit_metrics::{case_value, Metric, Relevance};
use crate::stable_sort;
use crate::study::{Arm, ArmOrigin, Case, Study};

/// One configuration of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Configuration {
    /// The chunking.
    pub chunker: Chunker,
    /// The ranker.
    pub retriever: Retriever,
    /// At most this many chunks of a file at the head (none: uncapped).
    pub cap: Option<usize>,
    /// The cross-encoder input that reorders the ranking's head (none: not reranked).
    pub reranker: Option<RerankInput>,
}

impl Configuration {
    /// `structural/bm25`, `structural/bm25/cap2`, `structural/hybrid/cross-encoder:text`.
    pub fn name(&self) -> String {
        let mut name = format!("{}/{}", self.chunker.name(), self.retriever.name());
        if let Some(cap) = self.cap {
            name += &format!("/cap{cap}");
        }
        if let Some(input) = self.reranker {
            name += &format!("/{}", input.name());
        }
        name
    }

    /// The configuration without its cap.
    pub fn uncapped(&self) -> Configuration {
        Configuration { cap: None, ..*self }
    }
}

/// Span relevance when every question has gold spans, else file relevance.
pub fn relevance_of(questions: &[Question]) -> Relevance {
    if !questions.is_empty() && questions.iter().all(|q| !q.gold_lines.is_empty()) {
        Relevance::Span
    } else {
        Relevance::File
    }
}

/// One configuration with its chunk table and each question's uncapped ranking.
pub type Ranked<'a> = (Configuration, &'a [CodeChunk], &'a [Vec<usize>]);

/// The study of the questions (cluster: the project of each question's first gold file, by
/// `project_of`) with one arm per configuration. `ranked` gives, per configuration, its chunk
/// table and each question's uncapped ranking (positions in the table, best first); the cap is
/// applied here and every ranking cut at `depth`.
pub fn evaluation_study(
    questions: &[Question],
    project_of: &dyn Fn(&str) -> String,
    ranked: &[Ranked],
    depth: usize,
) -> Result<Study> {
    let cases = questions
        .iter()
        .map(|q| {
            let project = q.gold.first().map_or_else(String::new, |p| project_of(p));
            let mut case = Case::from_spans(q.id.clone(), project, q.gold_lines.clone());
            let mut gold = q.gold.clone();
            stable_sort::sort(&mut gold);
            gold.dedup();
            case.gold_files = gold;
            case
        })
        .collect();
    let mut study = Study {
        title: format!("CodeAtlas grid: {} configurations", ranked.len()),
        cases,
        arms: Vec::new(),
        policy: None,
        issue_source: None,
    };
    for (config, chunks, rankings) in ranked {
        if rankings.len() != questions.len() {
            return Err(Error::field(
                &config.name(),
                "rankings",
                format!(
                    "{} rankings for {} questions",
                    rankings.len(),
                    questions.len()
                ),
            ));
        }
        let units = rankings
            .iter()
            .map(|ranking| {
                let mut ranking = match config.cap {
                    Some(cap) => cap_per_file(ranking, chunks, cap)?,
                    None => ranking.clone(),
                };
                ranking.truncate(depth);
                ranking_units(&ranking, chunks)
            })
            .collect::<Result<Vec<_>>>()?;
        let name = config.name();
        study.add_arm(Arm::of_units(&name, &name, ArmOrigin::Archived, units))?;
    }
    Ok(study)
}

/// The dev half and the test half of the cases, as case indices in study order.
pub fn dev_test_split(study: &Study) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<(String, usize)> = study
        .cases
        .iter()
        .enumerate()
        .map(|(at, case)| (crate::checksum::sha256_hex(case.id.as_bytes()), at))
        .collect();
    stable_sort::sort(&mut order);
    let dev_len = order.len().div_ceil(2);
    let mut dev: Vec<usize> = order[..dev_len].iter().map(|(_, at)| *at).collect();
    let mut test: Vec<usize> = order[dev_len..].iter().map(|(_, at)| *at).collect();
    dev.sort_unstable();
    test.sort_unstable();
    (dev, test)
}

/// The mean of `metric` for arm `arm` over the cases `cases`.
pub fn mean_over(
    study: &Study,
    arm: &str,
    metric: Metric,
    relevance: Relevance,
    cases: &[usize],
) -> Result<f64> {
    let arm = study.arm(arm)?;
    if cases.is_empty() {
        return Ok(0.0);
    }
    let mut total = 0.0;
    for &at in cases {
        total += case_value(arm, at, &study.cases[at], metric, relevance)?;
    }
    Ok(total / cases.len() as f64)
}

/// Of `candidates` (arm names), the one with the highest mean of `metric` on the `dev` cases
/// (ties to the first listed), with its dev mean.
pub fn choose_on_dev(
    study: &Study,
    candidates: &[String],
    metric: Metric,
    relevance: Relevance,
    dev: &[usize],
) -> Result<(String, f64)> {
    let mut best: Option<(String, f64)> = None;
    for name in candidates {
        let mean = mean_over(study, name, metric, relevance, dev)?;
        if best.as_ref().is_none_or(|(_, b)| mean > *b) {
            best = Some((name.clone(), mean));
        }
    }
    best.ok_or_else(|| Error::setting("candidates", "none", "at least one configuration"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::stats::BootstrapConfig;
    use crate::study::GoldSpan;

    fn chunk(path: &str, start: u32) -> CodeChunk {
        CodeChunk {
            path: path.into(),
            start_line: start,
            end_line: start + 4,
            kind: "function".into(),
            name: String::new(),
            tokens: 5,
        }
    }

    fn question(id: &str, gold: &str) -> Question {
        Question {
            id: id.into(),
            question: "q".into(),
            gold: vec![gold.into()],
            gold_lines: Vec::new(),
        }
    }

    fn project(path: &str) -> String {
        path.split('/').next().unwrap_or(path).to_string()
    }

    #[test]
    fn each_configuration_is_an_arm_capped_and_cut() {
        let chunks = vec![chunk("a/x.rs", 1), chunk("a/x.rs", 6), chunk("b/y.rs", 1)];
        let questions = [question("q1", "b/y.rs"), question("q2", "a/x.rs")];
        let rankings = vec![vec![0, 1, 2], vec![2, 0]];
        let plain = Configuration {
            chunker: Chunker::Structural,
            retriever: Retriever::Bm25,
            cap: None,
            reranker: None,
        };
        let capped = Configuration {
            cap: Some(1),
            ..plain
        };
        let study = evaluation_study(
            &questions,
            &project,
            &[(plain, &chunks, &rankings), (capped, &chunks, &rankings)],
            2,
        )
        .unwrap();
        assert_eq!(
            study.arm_names(),
            ["structural/bm25", "structural/bm25/cap1"]
        );
        assert_eq!(study.cases[0].repo, "b");
        let first =
            |arm: usize, case: usize| -> Vec<GoldSpan> { study.arms[arm].units[case].clone() };
        // Uncapped, cut at 2: a/x.rs twice; capped: a/x.rs then b/y.rs.
        assert_eq!(
            first(0, 0).iter().map(|u| u.start_line).collect::<Vec<_>>(),
            [1, 6]
        );
        assert_eq!(
            first(1, 0)
                .iter()
                .map(|u| u.path.as_str())
                .collect::<Vec<_>>(),
            ["a/x.rs", "b/y.rs"]
        );
        // Hit@2 for q1: the cap brings b/y.rs in.
        let hit =
            |arm: &str| mean_over(&study, arm, Metric::Hit(2), Relevance::File, &[0]).unwrap();
        assert_eq!(
            (hit("structural/bm25"), hit("structural/bm25/cap1")),
            (0.0, 1.0)
        );
        let (chosen, dev) = choose_on_dev(
            &study,
            &["structural/bm25".into(), "structural/bm25/cap1".into()],
            Metric::Hit(2),
            Relevance::File,
            &[0, 1],
        )
        .unwrap();
        assert_eq!((chosen.as_str(), dev), ("structural/bm25/cap1", 1.0));
    }

    #[test]
    fn the_split_is_by_the_hash_of_the_id_and_halves_the_questions() {
        let questions: Vec<Question> = (0..7)
            .map(|i| question(&format!("q{i}"), "a/x.rs"))
            .collect();
        let study = evaluation_study(&questions, &project, &[], 1).unwrap();
        let (dev, test) = dev_test_split(&study);
        assert_eq!((dev.len(), test.len()), (4, 3));
        let mut all: Vec<usize> = dev.iter().chain(&test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..7).collect::<Vec<_>>());
        // The same ids in another order split the same way.
        let mut reversed = questions.clone();
        reversed.reverse();
        let again = evaluation_study(&reversed, &project, &[], 1).unwrap();
        let ids = |s: &Study, cases: &[usize]| -> Vec<String> {
            let mut ids: Vec<String> = cases.iter().map(|&c| s.cases[c].id.clone()).collect();
            ids.sort();
            ids
        };
        assert_eq!(ids(&study, &dev), ids(&again, &dev_test_split(&again).0));
    }

    #[test]
    fn misses_filled_from_another_project_show_in_the_wrong_project_share() {
        // Gold in project a; q1 and q2 miss with b's chunks, q3 and q4 hit with a's.
        let chunks = vec![
            chunk("a/x.rs", 1),
            chunk("b/docs/y.md", 1),
            chunk("b/z.rs", 1),
        ];
        let questions: Vec<Question> = (1..=4)
            .map(|i| question(&format!("q{i}"), "a/x.rs"))
            .collect();
        let rankings = vec![vec![1, 2], vec![2, 1], vec![0, 2], vec![0, 1]];
        let config = Configuration {
            chunker: Chunker::Window,
            retriever: Retriever::Bm25,
            cap: None,
            reranker: None,
        };
        let study =
            evaluation_study(&questions, &project, &[(config, &chunks, &rankings)], 10).unwrap();
        let bootstrap = BootstrapConfig {
            resamples: 1000,
            seed: 0,
        };
        let analysis = failure_analysis(
            &study,
            "window/bm25",
            2,
            Relevance::File,
            &project,
            bootstrap,
        )
        .unwrap();
        assert_eq!((analysis.misses, analysis.hits), (2, 2));
        let wrong = &analysis.shares[1];
        // Misses: all of their top 2 from b (1.0); hits: one of two (0.5).
        assert_eq!(
            (wrong.misses_mean, wrong.hits_mean, wrong.difference),
            (1.0, 0.5, 0.5)
        );
        assert!(
            wrong.ci_low.is_some_and(|low| low > 0.0) && wrong.sentence.contains("excludes zero"),
            "{wrong:?}"
        );
        let docs = &analysis.shares[0];
        assert_eq!((docs.misses_mean, docs.hits_mean), (0.5, 0.25));
        assert!(is_documentation("b/docs/y.rs") && is_documentation("README.rst"));
        assert!(!is_documentation("src/docs.rs"));
    }
}
