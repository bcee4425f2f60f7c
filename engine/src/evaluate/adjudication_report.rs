//! What an adjudicated labelling round gives the study, for the command line and the
//! adjudication page alike: the qrels, the question set with its new gold (the original file's
//! lines, each question's replaced, set-level lines kept), and how far the original gold agrees
//! with the adjudicated grades — the original gold read as grade 3 for a gold file and 0 for any
//! other judged file, against the final grade, with every agreement statistic. And for scoring
//! a grid against both golds side by side ([`SecondGold`]): the check that a second question set
//! holds the same questions, and how far two golds agree.

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};
use crate::evaluate::adjudication::{Log, Outcome};
use crate::load::question_set::{parse_question_set, Question, QuestionSet};
use crate::scoring::agreement::{agreement, AgreementReport, Item, TOP_GRADE};
use crate::scoring::stats::BootstrapConfig;

/// The adjudicated round's outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjudicationReport {
    /// TREC qrels (`qid 0 path grade`).
    pub qrels: String,
    /// The new question set's text.
    pub new_set: String,
    /// Questions whose gold changed, of all.
    pub changed: usize,
    /// The original gold against the adjudicated grades.
    pub original: AgreementReport,
    /// The summary and the original gold's agreement, as sentences.
    pub text: String,
}

/// The outputs of `outcome` (decided by `log`) for the question set `set_text` (named
/// `set_name`), at the binary `cut`.
pub fn adjudication_report(
    outcome: &Outcome,
    log: &Log,
    (set_name, set_text): (&str, &str),
    cut: u8,
    bootstrap: BootstrapConfig,
) -> Result<AdjudicationReport> {
    let set = parse_question_set(set_name, set_text)?;
    let new_questions = outcome.new_gold(&set.questions, cut);
    let mut new_set = String::new();
    let mut next = new_questions.iter();
    for line in set_text.lines().filter(|l| !l.trim().is_empty()) {
        let is_question = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .is_some_and(|v| v.get("id").is_some());
        match if is_question { next.next() } else { None } {
            Some(question) => {
                new_set += &serde_json::to_string(question)
                    .map_err(|e| Error::field(set_name, "question", e.to_string()))?
            }
            None => new_set += line,
        }
        new_set.push('\n');
    }
    let items: Vec<Item> = outcome
        .grades
        .iter()
        .map(|((q, p), g)| Item {
            question: q.clone(),
            path: p.clone(),
            a: set.questions.iter().find(|x| &x.id == q).map(|x| {
                if x.gold.contains(p) {
                    TOP_GRADE
                } else {
                    0
                }
            }),
            b: Some(*g),
        })
        .collect();
    let original = agreement(&items, cut, bootstrap)?;
    let changed = set
        .questions
        .iter()
        .zip(&new_questions)
        .filter(|(old, new)| old.gold != new.gold)
        .count();
    let mut text = format!(
        "{} judged pairs, {} disputes decided by {}{}; {changed} of {} questions have new gold \
         (SHA-256 of the new set {})\n",
        outcome.grades.len(),
        outcome.decided,
        log.header.adjudicator,
        if outcome.adjudicator_is_labeller {
            " (flagged: one of the labellers)"
        } else {
            ""
        },
        set.questions.len(),
        sha256_hex(new_set.as_bytes())
    );
    text += "The original gold against the adjudicated grades:\n";
    for statistic in &original.statistics {
        text += &format!("  {}\n", statistic.sentence);
    }
    Ok(AdjudicationReport {
        qrels: outcome.qrels(),
        new_set,
        changed,
        original,
        text,
    })
}

/// The grid scored against a second gold of the same questions (the adjudicated one), and how far
/// the two golds agree ([`gold_agreement`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SecondGold {
    /// The second question set, as named (a file or URL).
    pub questions: String,
    /// The grid against it.
    pub report: crate::evaluate::GridReport,
    /// The first gold against the second.
    pub gold_agreement: AgreementReport,
}

/// Refuses `other` (named `file`) unless it holds the same questions as `set` — ids and texts,
/// in order — so that only the gold differs: a grid scored against it is the same grid.
pub fn same_questions(set: &QuestionSet, other: &QuestionSet, file: &str) -> Result<()> {
    let differs = set
        .questions
        .iter()
        .zip(&other.questions)
        .find(|(a, b)| a.id != b.id || a.question != b.question)
        .map(|(a, _)| a.id.clone())
        .or_else(|| {
            (set.questions.len() != other.questions.len()).then(|| "(the count)".to_string())
        });
    match differs {
        Some(id) => Err(Error::field(
            file,
            "questions",
            format!("not the same questions as the grid's (first difference: {id}); only the gold may differ"),
        )),
        None => Ok(()),
    }
}

/// How far one gold agrees with another of the same questions (the original author's against
/// the adjudicated), with every agreement statistic: each file gold in either set is a pair,
/// graded 3 where it is gold and 0 where not. Files neither set holds are not pairs (two
/// question sets record no judged negatives; `routelens adjudicate` counts them from the log).
pub fn gold_agreement(
    old: &[Question],
    new: &[Question],
    bootstrap: BootstrapConfig,
) -> Result<AgreementReport> {
    let mut items = Vec::new();
    for (a, b) in old.iter().zip(new) {
        let mut paths: Vec<&String> = a.gold.iter().chain(&b.gold).collect();
        crate::stable_sort::sort(&mut paths);
        paths.dedup();
        for path in paths {
            let grade = |q: &Question| Some(if q.gold.contains(path) { TOP_GRADE } else { 0 });
            items.push(Item {
                question: a.id.clone(),
                path: path.clone(),
                a: grade(a),
                b: grade(b),
            });
        }
    }
    agreement(&items, TOP_GRADE, bootstrap)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(id: &str, gold: &[&str]) -> Question {
        serde_json::from_value(serde_json::json!({"id": id, "question": id, "gold": gold})).unwrap()
    }

    #[test]
    fn the_golds_pairs_are_the_files_either_holds() {
        let old = [question("q1", &["a", "b"]), question("q2", &["c"])];
        let new = [question("q1", &["b", "d"]), question("q2", &["c"])];
        let report = gold_agreement(
            &old,
            &new,
            BootstrapConfig {
                resamples: 10,
                seed: 0,
            },
        )
        .unwrap();
        // q1: a (3, 0), b (3, 3), d (0, 3); q2: c (3, 3).
        assert_eq!(report.coverage.both, 4);
        assert_eq!(report.confusion[3][3], 2);
        assert_eq!(report.confusion[3][0], 1);
        assert_eq!(report.confusion[0][3], 1);
        let psa = report
            .statistics
            .iter()
            .find(|s| s.name == "positive_agreement")
            .unwrap();
        // 2·2 / (2·2 + 1 + 1)
        assert!((psa.value.unwrap() - 4.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn another_question_set_is_refused_naming_the_first_difference() {
        let set = |qs: Vec<Question>| QuestionSet {
            questions: qs,
            ..Default::default()
        };
        let a = set(vec![question("q1", &["a"]), question("q2", &[])]);
        let b = set(vec![question("q1", &["b"]), question("q3", &[])]);
        assert!(same_questions(&a, &a, "x").is_ok());
        let said = same_questions(&a, &b, "new.jsonl").unwrap_err().to_string();
        assert!(said.contains("new.jsonl") && said.contains("q2"), "{said}");
    }
}
