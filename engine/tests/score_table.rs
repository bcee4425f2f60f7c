//! CodeNib's per-issue results (`jev_candidates_cases.csv`) as a score-table study: every column
//! mean the article's tables print, exactly (base-aligned and published Recall@5, BM25 and grep
//! coverage), and its paired repository-bootstrap intervals (5,000 resamples) close to the
//! article's, which drew with another generator. Then a small hand-made table: intervals,
//! wins/losses/ties, the sign test and the sentence by hand, and bad input named by line and
//! column.

mod common;

use routelens_engine::scoring::score_table::{load_score_table, Mapping, CASE_ARM};
use routelens_engine::scoring::stats::{sign_test, BootstrapConfig};

const JEV: &str = "typesafe/jev-1.13";

fn codenib() -> Option<routelens_engine::scoring::score_table::ScoreTable> {
    let (file, text) = common::read_codenib_cases()?;
    Some(load_score_table(&file, &text, &Mapping::codenib()).unwrap())
}

/// A mean as the article prints it: a percentage with two decimals.
fn percent(value: f64) -> String {
    format!("{:.2}", value * 100.0)
}

#[test]
fn every_recall_and_coverage_figure_of_the_article_is_a_column_mean() {
    let Some(table) = codenib() else { return };
    assert_eq!(table.cases.len(), 100);
    // 57 score columns; 8 arms (two pools' own order and three rerankers) per published metric
    // (5 metrics), 6 for base-aligned Recall@5 and 2 (the pools) for base-aligned coverage.
    assert_eq!(table.columns.len(), 57);
    let all = table
        .score_all(BootstrapConfig {
            resamples: 100,
            seed: 0,
        })
        .unwrap();
    assert_eq!(all.summaries.len(), 57);
    assert_eq!(all.pairs.len(), 5 * 28 + 15 + 1);
    assert_eq!(table.cluster_count(), 25);
    assert_eq!(table.frames(), ["published", "base_aligned"]);
    let mean = |frame: &str, arm: &str, metric: &str| {
        let column = table.column(frame, arm, metric).unwrap();
        percent(column.values.iter().sum::<f64>() / column.values.len() as f64)
    };
    // The label-audit table: published and base-aligned Recall@5, BM25 and grep routes.
    for (reranker, bm25_published, bm25_aligned, grep_published, grep_aligned) in [
        (
            "Qwen/Qwen3-Reranker-0.6B",
            "48.82",
            "48.40",
            "64.93",
            "62.48",
        ),
        ("Qwen/Qwen3-Reranker-4B", "59.00", "58.30", "69.73", "68.07"),
        (JEV, "59.72", "59.35", "73.57", "71.40"),
    ] {
        let metric = "span_recall@5";
        assert_eq!(
            mean("published", &format!("bm25/{reranker}"), metric),
            bm25_published,
            "{reranker}"
        );
        assert_eq!(
            mean("base_aligned", &format!("bm25/{reranker}"), metric),
            bm25_aligned,
            "{reranker}"
        );
        assert_eq!(
            mean("published", &format!("grep/{reranker}"), metric),
            grep_published,
            "{reranker}"
        );
        assert_eq!(
            mean("base_aligned", &format!("grep/{reranker}"), metric),
            grep_aligned,
            "{reranker}"
        );
    }
    // The coverage audit (published frame) and the pools' base-aligned coverage.
    for (k, published) in [
        (50, "55.87"),
        (100, "64.40"),
        (200, "72.20"),
        (500, "84.77"),
        (1000, "93.50"),
    ] {
        assert_eq!(
            mean("published", CASE_ARM, &format!("bm25_span_coverage@{k}")),
            published
        );
    }
    assert_eq!(
        mean("base_aligned", "bm25", "candidate_span_coverage"),
        "63.78"
    );
    assert_eq!(
        mean("base_aligned", "grep", "candidate_span_coverage"),
        "75.83"
    );
    assert_eq!(
        mean("published", CASE_ARM, "union100_span_coverage"),
        "84.90"
    );
    let count = table
        .column("published", CASE_ARM, "grep_candidate_count")
        .unwrap();
    assert_eq!(count.values.iter().sum::<f64>() / 100.0, 17.47);
}

#[test]
fn paired_intervals_are_close_to_the_articles() {
    let Some(table) = codenib() else { return };
    assert_eq!(Mapping::codenib().pairs.len(), 7);
    for (left, right) in &Mapping::codenib().pairs {
        table.column("base_aligned", left, "span_recall@5").unwrap();
        table
            .column("base_aligned", right, "span_recall@5")
            .unwrap();
    }
    let draws = table
        .draws(BootstrapConfig {
            resamples: 5_000,
            seed: 0,
        })
        .unwrap();
    // (left, right, frame, the article's difference and interval in percentage points).
    let cases = [
        (
            format!("grep/{JEV}"),
            format!("bm25/{JEV}"),
            "base_aligned",
            12.05,
            5.16,
            19.40,
        ),
        (
            format!("grep/{JEV}"),
            "grep/Qwen/Qwen3-Reranker-4B".to_string(),
            "base_aligned",
            3.33,
            -0.18,
            7.59,
        ),
        (
            format!("bm25/{JEV}"),
            "bm25/Qwen/Qwen3-Reranker-4B".to_string(),
            "base_aligned",
            1.05,
            -3.44,
            5.52,
        ),
        (
            format!("grep/{JEV}"),
            "grep/Qwen/Qwen3-Reranker-0.6B".to_string(),
            "base_aligned",
            8.92,
            3.50,
            15.19,
        ),
        (
            format!("grep/{JEV}"),
            "grep/Qwen/Qwen3-Reranker-4B".to_string(),
            "published",
            3.83,
            0.49,
            7.83,
        ),
    ];
    for (left, right, frame, mean, low, high) in cases {
        let pair = table
            .compare(frame, &left, &right, "span_recall@5", &draws)
            .unwrap();
        let pp = |v: f64| v * 100.0;
        assert_eq!(
            format!("{:.2}", pp(pair.mean)),
            format!("{mean:.2}"),
            "{left} - {right}"
        );
        // Another generator draws other clusters: the bounds agree within half a point.
        assert!(
            (pp(pair.ci_low) - low).abs() < 0.5,
            "{left} - {right}: low {}",
            pp(pair.ci_low)
        );
        assert!(
            (pp(pair.ci_high) - high).abs() < 0.5,
            "{left} - {right}: high {}",
            pp(pair.ci_high)
        );
        assert_eq!(pair.wins + pair.losses + pair.ties, 100);
        assert_eq!(pair.sign_test_p, sign_test(pair.wins, pair.losses));
        // Whether the interval crosses zero is the article's conclusion, and the sentence's.
        let crosses = low < 0.0;
        assert_eq!(
            pair.sentence.contains("includes zero"),
            crosses,
            "{}",
            pair.sentence
        );
    }
}

const SMALL: &str = "\
id,repo,lang,a/recall@5,b/recall@5,coverage
r1::1,r1,rust,1,0.5,0.25
r1::2,r1,rust,0.5,0.5,0.75
r2::1,r2,go,0,1,1
r2::2,r2,go,1,0,0.5
";

#[test]
fn a_small_table_by_hand() {
    let mapping = Mapping {
        labels: vec!["lang".into()],
        ..Mapping::from_json(
            "m.json",
            r#"{"id": "id", "cluster": "repo", "cases_are": "questions"}"#,
        )
        .unwrap()
    };
    let table = load_score_table("small.csv", SMALL, &mapping).unwrap();
    assert_eq!(table.cases[2].labels["lang"], "go");
    assert_eq!(table.frames(), ["published"]);
    assert_eq!(table.metrics("published"), ["recall@5", "coverage"]);
    let draws = table.draws(BootstrapConfig::default()).unwrap();
    let a = table
        .summary(table.column("published", "a", "recall@5").unwrap(), &draws)
        .unwrap();
    assert_eq!((a.mean, a.n), (0.625, 4));
    // Cluster r1 averages 0.75, r2 0.5: every resample's mean lies between them, and both
    // extremes are drawn among 10,000 resamples of two clusters.
    assert_eq!((a.ci_low, a.ci_high), (0.5, 0.75));
    let pair = table
        .compare("published", "a", "b", "recall@5", &draws)
        .unwrap();
    assert_eq!((pair.wins, pair.losses, pair.ties), (2, 1, 1));
    assert_eq!(pair.mean, 0.125);
    assert_eq!(pair.sign_test_p, 1.0);
    assert_eq!(
        pair.sentence,
        "a scores recall@5 0.625 against 0.500 for b (difference +0.125, 95% interval +0.000 to \
         +0.250; better on 2 questions, worse on 1, same on 1). The interval includes zero, so \
         this is within noise at this sample size."
    );
    // The whole study: every column, and each pair of arms once per metric (coverage is the
    // case's own, not an arm's).
    let all = table.score_all(BootstrapConfig::default()).unwrap();
    assert_eq!(all.summaries.len(), 3);
    assert_eq!(all.pairs.len(), 1);
    assert_eq!(all.pairs[0], pair);
    let coverage = table.column("published", CASE_ARM, "coverage").unwrap();
    assert_eq!(coverage.values, [0.25, 0.75, 1.0, 0.5]);
    let shown = table.metric_table("published", "recall@5", &draws).unwrap();
    assert_eq!(shown.rows.len(), 2);
    assert_eq!(shown.rows[0][1].value, Some(0.625));

    let error = |text: &str| {
        load_score_table("t.csv", text, &mapping)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error("id,repo,lang,a/m\nx,r,l,0.5\ny,r,l,high\n"),
        "t.csv:3: column a/m: \"high\" is not a number (a text column goes in the mapping's labels)"
    );
    assert_eq!(
        error("id,repo,lang,a/m\nx,r,l,1\nx,r,l,0\n"),
        "t.csv:3: case \"x\" appears twice"
    );
    assert!(error("case,repo,lang,a/m\nx,r,l,1\n").starts_with("t.csv: field id: no such column"));
    assert!(error("id,repo,lang,/m\nx,r,l,1\n").contains("an empty arm or metric"));
    let unknown = table
        .column("published", "c", "recall@5")
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("a, b"), "{unknown}");
    let frame = table
        .column("base_aligned", "a", "recall@5")
        .unwrap_err()
        .to_string();
    assert!(
        frame.starts_with("frame = base_aligned is out of range"),
        "{frame}"
    );
}
