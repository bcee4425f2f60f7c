use super::printed::PrintedFile;
use super::*;
use crate::load::runfile::load_jsonl;

fn study() -> Study {
    load_jsonl(
        "s.jsonl",
        r#"{"id": "r::1", "gold": ["a.rs", "b.rs"]}
{"id": "r::2", "gold": ["c.rs"]}
{"id": "r::1", "arm": "x", "paths": ["a.rs", "z.rs"]}
{"id": "r::2", "arm": "x", "paths": ["c.rs"]}"#,
    )
    .unwrap()
}

fn printed(numbers: &str) -> PrintedFile {
    let text = format!(
        r#"{{"format": "routelens-printed/1", "paper": "P", "source": "s", "numbers": [{numbers}]}}"#
    );
    PrintedFile::from_json("p.json", &text).unwrap()
}

#[test]
fn a_printed_number_is_reproduced_at_its_precision_or_differs_by_how_much() {
    let file = printed(
        r#"{"where": "T2 x File@1", "printed": "0.75", "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "T2 x File@1 wrong", "printed": "0.70", "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "T2 x Full@1", "printed": "1/2", "compute": {"stat": "full_count", "arm": "x", "k": 1}},
           {"where": "T2 x Full@1 other whole", "printed": "1/3", "compute": {"stat": "full_count", "arm": "x", "k": 1}},
           {"where": "T6", "printed": "940", "why": "not archived"},
           {"where": "File@1 in percent", "printed": "75.0", "scale": 100, "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "bad arm", "printed": "0.1", "compute": {"stat": "file_recall", "arm": "y", "k": 1}}"#,
    );
    let report = check(&file, Source::Study(&study()));
    let outcomes: Vec<&Outcome> = report.verdicts.iter().map(|v| &v.outcome).collect();
    assert_eq!(
        outcomes,
        [
            &Outcome::Reproduced,
            &Outcome::Differs,
            &Outcome::Reproduced,
            &Outcome::Differs,
            &Outcome::NotComputable,
            &Outcome::Reproduced,
            &Outcome::Failed
        ]
    );
    assert!((report.verdicts[1].difference.unwrap() - 0.05).abs() < 1e-12);
    assert_eq!(report.verdicts[2].recomputed.as_deref(), Some("1/2"));
    assert!(report.verdicts[6].note.as_ref().unwrap().contains("\"y\""));
    assert!(!report.all_reproduced());
    assert_eq!(
        report.summary("s"),
        "s: 3 of 7 printed numbers reproduced; 2 differ (2 without a known reason); 1 could not be recomputed; 1 cannot \
         be computed from the data"
    );
    assert_eq!(report.table().rows[0][3].text, "✓");
}

fn quantity(json: &str) -> quantity::Quantity {
    serde_json::from_str(json).unwrap()
}

/// Three cases in two repositories, gold as spans (one annotated twice), two arms with model
/// calls.
fn spans_study() -> Study {
    load_jsonl(
        "s.jsonl",
        r#"{"id": "r::1", "gold": [{"path": "a.rs", "start_line": 1, "end_line": 2}, {"path": "a.rs", "start_line": 1, "end_line": 2}, {"path": "b.rs", "start_line": 5, "end_line": 9}]}
{"id": "r::2", "gold": [{"path": "c.rs", "start_line": 3, "end_line": 3}]}
{"id": "q::3", "gold": [{"path": "d.rs", "start_line": 1, "end_line": 1}, {"path": "e.rs", "start_line": 1, "end_line": 1}, {"path": "f.rs", "start_line": 1, "end_line": 1}]}
{"id": "r::1", "arm": "x", "paths": ["a.rs", "b.rs"], "measurements": {"model_calls": 2}}
{"id": "r::2", "arm": "x", "paths": ["c.rs"], "measurements": {"model_calls": 4}}
{"id": "q::3", "arm": "x", "paths": ["d.rs"], "measurements": {"model_calls": 6}}
{"id": "r::1", "arm": "y", "paths": ["b.rs"], "measurements": {"model_calls": 1}}
{"id": "r::2", "arm": "y", "paths": [], "measurements": {"model_calls": 1}}
{"id": "q::3", "arm": "y", "paths": ["d.rs", "e.rs"], "measurements": {"model_calls": 2}}"#,
    )
    .unwrap()
}

#[test]
fn a_study_counts_its_repositories_spans_and_cases_beyond_the_ceiling() {
    let study = spans_study();
    let value = |json: &str| recompute(&study, &quantity(json)).unwrap();
    assert_eq!(value(r#"{"stat": "repositories"}"#).value, 2.0);
    assert_eq!(
        value(r#"{"stat": "cases"}"#),
        Recomputed {
            value: 3.0,
            whole: Some(3)
        }
    );
    // Gold sets of 2, 1 and 3 files: one is over 2, none over 3.
    let over = value(r#"{"stat": "over_ceiling", "k": 2}"#);
    assert_eq!((over.value, over.whole), (1.0, Some(3)));
    assert_eq!(value(r#"{"stat": "over_ceiling", "k": 3}"#).value, 0.0);
    // Every span as listed: the span annotated twice counts twice.
    assert_eq!(value(r#"{"stat": "gold_spans"}"#).value, 7.0);
    let stray = r#"{"stat": "repositories", "k": 8}"#;
    assert!(serde_json::from_str::<quantity::Quantity>(stray).is_err());
    let paths_only = self::study();
    assert!(recompute(&paths_only, &quantity(r#"{"stat": "gold_spans"}"#)).is_err());
}

#[test]
fn an_arms_own_finds_count_occurrences_or_cases_out_of_their_whole() {
    let study = spans_study();
    let value = |json: &str| recompute(&study, &quantity(json)).unwrap();
    // At 2, x finds a.rs, b.rs, c.rs, d.rs; y finds b.rs, d.rs, e.rs.
    let own = |arm: &str, count: &str| {
        value(&format!(
            r#"{{"stat": "own_finds", "arm": "{arm}", "absent_from": ["{}"], "k": 2, "count": "{count}"}}"#,
            if arm == "x" { "y" } else { "x" }
        ))
    };
    assert_eq!(
        own("x", "occurrences"),
        Recomputed {
            value: 2.0,
            whole: Some(6)
        }
    );
    assert_eq!(
        own("x", "cases"),
        Recomputed {
            value: 2.0,
            whole: Some(3)
        }
    );
    assert_eq!(own("y", "occurrences").value, 1.0);
    let unknown =
        r#"{"stat": "own_finds", "arm": "x", "absent_from": ["z"], "k": 2, "count": "cases"}"#;
    assert!(recompute(&study, &quantity(unknown)).is_err());
}

#[test]
fn a_measurement_ratio_divides_one_arms_summary_by_anothers() {
    let study = spans_study();
    let ratio = |of: &str| {
        let json = format!(
            r#"{{"stat": "measurement_ratio", "left": "x", "right": "y", "name": "model_calls", "of": "{of}"}}"#
        );
        recompute(&study, &quantity(&json)).unwrap().value
    };
    assert_eq!(ratio("mean"), 3.0);
    assert_eq!(ratio("sum"), 3.0);
    assert_eq!(ratio("median"), 4.0);
    let missing =
        r#"{"stat": "measurement_ratio", "left": "x", "right": "y", "name": "cost", "of": "mean"}"#;
    assert!(recompute(&study, &quantity(missing)).is_err());
}

fn score_table() -> ScoreTable {
    let mapping = crate::scoring::score_table::Mapping::from_json(
        "m.json",
        r#"{"id": "id", "cluster": "repo"}"#,
    )
    .unwrap();
    crate::scoring::score_table::load_score_table(
        "t.csv",
        "id,repo,planner_ms,count,bm25,grep\n\
         1,a,1000,1,0,0.5\n2,a,2000,3,0.5,0\n3,b,4000,5,0,0\n4,c,8000,40,0,1\n",
        &mapping,
    )
    .unwrap()
}

#[test]
fn a_score_table_counts_its_cases_and_repositories_and_summarizes_a_column() {
    let table = score_table();
    let value = |json: &str| recompute_scores(&table, &quantity(json)).unwrap().value;
    assert_eq!(value(r#"{"stat": "cases"}"#), 4.0);
    assert_eq!(value(r#"{"stat": "repositories"}"#), 3.0);
    // np.percentile: the median of 1, 3, 5, 40 is 4; the p95 is 5 + 0.85 · 35 = 34.75.
    let column = |column: &str, of: &str| {
        value(&format!(
            r#"{{"stat": "column_summary", "column": "{column}", "of": "{of}"}}"#
        ))
    };
    assert_eq!(column("count", "median"), 4.0);
    assert!((column("count", "p95") - 34.75).abs() < 1e-12);
    let excluded =
        r#"{"stat": "column_summary", "column": "count", "of": "median", "exclude": ["4"]}"#;
    assert_eq!(value(excluded), 3.0);
    let counted = value(
        r#"{"stat": "cases_where", "all": [{"column": "grep", "is": "non_zero"}, {"column": "bm25", "is": "zero"}]}"#,
    );
    assert_eq!(counted, 2.0);
    for refused in [
        r#"{"stat": "cases", "subset": "aligned"}"#,
        r#"{"stat": "over_ceiling", "k": 8}"#,
        r#"{"stat": "column_summary", "column": "nope", "of": "median"}"#,
    ] {
        assert!(
            recompute_scores(&table, &quantity(refused)).is_err(),
            "{refused}"
        );
    }
    let on_a_study = r#"{"stat": "cases_where", "all": []}"#;
    assert!(recompute(&study(), &quantity(on_a_study)).is_err());
}

#[test]
fn a_median_in_milliseconds_is_checked_in_seconds_by_its_scale() {
    let file = printed(
        r#"{"where": "planning p50 (s)", "printed": "3.000", "scale": 0.001, "compute": {"stat": "column_summary", "column": "planner_ms", "of": "median"}},
           {"where": "pools with nothing", "printed": "3", "compute": {"stat": "cases_where", "all": [{"column": "bm25", "is": "zero"}]}},
           {"where": "five or fewer", "printed": "3", "compute": {"stat": "cases_where", "all": [{"column": "count", "is": "at_most", "value": 5}]}}"#,
    );
    let report = check(&file, Source::Scores(&score_table()));
    assert_eq!(report.counts(), [3, 0, 0, 0]);
    assert_eq!(report.verdicts[1].recomputed.as_deref(), Some("3/4"));
}
