//! A printed number recomputed from a per-case score table (CodeNib's results): a column's mean
//! or other summary, counts of cases and repositories, and paired intervals drawn by the
//! article's own generator. A statistic of rankings is refused by name.

use crate::stable_sort::Sorted;
use std::collections::BTreeSet;

use super::condition::count_cases;
use super::quantity::{mean, summary, PairedPart, Quantity, Recomputed};
use crate::error::{Error, Result};
use crate::scoring::numpy_bootstrap::{
    group_by_repository, paired_interval, CODENIB_RESAMPLES, CODENIB_SEED,
};
use crate::scoring::score_table::ScoreTable;

/// Recomputes `quantity` from a per-case score table.
pub fn recompute_scores(table: &ScoreTable, quantity: &Quantity) -> Result<Recomputed> {
    let kept = |exclude: &[String]| -> Vec<usize> {
        (0..table.cases.len())
            .filter(|&i| !exclude.contains(&table.cases[i].id))
            .collect()
    };
    let column = |name: &str| {
        table
            .columns
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| Error::field(&table.file, name, "no such column"))
    };
    let chosen = |name: &str, exclude: &[String]| -> Result<Vec<f64>> {
        let values = &column(name)?.values;
        Ok(kept(exclude).into_iter().map(|i| values[i]).collect())
    };
    match quantity {
        Quantity::ColumnMean {
            column: name,
            exclude,
        } => Ok(Recomputed::value(mean(&chosen(name, exclude)?)?)),
        Quantity::ColumnSummary {
            column: name,
            of,
            exclude,
        } => Ok(Recomputed::value(summary(
            &mut chosen(name, exclude)?,
            *of,
        )?)),
        Quantity::CasesWhere { all } => Ok(Recomputed::count(
            count_cases(table, all)?,
            table.cases.len(),
        )),
        Quantity::Cases { subset } if subset == "all" => {
            Ok(Recomputed::count(table.cases.len(), table.cases.len()))
        }
        Quantity::Repositories {} => {
            let clusters: BTreeSet<&str> =
                table.cases.iter().map(|c| c.cluster.as_str()).sorted_set();
            Ok(Recomputed::value(clusters.len() as f64))
        }
        Quantity::ColumnPaired {
            left,
            right,
            exclude,
            part,
        } => {
            let (l, r) = (&column(left)?.values, &column(right)?.values);
            let differences = kept(exclude)
                .into_iter()
                .map(|i| (table.cases[i].cluster.as_str(), l[i] - r[i]));
            let groups = group_by_repository(differences);
            let interval = paired_interval(&groups, CODENIB_RESAMPLES, CODENIB_SEED)?;
            match part {
                PairedPart::Mean => Ok(Recomputed::value(interval.difference)),
                PairedPart::Low => Ok(Recomputed::value(interval.low)),
                PairedPart::High => Ok(Recomputed::value(interval.high)),
                other => Err(Error::setting(
                    "part",
                    format!("{other:?}"),
                    "mean, low or high for a score table's comparison",
                )),
            }
        }
        _ => Err(Error::setting(
            "stat",
            "a statistic of rankings",
            "cases (of all), repositories, column_mean, column_summary, cases_where or \
             column_paired (this study is a score table)",
        )),
    }
}
