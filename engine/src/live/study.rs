//! The live study of a question set: one case per question, so arms run live are scored by the
//! same tables as archived ones, and the open study with the live arms merged in when it is the
//! same question set.

use crate::stable_sort::Sorted;
use std::collections::BTreeSet;

use crate::load::question_set::Question;
use crate::study::{Case, Study};

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
            let gold: BTreeSet<String> = question.gold.iter().cloned().sorted_set();
            case.gold_files = gold.into_iter().collect();
            case
        })
        .collect();
    Study {
        title: format!("{repo}: live lexical arms"),
        cases,
        arms: Vec::new(),
        policy: None,
        issue_source: None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::question_set::parse_questions;
    use crate::scoring::metrics::score_ranking;
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
}
