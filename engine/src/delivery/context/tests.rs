//! The context stage's unit tests: packing in rank order with missing files, re-packing from the
//! token cache, refusals, the recomputed table, gold range splitting and the input parsers.

use super::report::split_ranges;
use super::*;
use crate::corpus::tokens::TokenCache;
use crate::delivery::linescore::LineScore;

/// One token per line of the block, header included.
struct PerLine;

impl TokenCounter for PerLine {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        Ok(text.matches('\n').count())
    }
}

fn file(lines: usize, hits: &[usize]) -> String {
    (1..=lines)
        .map(|n| {
            if hits.contains(&n) {
                format!("let router = {n};\n")
            } else {
                format!("let x = {n};\n")
            }
        })
        .collect()
}

#[test]
fn ranked_files_are_packed_in_order_and_missing_ones_reported() {
    let a = file(1000, &[500]);
    let b = file(50, &[]);
    let ranking: Vec<String> = ["a.rs", "gone.rs", "b.rs", "c.rs"]
        .map(String::from)
        .to_vec();
    let settings = ContextSettings {
        k: 3,
        budget_tokens: 420,
        radius_lines: 200,
        ..ContextSettings::default()
    };
    let text_of = |path: &str| match path {
        "a.rs" => Some(a.as_str()),
        "b.rs" => Some(b.as_str()),
        _ => None,
    };
    let gold = [
        GoldSpan {
            path: "a.rs".into(),
            start_line: 490,
            end_line: 510,
        },
        GoldSpan {
            path: "b.rs".into(),
            start_line: 40,
            end_line: 60,
        },
    ];
    let report = build_context(
        "the router is slow",
        &ranking,
        &settings,
        text_of,
        Some(&gold),
        &mut PerLine,
    )
    .unwrap();
    assert_eq!(report.files, ["a.rs", "b.rs"]);
    assert_eq!(
        report.missing,
        [MissingFile {
            path: "gone.rs".into(),
            rank: 2
        }]
    );
    // a.rs: lines 300-700 (401 lines + the header's 2 newlines = 403 tokens) fit 420; b.rs
    // whole (52) does not fit the 17 left.
    let blocks = &report.pack.blocks;
    assert_eq!((blocks[0].start_line, blocks[0].end_line), (300, 700));
    assert!(blocks[0].included && !blocks[1].included);
    assert_eq!(report.pack.tokens_used, 403);
    let score = report.score.as_ref().unwrap();
    // b.rs's span is clipped to 50: 21 + 11 gold lines, 21 delivered.
    assert_eq!((score.delivered_gold_lines, score.gold_lines), (21, 32));
    assert_eq!(report.clipped().len(), 1);
    assert_eq!(report.gold_in("a.rs", 300, 495), [(490, 495)]);
    assert_eq!(report.gold_lines_in(&blocks[1]), 11);
    let delivery = report.gold_delivery();
    assert_eq!(delivery[0].delivered, [(490, 510)]);
    assert_eq!(delivery[1].missed, [(40, 50)]);
}

#[test]
fn a_bigger_budget_repacks_without_counting_again() {
    let a = file(3000, &[100, 2900]);
    let ranking = vec!["a.rs".to_string()];
    let mut cache = TokenCache::new(PerLine);
    let mut run = |budget_tokens| {
        let settings = ContextSettings {
            budget_tokens,
            ..ContextSettings::default()
        };
        build_context(
            "router",
            &ranking,
            &settings,
            |_| Some(&a),
            None,
            &mut cache,
        )
        .unwrap()
    };
    let small = run(310);
    let large = run(16_000);
    assert_eq!(small.pack.included().count(), 1);
    assert_eq!(large.pack.included().count(), 2);
    assert_eq!((cache.misses(), cache.hits()), (2, 2));
}

#[test]
fn gold_outside_the_files_and_bad_settings_are_refused() {
    let a = file(10, &[]);
    let ranking = vec!["a.rs".to_string()];
    let gold = [GoldSpan {
        path: "elsewhere.rs".into(),
        start_line: 1,
        end_line: 2,
    }];
    let settings = ContextSettings::default();
    let error = build_context(
        "x",
        &ranking,
        &settings,
        |_| None,
        Some(&gold),
        &mut PerLine,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("elsewhere.rs:1-2"), "{error}");
    let zero = ContextSettings { k: 0, ..settings };
    let error = build_context("x", &ranking, &zero, |_| Some(&a), None, &mut PerLine)
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("k = 0"), "{error}");
}

#[test]
fn the_recomputed_table_averages_and_shows_archived_beside() {
    use crate::study::{ArchivedLines, Arm, ArmOrigin, Case, Study};
    let score = |recall: f64, tokens| LineScore {
        gold_lines: 10,
        delivered_gold_lines: (recall * 10.0) as u64,
        line_recall: recall,
        complete: recall == 1.0,
        tokens_used: tokens,
        gold_files: 1,
        delivered_gold_files: 1,
        delivered_file_recall: Some(1.0),
        files: Vec::new(),
        clipped: Vec::new(),
    };
    let rows = [RecomputedLines {
        arm: "fts5".into(),
        k: 8,
        scores: vec![(0, score(1.0, 100)), (2, score(0.5, 300))],
    }];
    let table = recomputed_lines_table("t", &rows, None);
    let texts: Vec<&str> = table.rows[0].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        ["fts5", "8", "all", "0.750", "1/2", "200", "2", "–", "–"]
    );
    assert_eq!(table.rows.len(), 1, "no gold audit, no aligned row");
    let mut cases: Vec<Case> = (0..3)
        .map(|i| Case::from_spans(format!("c{i}"), "r".into(), Vec::new()))
        .collect();
    // The audit: cases 0 and 1 aligned, case 2 not.
    for (case, aligned) in cases.iter_mut().zip([true, true, false]) {
        case.flags.gold_text_aligned = Some(aligned);
    }
    let mut arm = Arm::new("fts5", "fts5", ArmOrigin::Archived, vec![Vec::new(); 3]);
    let value = |line_recall| {
        Some(ArchivedLines {
            line_recall,
            complete_lines: line_recall == 1.0,
            context_tokens: None,
            context_file_recall: None,
        })
    };
    // Case 1 is not recomputed, so its archived value stays out of the average.
    arm.archived_lines
        .insert(8, vec![value(0.2), value(0.0), value(1.0)]);
    let study = Study {
        title: "s".into(),
        cases,
        arms: vec![arm],
        policy: None,
        issue_source: None,
    };
    let table = recomputed_lines_table("t", &rows, Some(&study));
    assert_eq!(table.rows[0][7].text, "0.600");
    assert_eq!(table.rows[0][8].text, "1/2");
    // The aligned row: case 0 alone (case 2 is recomputed but not aligned).
    let aligned: Vec<&str> = table.rows[1].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        aligned,
        [
            "fts5 (aligned)",
            "8",
            "aligned",
            "1.000",
            "1/1",
            "100",
            "1",
            "0.200",
            "0/1"
        ]
    );
}

#[test]
fn split_ranges_cover_every_gold_line_once() {
    let (hit, missed) = split_ranges(&[(1, 10), (20, 30)], &[(3, 4), (8, 22), (29, 40)]);
    assert_eq!(hit, [(3, 4), (8, 10), (20, 22), (29, 30)]);
    assert_eq!(missed, [(1, 2), (5, 7), (23, 28)]);
    let (hit, missed) = split_ranges(&[(5, 6)], &[]);
    assert!(hit.is_empty());
    assert_eq!(missed, [(5, 6)]);
}

#[test]
fn rankings_and_gold_files_parse_and_errors_name_the_place() {
    let ranking = parse_ranking("r.txt", "a.rs\n\n  b.rs \r\n").unwrap();
    assert_eq!(ranking, ["a.rs", "b.rs"]);
    let error = parse_ranking("r.txt", "a.rs\nb.rs\na.rs\n")
        .unwrap_err()
        .to_string();
    assert_eq!(error, "r.txt:3: \"a.rs\" is already ranked on line 1");
    let gold = parse_gold(
        "g.json",
        r#"[{"path": "a.rs", "start_line": 2, "end_line": 4}]"#,
    )
    .unwrap();
    assert_eq!(gold[0].end_line, 4);
    let error = parse_gold(
        "g.json",
        r#"[{"path": "a.rs", "start_line": 2, "end_line": 4}, {"path": "b.rs", "start_line": 1}]"#,
    )
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("g.json: field [1]"), "{error}");
    assert!(error.contains("end_line"), "{error}");
    let error = parse_gold(
        "g.json",
        r#"[{"path": "a.rs", "start_line": 5, "end_line": 4}]"#,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "g.json: field [0].end_line: 4 is before start_line 5"
    );
    let error = parse_gold("g.json", "[\n{").unwrap_err().to_string();
    assert!(error.starts_with("g.json:2:"), "{error}");
}
