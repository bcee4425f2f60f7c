//! The app's live search session over a bundle: its question set as a study (so live arms can be
//! scored by the same tables as archived ones) and TREC run export of live results.
//!
//! - [`parse_questions`] reads a question set, JSON Lines `{"id", "question", "gold": [paths]}`,
//!   optionally with gold line spans `"gold_lines": [{"path", "start_line", "end_line"}]` (each
//!   on a gold file; lines 1-based, inclusive) for line-level scoring of delivered context.
//! - [`live_study`] makes a study whose cases are the questions with their gold files and spans,
//!   all in one repository (the bundle's name); a live arm joins it with its evidence
//!   ([`crate::evidence::live_arm`]).
//! - [`trec_run`] writes `qid Q0 path rank score tag` lines, ranks from 1, in the order given.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::study::{Case, GoldSpan, Study};

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
/// projects and the corpus pin of [`crate::question_set`], are read and left out). Errors name
/// `file`, the line and field; a repeated id is refused.
pub fn parse_questions(file: &str, text: &str) -> Result<Vec<Question>> {
    Ok(crate::question_set::parse_question_set(file, text)?.questions)
}

/// Parses question lines only (every non-blank line a question).
pub(crate) fn parse_question_lines(file: &str, text: &str) -> Result<Vec<Question>> {
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

/// A study of the question set: one case per question with its gold files (sorted, unique), all
/// in repository `repo`, and no arms yet.
pub fn live_study(repo: &str, questions: &[Question]) -> Study {
    let cases = questions
        .iter()
        .map(|question| {
            let mut case = Case::from_spans(
                question.id.clone(),
                repo.to_string(),
                question.gold_lines.clone(),
            );
            let gold: BTreeSet<String> = question.gold.iter().cloned().collect();
            case.gold_files = gold.into_iter().collect();
            case
        })
        .collect();
    Study {
        title: format!("{repo}: live lexical arms"),
        cases,
        arms: Vec::new(),
        policy: None,
    }
}

/// The open study's cases that a bundle can answer, as questions, and the cases of its repository
/// that it cannot because they were cut at another commit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaseMatch {
    /// Each case of the bundle's repository whose issue text is known, whose id is not already a
    /// question of the set, and whose `base_commit` is the bundle's commit (or that records none).
    pub questions: Vec<Question>,
    /// The cases of the repository left out because their snapshot or file policy is not the
    /// bundle's: one sentence each, naming the case and what differs, for the page to show.
    pub mismatched: Vec<String>,
}

/// What a bundle was built from, as far as matching study cases goes: its manifest's commit and
/// searchable-file policy.
#[derive(Debug, Clone, Copy)]
pub struct BundleSnapshot<'a> {
    /// The repository name the cases must carry.
    pub repo: &'a str,
    /// The commit its files were read at (`None`: a working tree).
    pub commit: Option<&'a str>,
    /// The policy that chose its files.
    pub policy: &'a crate::policy::Policy,
}

/// Matches the open study's cases to a bundle by repository *and* commit: a case that records a
/// `base_commit` is offered only when the bundle was built at that commit, since its gold lines
/// and the bundle's files would otherwise belong to different snapshots. A study that records its
/// file policy (the archive: `paper`) offers cases only to a bundle built under exactly that
/// policy, since another policy holds other files (BM25's statistics, the tree's menus). Cases
/// need their issue text in `texts` (by case id); ids already in `questions` are skipped.
pub fn study_case_questions(
    study: &Study,
    texts: &std::collections::BTreeMap<String, String>,
    bundle: BundleSnapshot<'_>,
    questions: &[Question],
) -> CaseMatch {
    let mut found = CaseMatch::default();
    for case in &study.cases {
        if case.repo != bundle.repo || questions.iter().any(|q| q.id == case.id) {
            continue;
        }
        let Some(text) = texts.get(&case.id) else {
            continue;
        };
        if let Some(why) = snapshot_mismatch(study, case, bundle) {
            found.mismatched.push(why);
            continue;
        }
        found.questions.push(Question {
            id: case.id.clone(),
            question: text.clone(),
            gold: case.gold_files.clone(),
            gold_lines: case.gold_spans.clone(),
        });
    }
    found
}

/// Why `bundle` must not answer `case` of `study`, or `None` when it may: the study records its
/// file policy and the bundle was built under another (or a changed one), or the case records a
/// `base_commit` and the bundle was built at another commit (or from a working tree). The
/// repository is not compared here: callers match cases to the bundle first. The sentence names
/// the case and what differs, for the page to show (a mismatch is never used silently).
pub fn snapshot_mismatch(study: &Study, case: &Case, bundle: BundleSnapshot<'_>) -> Option<String> {
    let policy_differs = study
        .policy
        .filter(|name| *name != bundle.policy.name || !bundle.policy.is_pristine());
    if let Some(study_policy) = policy_differs {
        return Some(format!(
            "case {} was ranked under the {study_policy} file policy, but the bundle under the {} \
             policy: not offered",
            case.id,
            bundle.policy.label()
        ));
    }
    let base = case.base_commit.as_deref()?;
    (bundle.commit != Some(base)).then(|| {
        format!(
            "case {} is at commit {base}, but the bundle {}: not offered",
            case.id,
            match bundle.commit {
                Some(commit) => format!("was built at {commit}"),
                None => "records no commit (a working tree)".to_string(),
            }
        )
    })
}

/// The open study with the live study's arms added (replacing arms of the same name), when the
/// two have the same cases in the same order, that is when the open study is this question set;
/// `None` otherwise (live arms of another question set have no case to attach to).
pub fn merge_live_arms(open: &Study, live: &Study) -> Option<Study> {
    let same_cases = open.cases.len() == live.cases.len()
        && open
            .cases
            .iter()
            .zip(&live.cases)
            .all(|(a, b)| a.id == b.id);
    if !same_cases {
        return None;
    }
    let mut merged = open.clone();
    for arm in &live.arms {
        // Same cases, and the live arm was checked when it joined the live study.
        merged.add_arm(arm.clone()).ok()?;
    }
    Some(merged)
}

/// Live arms joined to the studies they belong to: the live study of the question set (always),
/// and the open study when it is that question set.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinedArms {
    /// The live study with the arms (added, or replacing arms of the same name).
    pub live: Study,
    /// The open study with the live study's arms, when it has the question set's cases in order.
    pub open: Option<Study>,
}

/// Adds `arms` (each with one entry per question) to the live study of `questions` (`live`, or
/// a new one over repository `repo`) and merges the live study into `open` when `open` is the
/// same question set ([`merge_live_arms`]). The Search and Route views' "Add as arm" both end
/// here. An arm of the wrong length is refused, naming it, and nothing is joined.
pub fn join_live_arms(
    live: Option<&Study>,
    open: Option<&Study>,
    repo: &str,
    questions: &[Question],
    arms: Vec<crate::study::Arm>,
) -> Result<JoinedArms> {
    let mut study = live.cloned().unwrap_or_else(|| live_study(repo, questions));
    for arm in arms {
        study.add_arm(arm)?;
    }
    let open = open.and_then(|open| merge_live_arms(open, &study));
    Ok(JoinedArms { live: study, open })
}

/// One ranked list of a TREC run: the query id, the run tag (arm) and `(path, score)` best first.
#[derive(Debug, Clone, PartialEq)]
pub struct RunList<'a> {
    /// The query id (`qid`); whitespace in it is replaced by `_`.
    pub qid: &'a str,
    /// The run tag (the arm name); whitespace is replaced by `_`.
    pub tag: &'a str,
    /// Ranked paths with scores.
    pub results: &'a [(String, f64)],
}

/// TREC run lines `qid Q0 path rank score tag`, one per result, ranks from 1. Paths with
/// whitespace would break the format, so whitespace in any field becomes `_`; scores are written
/// with six decimals (non-finite scores as 0).
pub fn trec_run(lists: &[RunList<'_>]) -> String {
    fn field(text: &str) -> String {
        text.chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect()
    }
    let mut out = String::new();
    for list in lists {
        let (qid, tag) = (field(list.qid), field(list.tag));
        for (rank, (path, score)) in list.results.iter().enumerate() {
            let score = if score.is_finite() { *score } else { 0.0 };
            out.push_str(&format!(
                "{qid} Q0 {} {} {score:.6} {tag}\n",
                field(path),
                rank + 1
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::score_ranking;
    use crate::policy::{Policy, PolicyName};
    use crate::study::{Arm, ArmOrigin};

    #[test]
    fn questions_become_cases_and_live_arms_score() {
        let text =
            "{\"id\":\"a\",\"question\":\"where is x\",\"gold\":[\"src/x.rs\",\"src/x.rs\"]}\n\n\
                    {\"id\":\"b\",\"question\":\"y?\",\"gold\":[]}\n";
        let questions = parse_questions("q.jsonl", text).unwrap();
        assert_eq!(questions.len(), 2);
        let mut study = live_study("demo", &questions);
        assert_eq!(study.cases[0].gold_files, ["src/x.rs"]);
        assert_eq!(study.cases[1].repo, "demo");
        let rankings = vec![vec!["src/y.rs".into(), "src/x.rs".into()], Vec::new()];
        assert_eq!(
            study
                .add_arm(Arm::new("rg", "rg", ArmOrigin::Archived, rankings))
                .unwrap(),
            0
        );
        let score = score_ranking(&study.cases[0].gold_files, &study.arms[0].rankings[0], 2);
        assert_eq!((score.found, score.gold), (1, 1));
        assert!(study
            .add_arm(Arm::new("x", "x", ArmOrigin::Archived, vec![Vec::new()]))
            .is_err());
    }

    #[test]
    fn joined_arms_reach_the_live_study_and_the_same_open_study() {
        let text = "{\"id\":\"a\",\"question\":\"x\",\"gold\":[\"x.rs\"]}\n";
        let questions = parse_questions("q.jsonl", text).unwrap();
        let arm = |name: &str| Arm::new(name, name, ArmOrigin::Archived, vec![vec!["x.rs".into()]]);
        let first = join_live_arms(None, None, "demo", &questions, vec![arm("rg")]).unwrap();
        assert_eq!(first.live.arm_names(), ["rg"]);
        assert!(first.open.is_none());
        let open = first.live.clone();
        let second = join_live_arms(
            Some(&first.live),
            Some(&open),
            "demo",
            &questions,
            vec![arm("fts5")],
        )
        .unwrap();
        assert_eq!(second.live.arm_names(), ["rg", "fts5"]);
        assert_eq!(second.open.unwrap().arm_names(), ["rg", "fts5"]);
        let other = live_study("demo", &[]);
        let third =
            join_live_arms(None, Some(&other), "demo", &questions, vec![arm("rg")]).unwrap();
        assert!(
            third.open.is_none(),
            "another question set takes no live arm"
        );
        let short = Arm::new("bad", "bad", ArmOrigin::Archived, Vec::new());
        assert!(join_live_arms(None, None, "demo", &questions, vec![short]).is_err());
    }

    #[test]
    fn live_arms_merge_only_into_the_same_question_set() {
        let text = "{\"id\":\"a\",\"question\":\"x\",\"gold\":[\"x.rs\"]}\n\
                    {\"id\":\"b\",\"question\":\"y\",\"gold\":[\"y.rs\"]}\n";
        let questions = parse_questions("q.jsonl", text).unwrap();
        let mut open = live_study("demo", &questions);
        open.add_arm(Arm::new(
            "rg",
            "rg",
            ArmOrigin::Archived,
            vec![vec!["old.rs".into()], Vec::new()],
        ))
        .unwrap();
        let mut live = live_study("demo", &questions);
        let fresh = vec![vec!["x.rs".into()], vec!["y.rs".into()]];
        live.add_arm(Arm::new("rg", "rg", ArmOrigin::Archived, fresh.clone()))
            .unwrap();
        live.add_arm(Arm::new("fts5", "fts5", ArmOrigin::Archived, fresh.clone()))
            .unwrap();
        let merged = merge_live_arms(&open, &live).unwrap();
        assert_eq!(merged.arm_names(), ["rg", "fts5"]);
        assert_eq!(
            merged.arms[0].rankings, fresh,
            "the older rg arm is replaced"
        );
        let other = live_study("demo", &questions[..1]);
        assert!(merge_live_arms(&other, &live).is_none());
        let reordered = live_study("demo", &[questions[1].clone(), questions[0].clone()]);
        assert!(merge_live_arms(&reordered, &live).is_none());
    }

    #[test]
    fn study_cases_of_the_bundle_repository_with_a_text_become_questions() {
        let mut study = live_study("astropy", &parse_questions("q", "{\"id\":\"a\",\"question\":\"x\",\"gold\":[\"g.py\"]}\n{\"id\":\"b\",\"question\":\"y\"}\n").unwrap());
        study.cases[1].repo = "django".into();
        let texts: std::collections::BTreeMap<String, String> = [
            ("a".to_string(), "text a".to_string()),
            ("b".to_string(), "text b".to_string()),
        ]
        .into_iter()
        .collect();
        let paper = Policy::paper();
        let at = |repo, commit| BundleSnapshot {
            repo,
            commit,
            policy: &paper,
        };
        let found = study_case_questions(&study, &texts, at("astropy", None), &[]).questions;
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].id.as_str(), found[0].question.as_str()),
            ("a", "text a")
        );
        assert_eq!(found[0].gold, ["g.py"]);
        // No text, another repository, or already a question of the set: not offered.
        let none = |found: CaseMatch| found.questions.is_empty() && found.mismatched.is_empty();
        assert!(none(study_case_questions(
            &study,
            &Default::default(),
            at("astropy", None),
            &[]
        )));
        assert!(none(study_case_questions(
            &study,
            &texts,
            at("numpy", None),
            &[]
        )));
        assert!(none(study_case_questions(
            &study,
            &texts,
            at("astropy", None),
            &found
        )));
    }

    #[test]
    fn study_cases_match_a_bundle_by_repository_and_commit() {
        let mut study = live_study(
            "sympy",
            &parse_questions("q", "{\"id\":\"a\",\"question\":\"x\"}\n").unwrap(),
        );
        study.cases[0].base_commit = Some("2dfa7457".into());
        let texts: std::collections::BTreeMap<String, String> =
            [("a".to_string(), "text a".to_string())]
                .into_iter()
                .collect();
        study.policy = Some(PolicyName::Paper);
        let paper = Policy::paper();
        let at = |commit, policy| BundleSnapshot {
            repo: "sympy",
            commit,
            policy,
        };
        let same = study_case_questions(&study, &texts, at(Some("2dfa7457"), &paper), &[]);
        assert_eq!((same.questions.len(), same.mismatched.len()), (1, 0));
        let other = study_case_questions(&study, &texts, at(Some("39de9a26"), &paper), &[]);
        assert!(other.questions.is_empty());
        assert_eq!(
            other.mismatched,
            ["case a is at commit 2dfa7457, but the bundle was built at 39de9a26: not offered"]
        );
        let tree = study_case_questions(&study, &texts, at(None, &paper), &[]);
        assert!(tree.questions.is_empty());
        assert!(
            tree.mismatched[0].contains("records no commit"),
            "{:?}",
            tree.mismatched
        );
        // Another policy, or the paper's with a changed setting, is never compared silently.
        let strict = Policy::strict();
        let under_strict = study_case_questions(&study, &texts, at(Some("2dfa7457"), &strict), &[]);
        assert!(under_strict.questions.is_empty());
        assert_eq!(
            under_strict.mismatched,
            [
                "case a was ranked under the paper file policy, but the bundle under the strict \
              policy: not offered"
            ]
        );
        let capped = Policy {
            max_file_bytes: Some(1),
            ..Policy::paper()
        };
        let under_capped = study_case_questions(&study, &texts, at(Some("2dfa7457"), &capped), &[]);
        assert!(under_capped.mismatched[0].contains("paper (changed: max_file_bytes)"));
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

    #[test]
    fn gold_lines_are_read_checked_and_become_case_spans() {
        let text = r#"{"id":"a","question":"q","gold":["x.rs"],"gold_lines":[{"path":"x.rs","start_line":3,"end_line":9}]}"#;
        let questions = parse_questions("q.jsonl", text).unwrap();
        assert_eq!(questions[0].gold_lines[0].end_line, 9);
        let study = live_study("demo", &questions);
        assert_eq!(study.cases[0].gold_spans, questions[0].gold_lines);
        assert_eq!(study.cases[0].gold_files, ["x.rs"]);
        let elsewhere = text.replace(r#""path":"x.rs""#, r#""path":"y.rs""#);
        let error = parse_questions("q.jsonl", &elsewhere)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "q.jsonl:1: field gold_lines[0]: \"y.rs\" is not one of the gold files"
        );
        let backwards = text.replace("\"end_line\":9", "\"end_line\":2");
        let error = parse_questions("q.jsonl", &backwards)
            .unwrap_err()
            .to_string();
        assert!(error.contains("lines 3-2"), "{error}");
        let unknown = text.replace("\"end_line\":9", "\"end_line\":9,\"note\":1");
        let error = parse_questions("q.jsonl", &unknown)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("gold_lines[0]") && error.contains("note"),
            "{error}"
        );
    }

    #[test]
    fn trec_lines_rank_from_one() {
        let results = vec![
            ("src/a b.rs".to_string(), 2.5),
            ("lib.rs".to_string(), f64::NAN),
        ];
        let text = trec_run(&[RunList {
            qid: "query",
            tag: "fts5",
            results: &results,
        }]);
        assert_eq!(
            text,
            "query Q0 src/a_b.rs 1 2.500000 fts5\nquery Q0 lib.rs 2 0.000000 fts5\n"
        );
    }
}

/// Byte ranges `(start, end)` of `text` where any of `terms` occurs, ASCII case-insensitively
/// (terms are lower-case `[a-z0-9_]`, so byte offsets of the lower-cased text are the text's),
/// sorted and merged; for highlighting the matched terms in a file view.
pub fn term_spans(text: &str, terms: &[String]) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for term in terms.iter().filter(|term| !term.is_empty()) {
        let mut from = 0;
        while let Some(at) = lower.get(from..).and_then(|rest| rest.find(term.as_str())) {
            spans.push((from + at, from + at + term.len()));
            from += at + term.len();
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

#[cfg(test)]
mod span_tests {
    use super::term_spans;

    #[test]
    fn spans_are_case_insensitive_and_merged() {
        let terms = vec!["route".to_string(), "outer".to_string()];
        assert_eq!(term_spans("A Router; route", &terms), [(2, 8), (10, 15)]);
        assert!(term_spans("", &terms).is_empty());
    }
}
