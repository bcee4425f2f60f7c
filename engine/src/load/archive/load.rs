//! Reading the archive into a study: the case ledger and gold audit, every arm's archived
//! rankings, the prespecified labels, and the archived per-case line measurements.

use crate::stable_sort::Sorted;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use super::verify_checksums;
use super::{
    get, ArchiveBytes, FLAT, FTS5, GOLD_AUDIT, LEDGER, PATH_FTS5, POSTSTUDY, RG, RG_FEEDBACK,
    STUDY, TREE,
};
use crate::error::{Error, Result};
use crate::study::{check_unique_paths, ArchivedLines, Arm, ArmOrigin, Case, GoldSpan, Study};

#[derive(Deserialize)]
struct Ledger {
    /// The pinned ContextBench revision the issues were taken from.
    #[serde(default)]
    dataset_revision: Option<String>,
    /// The SHA-256 of its Parquet file.
    #[serde(default)]
    parquet_sha256: Option<String>,
    cases: Vec<LedgerCase>,
}

#[derive(Deserialize)]
struct LedgerCase {
    id: String,
    repo: String,
    base_commit: String,
    query_sha256: String,
    gold: Vec<GoldSpan>,
}

#[derive(Deserialize)]
struct Rows {
    results: Vec<Value>,
    /// The run's recorded settings, where the file has them.
    #[serde(default)]
    config: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct AuditRow {
    id: String,
    aligned: bool,
}

#[derive(Deserialize)]
struct GoldAudit {
    results: Vec<AuditRow>,
}

/// Fields of a ranking row that are its identity or archived recall, not an operation measurement.
const NOT_MEASUREMENTS: &[&str] = &[
    "file_recall",
    "complete_files",
    "file_recall@8",
    "file_recall@16",
];

fn parse<T: serde::de::DeserializeOwned>(file: &str, bytes: &[u8]) -> Result<T> {
    crate::json_path::from_slice(bytes).map_err(|err| {
        let (field, message) = (err.path, err.error.to_string());
        if field == "." {
            Error::Parse {
                file: file.to_string(),
                message: format!("invalid JSON: {message}"),
            }
        } else {
            Error::field(file, field, message)
        }
    })
}

/// One arm read from a results file: rows filtered by `mode` (field and value), paths by case id.
struct ArmSource {
    name: &'static str,
    label: &'static str,
    file: &'static str,
    /// `Some((field, value))` keeps only rows whose field has that value.
    mode: Option<(&'static str, &'static str)>,
}

const ARM_SOURCES: &[ArmSource] = &[
    ArmSource {
        name: "tree",
        label: "Name-only tree",
        file: TREE,
        mode: Some(("variant", "wide")),
    },
    ArmSource {
        name: "fts5",
        label: "FTS5, first 500 chars",
        file: FTS5,
        mode: Some(("query_mode", "first500")),
    },
    ArmSource {
        name: "fts5-full",
        label: "FTS5, full issue",
        file: FTS5,
        mode: Some(("query_mode", "full")),
    },
    ArmSource {
        name: "rg",
        label: "Fixed full-issue rg",
        file: RG,
        mode: Some(("query_mode", "full")),
    },
    ArmSource {
        name: "rg-first500",
        label: "rg, first 500 chars",
        file: RG,
        mode: Some(("query_mode", "first500")),
    },
    ArmSource {
        name: "rg-feedback",
        label: "Two-search rg",
        file: RG_FEEDBACK,
        mode: None,
    },
    ArmSource {
        name: "path-fts5",
        label: "Path-only FTS5",
        file: PATH_FTS5,
        mode: Some(("query_mode", "first500")),
    },
    ArmSource {
        name: "flat-jev",
        label: "Flat Jev tournament",
        file: FLAT,
        mode: None,
    },
];

/// Builds an arm from result rows that each carry `id` and `paths` (plus measurements).
fn arm_from_rows(
    name: &str,
    label: &str,
    file: &str,
    rows: &[Value],
    mode: Option<(&str, &str)>,
    index: &BTreeMap<String, usize>,
) -> Result<Arm> {
    let mut arm = Arm::new(
        name,
        label,
        ArmOrigin::Archived,
        vec![Vec::new(); index.len()],
    );
    let mut seen = BTreeSet::new();
    for (row_number, row) in rows.iter().enumerate() {
        let at = |field: &str| format!("results[{row_number}].{field}");
        if let Some((field, value)) = mode {
            if row.get(field).and_then(Value::as_str) != Some(value) {
                continue;
            }
        }
        let id = row
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::field(file, at("id"), "missing or not a string"))?;
        let case = *index.get(id).ok_or_else(|| {
            Error::field(
                file,
                at("id"),
                format!("case {id:?} is not in the case ledger"),
            )
        })?;
        if !seen.insert(case) {
            return Err(Error::field(
                file,
                at("id"),
                format!("a second row for case {id:?}"),
            ));
        }
        let paths: Vec<String> = row
            .get("paths")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::field(file, at("paths"), "missing or not a list"))?
            .iter()
            .map(|p| p.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::field(file, at("paths"), "a path is not a string"))?;
        check_unique_paths(&paths, file, &at("paths"))?;
        arm.rankings[case] = paths;
        if let Some(fields) = row.as_object() {
            arm.measurements[case] = fields
                .iter()
                .filter(|(key, _)| !NOT_MEASUREMENTS.contains(&key.as_str()))
                .filter_map(|(key, value)| {
                    let number = value.as_f64().or_else(|| value.as_bool().map(f64::from))?;
                    Some((key.clone(), number))
                })
                .sorted_map();
        }
    }
    Ok(arm)
}

/// Reads archived per-case line measurements (`arm`, `k`, `id`, `line_recall_16k`, …) into the arms.
fn attach_archived_lines(
    study: &mut Study,
    file: &str,
    rows: &[Value],
    index: &BTreeMap<String, usize>,
) -> Result<()> {
    for (row_number, row) in rows.iter().enumerate() {
        let at = |field: &str| format!("results[{row_number}].{field}");
        let text = |field: &str| {
            row.get(field)
                .and_then(Value::as_str)
                .ok_or_else(|| Error::field(file, at(field), "missing or not a string"))
        };
        let number = |field: &str| row.get(field).and_then(Value::as_f64);
        let (arm_name, id) = (text("arm")?, text("id")?);
        let k = row
            .get("k")
            .and_then(Value::as_u64)
            .ok_or_else(|| Error::field(file, at("k"), "missing or not a whole number"))?
            as usize;
        let case = *index.get(id).ok_or_else(|| {
            Error::field(
                file,
                at("id"),
                format!("case {id:?} is not in the case ledger"),
            )
        })?;
        let line_recall = number("line_recall_16k")
            .ok_or_else(|| Error::field(file, at("line_recall_16k"), "missing or not a number"))?;
        let arm = study
            .arm_index(arm_name)
            .map_err(|_| Error::field(file, at("arm"), format!("unknown arm {arm_name:?}")))?;
        let lines = ArchivedLines {
            line_recall,
            complete_lines: number("complete_lines_16k").unwrap_or(0.0) > 0.0,
            context_tokens: number("context_tokens_16k"),
            context_file_recall: number("context_file_recall_16k"),
        };
        let cases = study.cases.len();
        study.arms[arm]
            .archived_lines
            .entry(k)
            .or_insert_with(|| vec![None; cases])[case] = Some(lines);
    }
    Ok(())
}

/// Reads the prespecified labels off the first study row of each case.
fn attach_flags(study: &mut Study, rows: &[Value], index: &BTreeMap<String, usize>) {
    for row in rows {
        let Some(&case) = row
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| index.get(id))
        else {
            continue;
        };
        let flag = |field: &str| row.get(field).and_then(Value::as_f64).map(|v| v > 0.0);
        let flags = &mut study.cases[case].flags;
        flags.mentions_gold_path = flags
            .mentions_gold_path
            .or(flag("issue_mentions_gold_path"));
        flags.mentions_gold_basename = flags
            .mentions_gold_basename
            .or(flag("issue_mentions_gold_basename"));
    }
}

/// Loads the paper's study from the archive files, after checking every file's SHA-256.
pub fn load_archive(files: &ArchiveBytes) -> Result<Study> {
    verify_checksums(files)?;
    let ledger: Ledger = parse(LEDGER, get(files, LEDGER)?)?;
    let issue_source = ledger.dataset_revision.as_ref().map(|revision| {
        let parquet = ledger
            .parquet_sha256
            .as_ref()
            .map(|sha| format!(", Parquet SHA-256 {sha}"))
            .unwrap_or_default();
        format!("ContextBench at revision {revision}{parquet}, as {LEDGER} records it")
    });
    let mut cases = Vec::with_capacity(ledger.cases.len());
    let mut index = BTreeMap::new();
    for (number, entry) in ledger.cases.into_iter().enumerate() {
        if index.insert(entry.id.clone(), number).is_some() {
            return Err(Error::field(
                LEDGER,
                format!("cases[{number}].id"),
                "duplicate case id",
            ));
        }
        if entry.gold.is_empty() {
            return Err(Error::field(
                LEDGER,
                format!("cases[{number}].gold"),
                "no gold spans",
            ));
        }
        let mut case = Case::from_spans(entry.id, entry.repo, entry.gold);
        case.base_commit = Some(entry.base_commit);
        case.query_sha256 = Some(entry.query_sha256);
        cases.push(case);
    }

    let audit: GoldAudit = parse(GOLD_AUDIT, get(files, GOLD_AUDIT)?)?;
    let mut aligned: BTreeMap<usize, bool> = BTreeMap::new();
    for (number, row) in audit.results.iter().enumerate() {
        let case = *index.get(&row.id).ok_or_else(|| {
            Error::field(
                GOLD_AUDIT,
                format!("results[{number}].id"),
                "case not in the ledger",
            )
        })?;
        *aligned.entry(case).or_insert(true) &= row.aligned;
    }
    for (case, value) in aligned {
        cases[case].flags.gold_text_aligned = Some(value);
    }

    let mut study = Study {
        title: "Name-only directory routing (fastindex, 82 cases)".into(),
        cases,
        arms: Vec::new(),
        // The paper's loader decided which files every arm could rank.
        policy: Some(crate::corpus::policy::PolicyName::Paper),
        issue_source,
    };
    for source in ARM_SOURCES {
        let Some(bytes) = files.get(source.file) else {
            continue;
        };
        let rows: Rows = parse(source.file, bytes)?;
        let mut arm = arm_from_rows(
            source.name,
            source.label,
            source.file,
            &rows.results,
            source.mode,
            &index,
        )?;
        arm.config = rows.config;
        study.add_arm(arm)?;
    }

    let study_rows: Rows = parse(STUDY, get(files, STUDY)?)?;
    // The archived `tree+fts5` line values belong to the paper's fusion; add that fusion so they
    // have an arm to attach to (it is recomputed here from tree and FTS5, as the paper did).
    crate::scoring::fusion::add_fusion(
        &mut study,
        &["tree".into(), "fts5".into()],
        Default::default(),
    )?;
    attach_flags(&mut study, &study_rows.results, &index);
    attach_archived_lines(&mut study, STUDY, &study_rows.results, &index)?;

    if let Some(bytes) = files.get(POSTSTUDY) {
        #[derive(Deserialize)]
        struct PostStudy {
            results: Vec<Value>,
            basename_rankings: Vec<Value>,
        }
        let post: PostStudy = parse(POSTSTUDY, bytes)?;
        let arm = arm_from_rows(
            "basename",
            "Basename overlap",
            POSTSTUDY,
            &post.basename_rankings,
            None,
            &index,
        )?;
        study.add_arm(arm)?;
        let known: BTreeSet<String> = study.arm_names().into_iter().sorted_set();
        let rows: Vec<Value> = post
            .results
            .into_iter()
            .filter(|row| {
                row.get("arm")
                    .and_then(Value::as_str)
                    .is_some_and(|a| known.contains(a))
            })
            .collect();
        attach_archived_lines(&mut study, POSTSTUDY, &rows, &index)?;
    }
    Ok(study)
}
