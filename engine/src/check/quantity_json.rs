//! How a [`Quantity`] is read from a printed-numbers file: `{"stat": "file_recall", "arm":
//! "tree", "k": 8}`, one flat object whose `stat` names the statistic.
//!
//! Why by hand: serde reads an internally tagged enum by first buffering the whole object into
//! its generic `Content` tree and then replaying it into each variant. For twenty variants that
//! was about 40 KB of the page's wasm, which the paper page's first load cannot spare. Here the
//! object is read once into one struct of optional fields, and each statistic takes the fields it
//! needs; a missing field, or a field the statistic does not take, is refused by name, as serde's
//! `deny_unknown_fields` did.

use serde::Deserialize;

use super::condition::Condition;
use super::quantity::{PairedPart, Quantity, Summary, Tally};

/// Every field any statistic takes, each optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Fields {
    stat: String,
    arm: Option<String>,
    k: Option<usize>,
    subset: Option<String>,
    left: Option<String>,
    right: Option<String>,
    metric: Option<String>,
    part: Option<PairedPart>,
    absent_from: Option<Vec<String>>,
    count: Option<Tally>,
    name: Option<String>,
    of: Option<Summary>,
    column: Option<String>,
    exclude: Option<Vec<String>>,
    all: Option<Vec<Condition>>,
}

/// A required field, taken.
fn need<T>(field: &mut Option<T>, name: &str, stat: &str) -> Result<T, String> {
    field
        .take()
        .ok_or_else(|| format!("missing field `{name}` (stat {stat})"))
}

impl Fields {
    /// The first field still set once the statistic took its own: one it does not take.
    fn left_over(&self) -> Option<&'static str> {
        [
            ("arm", self.arm.is_some()),
            ("k", self.k.is_some()),
            ("subset", self.subset.is_some()),
            ("left", self.left.is_some()),
            ("right", self.right.is_some()),
            ("metric", self.metric.is_some()),
            ("part", self.part.is_some()),
            ("absent_from", self.absent_from.is_some()),
            ("count", self.count.is_some()),
            ("name", self.name.is_some()),
            ("of", self.of.is_some()),
            ("column", self.column.is_some()),
            ("exclude", self.exclude.is_some()),
            ("all", self.all.is_some()),
        ]
        .into_iter()
        .find_map(|(name, set)| set.then_some(name))
    }
}

impl TryFrom<Fields> for Quantity {
    type Error = String;

    fn try_from(mut f: Fields) -> Result<Quantity, String> {
        let stat = std::mem::take(&mut f.stat);
        let s = stat.as_str();
        let subset = |f: &mut Fields| f.subset.take().unwrap_or_else(|| "all".into());
        let quantity = match s {
            "file_recall" => Quantity::FileRecall {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
                subset: subset(&mut f),
            },
            "full_count" => Quantity::FullCount {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
                subset: subset(&mut f),
            },
            "ceiling" => Quantity::Ceiling {
                k: need(&mut f.k, "k", s)?,
            },
            "micro_found" => Quantity::MicroFound {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
            },
            "micro_recall" => Quantity::MicroRecall {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
            },
            "line_recall" => Quantity::LineRecall {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
                subset: subset(&mut f),
            },
            "complete_lines" => Quantity::CompleteLines {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
                subset: subset(&mut f),
            },
            "context_tokens" => Quantity::ContextTokens {
                arm: need(&mut f.arm, "arm", s)?,
                k: need(&mut f.k, "k", s)?,
            },
            "paired" => Quantity::Paired {
                left: need(&mut f.left, "left", s)?,
                right: need(&mut f.right, "right", s)?,
                k: need(&mut f.k, "k", s)?,
                metric: f.metric.take().unwrap_or_else(|| "file".into()),
                subset: subset(&mut f),
                part: need(&mut f.part, "part", s)?,
            },
            "cases" => Quantity::Cases {
                subset: subset(&mut f),
            },
            "repositories" => Quantity::Repositories {},
            "over_ceiling" => Quantity::OverCeiling {
                k: need(&mut f.k, "k", s)?,
            },
            "gold_spans" => Quantity::GoldSpans {},
            "own_finds" => Quantity::OwnFinds {
                arm: need(&mut f.arm, "arm", s)?,
                absent_from: need(&mut f.absent_from, "absent_from", s)?,
                k: need(&mut f.k, "k", s)?,
                count: need(&mut f.count, "count", s)?,
            },
            "measurement" => Quantity::Measurement {
                arm: need(&mut f.arm, "arm", s)?,
                name: need(&mut f.name, "name", s)?,
                of: need(&mut f.of, "of", s)?,
            },
            "measurement_ratio" => Quantity::MeasurementRatio {
                left: need(&mut f.left, "left", s)?,
                right: need(&mut f.right, "right", s)?,
                name: need(&mut f.name, "name", s)?,
                of: need(&mut f.of, "of", s)?,
            },
            "column_mean" => Quantity::ColumnMean {
                column: need(&mut f.column, "column", s)?,
                exclude: f.exclude.take().unwrap_or_default(),
            },
            "column_summary" => Quantity::ColumnSummary {
                column: need(&mut f.column, "column", s)?,
                of: need(&mut f.of, "of", s)?,
                exclude: f.exclude.take().unwrap_or_default(),
            },
            "cases_where" => Quantity::CasesWhere {
                all: need(&mut f.all, "all", s)?,
            },
            "column_paired" => Quantity::ColumnPaired {
                left: need(&mut f.left, "left", s)?,
                right: need(&mut f.right, "right", s)?,
                exclude: f.exclude.take().unwrap_or_default(),
                part: need(&mut f.part, "part", s)?,
            },
            other => return Err(format!("unknown stat {other:?}")),
        };
        match f.left_over() {
            Some(name) => Err(format!(
                "unknown field `{name}` (stat {stat} does not take it)"
            )),
            None => Ok(quantity),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Quantity, String> {
        serde_json::from_str::<Quantity>(json).map_err(|e| e.to_string())
    }

    #[test]
    fn each_stat_takes_its_fields_with_their_defaults() {
        assert_eq!(
            read(r#"{"stat": "file_recall", "arm": "tree", "k": 8}"#),
            Ok(Quantity::FileRecall {
                arm: "tree".into(),
                k: 8,
                subset: "all".into()
            })
        );
        assert_eq!(
            read(r#"{"stat": "paired", "left": "a", "right": "b", "k": 8, "part": "low"}"#),
            Ok(Quantity::Paired {
                left: "a".into(),
                right: "b".into(),
                k: 8,
                metric: "file".into(),
                subset: "all".into(),
                part: PairedPart::Low
            })
        );
        assert_eq!(
            read(r#"{"stat": "repositories"}"#),
            Ok(Quantity::Repositories {})
        );
    }

    #[test]
    fn a_missing_foreign_or_unknown_field_is_refused_by_name() {
        let said = read(r#"{"stat": "file_recall", "k": 8}"#).unwrap_err();
        assert!(
            said.contains("missing field `arm` (stat file_recall)"),
            "{said}"
        );
        let said = read(r#"{"stat": "ceiling", "k": 8, "arm": "tree"}"#).unwrap_err();
        assert!(said.contains("unknown field `arm` (stat ceiling"), "{said}");
        let said = read(r#"{"stat": "ceiling", "k": 8, "colour": 1}"#).unwrap_err();
        assert!(said.contains("unknown field `colour`"), "{said}");
        let said = read(r#"{"stat": "median", "k": 8}"#).unwrap_err();
        assert!(said.contains("unknown stat \"median\""), "{said}");
    }
}
