//! Loader for the fastindex paper archive (`paper/data/*.json` of the paper's repository at commit
//! 50721e11): the case ledger with gold spans, the gold-text audit, the archived rankings of every
//! arm, and the archived per-case line measurements.
//!
//! The loader takes the files' bytes keyed by their path relative to the archive root, so the same
//! code serves the command line (read from a folder) and the browser (fetched from a URL or picked
//! by the user). Every file is checked against the SHA-256 that `paper/data/README.md` lists for
//! it, and refused by name when it does not match.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::study::{check_unique_paths, ArchivedLines, Arm, ArmOrigin, Case, GoldSpan, Study};

/// The archive's README, which lists every data file's SHA-256.
pub const README: &str = "paper/data/README.md";
const LEDGER: &str = "paper/data/contextbench-case-ledger.json";
const GOLD_AUDIT: &str = "paper/data/contextbench-paper-gold-audit.json";
const STUDY: &str = "paper/data/contextbench-paper-study.json";
const POSTSTUDY: &str = "paper/data/contextbench-paper-poststudy.json";
const TREE: &str = "paper/data/contextbench-paper-tree.json";
const FTS5: &str = "paper/data/contextbench-paper-fts5.json";
const RG: &str = "paper/data/contextbench-paper-rg.json";
const RG_FEEDBACK: &str = "paper/data/contextbench-paper-rg-feedback.json";
const PATH_FTS5: &str = "paper/data/contextbench-paper-path-fts5.json";
const FLAT: &str = "paper/data/contextbench-paper-flat-paths.json";

/// One file of the archive and whether the loader needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveFile {
    /// Path relative to the archive root.
    pub path: &'static str,
    /// Needed for the primary study; the post-study files add arms when present.
    pub required: bool,
}

/// The files the loader reads, in the order a client should fetch them.
pub const ARCHIVE_FILES: &[ArchiveFile] = &[
    ArchiveFile {
        path: README,
        required: true,
    },
    ArchiveFile {
        path: LEDGER,
        required: true,
    },
    ArchiveFile {
        path: GOLD_AUDIT,
        required: true,
    },
    ArchiveFile {
        path: STUDY,
        required: true,
    },
    ArchiveFile {
        path: TREE,
        required: true,
    },
    ArchiveFile {
        path: FTS5,
        required: true,
    },
    ArchiveFile {
        path: RG,
        required: true,
    },
    ArchiveFile {
        path: POSTSTUDY,
        required: false,
    },
    ArchiveFile {
        path: PATH_FTS5,
        required: false,
    },
    ArchiveFile {
        path: RG_FEEDBACK,
        required: false,
    },
    ArchiveFile {
        path: FLAT,
        required: false,
    },
];

/// The pinned public copy of the archive: the paper's repository at commit 50721e11.
pub const PINNED_ARCHIVE_URL: &str =
    "https://raw.githubusercontent.com/manojbajaj95/fastindex/50721e114e37d908648bc5b30a0c63ac718d776e";

/// The archive's files: path relative to the archive root → bytes.
pub type ArchiveBytes = BTreeMap<String, Vec<u8>>;

/// The SHA-256 values listed in the README's tables, by file name.
pub fn listed_checksums(readme: &str) -> BTreeMap<String, String> {
    readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let hash = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (name.to_string(), hash.to_ascii_lowercase()))
        })
        .collect()
}

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[derive(Deserialize)]
struct Ledger {
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
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let field = err.path().to_string();
        let message = err.into_inner().to_string();
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

fn get<'a>(files: &'a ArchiveBytes, path: &str) -> Result<&'a [u8]> {
    files
        .get(path)
        .map(Vec::as_slice)
        .ok_or_else(|| Error::MissingFile {
            file: path.to_string(),
        })
}

/// Checks every supplied file against the README's SHA-256 list.
pub fn verify_checksums(files: &ArchiveBytes) -> Result<()> {
    let readme = std::str::from_utf8(get(files, README)?).map_err(|_| Error::Parse {
        file: README.to_string(),
        message: "not UTF-8 text".to_string(),
    })?;
    let listed = listed_checksums(readme);
    for file in ARCHIVE_FILES.iter().filter(|f| f.path != README) {
        let Some(bytes) = files.get(file.path) else {
            if file.required {
                return Err(Error::MissingFile {
                    file: file.path.to_string(),
                });
            }
            continue;
        };
        let name = file.path.rsplit('/').next().unwrap_or(file.path);
        let expected = listed
            .get(name)
            .ok_or_else(|| Error::field(README, name, "no SHA-256 listed for this file"))?;
        let actual = sha256_hex(bytes);
        if &actual != expected {
            return Err(Error::Checksum {
                file: file.path.to_string(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(())
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
                .collect();
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
    };
    for source in ARM_SOURCES {
        let Some(bytes) = files.get(source.file) else {
            continue;
        };
        let rows: Rows = parse(source.file, bytes)?;
        let arm = arm_from_rows(
            source.name,
            source.label,
            source.file,
            &rows.results,
            source.mode,
            &index,
        )?;
        study.add_arm(arm)?;
    }

    let study_rows: Rows = parse(STUDY, get(files, STUDY)?)?;
    // The archived `tree+fts5` line values belong to the paper's fusion; add that fusion so they
    // have an arm to attach to (it is recomputed here from tree and FTS5, as the paper did).
    crate::fusion::add_fusion(
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
        let known: BTreeSet<String> = study.arm_names().into_iter().collect();
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

/// Matches the files of a folder pick to the archive paths the loader reads, so the browser reads
/// only those files' bytes.
///
/// `relative` holds each picked file's path as the browser reports it (`webkitRelativePath`, which
/// starts with the picked folder's own name; that first component is dropped). The pick may be the
/// archive root (`fastindex/paper/data/README.md`), a folder above it
/// (`shared/data/fastindex/paper/data/README.md`), or `paper` or `paper/data` itself
/// (`data/README.md`). When several picked files could be one archive file, the closest match wins
/// (same path, then a deeper folder, then a shallower one), so a repository's top-level README.md
/// never stands in for `paper/data/README.md`. Returns the index into `relative` of each archive
/// file found; two equally close candidates are an error naming both.
pub fn match_picked_files(relative: &[String]) -> Result<BTreeMap<&'static str, usize>> {
    let mut best: BTreeMap<&'static str, (u8, usize)> = BTreeMap::new();
    for (index, picked) in relative.iter().enumerate() {
        let picked = picked.replace('\\', "/");
        let rest = picked
            .split_once('/')
            .map_or(picked.as_str(), |(_, rest)| rest);
        for file in ARCHIVE_FILES {
            let closeness = if rest == file.path {
                3
            } else if rest.ends_with(&format!("/{}", file.path)) {
                2
            } else if file.path.ends_with(&format!("/{rest}")) {
                1
            } else {
                continue;
            };
            match best.get(file.path) {
                Some(&(held, _)) if held > closeness => {}
                Some(&(held, other)) if held == closeness => {
                    return Err(Error::field(
                        file.path,
                        "picked folder",
                        format!(
                            "two picked files could be this file: {} and {}",
                            relative[other], relative[index]
                        ),
                    ));
                }
                _ => {
                    best.insert(file.path, (closeness, index));
                }
            }
        }
    }
    Ok(best
        .into_iter()
        .map(|(path, (_, index))| (path, index))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_checksum_tables() {
        let readme = "| File | SHA-256 |\n| --- | --- |\n| `a.json` | `".to_string()
            + &"ab".repeat(32)
            + "` |\n| `b.json` | `short` |\n";
        let listed = listed_checksums(&readme);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed["a.json"], "ab".repeat(32));
    }

    #[test]
    fn missing_readme_is_named() {
        let err = load_archive(&ArchiveBytes::new()).unwrap_err();
        assert_eq!(
            err,
            Error::MissingFile {
                file: README.to_string()
            }
        );
    }

    #[test]
    fn matches_picked_folders_at_any_level() {
        let pick = |paths: &[&str]| {
            let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            match_picked_files(&paths)
        };
        // The archive root, with a top-level README that must not stand in for the data README.
        let root = pick(&[
            "fastindex/README.md",
            "fastindex/paper/data/README.md",
            "fastindex/paper/data/contextbench-paper-tree.json",
            "fastindex/evals/other.json",
        ])
        .unwrap();
        assert_eq!(root.len(), 2);
        assert_eq!(root[README], 1);
        assert_eq!(root[TREE], 2);
        // A folder above the root, and the data folder itself.
        let above = pick(&["shared/data/fastindex/paper/data/README.md"]).unwrap();
        assert_eq!(above[README], 0);
        let data = pick(&["data/README.md", "data/contextbench-paper-rg.json"]).unwrap();
        assert_eq!((data[README], data[RG]), (0, 1));
        // Two copies at the same depth are ambiguous, and the message names both.
        let err = pick(&["x/a/paper/data/README.md", "x/b/paper/data/README.md"]).unwrap_err();
        assert!(
            err.to_string()
                .contains("x/a/paper/data/README.md and x/b/"),
            "{err}"
        );
    }
}
