//! `json_path` names the field serde_path_to_error names. Every node of a few documents shaped
//! like routelens's files (nested records, lists, maps, optional and defaulted fields, tagged and
//! untagged enums, refused unknown fields, checked values) is broken in turn (its value replaced
//! by each wrong kind, a required field removed, an unknown field added), printed compact and
//! pretty, and read with both. Our path is serde_path_to_error's, or — inside a value serde
//! buffers before reading it (an internally tagged enum), where serde_json's position is the
//! end of the record holding it — that record's path; the second is counted and kept rare.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use routelens_engine::json_path;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Archive {
    format: String,
    results: Vec<Row>,
    #[serde(default)]
    notes: Option<String>,
    by_repo: BTreeMap<String, Vec<u32>>,
    settings: Settings,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Row {
    id: String,
    #[serde(rename = "file_recall@8")]
    recall: f64,
    paths: Vec<String>,
    span: (u32, u32),
    kind: Kind,
    #[serde(default)]
    extra: Option<Vec<Row2>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Row2 {
    start: u32,
    #[serde(deserialize_with = "positive")]
    end: u32,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Kind {
    Function,
    Window { lines: u32 },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "mode")]
#[allow(dead_code)]
enum Settings {
    Flat { k: u32 },
    Tree { depth: u8, names: Vec<String> },
}

fn positive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = u32::deserialize(d)?;
    if n == 0 {
        return Err(serde::de::Error::custom("must be positive"));
    }
    Ok(n)
}

fn archive() -> Value {
    json!({
        "format": "fastindex/1",
        "notes": "n",
        "results": [
            {"id": "a::1", "file_recall@8": 0.5, "paths": ["x.rs", "y.rs"], "span": [1, 2],
             "kind": "function", "extra": [{"start": 1, "end": 3}, {"start": 4, "end": 5}]},
            {"id": "a::2", "file_recall@8": 1.0, "paths": [], "span": [3, 9],
             "kind": {"window": {"lines": 40}}}
        ],
        "by_repo": {"a": [1, 2, 3], "b \"q\"": []},
        "settings": {"mode": "Tree", "depth": 3, "names": ["src", "lib"]}
    })
}

/// Every node's pointer (RFC 6901) with its value.
fn nodes(value: &Value, pointer: String, out: &mut Vec<String>) {
    out.push(pointer.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                nodes(item, format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                nodes(item, format!("{pointer}/{escaped}"), out);
            }
        }
        _ => {}
    }
}

/// The broken documents: each node replaced by each wrong kind, each object's fields removed
/// one at a time, an unknown field added to each object.
fn broken(doc: &Value) -> Vec<Value> {
    let mut pointers = Vec::new();
    nodes(doc, String::new(), &mut pointers);
    let replacements = [
        json!("text"),
        json!(7),
        json!(-1),
        json!(0),
        json!(2.5),
        json!(null),
        json!(true),
        json!([]),
        json!([1]),
        json!({}),
        json!({"zz": 1}),
    ];
    let mut out = Vec::new();
    for pointer in &pointers {
        for replacement in &replacements {
            let mut copy = doc.clone();
            *copy.pointer_mut(pointer).unwrap() = replacement.clone();
            out.push(copy);
        }
        if let Some(Value::Object(map)) = doc.pointer(pointer) {
            for key in map.keys() {
                let mut copy = doc.clone();
                copy.pointer_mut(pointer)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(key);
                out.push(copy);
            }
            let mut copy = doc.clone();
            copy.pointer_mut(pointer)
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert("unknown_field".into(), json!(1));
            out.push(copy);
        }
    }
    out
}

/// Failures seen, and how many of them were placed at an enclosing record.
#[derive(Default)]
struct Agreement {
    failures: usize,
    enclosing: usize,
}

/// Whether `outer` is `inner` or a record or list holding it.
fn encloses(outer: &str, inner: &str) -> bool {
    outer == "."
        || inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// Reads every broken document with both; only a failure inside a `buffered` path may be placed
/// at an enclosing record.
fn agree<T: DeserializeOwned + std::fmt::Debug>(doc: Value, buffered: Option<&str>) -> Agreement {
    let mut seen = Agreement::default();
    for broken in broken(&doc) {
        for text in [
            serde_json::to_string(&broken).unwrap(),
            serde_json::to_string_pretty(&broken).unwrap(),
        ] {
            let reference = serde_path_to_error::deserialize::<_, T>(
                &mut serde_json::Deserializer::from_str(&text),
            );
            let ours = json_path::from_slice::<T>(text.as_bytes());
            match (reference, ours) {
                (Ok(_), Ok(_)) => {}
                (Err(reference), Err(ours)) => {
                    seen.failures += 1;
                    let reference = reference.path().to_string();
                    if ours.path != reference {
                        assert!(
                            encloses(&ours.path, &reference)
                                && buffered.is_some_and(|b| encloses(b, &reference)),
                            "{text}\nfails with: {}\nours {:?}, reference {reference:?}",
                            ours.error,
                            ours.path
                        );
                        seen.enclosing += 1;
                    }
                }
                (reference, ours) => panic!("{text}\nreference {reference:?}, ours {ours:?}"),
            }
        }
    }
    seen
}

#[test]
fn paths_match_serde_path_to_error_on_every_broken_node() {
    let seen = agree::<Archive>(archive(), Some("settings"));
    assert!(
        seen.failures > 500,
        "only {} broken documents failed",
        seen.failures
    );
    // Only inside the internally tagged `settings`, a tenth of the failures, is the path short.
    assert!(
        seen.enclosing * 10 <= seen.failures,
        "{} of {} placed at an enclosing record",
        seen.enclosing,
        seen.failures
    );
}

#[test]
fn paths_match_for_top_level_lists_and_lines() {
    let gold = json!([
        {"start": 1, "end": 2},
        {"start": 3, "end": 4}
    ]);
    let seen = agree::<Vec<Row2>>(gold, None);
    assert!(seen.failures > 50 && seen.enclosing == 0);
    let line = json!({"id": "r::1", "arm": "x", "paths": ["a", "b"]});
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Line {
        id: String,
        arm: String,
        paths: Vec<String>,
    }
    let seen = agree::<Line>(line, None);
    assert!(seen.failures > 20 && seen.enclosing == 0);
}

#[test]
fn a_value_is_read_through_its_text() {
    let value = json!({"start": 1, "end": 0});
    let err = json_path::from_value::<Row2>(&value).unwrap_err();
    assert_eq!(err.path, "end");
    // The position is the printed value's, not a file's: it is left out of the message.
    assert_eq!(err.message(), "must be positive");
    assert!(err
        .error
        .to_string()
        .starts_with("must be positive at line 1"));
}

#[test]
fn syntax_errors_are_told_apart_and_placed() {
    let err = json_path::from_slice::<Row2>(br#"{"start": 1, "end": "#).unwrap_err();
    assert!(err.is_syntax());
    assert_eq!(err.path, "end");
    let err = json_path::from_slice::<Row2>(br#"{"start": 1 "end": 2}"#).unwrap_err();
    assert!(err.is_syntax());
    assert_eq!(err.path, "start");
    let err = json_path::from_slice::<Row2>(br#"{"start": "x", "end": 2}"#).unwrap_err();
    assert!(!err.is_syntax());
}
