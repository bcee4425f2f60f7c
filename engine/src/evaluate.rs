//! The CodeAtlas evaluation harness (`../shared/seeds/004_*.txt`) over chunk rankings: every
//! configuration (chunker × retriever × per-file cap) is an arm of one study whose cases are the
//! questions, so every metric, interval, pair and sentence of [`crate::unit_metrics`] applies.
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

use crate::chunk_search::{cap_per_file, ranking_units};
use crate::code_chunks::{Chunker, CodeChunk};
use crate::error::{Error, Result};
use crate::lexical::live::Question;
use crate::stats::{BootstrapConfig, PyRandom};
use crate::study::{Arm, ArmOrigin, Case, Study};
use crate::unit_metrics::{case_value, Metric, Relevance};

/// The ranker over a chunking's chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Retriever {
    /// Chunk BM25 (`lexical::chunk_index`).
    Bm25,
}

impl Retriever {
    /// Every retriever this build has.
    pub const ALL: [Retriever; 1] = [Retriever::Bm25];

    /// Its name (`bm25`).
    pub fn name(self) -> &'static str {
        match self {
            Retriever::Bm25 => "bm25",
        }
    }

    /// The retriever with this name.
    pub fn from_name(name: &str) -> Option<Retriever> {
        Retriever::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// One configuration of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Configuration {
    /// The chunking.
    pub chunker: Chunker,
    /// The ranker.
    pub retriever: Retriever,
    /// At most this many chunks of a file at the head (none: uncapped).
    pub cap: Option<usize>,
}

impl Configuration {
    /// `structural/bm25`, `structural/bm25/cap2`.
    pub fn name(&self) -> String {
        let base = format!("{}/{}", self.chunker.name(), self.retriever.name());
        match self.cap {
            Some(cap) => format!("{base}/cap{cap}"),
            None => base,
        }
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
            gold.sort();
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
        .map(|(at, case)| (crate::archive::sha256_hex(case.id.as_bytes()), at))
        .collect();
    order.sort();
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

/// One share compared between the missed and the hit questions.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShareDifference {
    /// `documentation share` or `wrong-project share`.
    pub share: String,
    /// Its mean over the missed questions.
    pub misses_mean: f64,
    /// Its mean over the hit questions.
    pub hits_mean: f64,
    /// misses − hits.
    pub difference: f64,
    /// 2.5th percentile of the resampled differences.
    pub ci_low: f64,
    /// 97.5th percentile.
    pub ci_high: f64,
    /// The comparison in words.
    pub sentence: String,
}

/// What fills the top k of a configuration's misses, against its hits.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FailureAnalysis {
    /// The configuration (arm).
    pub arm: String,
    /// The cut-off.
    pub k: usize,
    /// Questions with no relevant chunk in the top k.
    pub misses: usize,
    /// Questions with one.
    pub hits: usize,
    /// The documentation share and the wrong-project share.
    pub shares: Vec<ShareDifference>,
}

/// Whether a path is documentation: Markdown or reStructuredText, or under a `docs`/`doc`
/// directory.
pub fn is_documentation(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".rst"]
        .iter()
        .any(|ext| lower.ends_with(ext))
        || lower
            .split('/')
            .rev()
            .skip(1)
            .any(|dir| dir == "docs" || dir == "doc")
}

/// The failure analysis of `arm` at `k` (see the module docs); the bootstrap draws with
/// `bootstrap`'s seed, the misses' questions first, then the hits', in each resample.
pub fn failure_analysis(
    study: &Study,
    arm: &str,
    k: usize,
    relevance: Relevance,
    project_of: &dyn Fn(&str) -> String,
    bootstrap: BootstrapConfig,
) -> Result<FailureAnalysis> {
    let bootstrap = bootstrap.validated()?;
    let index = study.arm_index(arm)?;
    let arm_ref = &study.arms[index];
    let (mut misses, mut hits): (Vec<[f64; 2]>, Vec<[f64; 2]>) = (Vec::new(), Vec::new());
    for (at, case) in study.cases.iter().enumerate() {
        let hit = case_value(arm_ref, at, case, Metric::Hit(k), relevance)? > 0.0;
        let units = arm_ref.units.get(at).map(Vec::as_slice).unwrap_or_default();
        let top = &units[..k.min(units.len())];
        let shares = if top.is_empty() {
            [0.0, 0.0]
        } else {
            let docs = top.iter().filter(|u| is_documentation(&u.path)).count();
            let elsewhere = top
                .iter()
                .filter(|u| project_of(&u.path) != case.repo)
                .count();
            [
                docs as f64 / top.len() as f64,
                elsewhere as f64 / top.len() as f64,
            ]
        };
        if hit {
            hits.push(shares);
        } else {
            misses.push(shares);
        }
    }
    let mut shares = Vec::new();
    for (which, share) in ["documentation share", "wrong-project share"]
        .iter()
        .enumerate()
    {
        let m: Vec<f64> = misses.iter().map(|s| s[which]).collect();
        let h: Vec<f64> = hits.iter().map(|s| s[which]).collect();
        shares.push(difference(share, &m, &h, bootstrap));
    }
    Ok(FailureAnalysis {
        arm: arm.to_string(),
        k,
        misses: misses.len(),
        hits: hits.len(),
        shares,
    })
}

/// `1 miss`, `2 misses`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// misses − hits with the two-sample percentile bootstrap (each group resampled within itself).
fn difference(
    share: &str,
    misses: &[f64],
    hits: &[f64],
    bootstrap: BootstrapConfig,
) -> ShareDifference {
    let (misses_mean, hits_mean) = (mean(misses), mean(hits));
    let observed = misses_mean - hits_mean;
    let (ci_low, ci_high, sentence) = if misses.is_empty() || hits.is_empty() {
        (
            f64::NAN,
            f64::NAN,
            format!(
                "{share}: no interval, with {} and {}",
                counted(misses.len(), "miss", "misses"),
                counted(hits.len(), "hit", "hits")
            ),
        )
    } else {
        let mut rng = PyRandom::new(bootstrap.seed);
        let mut draws: Vec<f64> = (0..bootstrap.resamples)
            .map(|_| {
                let m: f64 = (0..misses.len())
                    .map(|_| misses[rng.choice_index(misses.len())])
                    .sum::<f64>()
                    / misses.len() as f64;
                let h: f64 = (0..hits.len())
                    .map(|_| hits[rng.choice_index(hits.len())])
                    .sum::<f64>()
                    / hits.len() as f64;
                m - h
            })
            .collect();
        draws.sort_by(f64::total_cmp);
        let r = draws.len() as f64;
        let (low, high) = (draws[(0.025 * r) as usize], draws[(0.975 * r) as usize - 1]);
        let verdict = if low > 0.0 || high < 0.0 {
            "the interval excludes zero"
        } else {
            "the interval includes zero, so this is within noise at this sample size"
        };
        (
            low,
            high,
            format!(
                "{share} {observed:+.2} among misses against hits ({misses_mean:.2} over {}, \
                 {hits_mean:.2} over {}; 95% interval {low:+.2} to {high:+.2}); {verdict}.",
                counted(misses.len(), "miss", "misses"),
                counted(hits.len(), "hit", "hits")
            ),
        )
    };
    ShareDifference {
        share: share.to_string(),
        misses_mean,
        hits_mean,
        difference: observed,
        ci_low,
        ci_high,
        sentence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            wrong.ci_low > 0.0 && wrong.sentence.contains("excludes zero"),
            "{wrong:?}"
        );
        let docs = &analysis.shares[0];
        assert_eq!((docs.misses_mean, docs.hits_mean), (0.5, 0.25));
        assert!(is_documentation("b/docs/y.rs") && is_documentation("README.rst"));
        assert!(!is_documentation("src/docs.rs"));
    }
}
