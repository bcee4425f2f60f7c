//! The line-level table recomputed over many issues (one row per arm and k, and an aligned-cases
//! row when the study carries the gold audit), with the study's archived values beside it.

use crate::delivery::linescore::LineScore;

/// Recomputed line scores of one arm at one k: `(case index, score)` for every case whose files
/// were available (in a loaded bundle).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecomputedLines {
    /// The arm's name.
    pub arm: String,
    /// The k packed.
    pub k: usize,
    /// Per available case (its index in the study, or in the question set).
    pub scores: Vec<(usize, LineScore)>,
}

/// The line-level table with recomputed values, and the archived ones beside them where the
/// study archives the arm at that k (averaged over the same cases, so the two compare): one row
/// per arm and k over every available case, and, when the study carries the gold audit
/// (`gold_text_aligned`), a second row `<arm> (aligned)` over the fully aligned cases alone, as
/// the paper reports both. Columns: `L (recomputed)`, `complete (recomputed)`,
/// `tokens (recomputed)`, `issues` (recomputed), `L (archived)`, `complete (archived)` (dashes
/// when not archived).
pub fn recomputed_lines_table(
    title: &str,
    rows: &[RecomputedLines],
    archived: Option<&crate::study::Study>,
) -> crate::table::Table {
    use crate::table::Table;
    let mut table = Table::new(
        title,
        &[
            "arm",
            "k",
            "subset",
            "L (recomputed)",
            "complete (recomputed)",
            "tokens (recomputed)",
            "issues",
            "L (archived)",
            "complete (archived)",
        ],
    );
    let aligned = |case: usize| {
        archived
            .and_then(|study| study.cases.get(case))
            .and_then(|case| case.flags.gold_text_aligned)
    };
    let audited = archived.is_some_and(|study| {
        study
            .cases
            .iter()
            .any(|case| case.flags.gold_text_aligned.is_some())
    });
    for row in rows {
        let all: Vec<&(usize, LineScore)> = row.scores.iter().collect();
        table
            .rows
            .push(recomputed_row(&row.arm, row, "all", &all, archived));
        if audited {
            let subset: Vec<&(usize, LineScore)> = row
                .scores
                .iter()
                .filter(|(case, _)| aligned(*case) == Some(true))
                .collect();
            let label = format!("{} (aligned)", row.arm);
            table
                .rows
                .push(recomputed_row(&label, row, "aligned", &subset, archived));
        }
    }
    table
}

/// One row of [`recomputed_lines_table`] over `scores` (a subset of `row.scores`).
fn recomputed_row(
    label: &str,
    row: &RecomputedLines,
    subset: &str,
    scores: &[&(usize, LineScore)],
    archived: Option<&crate::study::Study>,
) -> Vec<crate::table::Cell> {
    use crate::table::Cell;
    let n = scores.len();
    let mean = |f: &dyn Fn(&LineScore) -> f64| {
        scores.iter().map(|(_, s)| f(s)).sum::<f64>() / n.max(1) as f64
    };
    let complete = scores.iter().filter(|(_, s)| s.complete).count();
    let archived_values = archived
        .and_then(|study| study.arms.iter().find(|arm| arm.name == row.arm))
        .and_then(|arm| arm.archived_lines.get(&row.k))
        .map(|values| {
            scores
                .iter()
                .filter_map(|&&(case, _)| values.get(case).cloned().flatten())
                .collect::<Vec<_>>()
        })
        .filter(|got| !got.is_empty());
    let (archived_mean, archived_complete) = match &archived_values {
        Some(got) => (
            Cell::number(
                got.iter().map(|v| v.line_recall).sum::<f64>() / got.len() as f64,
                3,
            ),
            Cell {
                text: format!(
                    "{}/{}",
                    got.iter().filter(|v| v.complete_lines).count(),
                    got.len()
                ),
                value: Some(got.iter().filter(|v| v.complete_lines).count() as f64),
                interval: None,
            },
        ),
        None => (Cell::missing(), Cell::missing()),
    };
    vec![
        Cell::text(label),
        Cell::count(row.k),
        Cell::text(subset),
        if n == 0 {
            Cell::missing()
        } else {
            Cell::number(mean(&|s| s.line_recall), 3)
        },
        Cell {
            text: format!("{complete}/{n}"),
            value: Some(complete as f64),
            interval: None,
        },
        if n == 0 {
            Cell::missing()
        } else {
            Cell::number(mean(&|s| s.tokens_used as f64), 0)
        },
        Cell::count(n),
        archived_mean,
        archived_complete,
    ]
}
