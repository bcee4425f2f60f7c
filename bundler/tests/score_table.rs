//! `routelens score jev_candidates_cases.csv --format json`: CodeNib's per-issue results scored
//! from the command line: the base-aligned Recall@5 of every arm with its interval, the article's
//! seven comparisons with their sentences (5,000 resamples, as the article drew), a pair and a
//! frame asked for, and the keys the report promises. The file is read from `$ROUTELENS_CODENIB`
//! or `../shared/data/codenib` beside the checkout; the test skips, saying so, only when it is
//! absent (and fails instead under ROUTELENS_REQUIRE_FIXTURES=1).

mod common;

use std::process::Command;

use serde_json::Value;

fn score(args: &[&str]) -> Value {
    let csv = common::codenib_cases().expect("checked by the caller");
    let output = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .arg("score")
        .arg(&csv)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("routelens runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn the_codenib_table_scores_as_the_article_reports() {
    if common::codenib_cases().is_none() {
        return;
    }
    let report = score(&[]);
    assert_eq!(report["kind"], "score-table");
    assert_eq!(
        (report["cases"].as_u64(), report["clusters"].as_u64()),
        (Some(100), Some(25))
    );
    assert_eq!(report["frame"], "base_aligned");
    let metrics = report["metrics"].as_array().unwrap();
    assert_eq!(metrics.len(), 6);
    let jev_grep = metrics
        .iter()
        .find(|m| m["arm"] == "grep/typesafe/jev-1.13")
        .unwrap();
    assert_eq!(jev_grep["metric"], "span_recall@5");
    assert_eq!(
        format!("{:.2}", jev_grep["mean"].as_f64().unwrap() * 100.0),
        "71.40"
    );
    for key in ["arm", "metric", "frame", "mean", "ci_low", "ci_high", "n"] {
        assert!(jev_grep.get(key).is_some(), "metrics[].{key}");
    }
    let paired = report["paired"].as_array().unwrap();
    assert_eq!(paired.len(), 7);
    for key in [
        "left",
        "right",
        "metric",
        "frame",
        "mean",
        "ci_low",
        "ci_high",
        "wins",
        "losses",
        "ties",
        "sign_test_p",
        "sentence",
    ] {
        assert!(paired[0].get(key).is_some(), "paired[].{key}");
    }
    // In the article's units: percentages and points. Its own arithmetic (numpy's pairwise sum)
    // gives 0.12050000000000002, +12.05 points, and its interval is the article's [+5.16, +19.40].
    assert!(paired[0]["sentence"]
        .as_str()
        .unwrap()
        .starts_with("grep/typesafe/jev-1.13 scores span_recall@5 71.40% against 59.35% for bm25/typesafe/jev-1.13 (difference +12.05 pp, 95% interval +5.16 pp to +19.40 pp"));
    assert_eq!(
        (report["resamples"].as_u64(), report["seed"].as_u64()),
        (Some(5000), Some(20_260_923)),
        "the article's own bootstrap settings by default"
    );

    // The published frame, one pair asked for: the article's withdrawn claim, then resolved.
    let report = score(&[
        "--frame",
        "published",
        "--pair",
        "grep/typesafe/jev-1.13:grep/Qwen/Qwen3-Reranker-4B",
        "--resamples",
        "5000",
    ]);
    let pair = &report["paired"][0];
    assert_eq!(pair["frame"], "published");
    assert!(pair["ci_low"].as_f64().unwrap() > 0.0, "{pair}");
    assert!(pair["sentence"]
        .as_str()
        .unwrap()
        .contains("lies above zero"));
}
