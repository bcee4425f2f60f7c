//! Properties of the ranking metrics over random rankings and gold: every metric lies in [0, 1];
//! hit@k is 1 exactly when file recall@k is above 0 (file relevance); an ideal ranking has nDCG 1;
//! deduplication is idempotent and keeps no two overlapping units of a file; and on the paper's
//! archive, file_recall@8 and @16 are Table 2's File@8 and File@16.

mod common;

use proptest::prelude::*;
use routelens_engine::load_archive;
use routelens_engine::scoring::stats::BootstrapConfig;
use routelens_engine::scoring::unit_metrics::{
    kept_spans, overlaps, score_units, summarize_metrics, Clustering, Metric, Relevance,
};
use routelens_engine::GoldSpan;

fn unit() -> impl Strategy<Value = GoldSpan> {
    (0u8..6, 1u32..80, 0u32..30).prop_map(|(file, start, len)| GoldSpan {
        path: format!("f{file}.rs"),
        start_line: start,
        end_line: start + len,
    })
}

const METRICS: [Metric; 10] = [
    Metric::FileRecall(3),
    Metric::Full(5),
    Metric::Hit(1),
    Metric::Hit(4),
    Metric::Precision(5),
    Metric::Mrr,
    Metric::Ndcg(10),
    Metric::SpanRecall(5),
    Metric::SpanMrr,
    Metric::FileRecall(1000),
];

proptest! {
    #[test]
    fn metrics_lie_in_the_unit_interval(
        units in prop::collection::vec(unit(), 0..20),
        gold in prop::collection::vec(unit(), 0..6),
    ) {
        let mut files: Vec<String> = gold.iter().map(|g| g.path.clone()).collect();
        files.sort();
        files.dedup();
        for metric in METRICS {
            for relevance in [Relevance::File, Relevance::Span] {
                let value = score_units(metric, &units, &files, &gold, relevance);
                prop_assert!((0.0..=1.0).contains(&value), "{} = {value}", metric.name());
            }
        }
        for k in [1, 3, 8] {
            let hit = score_units(Metric::Hit(k), &units, &files, &gold, Relevance::File);
            let recall = score_units(Metric::FileRecall(k), &units, &files, &gold, Relevance::File);
            prop_assert_eq!(hit == 1.0, recall > 0.0);
        }
        let kept: Vec<GoldSpan> = kept_spans(&units, usize::MAX, &|_| false).into_iter().cloned().collect();
        prop_assert!(kept_spans(&kept, usize::MAX, &|_| false).into_iter().eq(&kept));
        for (at, a) in kept.iter().enumerate() {
            prop_assert!(kept[at + 1..].iter().all(|b| !overlaps(a, b)));
        }
        // The span metrics, which read the kept units lazily, against their definitions over
        // the whole deduplicated list: by hand, every unit dropped when an earlier kept unit
        // of its file overlaps it.
        let mut whole: Vec<&GoldSpan> = Vec::new();
        for unit in &units {
            if whole.iter().all(|k| !overlaps(k, unit)) {
                whole.push(unit);
            }
        }
        let relevant = |u: &GoldSpan| gold.iter().any(|g| overlaps(u, g));
        let mrr = whole.iter().position(|u| relevant(u)).map_or(0.0, |at| 1.0 / (at + 1) as f64);
        prop_assert_eq!(score_units(Metric::SpanMrr, &units, &files, &gold, Relevance::Span), mrr);
        for k in [1, 2, 5, 30] {
            let shown = &whole[..k.min(whole.len())];
            let found = gold.iter().filter(|g| shown.iter().any(|u| overlaps(u, g))).count();
            let recall = if gold.is_empty() { 0.0 } else { found as f64 / gold.len() as f64 };
            let value = score_units(Metric::SpanRecall(k), &units, &files, &gold, Relevance::Span);
            prop_assert_eq!(value, recall);
        }
    }

    #[test]
    fn an_ideal_ranking_has_ndcg_one(gold in prop::collection::btree_set(0u8..20, 1..8), k in 1usize..12) {
        let files: Vec<String> = gold.iter().map(|f| format!("f{f}.rs")).collect();
        let ideal: Vec<GoldSpan> = files
            .iter()
            .chain(["other.rs".to_string()].iter())
            .map(|path| GoldSpan { path: path.clone(), start_line: 0, end_line: 0 })
            .collect();
        let value = score_units(Metric::Ndcg(k), &ideal, &files, &[], Relevance::File);
        prop_assert!((value - 1.0).abs() < 1e-12, "{value}");
    }
}

#[test]
fn file_recall_is_table_2() {
    let Some(files) = common::read_archive() else {
        return;
    };
    let study = load_archive(&files).unwrap();
    let metrics = [Metric::FileRecall(8), Metric::FileRecall(16)];
    let rows = summarize_metrics(
        &study,
        &metrics,
        Clustering::Repo,
        Relevance::File,
        BootstrapConfig {
            resamples: 100,
            seed: 0,
        },
    )
    .unwrap();
    let mean = |arm: &str, metric: &str| {
        let row = rows
            .iter()
            .find(|r| r.arm == arm && r.metric == metric)
            .unwrap();
        format!("{:.3}", row.mean)
    };
    // Table 2 of the fastindex seed: name-only tree 0.465 / 0.591, FTS5 0.352 / 0.421.
    assert_eq!(mean("tree", "file_recall@8"), "0.465");
    assert_eq!(mean("fts5", "file_recall@8"), "0.352");
    assert_eq!(mean("tree", "file_recall@16"), "0.591");
    assert_eq!(mean("fts5", "file_recall@16"), "0.421");
}

/// A study of span units, in both loaders: TREC docids `path#L10-L42` and JSON Lines `units`,
/// with span gold; CodeNib's span metrics and span relevance by hand.
#[test]
fn span_studies_load_from_trec_and_json_lines() {
    use routelens_engine::{load_jsonl, load_trec};
    let qrels = "r::1 0 a.rs#L10-L20 1\nr::1 0 b.rs#L1-L5 1\n";
    let run = "r::1 Q0 c.rs#L1-L9 1 3.0 s\nr::1 Q0 a.rs#L15-L30 2 2.0 s\n\
               r::1 Q0 a.rs#L18-L40 3 1.5 s\nr::1 Q0 b.rs#L4-L9 4 1.0 s\n";
    let trec = load_trec("run", run, "qrels", qrels).unwrap();
    let jsonl = load_jsonl(
        "s.jsonl",
        r#"{"id": "r::1", "gold": [{"path": "a.rs", "start_line": 10, "end_line": 20}, {"path": "b.rs", "start_line": 1, "end_line": 5}]}
{"id": "r::1", "arm": "s", "units": [{"path": "c.rs", "start_line": 1, "end_line": 9}, {"path": "a.rs", "start_line": 15, "end_line": 30}, {"path": "a.rs", "start_line": 18, "end_line": 40}, {"path": "b.rs", "start_line": 4, "end_line": 9}]}
"#,
    )
    .unwrap();
    for study in [&trec, &jsonl] {
        let arm = study.arm("s").unwrap();
        assert_eq!(arm.units[0].len(), 4);
        assert_eq!(
            arm.rankings[0],
            ["c.rs", "a.rs", "b.rs"],
            "files at their first unit"
        );
        assert_eq!(study.cases[0].gold_spans.len(), 2);
        let metrics = [
            Metric::SpanRecall(2),
            Metric::SpanRecall(3),
            Metric::SpanMrr,
            Metric::Hit(1),
            Metric::FileRecall(2),
        ];
        let rows = summarize_metrics(
            study,
            &metrics,
            Clustering::Case,
            Relevance::Span,
            BootstrapConfig {
                resamples: 10,
                seed: 0,
            },
        )
        .unwrap();
        let values: Vec<f64> = rows.iter().map(|r| r.mean).collect();
        // Kept units: c.rs, a.rs 15-30, b.rs 4-9 (a.rs 18-40 overlaps the kept a.rs unit).
        assert_eq!(values, [0.5, 1.0, 0.5, 0.0, 0.5]);
    }
    // A path among spans, a bad range and the same unit twice are named.
    let mixed = load_trec(
        "run",
        "r::1 Q0 a.rs#L1-L2 1 2 s\nr::1 Q0 b.rs 2 1 s\n",
        "qrels",
        qrels,
    );
    assert_eq!(
        mixed.unwrap_err().to_string(),
        "run:2: \"b.rs\" is a path in a ranking of spans (path#L<start>-L<end>)"
    );
    let bad = load_trec("run", "r::1 Q0 a.rs#L9-L2 1 2 s\n", "qrels", qrels).unwrap_err();
    assert!(
        bad.to_string().starts_with("run:1: \"a.rs#L9-L2\" is not"),
        "{bad}"
    );
    let twice = load_jsonl(
        "s.jsonl",
        r#"{"id": "x", "gold": ["a.rs"]}
{"id": "x", "arm": "s", "units": [{"path": "a.rs", "start_line": 1, "end_line": 2}, {"path": "a.rs", "start_line": 1, "end_line": 2}]}
"#,
    )
    .unwrap_err();
    assert_eq!(
        twice.to_string(),
        "s.jsonl:2: field units: duplicate unit a.rs:1-2 in a ranking"
    );
    // A span metric of a file arm is refused, naming the arm.
    let files = load_jsonl("f.jsonl", "{\"id\": \"x\", \"gold\": [\"a.rs\"]}\n{\"id\": \"x\", \"arm\": \"f\", \"paths\": [\"a.rs\"]}\n").unwrap();
    let error = summarize_metrics(
        &files,
        &[Metric::SpanMrr],
        Clustering::Case,
        Relevance::Span,
        BootstrapConfig::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("arm f (it ranks files, not spans)"),
        "{error}"
    );
}
