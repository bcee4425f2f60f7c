//! Floor 5, beside the loaders: a paper's printed numbers checked against their recomputation.
//! Each printed number ([`printed`]) names the statistic that recomputes it ([`quantity`]); the
//! check recomputes it from the study's own data (a study of rankings in [`quantity`], a score
//! table in [`scores`]; the counts of one arm's own finds in [`overlap`], of a table's cases by
//! their columns in [`condition`]), writes it as the paper printed it, and says whether the digits
//! agree, by how much they differ if not, and why where that is known.

pub mod condition;
pub mod overlap;
pub mod printed;
pub mod quantity;
mod quantity_json;
pub mod scores;

use serde::Serialize;

use crate::scoring::score_table::ScoreTable;
use crate::study::Study;
use crate::table::{Cell, Table};
use printed::{Notation, PrintedFile, PrintedValue};
use quantity::{recompute, Recomputed};
use scores::recompute_scores;

/// What a printed number is checked against.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A study of rankings (the fastindex archive).
    Study(&'a Study),
    /// A per-case score table (CodeNib's results).
    Scores(&'a ScoreTable),
}

/// How one printed number fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Recomputed to the printed digits.
    Reproduced,
    /// Recomputed to other digits.
    Differs,
    /// The data cannot yield it (the number's `why` says what is missing).
    NotComputable,
    /// The recomputation failed (its message says why).
    Failed,
}

/// One printed number beside its recomputation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Where the paper prints it.
    pub place: String,
    /// As printed.
    pub printed: String,
    /// The recomputed value written as the paper writes it, when recomputed.
    pub recomputed: Option<String>,
    /// The recomputed value at full precision.
    pub value: Option<f64>,
    /// Recomputed minus printed, in the statistic's units, when they differ.
    pub difference: Option<f64>,
    /// How it fared.
    pub outcome: Outcome,
    /// Why it cannot be recomputed or differs, where known, or the failure.
    pub note: Option<String>,
}

/// Every printed number of a paper, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// The paper's title.
    pub paper: String,
    /// One verdict per printed number, in the paper's order.
    pub verdicts: Vec<Verdict>,
}

/// Checks every number of `printed` against `source`.
pub fn check(printed: &PrintedFile, source: Source<'_>) -> CheckReport {
    let verdicts = printed
        .numbers
        .iter()
        .map(|number| {
            let mut verdict = Verdict {
                place: number.place.clone(),
                printed: number.printed.clone(),
                recomputed: None,
                value: None,
                difference: None,
                outcome: Outcome::NotComputable,
                note: number.why.clone(),
            };
            let Some(quantity) = &number.compute else {
                return verdict;
            };
            let recomputed = match source {
                Source::Study(study) => recompute(study, quantity),
                Source::Scores(table) => recompute_scores(table, quantity),
            };
            // Read when the file was; a hand-made PrintedFile may not have been.
            let shown = PrintedValue::parse(&number.place, &number.printed);
            match (recomputed, shown) {
                (Ok(mut recomputed), Ok(shown)) => {
                    recomputed.value *= number.scale.unwrap_or(1.0);
                    judge(&mut verdict, recomputed, &shown)
                }
                (Err(err), _) | (_, Err(err)) => {
                    verdict.outcome = Outcome::Failed;
                    verdict.note = Some(err.to_string());
                }
            }
            verdict
        })
        .collect();
    CheckReport {
        paper: printed.paper.clone(),
        verdicts,
    }
}

fn judge(verdict: &mut Verdict, recomputed: Recomputed, shown: &PrintedValue) {
    let digits = shown.format_like(recomputed.value);
    let whole_agrees = match (shown.notation, recomputed.whole) {
        (Notation::Fraction { whole }, Some(recomputed)) => whole == recomputed,
        (Notation::Fraction { .. }, None) => false,
        _ => true,
    };
    let printed_digits = shown.digits.trim_start_matches('+');
    let agrees = whole_agrees && digits == printed_digits;
    verdict.recomputed = Some(match recomputed.whole {
        Some(whole) => format!("{digits}/{whole}"),
        None => shown.display_like(recomputed.value, &verdict.printed),
    });
    verdict.value = Some(recomputed.value);
    verdict.outcome = if agrees {
        Outcome::Reproduced
    } else {
        verdict.difference = Some(recomputed.value - shown.value);
        Outcome::Differs
    };
}

impl CheckReport {
    /// How many numbers had each outcome: reproduced, differs, not computable, failed.
    pub fn counts(&self) -> [usize; 4] {
        let count = |o: Outcome| self.verdicts.iter().filter(|v| v.outcome == o).count();
        [
            count(Outcome::Reproduced),
            count(Outcome::Differs),
            count(Outcome::NotComputable),
            count(Outcome::Failed),
        ]
    }

    /// The numbers that should reproduce and did not: a difference the printed file does not
    /// explain (a known rounding rule or generator is explained), or a failed recomputation.
    pub fn unexplained(&self) -> Vec<&Verdict> {
        self.verdicts
            .iter()
            .filter(|v| match v.outcome {
                Outcome::Failed => true,
                Outcome::Differs => v.note.is_none(),
                _ => false,
            })
            .collect()
    }

    /// Whether every number reproduced or differs for a reason the printed file gives.
    pub fn all_reproduced(&self) -> bool {
        self.unexplained().is_empty()
    }

    /// The summary line: `N of M printed numbers reproduced; K cannot be computed from the data`.
    pub fn summary(&self, study: &str) -> String {
        let [reproduced, differs, not_computable, failed] = self.counts();
        let mut line = format!(
            "{study}: {reproduced} of {} printed numbers reproduced",
            self.verdicts.len()
        );
        if differs > 0 {
            let unexplained = self.unexplained().len() - failed;
            line += &format!("; {differs} differ");
            if unexplained > 0 {
                line += &format!(" ({unexplained} without a known reason)");
            }
        }
        if failed > 0 {
            line += &format!("; {failed} could not be recomputed");
        }
        if not_computable > 0 {
            line += &format!("; {not_computable} cannot be computed from the data");
        }
        line
    }

    /// The check as a table: each printed number, its recomputation, ✓ or ✗, the difference and
    /// the note.
    pub fn table(&self) -> Table {
        let mut table = Table::new(
            &format!("{}: printed numbers, recomputed", self.paper),
            &["where", "printed", "recomputed", "", "difference", "note"],
        );
        for verdict in &self.verdicts {
            let mark = match verdict.outcome {
                Outcome::Reproduced => "✓",
                Outcome::Differs | Outcome::Failed => "✗",
                Outcome::NotComputable => "–",
            };
            table.rows.push(vec![
                Cell::text(&verdict.place),
                Cell::text(&verdict.printed),
                Cell::text(verdict.recomputed.as_deref().unwrap_or("–")),
                Cell::text(mark),
                verdict
                    .difference
                    .map_or_else(Cell::missing, |d| Cell::text(format!("{d:+.2e}"))),
                Cell::text(verdict.note.as_deref().unwrap_or("")),
            ]);
        }
        table
    }
}

#[cfg(test)]
mod tests;
