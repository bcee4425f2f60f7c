//! Reproduces the paper's published numbers from its archive (`../shared/data/fastindex`):
//! Table 2's file columns, the micro averages, Table 4's bootstrap intervals (which the archive
//! stores to full precision), Table 9's post-study controls and the sign-flip p = 16/2048.
//! Skips, saying so, only when the archive folder is absent.

mod common;

use routelens_engine::{
    checksum::sha256_hex, compare, load_archive, summarize, BootstrapConfig, Error, PairedMetric,
    Study, Subset,
};
use serde_json::Value;

fn study() -> Option<Study> {
    Some(load_archive(&common::read_archive()?).expect("the archive loads"))
}

fn file_row(study: &Study, arm: &str, k: usize) -> (String, usize) {
    let all = Subset::All.indices(study);
    let s = summarize(study, study.arm_index(arm).unwrap(), k, &all);
    (format!("{:.3}", s.file_recall), s.full)
}

#[test]
fn table_2_file_columns() {
    let Some(study) = study() else { return };
    assert_eq!(study.cases.len(), 82);
    let expected = [
        ("rg", 8, "0.245", 12),
        ("fts5", 8, "0.352", 17),
        ("tree", 8, "0.465", 25),
        ("tree+fts5", 8, "0.491", 23),
        ("rg", 16, "0.328", 16),
        ("fts5", 16, "0.421", 19),
        ("tree", 16, "0.591", 32),
        ("tree+fts5", 16, "0.571", 30),
    ];
    for (arm, k, recall, full) in expected {
        assert_eq!(
            file_row(&study, arm, k),
            (recall.to_string(), full),
            "{arm}@{k}"
        );
    }
    let all = Subset::All.indices(&study);
    let tree = summarize(&study, study.arm_index("tree").unwrap(), 8, &all);
    assert_eq!((tree.found, tree.gold, tree.ceiling), (108, 391, 16));
    let fused16 = summarize(&study, study.arm_index("tree+fts5").unwrap(), 16, &all);
    assert_eq!((fused16.found, fused16.ceiling), (151, 2));
}

#[test]
fn table_9_post_study_controls() {
    let Some(study) = study() else { return };
    for (arm, at8, at16) in [
        ("rg-feedback", "0.260", "0.316"),
        ("path-fts5", "0.191", "0.237"),
        ("basename", "0.173", "0.219"),
        ("flat-jev", "0.572", "0.630"),
    ] {
        assert_eq!(file_row(&study, arm, 8).0, at8, "{arm}@8");
        assert_eq!(file_row(&study, arm, 16).0, at16, "{arm}@16");
    }
}

#[test]
fn sign_flip_tree_vs_fts5_at_8() {
    let Some(study) = study() else { return };
    let all = Subset::All.indices(&study);
    let paired = compare(
        &study,
        "tree",
        "fts5",
        8,
        PairedMetric::FileRecall,
        &all,
        BootstrapConfig::default(),
    )
    .unwrap();
    assert_eq!(paired.sign_flip_p, 0.0078125);
    assert_eq!((paired.wins, paired.losses, paired.ties), (33, 15, 34));
}

/// Every paired interval the archive stores, recomputed with the same seed and resamples.
#[test]
fn table_4_intervals_match_the_archive_exactly() {
    let Some(study) = study() else { return };
    let files = common::read_archive().unwrap();
    let mut checked = 0;
    for file in [
        "paper/data/contextbench-paper-study.json",
        "paper/data/contextbench-paper-poststudy.json",
    ] {
        let archived: Value = serde_json::from_slice(&files[file]).unwrap();
        for (key, expected) in archived["paired"].as_object().unwrap() {
            // Keys look like `tree+fts5-fts5@8/line_recall_16k/aligned`.
            let (pair, rest) = key.split_once('@').unwrap();
            let mut parts = rest.split('/');
            let k: usize = parts.next().unwrap().parse().unwrap();
            let metric = match parts.next().unwrap() {
                "file_recall" => PairedMetric::FileRecall,
                _ => PairedMetric::ArchivedLineRecall,
            };
            let subset = if parts.next() == Some("aligned") {
                Subset::Aligned
            } else {
                Subset::All
            };
            let names = study.arm_names();
            let (left, right) = names
                .iter()
                .filter_map(|left| {
                    Some((left, pair.strip_prefix(left.as_str())?.strip_prefix('-')?))
                })
                .find(|(_, right)| names.iter().any(|n| n == right))
                .unwrap_or_else(|| panic!("arms of {key}"));
            let got = compare(
                &study,
                left,
                right,
                k,
                metric,
                &subset.indices(&study),
                BootstrapConfig::default(),
            )
            .unwrap();
            let close = |a: f64, b: &Value| (a - b.as_f64().unwrap()).abs() < 1e-12;
            assert_eq!(got.n as u64, expected["n_cases"].as_u64().unwrap(), "{key}");
            assert!(
                close(got.mean, &expected["mean_delta"]),
                "{key} mean {}",
                got.mean
            );
            assert!(
                close(got.ci_low, &expected["lower_95"]),
                "{key} low {} vs {}",
                got.ci_low,
                expected["lower_95"]
            );
            assert!(
                close(got.ci_high, &expected["upper_95"]),
                "{key} high {} vs {}",
                got.ci_high,
                expected["upper_95"]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 24 + 36);
}

#[test]
fn refuses_a_file_that_does_not_match_its_checksum() {
    let Some(mut files) = common::read_archive() else {
        return;
    };
    let path = "paper/data/contextbench-paper-tree.json";
    let bytes = files.get_mut(path).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    let actual = sha256_hex(bytes);
    match load_archive(&files).unwrap_err() {
        Error::Checksum {
            file,
            actual: found,
            ..
        } => assert_eq!((file.as_str(), found), (path, actual)),
        other => panic!("expected a checksum error, got {other}"),
    }
}

#[test]
fn subgroups_are_the_papers() {
    let Some(study) = study() else { return };
    assert_eq!(Subset::Aligned.indices(&study).len(), 55);
    assert_eq!(Subset::MentionsGoldPath(true).indices(&study).len(), 9);
    assert_eq!(Subset::MultipleDirectories(true).indices(&study).len(), 47);
    assert_eq!(study.repos().len(), 11);
}

#[test]
fn the_flat_tournament_follows_the_archived_config_and_its_call_counts() {
    use routelens_engine::remote::route::{
        run, FlatTournament, ManualClock, OfflineDecider, RouteSettings,
    };
    use routelens_engine::DirTree;
    let Some(study) = study() else { return };
    let arm = &study.arms[study.arm_index("flat-jev").unwrap()];
    let settings = RouteSettings::default();
    let config = |key: &str| {
        arm.config
            .get(key)
            .unwrap_or_else(|| panic!("config.{key}"))
    };
    assert_eq!(
        config("instructions"),
        &Value::from(settings.flat_instructions.clone())
    );
    assert_eq!(
        config("menu_limit"),
        &Value::from(settings.flat_menu_options)
    );
    assert_eq!(config("top_k"), &Value::from(settings.flat_advance));
    assert_eq!(config("ordering"), "SHA-256 of issue ID plus NUL plus path");
    assert_eq!(
        config("timeout_retries"),
        "up to 3 on TimeoutError/URLError; delays 1, 2, 4 seconds"
    );
    assert_eq!(settings.flat_transport_retries, 3);
    // Every case's archived call count is what the rounds predict from its file count: the
    // tournament over that many (short) paths, every menu a call.
    for (case, row) in study.cases.iter().zip(&arm.measurements) {
        let files = row["file_count"] as usize;
        let paths: Vec<String> = (0..files).map(|i| format!("f{i}")).collect();
        let mut walk = FlatTournament::new(
            &DirTree::from_paths(&paths),
            &case.id,
            "issue",
            settings.clone(),
        );
        let ran = run(
            &mut walk,
            &mut OfflineDecider::default(),
            &mut ManualClock::default(),
        );
        assert_eq!(ran.calls as f64, row["model_calls"], "{}", case.id);
    }
}

#[test]
fn table_7_per_repository_recall_at_8() {
    let Some(study) = study() else { return };
    // The paper's Table 7, rounded to two places: n, tree, FTS5, fusion.
    let expected = [
        ("huggingface/transformers", 8, "0.78", "0.59", "0.78"),
        ("sympy/sympy", 8, "0.69", "0.65", "0.73"),
        ("ansible/ansible", 8, "0.60", "0.45", "0.57"),
        ("mui/material-ui", 8, "0.61", "0.34", "0.55"),
        ("microsoft/vscode", 8, "0.13", "0.13", "0.13"),
        ("serverless/serverless", 8, "0.16", "0.23", "0.28"),
        ("NodeBB/NodeBB", 8, "0.18", "0.07", "0.14"),
        ("cli/cli", 8, "0.66", "0.47", "0.63"),
        ("flipt-io/flipt", 5, "0.29", "0.23", "0.42"),
        ("ponylang/ponyc", 7, "0.42", "0.31", "0.55"),
        ("clap-rs/clap", 6, "0.54", "0.38", "0.66"),
    ];
    // Read off the engine's Table 7 as the app and the CLI show it.
    let arms = ["tree", "fts5", "tree+fts5"].map(|arm| study.arm_index(arm).unwrap());
    let table = routelens_engine::scoring::tables::repo_table(&study, &arms, 8);
    assert_eq!(table.rows.len(), expected.len());
    for (repo, n, tree, fts5, fusion) in expected {
        let row = table
            .rows
            .iter()
            .find(|row| row[0].text == repo)
            .unwrap_or_else(|| panic!("{repo} is not in Table 7"));
        let texts: Vec<&str> = row.iter().map(|cell| cell.text.as_str()).collect();
        assert_eq!(texts, [repo, &n.to_string(), tree, fts5, fusion], "{repo}");
    }
}

#[test]
fn operating_points_are_the_papers() {
    use routelens_engine::scoring::tables::model_calls_per_issue;
    let Some(study) = study() else { return };
    let arm = |name: &str| &study.arms[study.arm_index(name).unwrap()];
    let mean = |name: &str, field: &str| arm(name).mean_measurement(field).unwrap().0;
    // Section 4.3: the tree's 729 calls over 82 issues.
    let tree = arm("tree");
    let calls: f64 = tree.measurements.iter().map(|m| m["model_calls"]).sum();
    assert_eq!(calls, 729.0);
    assert_eq!(
        format!("{:.2}", model_calls_per_issue(tree).unwrap()),
        "8.89"
    );
    // (arm, measurement, divisor, decimals, the paper's value): section 4.3 for the tree (12.2K
    // input and 1.93K output tokens, 8.93 s, $0.000512 per issue), section 4.4 for flat Jev
    // (156K input tokens, 30.6 s, $0.00657), and section 4.3's FTS5 index builds (894 ms) and
    // first-500 queries (7.5 ms).
    let published = [
        ("tree", "input_tokens", 1000.0, 1, "12.2"),
        ("tree", "output_tokens", 1000.0, 2, "1.93"),
        ("tree", "latency_ms", 1000.0, 2, "8.93"),
        ("tree", "cost_usd", 1.0, 6, "0.000512"),
        ("flat-jev", "input_tokens", 1000.0, 0, "156"),
        ("flat-jev", "latency_ms", 1000.0, 1, "30.6"),
        ("flat-jev", "cost_usd", 1.0, 5, "0.00657"),
        ("fts5", "build_ms", 1.0, 0, "894"),
        ("fts5", "query_ms", 1.0, 1, "7.5"),
    ];
    for (name, field, divisor, decimals, value) in published {
        let shown = format!("{:.decimals$}", mean(name, field) / divisor);
        assert_eq!(shown, value, "{name} {field}");
    }
    assert_eq!(
        format!("{:.1}", model_calls_per_issue(arm("flat-jev")).unwrap()),
        "24.6"
    );
    // FTS5 at zero calls because its run timed itself without a model, not because of its name;
    // a fusion records neither.
    assert_eq!(model_calls_per_issue(arm("fts5")), Some(0.0));
    assert_eq!(model_calls_per_issue(arm("rg")), Some(0.0));
    assert_eq!(model_calls_per_issue(arm("tree+fts5")), None);
    let mut renamed = arm("fts5").clone();
    renamed.name = "something".into();
    assert_eq!(model_calls_per_issue(&renamed), Some(0.0));
    for row in &mut renamed.measurements {
        row.clear();
    }
    renamed.name = "fts5".into();
    assert_eq!(model_calls_per_issue(&renamed), None);
}
