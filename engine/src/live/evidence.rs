//! Live arms that keep their evidence, the study export that carries it, and its offline replay.
//!
//! An arm run live (the Route view's or the Search view's "Add as arm") is more than its
//! rankings: per case it keeps what produced the ranking ([`CaseEvidence`]): a routing run's run
//! file (every request and answer, the settings, the run with its calls, tokens, cost and time),
//! or a lexical search's scored results and query time. From the evidence come the arm's
//! rankings and its measurements under the archive's names (`model_calls`, `input_tokens`,
//! `output_tokens`, `cost_usd`, `latency_ms`; `query_ms` for a search), so the operating points
//! and Table 2 show a live arm as they show an archived one.
//!
//! [`LiveStudyExport`] is the live study as one JSON file (`routelens-live-study/1`): the
//! questions (id, text, gold), the bundle the arms ran over, and every arm that has evidence.
//! [`LiveStudyExport::study`] opens it again with the identical arms; [`replay`] checks it offline
//! against the bundle: each run file is replayed through the bundle's tree (every request must be
//! the recorded one) and each search is run again, and the rankings must be the recorded ones.

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::corpus::bundle::DirTree;
use crate::error::{Error, Result};
use crate::live::study::{live_study, merge_live_arms};
use crate::load::question_set::Question;
use crate::remote::route::{Decider, Replayer, Run, RunFile, Session};
use crate::retrieval::lexical::issue_run::run_named;
use crate::retrieval::lexical::Sources;
use crate::study::{Arm, ArmOrigin, Study};

/// The `format` of a live study export.
pub const EXPORT_FORMAT: &str = "routelens-live-study/1";

/// What produced one case's ranking of a live arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CaseEvidence {
    /// A routing run: its run file, replayable with no network.
    Route(Box<RunFile>),
    /// A lexical search (or the RRF of several, named `a+b`): the results with their scores.
    Search {
        /// How many paths were asked for.
        k: usize,
        /// The ranked paths with scores, best first.
        results: Vec<(String, f64)>,
        /// The search's own time, when it was timed (a fusion is not).
        query_ms: Option<f64>,
    },
}

impl CaseEvidence {
    /// The ranking this evidence gives.
    pub fn ranking(&self) -> Vec<String> {
        match self {
            CaseEvidence::Route(file) => file.run.paths.clone(),
            CaseEvidence::Search { results, .. } => {
                results.iter().map(|(path, _)| path.clone()).collect()
            }
        }
    }

    /// The case's measurements under the archive's names.
    pub fn measurements(&self) -> BTreeMap<String, f64> {
        match self {
            CaseEvidence::Route(file) => route_measurements(&file.run),
            CaseEvidence::Search { query_ms, .. } => query_ms
                .map(|ms| [("query_ms".to_string(), ms)].into_iter().sorted_map())
                .unwrap_or_default(),
        }
    }
}

/// A routing run's measurements as the archive names them: calls answered, tokens, the estimated
/// cost, and the elapsed time as `latency_ms`; `retries` besides.
pub fn route_measurements(run: &Run) -> BTreeMap<String, f64> {
    [
        ("model_calls".to_string(), run.calls as f64),
        ("input_tokens".to_string(), run.input_tokens as f64),
        ("output_tokens".to_string(), run.output_tokens as f64),
        ("cost_usd".to_string(), run.cost_usd),
        ("latency_ms".to_string(), run.elapsed_ms as f64),
        ("retries".to_string(), run.retries as f64),
    ]
    .into_iter()
    .sorted_map()
}

/// An arm run live, with per case what produced its ranking (`None`: no run for that case). The
/// evidence stands beside the arm, not in it: the study model knows nothing of live runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveArm {
    /// The arm as every table sees it: rankings and measurements.
    pub arm: Arm,
    /// `evidence[i]` produced `arm.rankings[i]`; empty for an arm that kept none.
    pub evidence: Vec<Option<CaseEvidence>>,
}

/// A live arm from its evidence, one entry per case of the study (`None`: no run for that case,
/// an empty ranking).
pub fn live_arm(name: &str, label: &str, evidence: Vec<Option<CaseEvidence>>) -> LiveArm {
    let rankings = evidence
        .iter()
        .map(|case| case.as_ref().map(CaseEvidence::ranking).unwrap_or_default())
        .collect();
    let mut arm = Arm::new(name, label, ArmOrigin::Archived, rankings);
    arm.measurements = evidence
        .iter()
        .map(|case| {
            case.as_ref()
                .map(CaseEvidence::measurements)
                .unwrap_or_default()
        })
        .collect();
    LiveArm { arm, evidence }
}

/// The live study of a question set with, beside its arms, the evidence of each arm run live.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveStudy {
    /// The question set as a study ([`live_study`]) with every live arm.
    pub study: Study,
    /// By arm name, the evidence of each arm that kept it (one entry per question).
    pub evidence: BTreeMap<String, Vec<Option<CaseEvidence>>>,
}

impl LiveStudy {
    /// The live study of `questions`, over repository `repo`, with no arms yet.
    pub fn new(repo: &str, questions: &[Question]) -> LiveStudy {
        LiveStudy {
            study: live_study(repo, questions),
            evidence: BTreeMap::new(),
        }
    }

    /// Adds `live` (or replaces the arm of its name) with its evidence, as [`Study::add_arm`]
    /// does; an arm of the wrong length is refused, naming it.
    pub fn add_arm(&mut self, live: LiveArm) -> Result<usize> {
        let name = live.arm.name.clone();
        let index = self.study.add_arm(live.arm)?;
        if live.evidence.is_empty() {
            self.evidence.remove(&name);
        } else {
            self.evidence.insert(name, live.evidence);
        }
        Ok(index)
    }

    /// The evidence of the arm `name`, when it kept one entry per case.
    pub fn evidence_of(&self, name: &str) -> Option<&[Option<CaseEvidence>]> {
        self.evidence
            .get(name)
            .map(Vec::as_slice)
            .filter(|evidence| evidence.len() == self.study.cases.len())
    }
}

/// Live arms joined to the studies they belong to: the live study of the question set (always),
/// and the open study when it is that question set.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinedArms {
    /// The live study with the arms (added, or replacing arms of the same name).
    pub live: LiveStudy,
    /// The open study with the live study's arms, when it has the question set's cases in order.
    pub open: Option<Study>,
}

/// Adds `arms` (each with one entry per question) to the live study of `questions` (`live`, or
/// a new one over repository `repo`) and merges the live study into `open` when `open` is the
/// same question set ([`merge_live_arms`]). The Search and Route views' "Add as arm" both end
/// here. An arm of the wrong length is refused, naming it, and nothing is joined.
pub fn join_live_arms(
    live: Option<&LiveStudy>,
    open: Option<&Study>,
    repo: &str,
    questions: &[Question],
    arms: Vec<LiveArm>,
) -> Result<JoinedArms> {
    let mut study = live
        .cloned()
        .unwrap_or_else(|| LiveStudy::new(repo, questions));
    for arm in arms {
        study.add_arm(arm)?;
    }
    let open = open.and_then(|open| merge_live_arms(open, &study.study));
    Ok(JoinedArms { live: study, open })
}

/// The bundle a live study's arms ran over, as its manifest names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleRef {
    /// The bundle's name (its folder, as served).
    pub name: String,
    /// The commit its files were read at, when it records one.
    pub commit: Option<String>,
    /// The label of its file policy (`paper`, `strict`, or with a changed setting).
    pub policy: String,
}

impl BundleRef {
    /// The reference of the bundle `name` with this manifest.
    pub fn of(name: &str, manifest: &crate::corpus::bundle::Manifest) -> BundleRef {
        BundleRef {
            name: name.to_string(),
            commit: manifest.commit.clone(),
            policy: manifest.policy.label(),
        }
    }
}

/// One arm of an export: its names and its evidence per question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportedArm {
    /// The arm's short name.
    pub name: String,
    /// Its label.
    pub label: String,
    /// `evidence[i]` is for `questions[i]`.
    pub evidence: Vec<Option<CaseEvidence>>,
}

/// A live study with every run, as one JSON file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveStudyExport {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// The study's title.
    pub title: String,
    /// The repository every question belongs to.
    pub repo: String,
    /// The bundle the arms ran over.
    pub bundle: BundleRef,
    /// The questions, in the study's case order.
    pub questions: Vec<Question>,
    /// Every arm that kept evidence.
    pub arms: Vec<ExportedArm>,
}

impl LiveStudyExport {
    /// The export of a live `study` over `questions` (its cases, in order) and `bundle`: every
    /// arm with evidence. Refuses a study whose cases are not the questions, or with no such arm.
    pub fn new(live: &LiveStudy, questions: &[Question], bundle: BundleRef) -> Result<Self> {
        let file = "live study";
        let study = &live.study;
        let same = study.cases.len() == questions.len()
            && study.cases.iter().zip(questions).all(|(c, q)| c.id == q.id);
        if !same {
            return Err(Error::field(
                file,
                "questions",
                "the study's cases are not the question set's questions",
            ));
        }
        let arms: Vec<ExportedArm> = study
            .arms
            .iter()
            .filter_map(|arm| {
                Some(ExportedArm {
                    name: arm.name.clone(),
                    label: arm.label.clone(),
                    evidence: live.evidence_of(&arm.name)?.to_vec(),
                })
            })
            .collect();
        if arms.is_empty() {
            return Err(Error::field(file, "arms", "no arm kept its runs"));
        }
        let repo = study
            .cases
            .first()
            .map_or_else(|| bundle.name.clone(), |case| case.repo.clone());
        Ok(LiveStudyExport {
            format: EXPORT_FORMAT.into(),
            title: study.title.clone(),
            repo,
            bundle,
            questions: questions.to_vec(),
            arms,
        })
    }

    /// Reads an export; errors name `file` and the field. Every arm must have one entry per
    /// question, and each question's id must be unique.
    pub fn from_json(file: &str, text: &str) -> Result<Self> {
        let export: LiveStudyExport = crate::error::from_json_file(file, text)?;
        if export.format != EXPORT_FORMAT {
            return Err(Error::field(
                file,
                "format",
                format!("{:?} is not {EXPORT_FORMAT:?}", export.format),
            ));
        }
        let mut ids = std::collections::BTreeSet::new();
        for (index, question) in export.questions.iter().enumerate() {
            if !ids.insert(&question.id) {
                return Err(Error::field(
                    file,
                    format!("questions[{index}].id"),
                    format!("{:?} is given twice", question.id),
                ));
            }
        }
        for (index, arm) in export.arms.iter().enumerate() {
            if arm.evidence.len() != export.questions.len() {
                return Err(Error::field(
                    file,
                    format!("arms[{index}].evidence"),
                    format!(
                        "{} entries for {} questions",
                        arm.evidence.len(),
                        export.questions.len()
                    ),
                ));
            }
        }
        Ok(export)
    }

    /// The export's JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The live study again: its questions as cases and every arm rebuilt from its evidence.
    pub fn live_study(&self) -> Result<LiveStudy> {
        let mut live = LiveStudy::new(&self.repo, &self.questions);
        live.study.title = self.title.clone();
        for arm in &self.arms {
            live.add_arm(live_arm(&arm.name, &arm.label, arm.evidence.clone()))?;
        }
        Ok(live)
    }

    /// The live study's [`Study`] alone, as the study views open it.
    pub fn study(&self) -> Result<Study> {
        self.live_study().map(|live| live.study)
    }
}

/// The replay of one arm: how many of its cases came out identical, and why the others did not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmReplay {
    /// The arm's name.
    pub arm: String,
    /// Cases with evidence.
    pub cases: usize,
    /// Cases whose replayed ranking (and, for a run, its calls and tokens) equals the recorded.
    pub identical: usize,
    /// One sentence per other case, naming it.
    pub differences: Vec<String>,
}

/// Replays a run file through `tree` with its recorded answers and returns the run.
pub fn replay_run(file: &RunFile, tree: &DirTree) -> Result<Run> {
    let mut session = Session::replay(file, tree)?;
    let mut replayer = Replayer::new(file);
    while let Some(call) = session.next_call(0) {
        let outcome = replayer.decide(&call.request);
        session.answer(&call.request, outcome, 0, 0);
    }
    Ok(session.run().clone())
}

/// Replays every arm of `export` offline: runs through `tree`, searches over `sources` (the
/// bundle's index and texts). A fusion `a+b` is the RRF of its parts' replayed rankings.
pub fn replay(export: &LiveStudyExport, tree: &DirTree, sources: &Sources<'_>) -> Vec<ArmReplay> {
    export
        .arms
        .iter()
        .map(|arm| {
            let mut check = ArmReplay {
                arm: arm.name.clone(),
                cases: 0,
                identical: 0,
                differences: Vec::new(),
            };
            for (question, evidence) in export.questions.iter().zip(&arm.evidence) {
                let Some(evidence) = evidence else {
                    continue;
                };
                check.cases += 1;
                match replay_case(&arm.name, question, evidence, tree, sources) {
                    Ok(()) => check.identical += 1,
                    Err(why) => check.differences.push(format!("{}: {why}", question.id)),
                }
            }
            check
        })
        .collect()
}

fn replay_case(
    arm: &str,
    question: &Question,
    evidence: &CaseEvidence,
    tree: &DirTree,
    sources: &Sources<'_>,
) -> std::result::Result<(), String> {
    let recorded = evidence.ranking();
    let replayed = match evidence {
        CaseEvidence::Route(file) => {
            if file.issue_id != question.id || file.issue != question.question {
                return Err("the run file is of another issue".into());
            }
            let run = replay_run(file, tree).map_err(|err| err.to_string())?;
            if let Some(error) = run.error.as_ref().filter(|_| file.run.error.is_none()) {
                return Err(format!("the replay failed: {}", error.message));
            }
            let counted = |run: &Run| (run.calls, run.input_tokens, run.output_tokens);
            if counted(&run) != counted(&file.run) {
                return Err(format!(
                    "calls and tokens {:?}, recorded {:?}",
                    counted(&run),
                    counted(&file.run)
                ));
            }
            run.paths
        }
        CaseEvidence::Search { k, .. } => search_again(arm, &question.question, *k, sources)?,
    };
    if replayed == recorded {
        Ok(())
    } else {
        let at = replayed
            .iter()
            .zip(&recorded)
            .position(|(a, b)| a != b)
            .unwrap_or(replayed.len().min(recorded.len()));
        Err(format!("the ranking differs from rank {}", at + 1))
    }
}

/// The ranking of the lexical arm (or `+`-joined fusion of lexical arms) `name` for `issue`.
fn search_again(
    name: &str,
    issue: &str,
    k: usize,
    sources: &Sources<'_>,
) -> std::result::Result<Vec<String>, String> {
    run_named(sources, issue, k, name)
        .map(|output| output.paths())
        .map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests;
