//! The study model: cases with gold evidence, and arms with one ranked list of file paths per case.
//!
//! Every loader (the fastindex archive, TREC run files, JSON Lines) produces a [`Study`]; every
//! computation (metrics, fusion, statistics, reports) reads one. A ranking is a list of
//! repository-relative paths, best first, without duplicates.

use crate::stable_sort::Sorted;
pub mod subset;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};

/// The largest candidate limit the study tables offer: the archived rankings hold 16 paths.
pub const MAX_K: usize = 16;

/// The deepest cut-off a metric takes (CodeNib's coverage audit goes to 1,000), and so the most
/// ranked units of an arm that the model keeps the files of.
pub const MAX_METRIC_K: usize = 1_000;

/// One annotated gold region: lines `start_line..=end_line` (1-based) of `path`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldSpan {
    /// Repository-relative file path.
    pub path: String,
    /// First annotated line, 1-based.
    pub start_line: u32,
    /// Last annotated line, inclusive.
    pub end_line: u32,
}

/// Prespecified descriptive labels of a case; `None` when the study does not carry the label.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CaseFlags {
    /// The issue text names a gold file's full path.
    pub mentions_gold_path: Option<bool>,
    /// The issue text names a gold file's basename (of at least five characters).
    pub mentions_gold_basename: Option<bool>,
    /// Every annotated span's text aligns with the base-commit source (the gold audit).
    pub gold_text_aligned: Option<bool>,
}

/// One issue: the query's identity and its gold evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Case {
    /// The case identifier, unique in the study.
    pub id: String,
    /// The repository the case belongs to: the bootstrap's cluster.
    pub repo: String,
    /// The pinned pre-fix commit, when known.
    pub base_commit: Option<String>,
    /// SHA-256 of the issue text, when known: the text itself is not archived.
    pub query_sha256: Option<String>,
    /// Gold spans, when the study has line-level gold.
    pub gold_spans: Vec<GoldSpan>,
    /// The distinct gold file paths, sorted.
    pub gold_files: Vec<String>,
    /// Prespecified labels.
    pub flags: CaseFlags,
}

impl Case {
    /// A case whose gold files are the distinct paths of its spans.
    pub fn from_spans(id: String, repo: String, gold_spans: Vec<GoldSpan>) -> Self {
        let gold_files = gold_spans
            .iter()
            .map(|span| span.path.clone())
            .sorted_set()
            .into_iter()
            .collect();
        Case {
            id,
            repo,
            base_commit: None,
            query_sha256: None,
            gold_spans,
            gold_files,
            flags: CaseFlags::default(),
        }
    }

    /// Whether the gold files lie in more than one directory (a prespecified subgroup; it needs
    /// only the gold paths, so every study has it).
    pub fn gold_spans_multiple_directories(&self) -> bool {
        let parent = |path: &String| path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
        self.gold_files.iter().map(parent).sorted_set().len() > 1
    }
}

/// Line-level measurements archived with a study for one arm, k and case. They are shown as
/// archived values until the line selector recomputes them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ArchivedLines {
    /// Delivered annotated-line recall under the 16K-token budget.
    pub line_recall: f64,
    /// Every annotated line was delivered.
    pub complete_lines: bool,
    /// Tokens packed, when archived.
    pub context_tokens: Option<f64>,
    /// Fraction of gold files with at least one delivered block, when archived.
    pub context_file_recall: Option<f64>,
}

/// Where an arm's rankings came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum ArmOrigin {
    /// Loaded from the study's files.
    Archived,
    /// Reciprocal-rank fusion of other arms, computed here.
    Fusion {
        /// The fused arms' names.
        parts: Vec<String>,
        /// The RRF rank constant.
        rank_constant: f64,
        /// How many paths of each part were fused.
        depth: usize,
    },
}

/// One retrieval arm: a ranked path list per case.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Arm {
    /// The short name used on the command line and in URLs (`tree`, `fts5`, `tree+fts5`).
    pub name: String,
    /// The human label used in tables.
    pub label: String,
    /// Where the rankings came from.
    pub origin: ArmOrigin,
    /// `rankings[i]` is the ranking for `study.cases[i]`; empty when the arm has no row for it.
    pub rankings: Vec<Vec<String>>,
    /// For an arm of span units (a file's line range each), `units[i]` is case i's ranking of
    /// units, best first, and `rankings[i]` holds their files in first-appearance order (what the
    /// file-level tables see). Empty for an arm of files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<Vec<GoldSpan>>,
    /// Per-case operational measurements (model calls, tokens, latency, cost), by name.
    pub measurements: Vec<BTreeMap<String, f64>>,
    /// Archived line-level measurements, by k, then per case.
    pub archived_lines: BTreeMap<usize, Vec<Option<ArchivedLines>>>,
    /// The settings the archive recorded for this arm (its file's `config` block), by name: the
    /// flat tournament's `instructions`, `menu_limit`, … Empty for arms computed here.
    pub config: BTreeMap<String, serde_json::Value>,
}

impl Arm {
    /// An arm with no measurements, for `cases` cases.
    pub fn new(name: &str, label: &str, origin: ArmOrigin, rankings: Vec<Vec<String>>) -> Self {
        let cases = rankings.len();
        Arm {
            name: name.to_string(),
            label: label.to_string(),
            origin,
            rankings,
            units: Vec::new(),
            measurements: vec![BTreeMap::new(); cases],
            archived_lines: BTreeMap::new(),
            config: BTreeMap::new(),
        }
    }

    /// An arm of span units: each case's ranking of line ranges, its file ranking derived from
    /// them (each file once, at its first unit).
    pub fn of_units(name: &str, label: &str, origin: ArmOrigin, units: Vec<Vec<GoldSpan>>) -> Self {
        let rankings = units
            .iter()
            .map(|ranked| {
                let mut files: Vec<String> = Vec::new();
                for unit in ranked {
                    if !files.contains(&unit.path) {
                        files.push(unit.path.clone());
                    }
                }
                files
            })
            .collect();
        let mut arm = Arm::new(name, label, origin, rankings);
        arm.units = units;
        arm
    }

    /// The mean of a measurement over the cases that have it, with how many have it.
    pub fn mean_measurement(&self, name: &str) -> Option<(f64, usize)> {
        let values: Vec<f64> = self
            .measurements
            .iter()
            .filter_map(|row| row.get(name).copied())
            .collect();
        (!values.is_empty()).then(|| {
            (
                values.iter().sum::<f64>() / values.len() as f64,
                values.len(),
            )
        })
    }
}

/// A loaded study: its cases and arms.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Study {
    /// A short title for the study.
    pub title: String,
    /// The cases, in the study's order.
    pub cases: Vec<Case>,
    /// The arms, archived ones first, then fusions in the order they were added.
    pub arms: Vec<Arm>,
    /// The searchable-file policy its rankings were made under, when known (the fastindex
    /// archive: `paper`), so that a bundle under another policy is not silently compared.
    pub policy: Option<crate::corpus::policy::PolicyName>,
    /// Where the cases' issue texts come from, as the study records it (the fastindex ledger:
    /// the dataset's revision and Parquet checksum), for a reader who must fetch them: the
    /// archive keeps only each text's SHA-256.
    pub issue_source: Option<String>,
}

impl Study {
    /// The index of an arm, or an error listing the arms that exist.
    pub fn arm_index(&self, name: &str) -> Result<usize> {
        self.arms
            .iter()
            .position(|arm| arm.name == name)
            .ok_or_else(|| Error::UnknownArm {
                name: name.to_string(),
                known: self.arm_names().join(", "),
            })
    }

    /// The arm with this name.
    pub fn arm(&self, name: &str) -> Result<&Arm> {
        Ok(&self.arms[self.arm_index(name)?])
    }

    /// All arm names, in order.
    pub fn arm_names(&self) -> Vec<String> {
        self.arms.iter().map(|arm| arm.name.clone()).collect()
    }

    /// The index of the case with this id.
    pub fn case_index(&self, id: &str) -> Option<usize> {
        self.cases.iter().position(|case| case.id == id)
    }

    /// The repositories (clusters), sorted.
    pub fn repos(&self) -> Vec<String> {
        self.cases
            .iter()
            .map(|case| case.repo.clone())
            .sorted_set()
            .into_iter()
            .collect()
    }

    /// Checks a candidate limit against the study's range 1..=[`MAX_K`].
    pub fn check_k(k: usize) -> Result<usize> {
        if (1..=MAX_K).contains(&k) {
            Ok(k)
        } else {
            Err(Error::setting("k", k, "1 to 16"))
        }
    }

    /// Cuts every arm's rankings to their first `depth` units (1 to
    /// [`MAX_METRIC_K`]); an arm of spans keeps the files of its first
    /// `depth` units as its file ranking.
    pub fn cut_to_depth(&mut self, depth: usize) -> Result<()> {
        let most = MAX_METRIC_K;
        if !(1..=most).contains(&depth) {
            return Err(Error::setting("depth", depth, "1 to 1,000"));
        }
        for arm in &mut self.arms {
            if arm.units.is_empty() {
                for ranking in &mut arm.rankings {
                    ranking.truncate(depth);
                }
            } else {
                let units: Vec<Vec<GoldSpan>> = arm
                    .units
                    .iter()
                    .map(|ranked| ranked.iter().take(depth).cloned().collect())
                    .collect();
                let cut = Arm::of_units(&arm.name, &arm.label, arm.origin.clone(), units);
                arm.units = cut.units;
                arm.rankings = cut.rankings;
            }
        }
        Ok(())
    }

    /// Adds an arm after checking it has a ranking slot per case and no duplicate paths; an arm
    /// with the same name is replaced.
    pub fn add_arm(&mut self, arm: Arm) -> Result<usize> {
        if arm.rankings.len() != self.cases.len() {
            return Err(Error::field(
                &arm.name,
                "rankings",
                format!(
                    "{} rankings for {} cases",
                    arm.rankings.len(),
                    self.cases.len()
                ),
            ));
        }
        for (case, ranking) in self.cases.iter().zip(&arm.rankings) {
            check_unique_paths(ranking, &arm.name, &format!("case {}", case.id))?;
        }
        if let Ok(index) = self.arm_index(&arm.name) {
            self.arms[index] = arm;
            Ok(index)
        } else {
            self.arms.push(arm);
            Ok(self.arms.len() - 1)
        }
    }
}

/// Refuses a ranking that names a path twice: recall would count it once but it would take two
/// of the k slots, so the input is wrong, not the metric.
pub fn check_unique_paths(paths: &[String], file: &str, field: &str) -> Result<()> {
    let mut seen = BTreeSet::new();
    for path in paths {
        if !seen.insert(path.as_str()) {
            return Err(Error::field(
                file,
                field,
                format!("duplicate path {path:?} in a ranking"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(path: &str, start: u32, end: u32) -> GoldSpan {
        GoldSpan {
            path: path.into(),
            start_line: start,
            end_line: end,
        }
    }

    #[test]
    fn cutting_to_depth_keeps_the_first_units_and_their_files() {
        let case = Case::from_spans("a".into(), "r".into(), vec![span("a.rs", 1, 2)]);
        let spans = Arm::of_units(
            "s",
            "s",
            ArmOrigin::Archived,
            vec![vec![
                span("a.rs", 1, 5),
                span("a.rs", 9, 12),
                span("b.rs", 1, 3),
            ]],
        );
        let files = Arm::new(
            "f",
            "f",
            ArmOrigin::Archived,
            vec![vec!["x".into(), "y".into(), "z".into()]],
        );
        let mut study = Study {
            title: "t".into(),
            cases: vec![case],
            arms: vec![spans, files],
            policy: None,
            issue_source: None,
        };
        study.cut_to_depth(2).unwrap();
        assert_eq!(study.arms[0].units[0].len(), 2);
        assert_eq!(study.arms[0].rankings[0], ["a.rs"]);
        assert_eq!(study.arms[1].rankings[0], ["x", "y"]);
        let err = study.cut_to_depth(0).unwrap_err().to_string();
        assert!(err.contains("depth") && err.contains("1 to 1,000"), "{err}");
        assert!(study.cut_to_depth(1_001).is_err());
    }
}
