//! Loaders for studies other than the paper's archive: a TREC run file with qrels, and a simple
//! JSON Lines form. Both are documented in docs/formats.md.
//!
//! TREC: the run has lines `qid Q0 docid rank score tag`, where docid is a repository-relative file
//! path and each tag becomes an arm; the qrels have lines `qid 0 docid relevance`, where relevance
//! above 0 marks a gold file. A qid of the form `<repository>::<issue>` names its repository (the
//! bootstrap's cluster); any other qid is its own cluster.
//!
//! JSON Lines: a line with `"arm"` is a ranking (`id`, `arm`, `paths`, optional `measurements`);
//! a line without is a case (`id`, optional `repo`, `gold` as paths or `{path, start_line,
//! end_line}` spans, optional `base_commit` and `query_sha256`).

use crate::stable_sort;
use crate::stable_sort::Sorted;
use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::study::{check_unique_paths, Arm, ArmOrigin, Case, GoldSpan, Study};

fn repo_of(qid: &str) -> String {
    qid.split_once("::")
        .map_or(qid, |(repo, _)| repo)
        .to_string()
}

fn check_arm_name(file: &str, line: usize, name: &str) -> Result<()> {
    if name.is_empty() || name.contains('+') || name.chars().any(char::is_whitespace) {
        return Err(Error::line(
            file,
            line,
            format!("arm name {name:?} must be non-empty, without spaces or +"),
        ));
    }
    Ok(())
}

/// One case's ranking: of file paths, or of span units.
#[derive(Debug, Clone, PartialEq)]
enum Ranked {
    Paths(Vec<String>),
    Units(Vec<GoldSpan>),
}

/// An arm's rankings and measurements, keyed by case index, under its name.
type ArmRows = (
    String,
    BTreeMap<usize, Ranked>,
    BTreeMap<usize, BTreeMap<String, f64>>,
);

/// A docid or path that names a span: `path#L10-L42` (or `path#L10-42`), lines 1-based and
/// inclusive; `None` for a plain path.
pub fn parse_span_docid(docid: &str) -> std::result::Result<Option<GoldSpan>, String> {
    let Some((path, lines)) = docid.split_once("#L") else {
        return Ok(None);
    };
    let bad = || format!("{docid:?} is not `path#L<start>-L<end>` with 1 <= start <= end");
    let (start, end) = lines.split_once('-').ok_or_else(bad)?;
    let end = end.strip_prefix('L').unwrap_or(end);
    let (start_line, end_line): (u32, u32) = (
        start.parse().map_err(|_| bad())?,
        end.parse().map_err(|_| bad())?,
    );
    if path.is_empty() || start_line == 0 || start_line > end_line {
        return Err(bad());
    }
    Ok(Some(GoldSpan {
        path: path.to_string(),
        start_line,
        end_line,
    }))
}

/// Builds the study's arms from rankings gathered per arm and case id; `file` (the rankings'
/// file) is named when an arm mixes kinds.
fn assemble(title: String, file: &str, cases: Vec<Case>, rankings: Vec<ArmRows>) -> Result<Study> {
    let mut study = Study {
        title,
        cases,
        arms: Vec::new(),
        policy: None,
        issue_source: None,
    };
    for (name, by_case, measurements) in rankings {
        let mut arm = Arm::new(
            &name,
            &name,
            ArmOrigin::Archived,
            vec![Vec::new(); study.cases.len()],
        );
        let spans = by_case.values().any(|r| matches!(r, Ranked::Units(_)));
        if spans {
            let mut units = vec![Vec::new(); study.cases.len()];
            for (case, ranked) in by_case {
                match ranked {
                    Ranked::Units(list) => units[case] = list,
                    Ranked::Paths(paths) if paths.is_empty() => {}
                    Ranked::Paths(_) => {
                        return Err(Error::field(
                            file,
                            format!("arm {name}, case {}", study.cases[case].id),
                            "a ranking of paths in an arm of span units (one arm ranks one kind)",
                        ))
                    }
                }
            }
            arm = Arm::of_units(&name, &name, ArmOrigin::Archived, units);
        } else {
            for (case, ranked) in by_case {
                if let Ranked::Paths(paths) = ranked {
                    arm.rankings[case] = paths;
                }
            }
        }
        for (case, values) in measurements {
            arm.measurements[case] = values;
        }
        study.add_arm(arm)?;
    }
    Ok(study)
}

/// The error of a file with no line but blank ones.
fn empty(file: &str, what: &str, line_form: &str) -> Error {
    Error::Empty {
        file: file.to_string(),
        what: what.to_string(),
        line_form: line_form.to_string(),
    }
}

/// Whether a text has no line but blank ones.
fn is_blank(text: &str) -> bool {
    text.lines().all(|line| line.trim().is_empty())
}

/// Loads a TREC run and its qrels. `run_file` and `qrels_file` are the names used in messages.
/// An empty run (no rankings) or empty qrels (no cases) is refused, naming the file.
pub fn load_trec(run_file: &str, run: &str, qrels_file: &str, qrels: &str) -> Result<Study> {
    if is_blank(run) {
        return Err(empty(run_file, "rankings", "`qid Q0 docid rank score tag`"));
    }
    if is_blank(qrels) {
        return Err(empty(qrels_file, "cases", "`qid 0 docid relevance`"));
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (number, line) in qrels.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [qid, _, docid, relevance] = fields[..] else {
            return Err(Error::line(
                qrels_file,
                number,
                format!(
                    "expected 4 fields `qid 0 docid relevance`, found {}",
                    fields.len()
                ),
            ));
        };
        let relevance: i64 = relevance.parse().map_err(|_| {
            Error::line(
                qrels_file,
                number,
                format!("relevance {relevance:?} is not a whole number"),
            )
        })?;
        let case = *index.entry(qid.to_string()).or_insert_with(|| {
            cases.push(Case::from_spans(qid.to_string(), repo_of(qid), Vec::new()));
            cases.len() - 1
        });
        let span = parse_span_docid(docid).map_err(|m| Error::line(qrels_file, number, m))?;
        let path = span.as_ref().map_or(docid, |s| s.path.as_str()).to_string();
        if relevance > 0 {
            if let Some(span) = span {
                cases[case].gold_spans.push(span);
            }
            if !cases[case].gold_files.contains(&path) {
                cases[case].gold_files.push(path);
                stable_sort::sort(&mut cases[case].gold_files);
            }
        }
    }
    if let Some(case) = cases.iter().find(|case| case.gold_files.is_empty()) {
        return Err(Error::field(
            qrels_file,
            format!("qid {}", case.id),
            "no relevant document",
        ));
    }

    type Entry = (u64, f64, String, usize);
    let mut arms: Vec<(String, BTreeMap<usize, Vec<Entry>>)> = Vec::new();
    for (number, line) in run.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [qid, _, docid, rank, score, tag] = fields[..] else {
            return Err(Error::line(
                run_file,
                number,
                format!(
                    "expected 6 fields `qid Q0 docid rank score tag`, found {}",
                    fields.len()
                ),
            ));
        };
        let case = *index.get(qid).ok_or_else(|| {
            Error::line(
                run_file,
                number,
                format!("qid {qid:?} is not in the qrels ({qrels_file})"),
            )
        })?;
        let rank: u64 = rank.parse().map_err(|_| {
            Error::line(
                run_file,
                number,
                format!("rank {rank:?} is not a whole number"),
            )
        })?;
        let score: f64 = score.parse().map_err(|_| {
            Error::line(run_file, number, format!("score {score:?} is not a number"))
        })?;
        check_arm_name(run_file, number, tag)?;
        let slot = match arms.iter().position(|(name, _)| name == tag) {
            Some(slot) => slot,
            None => {
                arms.push((tag.to_string(), BTreeMap::new()));
                arms.len() - 1
            }
        };
        let list = arms[slot].1.entry(case).or_default();
        if list.iter().any(|(_, _, path, _)| path == docid) {
            return Err(Error::line(
                run_file,
                number,
                format!("duplicate path {docid:?} for qid {qid:?} in run {tag:?}"),
            ));
        }
        list.push((rank, score, docid.to_string(), number));
    }
    let rankings = arms
        .into_iter()
        .map(|(name, by_case)| -> Result<ArmRows> {
            let ordered = by_case
                .into_iter()
                .map(|(case, mut entries)| {
                    // Rank ascending; equal ranks by score descending, then by path.
                    stable_sort::by(&mut entries, |a, b| {
                        a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2))
                    });
                    let docids: Vec<(String, usize)> = entries
                        .into_iter()
                        .map(|(_, _, docid, line)| (docid, line))
                        .collect();
                    let spans: Vec<Option<GoldSpan>> = docids
                        .iter()
                        .map(|(docid, line)| {
                            parse_span_docid(docid).map_err(|m| Error::line(run_file, *line, m))
                        })
                        .collect::<Result<_>>()?;
                    let ranked = if spans.iter().all(Option::is_none) {
                        Ranked::Paths(docids.into_iter().map(|(docid, _)| docid).collect())
                    } else if let Some(at) = spans.iter().position(Option::is_none) {
                        return Err(Error::line(
                            run_file,
                            docids[at].1,
                            format!(
                                "{:?} is a path in a ranking of spans (path#L<start>-L<end>)",
                                docids[at].0
                            ),
                        ));
                    } else {
                        Ranked::Units(spans.into_iter().flatten().collect())
                    };
                    Ok((case, ranked))
                })
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .sorted_map();
            Ok((name, ordered, BTreeMap::new()))
        })
        .collect::<Result<Vec<ArmRows>>>()?;
    assemble(
        format!("{run_file} + {qrels_file}"),
        run_file,
        cases,
        rankings,
    )
}

#[derive(Deserialize)]
#[serde(untagged)]
enum GoldEntry {
    Path(String),
    Span(GoldSpan),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseLine {
    id: String,
    repo: Option<String>,
    gold: Vec<GoldEntry>,
    base_commit: Option<String>,
    query_sha256: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RankingLine {
    id: String,
    arm: String,
    #[serde(default)]
    paths: Option<Vec<String>>,
    #[serde(default)]
    units: Option<Vec<GoldSpan>>,
    #[serde(default)]
    measurements: BTreeMap<String, f64>,
}

/// Refuses a span that is not a line range, and the same span twice in one ranking.
fn check_units(units: &[GoldSpan]) -> std::result::Result<(), String> {
    for (at, unit) in units.iter().enumerate() {
        if unit.start_line == 0 || unit.start_line > unit.end_line {
            return Err(format!(
                "{}:{}-{}: not a line range (1 <= start_line <= end_line)",
                unit.path, unit.start_line, unit.end_line
            ));
        }
        if units[..at].contains(unit) {
            return Err(format!(
                "duplicate unit {}:{}-{} in a ranking",
                unit.path, unit.start_line, unit.end_line
            ));
        }
    }
    Ok(())
}

fn parse_line<T: serde::de::DeserializeOwned>(file: &str, number: usize, line: &str) -> Result<T> {
    crate::json_path::from_slice(line.as_bytes())
        .map_err(|err| Error::line(file, number, format!("field {}: {}", err.path, err.error)))
}

/// Loads the JSON Lines form. `file` is the name used in messages. A file without a case line
/// (empty, or only blank lines) is refused, naming the file.
pub fn load_jsonl(file: &str, text: &str) -> Result<Study> {
    if is_blank(text) {
        return Err(empty(file, "cases", "`{\"id\": …, \"gold\": […]}`"));
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut pending: Vec<(usize, RankingLine)> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(line.as_bytes())
            .map_err(|err| Error::line(file, number, format!("invalid JSON: {err}")))?;
        if value.get("arm").is_some() {
            pending.push((number, parse_line(file, number, line)?));
            continue;
        }
        let entry: CaseLine = parse_line(file, number, line)?;
        if index.contains_key(&entry.id) {
            return Err(Error::line(
                file,
                number,
                format!("case {:?} is defined twice", entry.id),
            ));
        }
        if entry.gold.is_empty() {
            return Err(Error::line(file, number, "field gold: no gold files"));
        }
        let (mut spans, mut paths) = (Vec::new(), Vec::new());
        for gold in entry.gold {
            match gold {
                GoldEntry::Path(path) => paths.push(path),
                GoldEntry::Span(span) => spans.push(span),
            }
        }
        let repo = entry.repo.unwrap_or_else(|| repo_of(&entry.id));
        let mut case = Case::from_spans(entry.id.clone(), repo, spans);
        case.gold_files.extend(paths);
        stable_sort::sort(&mut case.gold_files);
        case.gold_files.dedup();
        case.base_commit = entry.base_commit;
        case.query_sha256 = entry.query_sha256;
        index.insert(entry.id, cases.len());
        cases.push(case);
    }
    let mut arms: Vec<ArmRows> = Vec::new();
    for (number, ranking) in pending {
        check_arm_name(file, number, &ranking.arm)?;
        let case = *index.get(&ranking.id).ok_or_else(|| {
            Error::line(
                file,
                number,
                format!("case {:?} has no case line (with its gold)", ranking.id),
            )
        })?;
        let ranked =
            match (ranking.paths, ranking.units) {
                (Some(paths), None) => {
                    check_unique_paths(&paths, &format!("{file}:{number}"), "paths")?;
                    Ranked::Paths(paths)
                }
                (None, Some(units)) => {
                    check_units(&units)
                        .map_err(|m| Error::line(file, number, format!("field units: {m}")))?;
                    Ranked::Units(units)
                }
                _ => return Err(Error::line(
                    file,
                    number,
                    "a ranking has either `paths` or `units` (spans {path, start_line, end_line})",
                )),
            };
        let slot = match arms.iter().position(|(name, _, _)| *name == ranking.arm) {
            Some(slot) => slot,
            None => {
                arms.push((ranking.arm.clone(), BTreeMap::new(), BTreeMap::new()));
                arms.len() - 1
            }
        };
        if arms[slot].1.insert(case, ranked).is_some() {
            return Err(Error::line(
                file,
                number,
                format!(
                    "a second ranking of case {:?} for arm {:?}",
                    ranking.id, ranking.arm
                ),
            ));
        }
        arms[slot].2.insert(case, ranking.measurements);
    }
    assemble(file.to_string(), file, cases, arms)
}

#[cfg(test)]
mod tests {
    use super::*;

    const QRELS: &str =
        "acme::1 0 src/a.rs 1\nacme::1 0 src/b.rs 1\nacme::1 0 docs/x.md 0\nzeta::2 0 lib/c.py 2\n";

    #[test]
    fn trec_run_and_qrels() {
        let run = "acme::1 Q0 src/b.rs 2 0.5 bm25\nacme::1 Q0 src/z.rs 1 0.9 bm25\nzeta::2 Q0 lib/c.py 1 3.0 bm25\nzeta::2 Q0 lib/c.py 1 1.0 other\n";
        let study = load_trec("run.txt", run, "qrels.txt", QRELS).unwrap();
        assert_eq!(study.cases.len(), 2);
        assert_eq!(study.cases[0].repo, "acme");
        assert_eq!(study.cases[0].gold_files, ["src/a.rs", "src/b.rs"]);
        assert_eq!(study.arm_names(), ["bm25", "other"]);
        assert_eq!(study.arms[0].rankings[0], ["src/z.rs", "src/b.rs"]);
        assert!(study.arms[1].rankings[0].is_empty());
    }

    /// Found by the `trec` fuzz target: the refusal named the arm as if it were a file.
    #[test]
    fn an_arm_of_two_kinds_is_refused_naming_the_run_file() {
        let run = "acme::1 Q0 src/a.rs#L1-L5 1 2 chunks\nzeta::2 Q0 lib/c.py 1 1 chunks\n";
        let err = load_trec("run.txt", run, "qrels.txt", QRELS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "run.txt: field arm chunks, case zeta::2: a ranking of paths in an arm of span units \
             (one arm ranks one kind)"
        );
    }

    #[test]
    fn trec_errors_name_file_and_line() {
        let err = load_trec("run.txt", "nope::9 Q0 a 1 1 x\n", "qrels.txt", QRELS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "run.txt:1: qid \"nope::9\" is not in the qrels (qrels.txt)"
        );
        let err = load_trec(
            "run.txt",
            "acme::1 Q0 a 1 1 x\nacme::1 Q0 a 2 1 x\n",
            "qrels.txt",
            QRELS,
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("run.txt:2: duplicate path"),
            "{err}"
        );
        let err = load_trec("run.txt", "acme::1 Q0 a one 1 x\n", "qrels.txt", QRELS).unwrap_err();
        assert!(
            err.to_string().starts_with("run.txt:1: rank \"one\""),
            "{err}"
        );
    }

    /// An empty file used to load as a study of no cases and fail later on an arm it lacks.
    #[test]
    fn an_empty_or_blank_file_is_refused_naming_it() {
        for text in ["", "\n\n  \n"] {
            assert_eq!(
                load_jsonl("empty.jsonl", text).unwrap_err().to_string(),
                "empty.jsonl: holds no cases (no line `{\"id\": …, \"gold\": […]}`)"
            );
            let err = load_trec("run.txt", text, "qrels.txt", QRELS).unwrap_err();
            assert_eq!(
                err.to_string(),
                "run.txt: holds no rankings (no line `qid Q0 docid rank score tag`)"
            );
            let err = load_trec("run.txt", "acme::1 Q0 a 1 1 x\n", "qrels.txt", text).unwrap_err();
            assert_eq!(
                err.to_string(),
                "qrels.txt: holds no cases (no line `qid 0 docid relevance`)"
            );
        }
    }

    #[test]
    fn jsonl_cases_and_rankings() {
        let text = r#"{"id": "r::1", "gold": ["a.rs", {"path": "b.rs", "start_line": 3, "end_line": 9}]}
{"id": "r::1", "arm": "mine", "paths": ["b.rs", "c.rs"], "measurements": {"model_calls": 3}}
"#;
        let study = load_jsonl("s.jsonl", text).unwrap();
        assert_eq!(study.cases[0].gold_files, ["a.rs", "b.rs"]);
        assert_eq!(study.cases[0].gold_spans.len(), 1);
        assert_eq!(study.arms[0].measurements[0]["model_calls"], 3.0);
    }

    #[test]
    fn jsonl_errors_name_line_and_field() {
        let err = load_jsonl(
            "s.jsonl",
            "{\"id\": \"x\", \"gold\": [\"a\"]}\n{\"id\": \"x\", \"arm\": \"m\", \"paths\": 3}\n",
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("s.jsonl:2: field paths"),
            "{err}"
        );
        let err = load_jsonl(
            "s.jsonl",
            "{\"id\": \"x\", \"gold\": [\"a\"], \"golds\": 1}\n",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("s.jsonl:1:") && err.to_string().contains("golds"),
            "{err}"
        );
        let err = load_jsonl(
            "s.jsonl",
            "{\"id\": \"y\", \"arm\": \"m\", \"paths\": []}\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.jsonl:1: case \"y\" has no case line (with its gold)"
        );
        let err = load_jsonl("s.jsonl", "{\"id\": \"x\", \"gold\": [\"a\"]}\n{\"id\": \"x\", \"arm\": \"m\", \"paths\": [\"a\", \"a\"]}\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("s.jsonl:2: field paths: duplicate path"),
            "{err}"
        );
    }
}
