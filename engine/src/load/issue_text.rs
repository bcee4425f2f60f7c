//! Issue texts supplied by the user. The archive keeps only each issue's SHA-256
//! (`query_sha256`), not its text, so a reader who has the texts can load them from a file; a text
//! is accepted only when it hashes to the archived value, so what is shown is exactly what was
//! searched with.
//!
//! Three file forms are read: a JSON object mapping case id to text (`{"<id>": "<text>"}`), a JSON
//! list of `{"id", "text"}` objects, or JSON Lines of `{"id", "text"}` objects.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};
use crate::study::Study;

/// One issue text as read from a file, not yet checked.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueText {
    /// The case id the text claims to belong to.
    pub id: String,
    /// The issue text, byte for byte as it was hashed.
    pub text: String,
}

/// Why a text was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The study has no case with this id.
    #[error("no case with this id in the study")]
    UnknownCase,
    /// The case has no archived hash, so the text cannot be checked.
    #[error("the study has no query_sha256 for this case")]
    NoHash,
    /// The text hashes to a different value than the archive lists.
    #[error("SHA-256 mismatch: the study lists {expected}, the text hashes to {actual}")]
    Mismatch {
        /// The archived `query_sha256`.
        expected: String,
        /// The hash of the supplied text.
        actual: String,
    },
}

/// The outcome of checking a file's texts against a study.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckedTexts {
    /// Accepted texts by case id.
    pub accepted: BTreeMap<String, String>,
    /// Refused texts: case id and reason, in file order.
    pub refused: Vec<(String, Refusal)>,
}

fn record(file: &str, line: Option<usize>, value: &serde_json::Value) -> Result<IssueText> {
    crate::json_path::from_value(value).map_err(|err| {
        let message = format!("field {}: {}", err.path, err.error);
        match line {
            Some(line) => Error::line(file, line, message),
            None => Error::Parse {
                file: file.to_string(),
                message,
            },
        }
    })
}

/// Reads issue texts from a file in any of the three forms. `file` is the name used in messages.
pub fn parse_issue_texts(file: &str, content: &str) -> Result<Vec<IssueText>> {
    let trimmed = content.trim_start();
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(trimmed.as_bytes()) {
        return match value {
            serde_json::Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(index, item)| {
                    record(file, None, &item).map_err(|err| match err {
                        Error::Parse { message, .. } => {
                            Error::field(file, format!("[{index}]"), message)
                        }
                        other => other,
                    })
                })
                .collect(),
            // A one-line JSON Lines file is also one JSON object: `{"id", "text"}` is a record.
            serde_json::Value::Object(map)
                if map.len() == 2 && map.contains_key("id") && map.contains_key("text") =>
            {
                Ok(vec![record(
                    file,
                    Some(1),
                    &serde_json::Value::Object(map),
                )?])
            }
            serde_json::Value::Object(map) => map
                .into_iter()
                .map(|(id, text)| match text {
                    serde_json::Value::String(text) => Ok(IssueText { id, text }),
                    _ => Err(Error::field(file, id, "the text is not a string")),
                })
                .collect(),
            _ => Err(Error::Parse {
                file: file.to_string(),
                message: "expected a JSON object, a JSON list or JSON Lines".to_string(),
            }),
        };
    }
    if !trimmed.starts_with('{') {
        return Err(Error::Parse {
            file: file.to_string(),
            message: "not JSON: expected a JSON object, a JSON list or JSON Lines".to_string(),
        });
    }
    content
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            let value = serde_json::from_slice(line.as_bytes())
                .map_err(|err| Error::line(file, number, format!("invalid JSON: {err}")))?;
            record(file, Some(number), &value)
        })
        .collect()
}

/// Accepts each text whose SHA-256 equals its case's `query_sha256`; refuses the rest with a reason.
pub fn check_issue_texts(study: &Study, texts: Vec<IssueText>) -> CheckedTexts {
    let mut checked = CheckedTexts::default();
    for IssueText { id, text } in texts {
        let refusal = match study.case_index(&id) {
            None => Some(Refusal::UnknownCase),
            Some(case) => match &study.cases[case].query_sha256 {
                None => Some(Refusal::NoHash),
                Some(expected) => {
                    let actual = sha256_hex(text.as_bytes());
                    (&actual != expected).then(|| Refusal::Mismatch {
                        expected: expected.clone(),
                        actual,
                    })
                }
            },
        };
        match refusal {
            Some(reason) => checked.refused.push((id, reason)),
            None => {
                checked.accepted.insert(id, text);
            }
        }
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::runfile::load_jsonl;

    fn texts(pairs: &[(&str, &str)]) -> Vec<IssueText> {
        pairs
            .iter()
            .map(|(id, text)| IssueText {
                id: id.to_string(),
                text: text.to_string(),
            })
            .collect()
    }

    #[test]
    fn reads_all_three_forms() {
        let expected = texts(&[("a", "one"), ("b", "two")]);
        assert_eq!(
            parse_issue_texts("t.json", r#"{"a": "one", "b": "two"}"#).unwrap(),
            expected
        );
        assert_eq!(
            parse_issue_texts(
                "t.json",
                r#"[{"id": "a", "text": "one"}, {"id": "b", "text": "two"}]"#
            )
            .unwrap(),
            expected
        );
        assert_eq!(
            parse_issue_texts(
                "t.jsonl",
                "{\"id\": \"a\", \"text\": \"one\"}\n\n{\"id\": \"b\", \"text\": \"two\"}\n"
            )
            .unwrap(),
            expected
        );
        assert_eq!(
            parse_issue_texts("t.jsonl", r#"{"id": "a", "text": "one"}"#).unwrap(),
            texts(&[("a", "one")])
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let err = parse_issue_texts("t.jsonl", "{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": 3}\n")
            .unwrap_err();
        assert!(err.to_string().starts_with("t.jsonl:2: field id"), "{err}");
        let err = parse_issue_texts("t.json", r#"{"a": 1}"#).unwrap_err();
        assert_eq!(err.to_string(), "t.json: field a: the text is not a string");
        let err = parse_issue_texts("t.json", r#"[{"id": "a", "txt": "x"}]"#).unwrap_err();
        assert!(err.to_string().starts_with("t.json: field [0]"), "{err}");
        let err = parse_issue_texts("t.txt", "plain text").unwrap_err();
        assert!(err.to_string().starts_with("t.txt: not JSON"), "{err}");
    }

    #[test]
    fn accepts_only_matching_hashes() {
        let jsonl = format!(
            "{{\"id\": \"r::1\", \"gold\": [\"a.rs\"], \"query_sha256\": \"{}\"}}\n{{\"id\": \"r::2\", \"gold\": [\"b.rs\"]}}\n",
            sha256_hex(b"the issue")
        );
        let study = load_jsonl("s.jsonl", &jsonl).unwrap();
        let checked = check_issue_texts(
            &study,
            texts(&[
                ("r::1", "the issue"),
                ("r::1", "the issue "),
                ("r::2", "x"),
                ("r::9", "y"),
            ]),
        );
        assert_eq!(checked.accepted.len(), 1);
        assert_eq!(checked.accepted["r::1"], "the issue");
        let reasons: Vec<_> = checked
            .refused
            .iter()
            .map(|(id, r)| (id.as_str(), r))
            .collect();
        assert!(matches!(reasons[0], ("r::1", Refusal::Mismatch { .. })));
        assert_eq!(reasons[1], ("r::2", &Refusal::NoHash));
        assert_eq!(reasons[2], ("r::9", &Refusal::UnknownCase));
    }
}
