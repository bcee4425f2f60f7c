//! A question set (JSON Lines) with its set-level lines: besides one line per question
//! (`{"id", "question", "gold", "gold_lines"}`, [`Question`]), a set may carry
//!
//! - `{"projects": {"crates/serde_json/": "serde_json", …}}`: which project a path belongs to,
//!   by its longest listed prefix (default: its top-level directory), for the failure analysis's
//!   wrong-project share;
//! - `{"corpus": [{"path", "lines", "sha256"}, …]}`: the corpus the gold was written against,
//!   as a bundle manifest lists its files; [`verify_corpus`] refuses a bundle that differs,
//!   naming the first file that is missing, extra or changed.
//!
//! Each may appear once. Errors name the file, the line and the field.

use crate::stable_sort::Sorted;
use std::collections::{BTreeMap, BTreeSet};

use crate::corpus::bundle::Manifest;
use crate::error::{Error, Result};
use crate::study::GoldSpan;

/// One pinned corpus file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedFile {
    /// Repository-relative path.
    pub path: String,
    /// Its line count, as the manifest counts lines.
    pub lines: u64,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
}

/// A set-level line.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetLine {
    #[serde(default)]
    projects: Option<BTreeMap<String, String>>,
    #[serde(default)]
    corpus: Option<Vec<PinnedFile>>,
}

/// A parsed question set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuestionSet {
    /// The questions, in file order.
    pub questions: Vec<Question>,
    /// Path prefix → project name.
    pub projects: BTreeMap<String, String>,
    /// The pinned corpus, when the set pins one.
    pub corpus: Option<Vec<PinnedFile>>,
}

impl QuestionSet {
    /// The project of a path: the name of its longest listed prefix, else its top-level
    /// directory (the path itself at the top level).
    pub fn project_of(&self, path: &str) -> String {
        self.projects
            .iter()
            .filter(|(prefix, _)| path.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, name)| name.clone())
            .unwrap_or_else(|| path.split('/').next().unwrap_or(path).to_string())
    }
}

/// Parses a question set; questions are checked as [`parse_questions`]
/// says, set-level lines by their fields.
pub fn parse_question_set(file: &str, text: &str) -> Result<QuestionSet> {
    let mut set = QuestionSet::default();
    let mut questions = String::new();
    let mut seen_projects = false;
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let value: serde_json::Value = match serde_json::from_slice(line.as_bytes()) {
            Ok(value) => value,
            // Blank lines and malformed ones go to the question parser, which names them.
            Err(_) => {
                questions.push_str(line);
                questions.push('\n');
                continue;
            }
        };
        let set_level = value.as_object().is_some_and(|o| {
            !o.contains_key("id") && (o.contains_key("projects") || o.contains_key("corpus"))
        });
        if !set_level {
            questions.push_str(line);
            questions.push('\n');
            continue;
        }
        // Keep the line count right for the question parser's messages.
        questions.push('\n');
        let parsed: SetLine = crate::json_path::from_slice(line.as_bytes()).map_err(|err| {
            Error::line(file, number, format!("field {}: {}", err.path, err.error))
        })?;
        if let Some(projects) = parsed.projects {
            if seen_projects {
                return Err(Error::line(file, number, "a second \"projects\" line"));
            }
            seen_projects = true;
            set.projects = projects;
        }
        if let Some(corpus) = parsed.corpus {
            if set.corpus.is_some() {
                return Err(Error::line(file, number, "a second \"corpus\" line"));
            }
            let mut paths = BTreeSet::new();
            for (at, pinned) in corpus.iter().enumerate() {
                if !paths.insert(pinned.path.as_str()) {
                    return Err(Error::line(
                        file,
                        number,
                        format!("field corpus[{at}].path: {:?} listed twice", pinned.path),
                    ));
                }
            }
            set.corpus = Some(corpus);
        }
    }
    set.questions = parse_question_lines(file, &questions)?;
    Ok(set)
}

/// Refuses a bundle whose files differ from the pinned corpus, naming the first file (in path
/// order) that is missing from the bundle, extra in it, or changed (lines or SHA-256). A file's
/// SHA-256 is the manifest's, or (format 6, which keeps it in the chunk headers) `sha256_of`'s.
pub fn verify_corpus(
    pinned: &[PinnedFile],
    manifest: &Manifest,
    bundle: &str,
    sha256_of: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<()> {
    let pins: BTreeMap<&str, &PinnedFile> =
        pinned.iter().map(|p| (p.path.as_str(), p)).sorted_map();
    let files: BTreeMap<&str, _> = manifest
        .files
        .iter()
        .map(|f| (f.path.as_str(), f))
        .sorted_map();
    let paths: BTreeSet<&str> = pins.keys().chain(files.keys()).copied().sorted_set();
    for path in paths {
        let why = match (pins.get(path), files.get(path)) {
            (Some(_), None) => "is pinned by the question set but missing from the bundle",
            (None, Some(_)) => "is in the bundle but not in the question set's corpus",
            (Some(pin), Some(file)) => {
                let sha256 = match &file.sha256 {
                    Some(sha256) => sha256.clone(),
                    None => sha256_of(path)?,
                };
                if pin.sha256 == sha256 && pin.lines == file.lines {
                    continue;
                }
                "differs from the question set's pin (lines or SHA-256)"
            }
            _ => continue,
        };
        return Err(Error::field(
            bundle,
            "corpus",
            format!("{path} {why}; the gold was written against another corpus"),
        ));
    }
    Ok(())
}

/// One question of a bundle's question set.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Unique id, e.g. `serde_json-float`.
    pub id: String,
    /// The issue text.
    pub question: String,
    /// Gold file paths (may be empty for an unscored question).
    #[serde(default)]
    pub gold: Vec<String>,
    /// Gold line spans on gold files (default none: the question is scored by files only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gold_lines: Vec<GoldSpan>,
}

/// Parses a question set's questions (JSON Lines; blank lines skipped; set-level lines, the
/// projects and the corpus pin of [`parse_question_set`], are read and left out). Errors name
/// `file`, the line and field; a repeated id is refused.
pub fn parse_questions(file: &str, text: &str) -> Result<Vec<Question>> {
    Ok(crate::load::question_set::parse_question_set(file, text)?.questions)
}

/// Parses question lines only (every non-blank line a question).
fn parse_question_lines(file: &str, text: &str) -> Result<Vec<Question>> {
    let mut questions: Vec<Question> = Vec::new();
    let mut seen = BTreeSet::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if line.trim().is_empty() {
            continue;
        }
        let question: Question = crate::json_path::from_slice(line.as_bytes()).map_err(|err| {
            Error::line(file, number, format!("field {}: {}", err.path, err.error))
        })?;
        for (index, span) in question.gold_lines.iter().enumerate() {
            let bad = |message: String| {
                Error::line(
                    file,
                    number,
                    format!("field gold_lines[{index}]: {message}"),
                )
            };
            if !question.gold.contains(&span.path) {
                return Err(bad(format!("{:?} is not one of the gold files", span.path)));
            }
            if span.start_line == 0 || span.end_line < span.start_line {
                return Err(bad(format!(
                    "lines {}-{}: expected 1 <= start_line <= end_line",
                    span.start_line, span.end_line
                )));
            }
        }
        if !seen.insert(question.id.clone()) {
            return Err(Error::line(
                file,
                number,
                format!("question {:?} is defined twice", question.id),
            ));
        }
        questions.push(question);
    }
    Ok(questions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_lines_are_read_beside_the_questions() {
        let text = concat!(
            "{\"projects\": {\"crates/serde_json/\": \"serde_json\", \"crates/\": \"crates\"}}\n",
            "{\"id\": \"q1\", \"question\": \"float?\", \"gold\": [\"crates/serde_json/src/de.rs\"]}\n",
            "{\"corpus\": [{\"path\": \"a.rs\", \"lines\": 3, \"sha256\": \"00\"}]}\n",
        );
        let set = parse_question_set("q.jsonl", text).unwrap();
        assert_eq!(set.questions.len(), 1);
        assert_eq!(set.project_of("crates/serde_json/src/de.rs"), "serde_json");
        assert_eq!(set.project_of("crates/regex/src/lib.rs"), "crates");
        assert_eq!(set.project_of("routelens/engine/x.rs"), "routelens");
        assert_eq!(set.corpus.as_ref().unwrap()[0].lines, 3);
        let twice = format!("{text}{{\"corpus\": []}}\n");
        let error = parse_question_set("q.jsonl", &twice)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("q.jsonl:4:"), "{error}");
        let bad = "{\"projects\": {\"a/\": 1}}\n";
        let error = parse_question_set("q.jsonl", bad).unwrap_err().to_string();
        assert!(
            error.starts_with("q.jsonl:1:") && error.contains("projects"),
            "{error}"
        );
        // A question's error keeps its line number after a set line.
        let text = "{\"projects\": {}}\n{\"id\": \"q\", \"question\": 3}\n";
        let error = parse_question_set("q.jsonl", text).unwrap_err().to_string();
        assert!(error.starts_with("q.jsonl:2:"), "{error}");
    }

    #[test]
    fn a_pinned_corpus_names_the_first_file_that_differs() {
        use crate::corpus::bundle::{encode_bundle, BundleInput, BundleOptions, SourceFile};
        let input = BundleInput {
            files: ["a.rs", "b.rs"]
                .iter()
                .map(|p| SourceFile {
                    path: p.to_string(),
                    bytes: b"x\ny\n".to_vec(),
                })
                .collect(),
            ..BundleInput::default()
        };
        let text_sha = crate::checksum::sha256_hex(b"x\ny\n");
        let pin = |path: &str, lines: u64| PinnedFile {
            path: path.into(),
            lines,
            sha256: text_sha.clone(),
        };
        // Format 4 lists each file's hash; format 6 leaves it to the texts (`sha256_of`).
        let whole = BundleOptions {
            list_files_apart: false,
            ..BundleOptions::default()
        };
        for options in [whole, BundleOptions::default()] {
            let manifest = encode_bundle(input.clone(), options).unwrap().manifest;
            let apart = manifest.file_list.is_some();
            let mut asked = Vec::new();
            let mut texts = |path: &str| {
                asked.push(path.to_string());
                Ok(text_sha.clone())
            };
            verify_corpus(
                &[pin("a.rs", 2), pin("b.rs", 2)],
                &manifest,
                "demo",
                &mut texts,
            )
            .unwrap();
            assert_eq!(asked.len(), if apart { 2 } else { 0 });
            let said = |pins: &[PinnedFile]| {
                verify_corpus(pins, &manifest, "demo", &mut |_| Ok(text_sha.clone()))
                    .unwrap_err()
                    .to_string()
            };
            assert!(said(&[pin("a.rs", 2)]).contains("b.rs is in the bundle but not in"));
            assert!(
                said(&[pin("a.rs", 2), pin("b.rs", 2), pin("c.rs", 1)]).contains("c.rs is pinned")
            );
            assert!(said(&[pin("a.rs", 3), pin("b.rs", 2)]).contains("a.rs differs"));
            let mut other = pin("b.rs", 2);
            other.sha256 = "0".repeat(64);
            assert!(said(&[pin("a.rs", 2), other]).contains("b.rs differs"));
        }
    }

    #[test]
    fn questions_refuse_bad_lines_naming_them() {
        let error = parse_questions("q.jsonl", "{\"id\":\"a\",\"question\":1}\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("q.jsonl") && error.contains("question"),
            "{error}"
        );
        let twice = "{\"id\":\"a\",\"question\":\"x\"}\n{\"id\":\"a\",\"question\":\"y\"}\n";
        let error = parse_questions("q.jsonl", twice).unwrap_err().to_string();
        assert!(error.contains("line 2") || error.contains(":2"), "{error}");
    }
}
