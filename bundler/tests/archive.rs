//! `routelens score <archive> --format json` against the paper's archive: the published Table 2
//! file columns, the tree − FTS5 interval of Table 4 and the sign-flip p = 16/2048, read off the
//! command line's JSON. The archive is read from `$ROUTELENS_FASTINDEX` or from
//! `../shared/data/fastindex` beside the checkout; the test skips, saying so, only when it is absent.

mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn score_json(dir: &PathBuf) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .arg("score")
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .expect("routelens runs");
    assert!(
        output.status.success(),
        "routelens score failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

/// The row of `rows` whose string fields have these values and whose `k` is `k`.
fn find<'a>(rows: &'a Value, fields: &[(&str, &str)], k: u64) -> &'a Value {
    rows.as_array()
        .expect("a list")
        .iter()
        .find(|row| row["k"] == k && fields.iter().all(|(name, value)| row[*name] == *value))
        .unwrap_or_else(|| panic!("no row {fields:?} at k = {k}"))
}

#[test]
fn reproduces_the_papers_numbers() {
    let Some(dir) = common::archive_dir() else {
        return;
    };
    let report = score_json(&dir);
    assert_eq!(report["cases"], 82);

    // Table 2, file columns: (arm, File@8, File@16, Full@8, Full@16).
    for (arm, at8, at16, full8, full16) in [
        ("tree", "0.465", "0.591", 25, 32),
        ("fts5", "0.352", "0.421", 17, 19),
        ("rg", "0.245", "0.328", 12, 16),
        ("tree+fts5", "0.491", "0.571", 23, 30),
    ] {
        for (k, recall, full) in [(8, at8, full8), (16, at16, full16)] {
            let row = find(&report["arms"], &[("arm", arm)], k);
            let got = row["file_recall"].as_f64().unwrap();
            assert_eq!(format!("{got:.3}"), recall, "{arm} File@{k}");
            assert_eq!(row["full"], full, "{arm} Full@{k}");
            assert!(row["micro_recall"].is_number() && row["ceiling"].is_number());
        }
    }

    let flip = find(
        &report["sign_flip"],
        &[("left", "tree"), ("right", "fts5")],
        8,
    );
    assert_eq!(flip["p"].as_f64(), Some(0.0078125));

    let paired = find(&report["paired"], &[("left", "tree"), ("right", "fts5")], 8);
    let rounded = |field: &str| format!("{:+.3}", paired[field].as_f64().unwrap());
    assert_eq!(
        (rounded("mean"), rounded("ci_low"), rounded("ci_high")),
        ("+0.113".into(), "+0.053".into(), "+0.168".into())
    );
    assert_eq!(
        (&paired["wins"], &paired["losses"], &paired["ties"]),
        (&Value::from(33), &Value::from(15), &Value::from(34))
    );
    assert!(paired["sign_test_p"].is_number());

    let by_repo = report["by_repo"].as_array().unwrap();
    let tree8: u64 = by_repo
        .iter()
        .filter(|row| row["arm"] == "tree" && row["k"] == 8)
        .map(|row| row["n"].as_u64().unwrap())
        .sum();
    assert_eq!(tree8, 82, "the repositories' cases add up to the study");
}
