//! Reproduces the paper's published numbers from its archive (`../shared/data/fastindex`):
//! Table 2's file columns, the micro averages, Table 4's bootstrap intervals (which the archive
//! stores to full precision), Table 9's post-study controls and the sign-flip p = 16/2048.
//! Skips, saying so, only when the archive folder is absent.

mod common;

use routelens_engine::{
    archive::sha256_hex, compare, load_archive, summarize, BootstrapConfig, Error, PairedMetric,
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
