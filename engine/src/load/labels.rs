//! The second labelling round's files: a labelling task (`routelens-label-task/1`, JSON) and a
//! labeller's judgments (`routelens-labels/1`, JSON Lines), and the (question, file) items two
//! labellers' judgments make.
//!
//! - **A task** holds the question set's SHA-256, the bundle's commit, per question its id, text
//!   and candidate paths, and per labeller a seed and the order it gives. It never holds gold, arm
//!   names, scores or ranks.
//! - **Labels** start with a header line
//!   `{"format":"routelens-labels/1","task":SHA,"labeller":ID,"app":VERSION}`, SHA the SHA-256 of
//!   the task file's bytes; then one event per line:
//!   `{"question","path","grade":0..3,"unsure","note","position","shown_at","judged_at"}` (times in
//!   milliseconds since the epoch). An edit is a new event; the last event per (question, path) is
//!   the labeller's grade. Labels of another task are refused, naming both hashes.

use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};
use crate::scoring::agreement::{Item, TOP_GRADE};

/// The task format's name.
pub const TASK_FORMAT: &str = "routelens-label-task/1";
/// The labels format's name.
pub const LABELS_FORMAT: &str = "routelens-labels/1";

/// A labelling task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelTask {
    /// [`TASK_FORMAT`].
    pub format: String,
    /// The SHA-256 of the question set the task was pooled for.
    pub questions_sha256: String,
    /// The bundle's commit (or its source, when it has no commit).
    pub bundle_commit: String,
    /// The questions, each with its candidates.
    pub questions: Vec<TaskQuestion>,
    /// One entry per labeller.
    pub labellers: Vec<TaskLabeller>,
}

/// One question of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskQuestion {
    /// Its id.
    pub id: String,
    /// Its text.
    pub question: String,
    /// The files to judge, in no meaningful order.
    pub candidates: Vec<String>,
}

/// One labeller's slot: a seed and the question order it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskLabeller {
    /// The seed the order was shuffled with.
    pub seed: u64,
    /// Question positions in the order this labeller sees them, each with its candidates'
    /// positions in the order shown.
    pub order: Vec<(usize, Vec<usize>)>,
}

/// One judgment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelEvent {
    /// The question's id.
    pub question: String,
    /// The file.
    pub path: String,
    /// 0 not relevant, 1 related, 2 answers part, 3 answers it.
    pub grade: u8,
    /// The labeller was unsure.
    #[serde(default)]
    pub unsure: bool,
    /// A note.
    #[serde(default)]
    pub note: String,
    /// Where the file was shown in the labeller's list (0 for a file the labeller added).
    #[serde(default)]
    pub position: usize,
    /// When it was shown, ms since the epoch.
    #[serde(default)]
    pub shown_at: u64,
    /// When it was judged, ms since the epoch.
    #[serde(default)]
    pub judged_at: u64,
}

/// The header line of a labels file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelsHeader {
    /// [`LABELS_FORMAT`].
    pub format: String,
    /// The SHA-256 of the task file's bytes.
    pub task: String,
    /// The labeller's id.
    pub labeller: String,
    /// The app's version that recorded it.
    pub app: String,
}

/// A labeller's file: its header and events, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    /// The header.
    pub header: LabelsHeader,
    /// The events.
    pub events: Vec<LabelEvent>,
}

impl Labels {
    /// The last grade per (question, path).
    pub fn grades(&self) -> BTreeMap<(&str, &str), u8> {
        self.events
            .iter()
            .map(|e| ((e.question.as_str(), e.path.as_str()), e.grade))
            .sorted_map()
    }
}

/// Reads a task (named `file` in errors).
pub fn parse_task(file: &str, bytes: &[u8]) -> Result<LabelTask> {
    let task: LabelTask = crate::json_path::from_slice(bytes)
        .map_err(|e| Error::field(file, e.path.clone(), e.message()))?;
    if task.format != TASK_FORMAT {
        return Err(Error::field(
            file,
            "format",
            format!("{:?} is not {TASK_FORMAT:?}", task.format),
        ));
    }
    let mut ids = std::collections::BTreeSet::new();
    for (at, q) in task.questions.iter().enumerate() {
        if !ids.insert(q.id.as_str()) {
            return Err(Error::field(
                file,
                format!("questions[{at}].id"),
                format!("{:?} appears twice", q.id),
            ));
        }
    }
    Ok(task)
}

/// Reads a labeller's file (named `file`), refusing one of another task than `task_bytes`.
pub fn parse_labels(file: &str, text: &str, task_bytes: &[u8], task: &LabelTask) -> Result<Labels> {
    let (header, events) = parse_task_lines(
        file,
        text,
        (task_bytes, task),
        ("labels", "judgment"),
        |h: &LabelsHeader| (h.format.as_str(), LABELS_FORMAT, h.task.as_str()),
        |e: &LabelEvent| (e.question.as_str(), e.grade),
    )?;
    Ok(Labels { header, events })
}

/// A JSON Lines file of a task's (a labeller's judgments, an adjudicator's decisions): a header
/// `H` of the expected format naming the task by the SHA-256 of `task_bytes` (`header_of` gives
/// its format, the expected one and its task hash), then one `E` a line, each with a grade of 0
/// to 3 on a question of the task (`line_of` gives both). `what` names the file's kind and a
/// line's in messages.
pub(crate) fn parse_task_lines<H: serde::de::DeserializeOwned, E: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    (task_bytes, task): (&[u8], &LabelTask),
    (what, line_is): (&str, &str),
    header_of: impl Fn(&H) -> (&str, &str, &str),
    line_of: impl Fn(&E) -> (&str, u8),
) -> Result<(H, Vec<E>)> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let (_, first) = lines.next().ok_or_else(|| {
        Error::line(
            file,
            1,
            format!("empty: a {what} file starts with its header"),
        )
    })?;
    let header: H = serde_json::from_str(first)
        .map_err(|e| Error::line(file, 1, format!("not a {what} header: {e}")))?;
    let (format, expected, named) = header_of(&header);
    if format != expected {
        return Err(Error::line(
            file,
            1,
            format!("format {format:?} is not {expected:?}"),
        ));
    }
    let want = sha256_hex(task_bytes);
    if named != want {
        return Err(Error::line(
            file,
            1,
            format!("{what} of task {named}, not of this task ({want})"),
        ));
    }
    let mut out = Vec::new();
    for (at, line) in lines {
        let entry: E = serde_json::from_str(line)
            .map_err(|e| Error::line(file, at + 1, format!("not a {line_is}: {e}")))?;
        let (question, grade) = line_of(&entry);
        if grade > TOP_GRADE {
            return Err(Error::line(
                file,
                at + 1,
                format!("grade {grade} is not 0 to 3"),
            ));
        }
        if !task.questions.iter().any(|q| q.id == question) {
            return Err(Error::line(
                file,
                at + 1,
                format!("question {question:?} is not in the task"),
            ));
        }
        out.push(entry);
    }
    Ok((header, out))
}

/// The text of a task's JSON Lines file (labels, an adjudication log): `header`, then one line
/// per entry, each ending in a newline; what [`parse_labels`] and the adjudication log's reader
/// read back.
pub fn task_lines_text<H: Serialize, E: Serialize>(header: &H, entries: &[E]) -> Result<String> {
    let mut text = String::new();
    let mut push = |json: serde_json::Result<String>| -> Result<()> {
        text += &json.map_err(|e| Error::field("labels", "line", e.to_string()))?;
        text.push('\n');
        Ok(())
    };
    push(serde_json::to_string(header))?;
    for entry in entries {
        push(serde_json::to_string(entry))?;
    }
    Ok(text)
}

/// Every (question, file) pair of the task, and any file a labeller added, with each labeller's
/// last grade: questions in the task's order, candidates in theirs, added files after them.
pub fn items(task: &LabelTask, a: &Labels, b: &Labels) -> Vec<Item> {
    let (grades_a, grades_b) = (a.grades(), b.grades());
    let mut out = Vec::new();
    for q in &task.questions {
        let mut paths: Vec<&str> = q.candidates.iter().map(String::as_str).collect();
        for ((question, path), _) in grades_a.iter().chain(grades_b.iter()) {
            if *question == q.id && !paths.contains(path) {
                paths.push(path);
            }
        }
        for path in paths {
            let key = (q.id.as_str(), path);
            out.push(Item {
                question: q.id.clone(),
                path: path.to_string(),
                a: grades_a.get(&key).copied(),
                b: grades_b.get(&key).copied(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task_bytes() -> Vec<u8> {
        serde_json::to_vec(&LabelTask {
            format: TASK_FORMAT.into(),
            questions_sha256: "q".into(),
            bundle_commit: "c".into(),
            questions: vec![TaskQuestion {
                id: "q1".into(),
                question: "where?".into(),
                candidates: vec!["a.rs".into(), "b.rs".into()],
            }],
            labellers: vec![TaskLabeller {
                seed: 1,
                order: vec![(0, vec![1, 0])],
            }],
        })
        .unwrap()
    }

    fn labels(task: &[u8], lines: &[&str]) -> String {
        let header = format!(
            r#"{{"format":"routelens-labels/1","task":"{}","labeller":"x","app":"0.1"}}"#,
            sha256_hex(task)
        );
        std::iter::once(header.as_str())
            .chain(lines.iter().copied())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn written_labels_read_back_to_the_same_events() {
        let bytes = task_bytes();
        let task = parse_task("task.json", &bytes).unwrap();
        let written = Labels {
            header: LabelsHeader {
                format: LABELS_FORMAT.into(),
                task: sha256_hex(&bytes),
                labeller: "ada".into(),
                app: "0.1.0".into(),
            },
            events: vec![LabelEvent {
                question: "q1".into(),
                path: "a.rs".into(),
                grade: 2,
                unsure: true,
                note: "line \"7\"\nonly".into(),
                position: 1,
                shown_at: 10,
                judged_at: 12,
            }],
        };
        let text = task_lines_text(&written.header, &written.events).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert_eq!(
            parse_labels("x.jsonl", &text, &bytes, &task).unwrap(),
            written
        );
    }

    #[test]
    fn the_last_event_is_the_grade_and_added_files_join_the_items() {
        let bytes = task_bytes();
        let task = parse_task("task.json", &bytes).unwrap();
        let a = parse_labels(
            "a.jsonl",
            &labels(
                &bytes,
                &[
                    r#"{"question":"q1","path":"a.rs","grade":1}"#,
                    r#"{"question":"q1","path":"a.rs","grade":3}"#,
                    r#"{"question":"q1","path":"c.rs","grade":2,"position":0}"#,
                ],
            ),
            &bytes,
            &task,
        )
        .unwrap();
        let b = parse_labels(
            "b.jsonl",
            &labels(&bytes, &[r#"{"question":"q1","path":"a.rs","grade":2}"#]),
            &bytes,
            &task,
        )
        .unwrap();
        let items = items(&task, &a, &b);
        let got: Vec<(&str, Option<u8>, Option<u8>)> =
            items.iter().map(|i| (i.path.as_str(), i.a, i.b)).collect();
        assert_eq!(
            got,
            [
                ("a.rs", Some(3), Some(2)),
                ("b.rs", None, None),
                ("c.rs", Some(2), None)
            ]
        );
    }

    #[test]
    fn labels_of_another_task_or_out_of_range_are_refused_by_line() {
        let bytes = task_bytes();
        let task = parse_task("task.json", &bytes).unwrap();
        let other = labels(b"another task", &[]);
        let refused = parse_labels("a.jsonl", &other, &bytes, &task)
            .unwrap_err()
            .to_string();
        assert!(refused.contains(&sha256_hex(b"another task")), "{refused}");
        assert!(refused.contains(&sha256_hex(&bytes)), "{refused}");
        for (line, says) in [
            (r#"{"question":"q1","path":"a.rs","grade":4}"#, "grade 4"),
            (
                r#"{"question":"q9","path":"a.rs","grade":1}"#,
                "\"q9\" is not in the task",
            ),
            (r#"{"question":"q1","path":"a.rs"}"#, "not a judgment"),
        ] {
            let refused = parse_labels("a.jsonl", &labels(&bytes, &[line]), &bytes, &task)
                .unwrap_err()
                .to_string();
            assert!(refused.starts_with("a.jsonl:2: "), "{refused}");
            assert!(refused.contains(says), "{refused}");
        }
        assert!(parse_task("t.json", b"{\"format\":\"x\"}").is_err());
    }
}
