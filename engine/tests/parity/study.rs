//! Native and wasm32 must compute identical results for the same inputs and seed. This test runs
//! natively under `cargo test` and in headless Chromium under `wasm-bindgen-test`; both compare
//! the same fingerprint, the SHA-256 of every number the engine produced, printed in Rust's
//! shortest round-trip form, against one committed value.

use routelens_engine::{
    add_fusion, checksum::sha256_hex, compare, load_jsonl, scoring::report::rescore_everything,
    BootstrapConfig, PairedMetric, RrfConfig, Study, Subset,
};

/// The fingerprint of the synthetic study below, computed natively on x86_64.
const EXPECTED: &str = "f9b9342712d1f07e964e3d06f30948636135e6ee858791ac18f298699b694b6f";

/// A deterministic synthetic study in the JSON Lines form: 48 cases in 7 repositories, gold sets of
/// 1–5 files, and three arms of 16 paths drawn from a 40-path pool with an xorshift generator.
fn synthetic_jsonl() -> String {
    let mut state: u32 = 0x9E37_79B9;
    let mut next = move |n: u32| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % n
    };
    let mut lines = Vec::new();
    for case in 0..48 {
        let repo = format!("repo{}", case % 7);
        let id = format!("{repo}::{case}");
        let mut gold: Vec<String> = (0..1 + next(5))
            .map(|_| format!("src/f{}.rs", next(40)))
            .collect();
        gold.sort();
        gold.dedup();
        lines.push(serde_json::json!({"id": id, "gold": gold}).to_string());
        for arm in ["tree", "fts5", "rg"] {
            let mut paths: Vec<String> = Vec::new();
            while paths.len() < 16 {
                let path = format!("src/f{}.rs", next(40));
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
            lines.push(serde_json::json!({"id": id, "arm": arm, "paths": paths}).to_string());
        }
    }
    lines.join("\n")
}

fn fingerprint() -> (String, String) {
    let mut study = load_jsonl("synthetic.jsonl", &synthetic_jsonl()).unwrap();
    add_fusion(
        &mut study,
        &["tree".into(), "fts5".into()],
        RrfConfig::default(),
    )
    .unwrap();
    let mut numbers = sweep_numbers(&study);
    let all = Subset::All.indices(&study);
    for seed in [0, 1, 12345] {
        let config = BootstrapConfig {
            resamples: 10_000,
            seed,
        };
        for (left, right) in [("tree", "fts5"), ("tree+fts5", "rg")] {
            let p = compare(
                &study,
                left,
                right,
                8,
                PairedMetric::FileRecall,
                &all,
                config,
            )
            .unwrap();
            numbers.extend(
                [p.mean, p.ci_low, p.ci_high, p.sign_test_p, p.sign_flip_p]
                    .map(|v| format!("{v:?}")),
            );
        }
    }
    let text = numbers.join(",");
    (sha256_hex(text.as_bytes()), text)
}

/// Every number of the benchmark sweep: every arm at k = 1..16 and the four prespecified pairs.
fn sweep_numbers(study: &Study) -> Vec<String> {
    let (summaries, pairs) = rescore_everything(study, BootstrapConfig::default()).unwrap();
    summaries
        .iter()
        .flat_map(|s| {
            [
                s.file_recall,
                s.micro_recall,
                s.precision,
                s.full as f64,
                s.ceiling as f64,
            ]
        })
        .chain(pairs.iter().flat_map(|p| [p.mean, p.ci_low, p.ci_high]))
        .map(|v| format!("{v:?}"))
        .collect()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn results_are_identical_natively_and_in_wasm() {
    let (hash, text) = fingerprint();
    assert_eq!(
        hash,
        EXPECTED,
        "fingerprint of: {}",
        &text[..text.len().min(400)]
    );
}
