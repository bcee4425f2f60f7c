//! What an adjudicated labelling round gives the study, for the command line and the
//! adjudication page alike: the qrels, the question set with its new gold (the original file's
//! lines, each question's replaced, set-level lines kept), and how far the original gold agrees
//! with the adjudicated grades — the original gold read as grade 3 for a gold file and 0 for any
//! other judged file, against the final grade, with every agreement statistic.

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};
use crate::evaluate::adjudication::{Log, Outcome};
use crate::load::question_set::parse_question_set;
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
