//! The study's tables, built from a [`Study`] for display and CSV download: the paper's Table 2
//! (file recall by arm and k), Table 4 (paired differences), Table 7 (per repository), the
//! operating points of section 4.3, the archived line-level values, the prespecified subgroups and
//! a case's gold files against every arm.

use crate::stable_sort::Sorted;
use std::collections::BTreeSet;

use crate::scoring::metrics::{score_ranking, summarize};
use crate::scoring::paired::PairedComparison;
use crate::study::subset::Subset;
use crate::study::{Arm, Study};
use crate::table::{Cell, Table};

/// Table 2: for each arm and each k, File@k, Full@k, and, where the study archives line values
/// at k, the paper's L{n}@k (mean archived line recall over the n aligned-text issues); then
/// Full@k's ceiling, micro recall and precision.
pub fn file_recall_table(study: &Study, ks: &[usize]) -> Table {
    let aligned = Subset::Aligned.indices(study);
    let lines_at = |k: usize| {
        study
            .arms
            .iter()
            .any(|arm| arm.archived_lines.contains_key(&k))
    };
    let mut headers = vec!["arm".to_string(), "label".to_string()];
    for &k in ks {
        headers.extend([format!("File@{k}"), format!("Full@{k}")]);
        if lines_at(k) {
            headers.push(format!("L{}@{k}", aligned.len()));
        }
        headers.extend([
            format!("Ceiling@{k}"),
            format!("Micro@{k}"),
            format!("P@{k}"),
        ]);
    }
    let all = Subset::All.indices(study);
    let rows = (0..study.arms.len())
        .map(|arm| {
            let mut row = vec![
                Cell::text(&study.arms[arm].name),
                Cell::text(&study.arms[arm].label),
            ];
            for &k in ks {
                let s = summarize(study, arm, k, &all);
                row.extend([
                    Cell::number(s.file_recall, 3),
                    Cell {
                        text: format!("{}/{}", s.full, s.n),
                        value: Some(s.full as f64),
                        interval: None,
                    },
                ]);
                if lines_at(k) {
                    row.push(aligned_line_recall(&study.arms[arm], k, &aligned));
                }
                row.extend([
                    Cell {
                        text: format!("{}/{}", s.feasible(), s.n),
                        value: Some(s.feasible() as f64),
                        interval: None,
                    },
                    Cell {
                        text: format!("{:.3} ({}/{})", s.micro_recall, s.found, s.gold),
                        value: Some(s.micro_recall),
                        interval: None,
                    },
                    Cell::number(s.precision, 3),
                ]);
            }
            row
        })
        .collect();
    Table {
        title: "Table 2: file recall".into(),
        headers,
        rows,
    }
}

/// An arm's mean archived line recall at `k` over `cases`, or a dash when it archives none there.
fn aligned_line_recall(arm: &Arm, k: usize, cases: &[usize]) -> Cell {
    let Some(values) = arm.archived_lines.get(&k) else {
        return Cell::missing();
    };
    let got: Vec<f64> = cases
        .iter()
        .filter_map(|&c| values[c])
        .map(|v| v.line_recall)
        .collect();
    if got.is_empty() {
        return Cell::missing();
    }
    Cell::number(got.iter().sum::<f64>() / got.len() as f64, 3)
}

/// Table 4: paired differences with bootstrap intervals and tests.
pub fn paired_table(rows: &[PairedComparison]) -> Table {
    let mut table = Table::new(
        "Table 4: paired differences",
        &[
            "left",
            "right",
            "k",
            "metric",
            "n",
            "mean",
            "ci_low",
            "ci_high",
            "wins",
            "losses",
            "ties",
            "sign_test_p",
            "sign_flip_p",
        ],
    );
    for r in rows {
        table.rows.push(vec![
            Cell::text(&r.left),
            Cell::text(&r.right),
            Cell::count(r.k),
            Cell::text(&r.metric),
            Cell::count(r.n),
            Cell::signed(r.mean, 3),
            Cell::signed(r.ci_low, 3),
            Cell::signed(r.ci_high, 3),
            Cell::count(r.wins),
            Cell::count(r.losses),
            Cell::count(r.ties),
            Cell::p_value(r.sign_test_p),
            if r.sign_flip_p.is_finite() {
                Cell::p_value(r.sign_flip_p)
            } else {
                Cell::missing()
            },
        ]);
    }
    table
}

/// Table 7: file recall at k per repository, one column per arm.
pub fn repo_table(study: &Study, arms: &[usize], k: usize) -> Table {
    let mut headers = vec!["repository".to_string(), "n".to_string()];
    headers.extend(arms.iter().map(|&a| format!("{}@{k}", study.arms[a].name)));
    let rows = study
        .repos()
        .into_iter()
        .map(|repo| {
            let cases = Subset::Repo(repo.clone()).indices(study);
            let mut row = vec![Cell::text(repo), Cell::count(cases.len())];
            row.extend(
                arms.iter()
                    .map(|&a| Cell::number(summarize(study, a, k, &cases).file_recall, 2)),
            );
            row
        })
        .collect();
    Table {
        title: format!("Table 7: file recall at {k} by repository"),
        headers,
        rows,
    }
}

/// The operational measurements the operating-point view shows, with their column names.
pub const OPERATIONS: &[(&str, &str)] = &[
    ("model_calls", "calls/issue"),
    ("input_tokens", "input tokens/issue"),
    ("output_tokens", "output tokens/issue"),
    ("latency_ms", "latency ms/issue"),
    ("cost_usd", "est. cost USD/issue"),
    ("build_ms", "index build ms"),
    ("query_ms", "query ms"),
    ("search_ms", "search ms"),
    ("enumerate_ms", "enumerate ms"),
];

/// The measurements that show a run was timed without a model: a lexical arm's own query or
/// search time.
const MODEL_FREE_TIMINGS: &[&str] = &["query_ms", "search_ms"];

/// An arm's mean model calls per issue: the recorded `model_calls`, or 0 for an arm whose run
/// recorded its own query or search times and no model calls (FTS5, rg: no model was asked),
/// or `None` when the arm records neither (a fusion, an arm loaded without measurements).
pub fn model_calls_per_issue(arm: &Arm) -> Option<f64> {
    if let Some((calls, _)) = arm.mean_measurement("model_calls") {
        return Some(calls);
    }
    MODEL_FREE_TIMINGS
        .iter()
        .any(|name| arm.mean_measurement(name).is_some())
        .then_some(0.0)
}

/// Operating points: each arm's recall at k beside its mean archived operation measurements
/// (model calls as [`model_calls_per_issue`] has them).
pub fn operations_table(study: &Study, k: usize) -> Table {
    let mut headers = vec!["arm", "recall"];
    headers.extend(OPERATIONS.iter().map(|(_, label)| *label));
    let mut table = Table::new(&format!("Operating points at {k}"), &headers);
    let all = Subset::All.indices(study);
    for (index, arm) in study.arms.iter().enumerate() {
        let mut row = vec![
            Cell::text(&arm.name),
            Cell::number(summarize(study, index, k, &all).file_recall, 3),
        ];
        for (name, _) in OPERATIONS {
            let mean = match *name {
                "model_calls" => model_calls_per_issue(arm).map(|calls| (calls, 0)),
                _ => arm.mean_measurement(name),
            };
            row.push(match mean {
                Some((mean, _)) if *name == "cost_usd" => Cell::number(mean, 6),
                Some((mean, _)) => Cell::number(mean, 1),
                None => Cell::missing(),
            });
        }
        table.rows.push(row);
    }
    table
}

/// Archived delivered-line recall per arm at each k, on all cases and on the aligned subset.
pub fn archived_lines_table(study: &Study, ks: &[usize]) -> Table {
    let mut headers = vec!["arm".to_string()];
    for k in ks {
        headers.extend([
            format!("L@{k} all (archived)"),
            format!("complete@{k} all"),
            format!("L@{k} aligned (archived)"),
            format!("complete@{k} aligned"),
            format!("tokens@{k}"),
        ]);
    }
    let aligned = Subset::Aligned.indices(study);
    let all = Subset::All.indices(study);
    let mut rows = Vec::new();
    for arm in &study.arms {
        if arm.archived_lines.is_empty() {
            continue;
        }
        let mut row = vec![Cell::text(&arm.name)];
        for k in ks {
            let Some(values) = arm.archived_lines.get(k) else {
                row.extend((0..5).map(|_| Cell::missing()));
                continue;
            };
            let over = |cases: &[usize]| {
                let got: Vec<_> = cases.iter().filter_map(|&c| values[c]).collect();
                let mean = got.iter().map(|v| v.line_recall).sum::<f64>() / got.len().max(1) as f64;
                let complete = got.iter().filter(|v| v.complete_lines).count();
                (mean, complete, got.len())
            };
            let (mean_all, complete_all, n_all) = over(&all);
            let (mean_aligned, complete_aligned, n_aligned) = over(&aligned);
            let tokens: Vec<f64> = values
                .iter()
                .flatten()
                .filter_map(|v| v.context_tokens)
                .collect();
            row.extend([
                Cell::number(mean_all, 3),
                Cell {
                    text: format!("{complete_all}/{n_all}"),
                    value: Some(complete_all as f64),
                    interval: None,
                },
                Cell::number(mean_aligned, 3),
                Cell {
                    text: format!("{complete_aligned}/{n_aligned}"),
                    value: Some(complete_aligned as f64),
                    interval: None,
                },
                if tokens.is_empty() {
                    Cell::missing()
                } else {
                    Cell::number(tokens.iter().sum::<f64>() / tokens.len() as f64, 0)
                },
            ]);
        }
        rows.push(row);
    }
    Table {
        title: "Delivered lines (archived values)".into(),
        headers,
        rows,
    }
}

/// File recall at k of each arm in each prespecified subgroup.
pub fn subgroup_table(study: &Study, arms: &[usize], k: usize) -> Table {
    let mut headers = vec!["subgroup".to_string(), "n".to_string()];
    headers.extend(arms.iter().map(|&a| format!("{}@{k}", study.arms[a].name)));
    let rows = Subset::prespecified()
        .into_iter()
        .map(|subset| {
            let cases = subset.indices(study);
            let mut row = vec![Cell::text(subset.label()), Cell::count(cases.len())];
            row.extend(arms.iter().map(|&a| {
                if cases.is_empty() {
                    Cell::missing()
                } else {
                    Cell::number(summarize(study, a, k, &cases).file_recall, 3)
                }
            }));
            row
        })
        .collect();
    Table {
        title: format!("Prespecified subgroups at {k}"),
        headers,
        rows,
    }
}

/// Shows a measurement: whole numbers without decimals, small fractions with four, others with one.
fn measurement_cell(value: f64) -> Cell {
    if value.fract() == 0.0 {
        Cell::number(value, 0)
    } else if value.abs() < 1.0 {
        Cell::number(value, 4)
    } else {
        Cell::number(value, 1)
    }
}

/// One case's archived measurements per arm: every operation measurement any arm recorded for it,
/// then the archived line values at each k the study has them for. Arms with nothing archived for
/// the case (fusions, most lexical arms' line values) show dashes.
pub fn case_measurements_table(study: &Study, case: usize) -> Table {
    let names: BTreeSet<&str> = study
        .arms
        .iter()
        .flat_map(|arm| arm.measurements[case].keys().map(String::as_str))
        .sorted_set();
    let ks: BTreeSet<usize> = study
        .arms
        .iter()
        .flat_map(|arm| arm.archived_lines.keys().copied())
        .sorted_set();
    let mut headers = vec!["arm".to_string()];
    headers.extend(names.iter().map(|name| name.to_string()));
    for k in &ks {
        headers.extend([
            format!("L@{k} (archived)"),
            format!("complete@{k}"),
            format!("tokens@{k}"),
        ]);
    }
    let mut table = Table {
        title: format!("Case {} archived measurements", study.cases[case].id),
        headers,
        rows: Vec::new(),
    };
    for arm in &study.arms {
        let mut row = vec![Cell::text(&arm.name)];
        row.extend(names.iter().map(|name| {
            arm.measurements[case]
                .get(*name)
                .map_or_else(Cell::missing, |v| measurement_cell(*v))
        }));
        for k in &ks {
            match arm.archived_lines.get(k).and_then(|rows| rows[case]) {
                Some(lines) => row.extend([
                    Cell::number(lines.line_recall, 3),
                    Cell::text(if lines.complete_lines { "yes" } else { "no" }),
                    lines
                        .context_tokens
                        .map_or_else(Cell::missing, |t| Cell::number(t, 0)),
                ]),
                None => row.extend((0..3).map(|_| Cell::missing())),
            }
        }
        table.rows.push(row);
    }
    table
}

/// One case: each gold file's rank in each arm's list (– when absent), then each arm's recall.
pub fn case_gold_table(study: &Study, case: usize, k: usize) -> Table {
    let mut headers = vec!["gold file".to_string()];
    headers.extend(study.arms.iter().map(|arm| arm.name.clone()));
    let mut table = Table {
        title: format!("Case {} gold ranks", study.cases[case].id),
        headers,
        rows: Vec::new(),
    };
    for gold in &study.cases[case].gold_files {
        let mut row = vec![Cell::text(gold)];
        row.extend(study.arms.iter().map(|arm| {
            match arm.rankings[case].iter().position(|path| path == gold) {
                Some(rank) if rank < k => Cell::count(rank + 1),
                Some(rank) => Cell {
                    text: format!("({})", rank + 1),
                    value: Some((rank + 1) as f64),
                    interval: None,
                },
                None => Cell::missing(),
            }
        }));
        table.rows.push(row);
    }
    let mut recall = vec![Cell::text(format!("recall@{k}"))];
    recall.extend(study.arms.iter().map(|arm| {
        Cell::number(
            score_ranking(&study.cases[case].gold_files, &arm.rankings[case], k).recall,
            3,
        )
    }));
    table.rows.push(recall);
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::runfile::load_jsonl;

    #[test]
    fn case_measurements_list_every_recorded_name() {
        let study = load_jsonl(
            "s.jsonl",
            r#"{"id": "r::1", "gold": ["a"]}
{"id": "r::1", "arm": "x", "paths": ["a"], "measurements": {"model_calls": 3, "cost_usd": 0.00125}}
{"id": "r::1", "arm": "y", "paths": ["b"]}"#,
        )
        .unwrap();
        let table = case_measurements_table(&study, 0);
        assert_eq!(table.headers, ["arm", "cost_usd", "model_calls"]);
        let texts: Vec<Vec<&str>> = table
            .rows
            .iter()
            .map(|row| row.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(texts, [["x", "0.0013", "3"], ["y", "–", "–"]]);
        assert_eq!(table.rows[0][1].value, Some(0.00125));
    }
}
