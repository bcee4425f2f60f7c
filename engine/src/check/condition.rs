//! Which cases of a score table a printed count counts. CodeNib's prose counts issues by their
//! columns: the pools with no target block (BM25's coverage is zero), the issues grep recovered
//! (grep's coverage is not zero while BM25's is), the pools too small to reorder (five or fewer
//! candidates). Each is a few tests of one column, all of which a counted case meets.
//!
//! ```json
//! {"stat": "cases_where", "all": [
//!   {"column": "base_aligned/grep/candidate_span_coverage", "is": "non_zero"},
//!   {"column": "base_aligned/bm25/candidate_span_coverage", "is": "zero"}]}
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::scoring::score_table::ScoreTable;

/// A test of one column's value for a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case", deny_unknown_fields)]
pub enum Condition {
    /// The value is exactly zero (a coverage of nothing).
    Zero {
        /// The column, as the CSV names it.
        column: String,
    },
    /// The value is not zero.
    NonZero {
        /// The column, as the CSV names it.
        column: String,
    },
    /// The value is at most `value`.
    AtMost {
        /// The column, as the CSV names it.
        column: String,
        /// The largest value that passes.
        value: f64,
    },
}

impl Condition {
    fn column(&self) -> &str {
        match self {
            Condition::Zero { column }
            | Condition::NonZero { column }
            | Condition::AtMost { column, .. } => column,
        }
    }

    fn holds(&self, value: f64) -> bool {
        match self {
            Condition::Zero { .. } => value == 0.0,
            Condition::NonZero { .. } => value != 0.0,
            Condition::AtMost { value: most, .. } => value <= *most,
        }
    }
}

/// How many of `table`'s cases meet every condition (every case, when there are none); an error
/// names a column the table does not have.
pub fn count_cases(table: &ScoreTable, all: &[Condition]) -> Result<usize> {
    let tests = all
        .iter()
        .map(|condition| {
            let column = table
                .columns
                .iter()
                .find(|c| c.name == condition.column())
                .ok_or_else(|| Error::field(&table.file, condition.column(), "no such column"))?;
            Ok((condition, &column.values))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((0..table.cases.len())
        .filter(|&case| tests.iter().all(|(test, values)| test.holds(values[case])))
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::score_table::{load_score_table, Mapping};

    fn table() -> ScoreTable {
        let mapping = Mapping::from_json("m.json", r#"{"id": "id", "cluster": "repo"}"#).unwrap();
        load_score_table(
            "t.csv",
            "id,repo,bm25,grep,count\n1,a,0,0.5,3\n2,a,0.2,0,5\n3,b,0,0,6\n4,b,0,1,12\n",
            &mapping,
        )
        .unwrap()
    }

    fn read(json: &str) -> Vec<Condition> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn cases_are_counted_when_every_condition_holds() {
        let table = table();
        let count = |json: &str| count_cases(&table, &read(json)).unwrap();
        assert_eq!(count("[]"), 4);
        assert_eq!(count(r#"[{"column": "bm25", "is": "zero"}]"#), 3);
        assert_eq!(
            count(r#"[{"column": "count", "is": "at_most", "value": 5}]"#),
            2
        );
        let recovered =
            r#"[{"column": "grep", "is": "non_zero"}, {"column": "bm25", "is": "zero"}]"#;
        assert_eq!(count(recovered), 2);
        let lost = r#"[{"column": "bm25", "is": "non_zero"}, {"column": "grep", "is": "zero"}]"#;
        assert_eq!(count(lost), 1);
    }

    #[test]
    fn an_unknown_column_or_test_is_refused_by_name() {
        let table = table();
        let err = count_cases(&table, &read(r#"[{"column": "nope", "is": "zero"}]"#))
            .unwrap_err()
            .to_string();
        assert!(err.contains("t.csv") && err.contains("nope"), "{err}");
        let refused = serde_json::from_str::<Vec<Condition>>(r#"[{"column": "a", "is": "above"}]"#);
        assert!(refused.is_err());
    }
}
