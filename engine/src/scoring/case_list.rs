//! The cases behind a number: the per-issue list a reader opens from a table cell or from a
//! paired comparison's "better on N, worse on M, same on K". Each case of a subset (optionally of
//! one repository) with each chosen arm's per-case value of the paired metric at k, the same
//! values the comparison uses ([`case_values`]), and, for a pair, the side the case falls on;
//! sorted by any column.

use crate::error::{Error, Result};
use crate::scoring::paired::{case_values, PairedMetric};
use crate::stable_sort;
use crate::study::subset::Subset;
use crate::study::Study;

/// Which side of a paired comparison a case falls on (left − right).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Left scores higher.
    Better,
    /// Right scores higher.
    Worse,
    /// Equal.
    Same,
}

impl Side {
    /// The name used in links (`better`, `worse`, `same`).
    pub fn name(self) -> &'static str {
        match self {
            Side::Better => "better",
            Side::Worse => "worse",
            Side::Same => "same",
        }
    }

    /// The side named `name`.
    pub fn from_name(name: &str) -> Option<Side> {
        [Side::Better, Side::Worse, Side::Same]
            .into_iter()
            .find(|side| side.name() == name)
    }
}

/// What the list holds and how it is ordered.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseListQuery {
    /// The arms whose values are columns, by index.
    pub arms: Vec<usize>,
    /// The candidate limit.
    pub k: usize,
    /// The per-case value shown (the paired comparison's metric).
    pub metric: PairedMetric,
    /// The cases.
    pub subset: Subset,
    /// Only this repository's cases, when set.
    pub repo: Option<String>,
    /// A comparison, left − right, by arm index: each case's side.
    pub pair: Option<(usize, usize)>,
    /// Only the cases on this side of `pair`.
    pub side: Option<Side>,
    /// The column to sort by: `issue`, `repo`, an arm's name (highest first) or `difference`
    /// (left − right, highest first); default the study's order.
    pub sort: Option<String>,
}

/// One case of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseListRow {
    /// The case's index in the study.
    pub case: usize,
    /// Each chosen arm's value, `None` where the case has none.
    pub values: Vec<Option<f64>>,
    /// Left − right, when a pair is given and both have a value.
    pub difference: Option<f64>,
}

impl CaseListRow {
    /// The side the case falls on, when it has a difference.
    pub fn side(&self) -> Option<Side> {
        self.difference.map(|d| {
            if d > 0.0 {
                Side::Better
            } else if d < 0.0 {
                Side::Worse
            } else {
                Side::Same
            }
        })
    }
}

/// The list `query` asks for. A listed arm that archives no line values at k shows none (the
/// list of every arm holds arms without them); the compared pair must have them.
pub fn case_list(study: &Study, query: &CaseListQuery) -> Result<Vec<CaseListRow>> {
    let values = query
        .arms
        .iter()
        .map(|&arm| match query.metric {
            PairedMetric::ArchivedLineRecall
                if !study.arms[arm].archived_lines.contains_key(&query.k) =>
            {
                Ok(vec![None; study.cases.len()])
            }
            _ => case_values(study, arm, query.k, query.metric),
        })
        .collect::<Result<Vec<_>>>()?;
    let pair = match query.pair {
        Some((left, right)) => Some((
            case_values(study, left, query.k, query.metric)?,
            case_values(study, right, query.k, query.metric)?,
        )),
        None => None,
    };
    let rows: Vec<CaseListRow> = query
        .subset
        .indices(study)
        .into_iter()
        .filter(|&case| {
            query
                .repo
                .as_ref()
                .is_none_or(|repo| study.cases[case].repo == *repo)
        })
        .map(|case| CaseListRow {
            case,
            values: values.iter().map(|arm| arm[case]).collect(),
            difference: pair.as_ref().and_then(|(l, r)| Some(l[case]? - r[case]?)),
        })
        .filter(|row| query.side.is_none_or(|side| row.side() == Some(side)))
        .collect();
    let Some(sort) = query.sort.as_deref() else {
        return Ok(rows);
    };
    // Each row's key for the sort column, then one sort (one instance of the sort's code: the
    // page's first load counts every instance).
    let column = match sort {
        "issue" | "repo" | "difference" => None,
        name => Some(
            query
                .arms
                .iter()
                .position(|&arm| study.arms[arm].name == name)
                .ok_or_else(|| {
                    Error::setting("sort", name, "issue, repo, difference or a listed arm")
                })?,
        ),
    };
    let mut keyed: Vec<(SortKey, CaseListRow)> = rows
        .into_iter()
        .map(|row| {
            let case = &study.cases[row.case];
            let key = match (sort, column) {
                ("issue", _) => SortKey::Text(case.id.clone()),
                ("repo", _) => SortKey::Text(case.repo.clone()),
                (_, Some(column)) => SortKey::Number(row.values[column]),
                _ => SortKey::Number(row.difference),
            };
            (key, row)
        })
        .collect();
    stable_sort::by(&mut keyed, |(a, _), (b, _)| a.order(b));
    Ok(keyed.into_iter().map(|(_, row)| row).collect())
}

/// A row's key for the sort column: text ascending, numbers highest first with missing ones last.
enum SortKey {
    Text(String),
    Number(Option<f64>),
}

impl SortKey {
    fn order(&self, other: &SortKey) -> std::cmp::Ordering {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match (self, other) {
            (SortKey::Text(a), SortKey::Text(b)) => a.cmp(b),
            (SortKey::Number(Some(a)), SortKey::Number(Some(b))) => b.total_cmp(a),
            (SortKey::Number(Some(_)), SortKey::Number(None)) => Less,
            (SortKey::Number(None), SortKey::Number(Some(_))) => Greater,
            _ => Equal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::paired::compare;
    use crate::scoring::stats::BootstrapConfig;

    fn study() -> Study {
        crate::load_jsonl(
            "s.jsonl",
            r#"{"id": "a::1", "repo": "a", "gold": ["x"]}
{"id": "a::2", "repo": "a", "gold": ["y"]}
{"id": "b::1", "repo": "b", "gold": ["z"]}
{"id": "a::1", "arm": "left", "paths": ["x"]}
{"id": "a::2", "arm": "left", "paths": ["q"]}
{"id": "b::1", "arm": "left", "paths": ["q", "z"]}
{"id": "a::1", "arm": "right", "paths": ["q"]}
{"id": "a::2", "arm": "right", "paths": ["y"]}
{"id": "b::1", "arm": "right", "paths": ["z"]}
"#,
        )
        .unwrap()
    }

    fn query(study: &Study) -> CaseListQuery {
        CaseListQuery {
            arms: vec![0, 1],
            k: 1,
            metric: PairedMetric::FileRecall,
            subset: Subset::All,
            repo: None,
            pair: Some((
                study.arm_index("left").unwrap(),
                study.arm_index("right").unwrap(),
            )),
            side: None,
            sort: None,
        }
    }

    /// The three sides hold exactly the comparison's wins, losses and ties.
    #[test]
    fn the_sides_are_the_comparisons_wins_losses_and_ties() {
        let study = study();
        let compared = compare(
            &study,
            "left",
            "right",
            1,
            PairedMetric::FileRecall,
            &Subset::All.indices(&study),
            BootstrapConfig {
                resamples: 100,
                seed: 0,
            },
        )
        .unwrap();
        let count = |side| {
            let query = CaseListQuery {
                side: Some(side),
                ..query(&study)
            };
            case_list(&study, &query).unwrap().len()
        };
        assert_eq!(
            (count(Side::Better), count(Side::Worse), count(Side::Same)),
            (compared.wins, compared.losses, compared.ties)
        );
        assert_eq!((compared.wins, compared.losses, compared.ties), (1, 2, 0));
    }

    #[test]
    fn a_repository_filters_and_any_column_sorts() {
        let study = study();
        let ids = |query: &CaseListQuery| -> Vec<String> {
            case_list(&study, query)
                .unwrap()
                .iter()
                .map(|row| study.cases[row.case].id.clone())
                .collect()
        };
        let only_a = CaseListQuery {
            repo: Some("a".into()),
            ..query(&study)
        };
        assert_eq!(ids(&only_a), ["a::1", "a::2"]);
        let by_right = CaseListQuery {
            sort: Some("right".into()),
            ..query(&study)
        };
        assert_eq!(ids(&by_right), ["a::2", "b::1", "a::1"]);
        let by_difference = CaseListQuery {
            sort: Some("difference".into()),
            ..query(&study)
        };
        assert_eq!(ids(&by_difference), ["a::1", "a::2", "b::1"]);
        let unknown = CaseListQuery {
            sort: Some("colour".into()),
            ..query(&study)
        };
        assert!(case_list(&study, &unknown).is_err());
    }

    #[test]
    fn arms_without_line_values_show_none_and_a_pair_without_them_is_refused() {
        let study = study();
        let lines = CaseListQuery {
            metric: PairedMetric::ArchivedLineRecall,
            pair: None,
            ..query(&study)
        };
        let rows = case_list(&study, &lines).unwrap();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|row| row.values == [None, None]));
        let paired = CaseListQuery {
            metric: PairedMetric::ArchivedLineRecall,
            ..query(&study)
        };
        assert!(case_list(&study, &paired).is_err());
    }
}
