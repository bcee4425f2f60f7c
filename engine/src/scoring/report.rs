//! The re-scoring report: every arm at every requested k, the requested paired comparisons, their
//! sign-flip tests and the per-repository recall. The command line prints it (`routelens score`)
//! and the app renders the same numbers, so both always agree.

use crate::error::Result;
use crate::scoring::fusion::{add_fusion, RrfConfig};
use crate::scoring::metrics::{summarize, summarize_ks, ArmSummary};
use crate::scoring::paired::{compare_pairs, PairedComparison, PairedMetric};
use crate::scoring::stats::BootstrapConfig;
use crate::study::subset::Subset;
use crate::study::Study;

/// What to score. Every default is the paper's.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreConfig {
    /// Candidate limits (default 8 and 16).
    pub ks: Vec<usize>,
    /// Fusions to add, each a list of two or more arm names (default none; the archive loader
    /// already adds the paper's tree+fts5).
    pub fusions: Vec<Vec<String>>,
    /// RRF settings (default rank constant 60, depth 16).
    pub rrf: RrfConfig,
    /// Bootstrap settings (default 10,000 resamples, seed 0).
    pub bootstrap: BootstrapConfig,
    /// Paired comparisons, left minus right (default the paper's tree vs fts5; a study without
    /// both arms takes [`ScoreConfig::default_pairs`] instead). A pair naming an arm the study
    /// lacks is an error.
    pub pairs: Vec<(String, String)>,
}

/// The paper's paired comparison, left minus right: the default of a study that has both arms.
pub const PAPER_PAIR: (&str, &str) = ("tree", "fts5");

impl Default for ScoreConfig {
    fn default() -> Self {
        ScoreConfig {
            ks: vec![8, 16],
            fusions: Vec::new(),
            rrf: RrfConfig::default(),
            bootstrap: BootstrapConfig::default(),
            pairs: vec![(PAPER_PAIR.0.into(), PAPER_PAIR.1.into())],
        }
    }
}

impl ScoreConfig {
    /// The pairs a study is compared on when none is asked for: the paper's tree vs fts5 when
    /// the study has both arms, else none. A TREC run whose arms are `alpha` and `beta` is a study
    /// of rankings like the paper's and scores with no options beyond its files; only a pair asked
    /// for by name has to exist.
    pub fn default_pairs(study: &Study) -> Vec<(String, String)> {
        let (left, right) = PAPER_PAIR;
        if study.arm_index(left).is_ok() && study.arm_index(right).is_ok() {
            vec![(left.into(), right.into())]
        } else {
            Vec::new()
        }
    }
}

/// One arm at one k.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ArmRow {
    /// Arm name.
    pub arm: String,
    /// Candidate limit.
    pub k: usize,
    /// Mean file recall over cases.
    pub file_recall: f64,
    /// Gold-file occurrences found / all.
    pub micro_recall: f64,
    /// Cases with every gold file in the first k.
    pub full: usize,
    /// Cases with more than k gold files.
    pub ceiling: usize,
    /// Mean precision over cases.
    pub precision: f64,
}

impl From<&ArmSummary> for ArmRow {
    fn from(s: &ArmSummary) -> Self {
        ArmRow {
            arm: s.arm.clone(),
            k: s.k,
            file_recall: s.file_recall,
            micro_recall: s.micro_recall,
            full: s.full,
            ceiling: s.ceiling,
            precision: s.precision,
        }
    }
}

/// The sign-flip test of one pair at one k.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SignFlipRow {
    /// Left arm.
    pub left: String,
    /// Right arm.
    pub right: String,
    /// Candidate limit.
    pub k: usize,
    /// Exact two-sided p over repository-level contrasts.
    pub p: f64,
}

/// One arm's recall in one repository.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RepoRow {
    /// Repository.
    pub repo: String,
    /// Arm name.
    pub arm: String,
    /// Candidate limit.
    pub k: usize,
    /// Cases in the repository.
    pub n: usize,
    /// Mean file recall there.
    pub file_recall: f64,
}

/// The whole re-scoring result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScoreReport {
    /// Number of cases.
    pub cases: usize,
    /// Every arm at every k.
    pub arms: Vec<ArmRow>,
    /// Every requested pair at every k (file recall, all cases).
    pub paired: Vec<PairedComparison>,
    /// The sign-flip test of every requested pair at every k.
    pub sign_flip: Vec<SignFlipRow>,
    /// Every arm's recall per repository at every k.
    pub by_repo: Vec<RepoRow>,
}

/// Adds the configured fusions to a copy of the study and scores it.
pub fn score(study: &Study, config: &ScoreConfig) -> Result<(Study, ScoreReport)> {
    let mut study = study.clone();
    for parts in &config.fusions {
        add_fusion(&mut study, parts, config.rrf)?;
    }
    for &k in &config.ks {
        Study::check_k(k)?;
    }
    let all = Subset::All.indices(&study);
    let mut report = ScoreReport {
        cases: study.cases.len(),
        arms: Vec::new(),
        paired: Vec::new(),
        sign_flip: Vec::new(),
        by_repo: Vec::new(),
    };
    for &k in &config.ks {
        for arm in 0..study.arms.len() {
            report
                .arms
                .push(ArmRow::from(&summarize(&study, arm, k, &all)));
        }
    }
    for &k in &config.ks {
        let pairs = compare_pairs(
            &study,
            &config.pairs,
            k,
            PairedMetric::FileRecall,
            &all,
            config.bootstrap,
        )?;
        for paired in pairs {
            report.sign_flip.push(SignFlipRow {
                left: paired.left.clone(),
                right: paired.right.clone(),
                k,
                p: paired.sign_flip_p,
            });
            report.paired.push(paired);
        }
    }
    for repo in study.repos() {
        let cases = Subset::Repo(repo.clone()).indices(&study);
        for &k in &config.ks {
            for arm in 0..study.arms.len() {
                let summary = summarize(&study, arm, k, &cases);
                report.by_repo.push(RepoRow {
                    repo: repo.clone(),
                    arm: summary.arm,
                    k,
                    n: summary.n,
                    file_recall: summary.file_recall,
                });
            }
        }
    }
    Ok((study, report))
}

/// The paper's four prespecified paired comparisons (Table 4), left minus right.
pub const PRESPECIFIED_PAIRS: [(&str, &str); 4] = [
    PAPER_PAIR,
    ("tree", "rg"),
    ("tree+fts5", "fts5"),
    ("tree+fts5", "tree"),
];

/// The whole-study re-score that the benchmarks time: every arm at every k from 1 to 16 over all
/// cases, plus the four prespecified paired bootstraps at k = 8. Returns the summaries and pairs.
pub fn rescore_everything(
    study: &Study,
    bootstrap: BootstrapConfig,
) -> Result<(Vec<ArmSummary>, Vec<PairedComparison>)> {
    let all = Subset::All.indices(study);
    let ks: Vec<usize> = (1..=crate::study::MAX_K).collect();
    let by_arm: Vec<Vec<ArmSummary>> = (0..study.arms.len())
        .map(|arm| summarize_ks(study, arm, &ks, &all))
        .collect();
    // k-major order: every arm at k = 1, then every arm at k = 2, …
    let summaries = (0..ks.len())
        .flat_map(|k| by_arm.iter().map(move |arm| arm[k].clone()))
        .collect();
    let pairs: Vec<(String, String)> = PRESPECIFIED_PAIRS
        .iter()
        .map(|(left, right)| (left.to_string(), right.to_string()))
        .collect();
    let pairs = compare_pairs(study, &pairs, 8, PairedMetric::FileRecall, &all, bootstrap)?;
    Ok((summaries, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::runfile::load_jsonl;

    fn study(arms: &[&str]) -> Study {
        let mut text = String::from("{\"id\": \"r::1\", \"gold\": [\"a.rs\"]}\n");
        for arm in arms {
            text += &format!("{{\"id\": \"r::1\", \"arm\": \"{arm}\", \"paths\": [\"a.rs\"]}}\n");
        }
        load_jsonl("s.jsonl", &text).unwrap()
    }

    #[test]
    fn the_papers_pair_is_the_default_only_of_a_study_with_both_arms() {
        let pair = vec![("tree".to_string(), "fts5".to_string())];
        assert_eq!(ScoreConfig::default().pairs, pair);
        assert_eq!(
            ScoreConfig::default_pairs(&study(&["tree", "fts5", "rg"])),
            pair
        );
        assert!(ScoreConfig::default_pairs(&study(&["alpha", "beta"])).is_empty());
        assert!(ScoreConfig::default_pairs(&study(&["tree", "beta"])).is_empty());
        // Scored with the default pairs, a study of other arms gives every arm and no pair.
        let alpha_beta = study(&["alpha", "beta"]);
        let config = ScoreConfig {
            pairs: ScoreConfig::default_pairs(&alpha_beta),
            ..ScoreConfig::default()
        };
        let (_, report) = score(&alpha_beta, &config).unwrap();
        assert_eq!(report.arms.len(), 4);
        assert!(report.paired.is_empty() && report.sign_flip.is_empty());
        // A pair asked for by name still has to exist.
        let err = score(&alpha_beta, &ScoreConfig::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown arm \"tree\"; this study has: alpha, beta"
        );
    }
}
