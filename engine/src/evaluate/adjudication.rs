//! Adjudicating a second labelling round and the new gold it gives.
//!
//! - **Disputes** ([`disputes`]): every (question, file) the two labellers graded differently, or
//!   that only one of them graded, with both grades and notes, for the adjudicator.
//! - **The log** (`routelens-adjudication/1`, JSON Lines): a header
//!   `{"format":"routelens-adjudication/1","task":SHA,"adjudicator":ID}` (SHA the task file's
//!   SHA-256), then one decision a line, `{"question","path","grade","reason","note","decided_at"}`;
//!   the last decision per (question, file) counts. An adjudicator who is one of the labellers is
//!   flagged, not refused.
//! - **The outcome** ([`adjudicate`]): each judged pair's final grade (the adjudicated one, else
//!   the grade both gave); a dispute without a decision is refused, counted and named. From it,
//!   TREC qrels (`qid 0 path grade`, judged negatives written as 0) and the new gold per question:
//!   every file at or above the cut, in path order, with the old gold's line spans kept only on
//!   files that stay gold.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::load::labels::{parse_task_lines, LabelTask, Labels};
use crate::load::question_set::Question;
use crate::stable_sort::Sorted;

/// The log's format name.
pub const ADJUDICATION_FORMAT: &str = "routelens-adjudication/1";

/// One pair the labellers disagree on, or that only one judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dispute {
    /// The question's id.
    pub question: String,
    /// The file.
    pub path: String,
    /// Each labeller's last grade (none: not judged), in the order the files were given.
    pub grades: [Option<u8>; 2],
    /// Each labeller's note on it.
    pub notes: [String; 2],
}

/// The log's header line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    /// [`ADJUDICATION_FORMAT`].
    pub format: String,
    /// The task file's SHA-256.
    pub task: String,
    /// Who decided.
    pub adjudicator: String,
}

/// One decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The question's id.
    pub question: String,
    /// The file.
    pub path: String,
    /// The final grade, 0 to 3.
    pub grade: u8,
    /// A reason code (free text: `misread`, `partial`, `scope`, …).
    #[serde(default)]
    pub reason: String,
    /// A note.
    #[serde(default)]
    pub note: String,
    /// When, ms since the epoch.
    #[serde(default)]
    pub decided_at: u64,
}

/// An adjudication log, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// Its header.
    pub header: LogHeader,
    /// Its decisions, in order.
    pub decisions: Vec<Decision>,
}

/// Every pair of the task the two labellers graded differently or only one graded.
pub fn disputes(task: &LabelTask, a: &Labels, b: &Labels) -> Vec<Dispute> {
    let note = |labels: &Labels, q: &str, p: &str| {
        labels
            .events
            .iter()
            .rev()
            .find(|e| e.question == q && e.path == p)
            .map(|e| e.note.clone())
            .unwrap_or_default()
    };
    crate::load::labels::items(task, a, b)
        .into_iter()
        .filter(|i| i.a.is_some() || i.b.is_some())
        .filter(|i| i.a != i.b)
        .map(|i| Dispute {
            notes: [note(a, &i.question, &i.path), note(b, &i.question, &i.path)],
            grades: [i.a, i.b],
            question: i.question,
            path: i.path,
        })
        .collect()
}

/// Reads a log (named `file`), refusing one of another task than `task_bytes`.
pub fn parse_log(file: &str, text: &str, task_bytes: &[u8], task: &LabelTask) -> Result<Log> {
    let (header, decisions) = parse_task_lines(
        file,
        text,
        (task_bytes, task),
        ("log", "decision"),
        |h: &LogHeader| (h.format.as_str(), ADJUDICATION_FORMAT, h.task.as_str()),
        |d: &Decision| (d.question.as_str(), d.grade),
    )?;
    Ok(Log { header, decisions })
}

/// Every judged pair's final grade, by question then path.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `(question, path) → grade`.
    pub grades: BTreeMap<(String, String), u8>,
    /// Disputes decided by the log.
    pub decided: usize,
    /// Whether the adjudicator is one of the labellers.
    pub adjudicator_is_labeller: bool,
}

/// The final grades: the log's decision where there is one, else the grade both labellers gave.
/// A dispute the log does not decide is refused, with how many and the first.
pub fn adjudicate(task: &LabelTask, (a, b): (&Labels, &Labels), log: &Log) -> Result<Outcome> {
    let decided: BTreeMap<(&str, &str), u8> = log
        .decisions
        .iter()
        .map(|d| ((d.question.as_str(), d.path.as_str()), d.grade))
        .sorted_map();
    let mut grades = BTreeMap::new();
    let mut undecided = Vec::new();
    let mut count = 0;
    for item in crate::load::labels::items(task, a, b) {
        let key = (item.question.as_str(), item.path.as_str());
        let grade = match (decided.get(&key), item.a, item.b) {
            (Some(&g), _, _) => {
                count += usize::from(item.a != item.b);
                Some(g)
            }
            (None, Some(x), Some(y)) if x == y => Some(x),
            (None, None, None) => None,
            (None, _, _) => {
                undecided.push(format!("{} {}", item.question, item.path));
                None
            }
        };
        if let Some(grade) = grade {
            grades.insert((item.question.clone(), item.path.clone()), grade);
        }
    }
    if let Some(first) = undecided.first() {
        return Err(Error::setting(
            "adjudication",
            format!("{} disputes undecided (first: {first})", undecided.len()),
            "a decision in the log for every dispute",
        ));
    }
    Ok(Outcome {
        grades,
        decided: count,
        adjudicator_is_labeller: [&a.header.labeller, &b.header.labeller]
            .contains(&&log.header.adjudicator),
    })
}

impl Outcome {
    /// TREC qrels, `qid 0 path grade`, judged negatives included, in question then path order.
    pub fn qrels(&self) -> String {
        self.grades
            .iter()
            .map(|((q, p), g)| format!("{q} 0 {p} {g}\n"))
            .collect()
    }

    /// `questions` with their gold replaced by the files graded at or above `cut` (in path
    /// order), keeping the old gold's line spans only on files that stay gold. A question none of
    /// whose pairs was judged keeps its gold.
    pub fn new_gold(&self, questions: &[Question], cut: u8) -> Vec<Question> {
        questions
            .iter()
            .map(|q| {
                let judged: Vec<(&str, u8)> = self
                    .grades
                    .iter()
                    .filter(|((id, _), _)| *id == q.id)
                    .map(|((_, p), g)| (p.as_str(), *g))
                    .collect();
                if judged.is_empty() {
                    return q.clone();
                }
                let gold: Vec<String> = judged
                    .iter()
                    .filter(|(_, g)| *g >= cut)
                    .map(|(p, _)| p.to_string())
                    .collect();
                Question {
                    gold_lines: q
                        .gold_lines
                        .iter()
                        .filter(|s| gold.contains(&s.path))
                        .cloned()
                        .collect(),
                    gold,
                    ..q.clone()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::labels::{LabelEvent, LabelsHeader, TaskQuestion, TASK_FORMAT};
    use crate::study::GoldSpan;

    fn task() -> LabelTask {
        LabelTask {
            format: TASK_FORMAT.into(),
            questions_sha256: "s".into(),
            bundle_commit: "c".into(),
            questions: vec![TaskQuestion {
                id: "q1".into(),
                question: "where?".into(),
                candidates: vec!["a.rs".into(), "b.rs".into(), "c.rs".into()],
            }],
            labellers: Vec::new(),
        }
    }

    fn labels(who: &str, grades: &[(&str, u8)]) -> Labels {
        Labels {
            header: LabelsHeader {
                format: "routelens-labels/1".into(),
                task: "t".into(),
                labeller: who.into(),
                app: "x".into(),
            },
            events: grades
                .iter()
                .map(|(p, g)| LabelEvent {
                    question: "q1".into(),
                    path: p.to_string(),
                    grade: *g,
                    unsure: false,
                    note: format!("{who} on {p}"),
                    position: 1,
                    shown_at: 0,
                    judged_at: 0,
                })
                .collect(),
        }
    }

    fn log(who: &str, decisions: &[(&str, u8)]) -> Log {
        Log {
            header: LogHeader {
                format: ADJUDICATION_FORMAT.into(),
                task: "t".into(),
                adjudicator: who.into(),
            },
            decisions: decisions
                .iter()
                .map(|(p, g)| Decision {
                    question: "q1".into(),
                    path: p.to_string(),
                    grade: *g,
                    reason: "partial".into(),
                    note: String::new(),
                    decided_at: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn a_log_of_another_task_or_a_question_not_in_it_is_refused_by_line() {
        let bytes = b"the task";
        let header = |task: &str| {
            format!(r#"{{"format":"routelens-adjudication/1","task":"{task}","adjudicator":"cy"}}"#)
        };
        let ours = crate::checksum::sha256_hex(bytes);
        let refused = parse_log("log.jsonl", &header("0"), bytes, &task())
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("log.jsonl:1: log of task 0, not of this task"),
            "{refused}"
        );
        let line = r#"{"question":"q9","path":"a.rs","grade":1}"#;
        let refused = parse_log(
            "log.jsonl",
            &format!("{}\n{line}", header(&ours)),
            bytes,
            &task(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains("log.jsonl:2: question \"q9\" is not in the task"),
            "{refused}"
        );
        let line = r#"{"question":"q1","path":"a.rs","grade":2}"#;
        let log = parse_log(
            "log.jsonl",
            &format!("{}\n{line}", header(&ours)),
            bytes,
            &task(),
        )
        .unwrap();
        assert_eq!(log.decisions[0].grade, 2);
    }

    #[test]
    fn disputes_are_decided_by_the_log_and_the_new_gold_keeps_spans_of_files_still_gold() {
        let (a, b) = (
            labels("ada", &[("a.rs", 3), ("b.rs", 2)]),
            labels("bo", &[("a.rs", 3), ("b.rs", 0), ("c.rs", 1)]),
        );
        let found = disputes(&task(), &a, &b);
        assert_eq!(
            found
                .iter()
                .map(|d| (d.path.as_str(), d.grades))
                .collect::<Vec<_>>(),
            [("b.rs", [Some(2), Some(0)]), ("c.rs", [None, Some(1)])]
        );
        assert_eq!(
            found[0].notes,
            ["ada on b.rs".to_string(), "bo on b.rs".into()]
        );
        let refused = adjudicate(&task(), (&a, &b), &log("cy", &[("b.rs", 1)]))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("1 disputes undecided (first: q1 c.rs)"),
            "{refused}"
        );
        let outcome =
            adjudicate(&task(), (&a, &b), &log("ada", &[("b.rs", 1), ("c.rs", 2)])).unwrap();
        assert!(outcome.adjudicator_is_labeller);
        assert_eq!(outcome.decided, 2);
        assert_eq!(outcome.qrels(), "q1 0 a.rs 3\nq1 0 b.rs 1\nq1 0 c.rs 2\n");
        let old = Question {
            id: "q1".into(),
            question: "where?".into(),
            gold: vec!["b.rs".into(), "a.rs".into()],
            gold_lines: vec![
                GoldSpan {
                    path: "a.rs".into(),
                    start_line: 1,
                    end_line: 4,
                },
                GoldSpan {
                    path: "b.rs".into(),
                    start_line: 2,
                    end_line: 3,
                },
            ],
        };
        let new = outcome.new_gold(&[old], 2);
        assert_eq!(new[0].gold, ["a.rs", "c.rs"]);
        assert_eq!(new[0].gold_lines.len(), 1);
        assert_eq!(new[0].gold_lines[0].path, "a.rs");
    }
}
