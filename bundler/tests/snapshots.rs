//! `routelens snapshots`: the plan lists one `routelens bundle` command per case of each
//! repository with a clone in the folder, at the ledger's base commit, into `<out>/<case id>`;
//! other repositories' cases are left out, and building names the case that fails. (Building the
//! real snapshots needs the repositories' clones: checked by hand, docs/snapshots.md.)

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn routelens(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .output()
        .expect("the CLI runs")
}

/// The ledger's cases of `repo` as (id, base commit).
fn ledger_cases(archive: &Path, repo: &str) -> BTreeSet<(String, String)> {
    let ledger: serde_json::Value = serde_json::from_slice(
        &std::fs::read(archive.join("paper/data/contextbench-case-ledger.json")).unwrap(),
    )
    .unwrap();
    ledger["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["repo"] == repo)
        .map(|case| {
            let field = |name: &str| case[name].as_str().unwrap().to_string();
            (field("id"), field("base_commit"))
        })
        .collect()
}

#[test]
fn the_plan_has_one_bundle_command_per_case_with_a_clone() {
    let Some(archive) = common::archive_dir() else {
        return;
    };
    let temp = tempfile::tempdir().unwrap();
    let repos = temp.path().join("repos");
    // Both namings of a clone's folder.
    std::fs::create_dir_all(repos.join("sympy+sympy")).unwrap();
    std::fs::create_dir_all(repos.join("cli/cli")).unwrap();
    let out = temp.path().join("site");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "snapshots",
            archive.to_str().unwrap(),
            "--repos",
            repos.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--plan",
        ];
        args.extend_from_slice(extra);
        let output = routelens(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let plan = run(&[]);
    let mut planned = BTreeSet::new();
    for line in plan.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[..2], ["routelens", "bundle"], "{line}");
        let value = |flag: &str| {
            let at = words.iter().position(|w| *w == flag).unwrap();
            words[at + 1].to_string()
        };
        let case_out = value("--out");
        let case = Path::new(&case_out)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(Path::new(&case_out), out.join(&case));
        planned.insert((value("--source-name"), case, value("--commit")));
    }
    let mut expected = BTreeSet::new();
    for repo in ["sympy/sympy", "cli/cli"] {
        for (id, commit) in ledger_cases(&archive, repo) {
            expected.insert((repo.to_string(), id, commit));
        }
    }
    assert_eq!(expected.len(), 16, "8 cases of each in the ledger");
    assert_eq!(planned, expected);
    // One repository only.
    assert_eq!(run(&["--repo", "cli/cli"]).lines().count(), 8);
}

#[test]
fn building_stops_at_a_case_it_cannot_build_naming_it() {
    let Some(archive) = common::archive_dir() else {
        return;
    };
    let temp = tempfile::tempdir().unwrap();
    // Not a git clone: the case's commit cannot be read.
    std::fs::create_dir_all(temp.path().join("repos/clap-rs+clap")).unwrap();
    let output = routelens(&[
        "snapshots",
        archive.to_str().unwrap(),
        "--repos",
        temp.path().join("repos").to_str().unwrap(),
        "--out",
        temp.path().join("site").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stdout.contains("skipped   sympy/sympy: no clone under"),
        "{stdout}"
    );
    // The last line names the case it was building; the error, the clone.
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("[1/6] ") && last.ends_with("building"),
        "{stdout}"
    );
    assert!(
        ledger_cases(&archive, "clap-rs/clap")
            .iter()
            .any(|(id, _)| last.contains(id.as_str())),
        "{last}"
    );
    assert!(stderr.contains("clap-rs+clap"), "{stderr}");
    assert!(!temp.path().join("site").exists(), "nothing written");
}
