//! `routelens pack` against the engine called directly: the command's JSON must report the same
//! blocks, token counts and line recall as the engine's selector, renderer and cl100k_base counter
//! computed here from the bundle's verified files, and the line recall must equal a count of gold
//! lines inside the included blocks done by hand.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use routelens_engine::delivery::context::{
    build_context, parse_gold, parse_ranking, ContextSettings,
};
use routelens_engine::delivery::pack::render_block;
use routelens_engine::delivery::select::{select_file, QueryTerms, SelectConfig};
use routelens_engine::{Cl100k, TokenCounter};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn pack_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "pack",
        "repo.bundle",
        "--issue-file",
        "pack/issue.txt",
        "--ranking-file",
        "pack/ranking.txt",
        "--gold-file",
        "pack/gold.json",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(&args)
        .current_dir(FIXTURES)
        .output()
        .expect("routelens runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

/// Every file of the fixture bundle, read and verified by the engine.
fn bundle_texts() -> BTreeMap<String, String> {
    let dir = Path::new(FIXTURES).join("repo.bundle");
    let manifest = common::read_manifest(&dir);
    let chunks: Vec<Vec<u8>> = manifest
        .chunks
        .iter()
        .map(|chunk| std::fs::read(dir.join(&chunk.file)).unwrap())
        .collect();
    manifest.read_all(&chunks).unwrap().into_iter().collect()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

#[test]
fn the_command_reports_what_the_engine_computes() {
    let texts = bundle_texts();
    let issue = read("pack/issue.txt");
    let ranking = parse_ranking("ranking.txt", &read("pack/ranking.txt")).unwrap();
    let gold = parse_gold("gold.json", &read("pack/gold.json")).unwrap();
    let mut counter = Cl100k::embedded().unwrap();
    for (budget, radius, anchors) in [(16_000, 200, 4), (60, 1, 2), (45, 2, 1)] {
        let json = pack_json(&[
            "--budget",
            &budget.to_string(),
            "--radius",
            &radius.to_string(),
            "--anchors",
            &anchors.to_string(),
        ]);
        let settings = ContextSettings {
            k: 8,
            anchors_per_file: anchors,
            radius_lines: radius,
            budget_tokens: budget,
        };
        let report = build_context(
            &issue,
            &ranking,
            &settings,
            |path| texts.get(path).map(String::as_str),
            Some(&gold),
            &mut counter,
        )
        .unwrap();
        let score = report.score.as_ref().unwrap();
        assert_eq!(json["line_recall"].as_f64().unwrap(), score.line_recall);
        assert_eq!(json["complete"], score.complete);
        assert_eq!(json["tokens_used"], report.pack.tokens_used);
        assert_eq!(json["missing_files"][0]["path"], "src/gone.rs");

        // Independently: each block's window and tokens from the selector, renderer and counter.
        let terms = QueryTerms::from_issue(&issue);
        let config = SelectConfig {
            anchors_per_file: anchors,
            radius_lines: radius,
        };
        let blocks = json["blocks"].as_array().unwrap();
        let mut expected = Vec::new();
        for path in ranking.iter().filter(|p| texts.contains_key(*p)) {
            let selection = select_file(&terms, path, &texts[path], &config);
            for window in &selection.windows {
                let tokens = counter
                    .count_tokens(&render_block(&selection, window))
                    .unwrap();
                expected.push((path.clone(), window.start_line, window.end_line, tokens));
            }
        }
        let actual: Vec<(String, u32, u32, usize)> = blocks
            .iter()
            .map(|b| {
                (
                    b["path"].as_str().unwrap().to_string(),
                    b["start_line"].as_u64().unwrap() as u32,
                    b["end_line"].as_u64().unwrap() as u32,
                    b["tokens"].as_u64().unwrap() as usize,
                )
            })
            .collect();
        assert_eq!(actual, expected, "budget {budget}");

        // Budget: included blocks add up to tokens_used, within the budget; a skipped block says
        // how many tokens were left and did not fit them.
        let mut used = 0;
        for block in blocks {
            let tokens = block["tokens"].as_u64().unwrap();
            if block["included"] == true {
                used += tokens;
                assert!(block["skip_reason"].is_null());
            } else {
                let left = block["skip_reason"]["remaining_tokens"].as_u64().unwrap();
                assert_eq!(left, budget as u64 - used);
                assert!(tokens > left);
            }
        }
        assert_eq!(json["tokens_used"].as_u64().unwrap(), used);
        assert!(used <= budget as u64);

        // Line recall by hand: gold lines (clipped to the file) inside included blocks.
        let mut gold_lines = BTreeSet::new();
        for span in &gold {
            let last = texts[&span.path].lines().count() as u32;
            for line in span.start_line..=span.end_line.min(last) {
                gold_lines.insert((span.path.clone(), line));
            }
        }
        let delivered = gold_lines
            .iter()
            .filter(|(path, line)| {
                blocks.iter().any(|b| {
                    b["included"] == true
                        && b["path"] == path.as_str()
                        && (b["start_line"].as_u64().unwrap()..=b["end_line"].as_u64().unwrap())
                            .contains(&u64::from(*line))
                })
            })
            .count();
        assert_eq!(
            json["line_recall"].as_f64().unwrap(),
            delivered as f64 / gold_lines.len() as f64,
            "budget {budget}"
        );
    }
}

#[test]
fn a_small_budget_skips_blocks_and_lowers_recall() {
    let full = pack_json(&[]);
    let small = pack_json(&["--budget", "60", "--radius", "1", "--anchors", "2"]);
    assert!(full["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["included"] == true));
    assert!(small["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["included"] == false));
    assert!(small["line_recall"].as_f64().unwrap() < full["line_recall"].as_f64().unwrap());
}
