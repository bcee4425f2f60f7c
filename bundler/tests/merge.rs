//! `routelens merge`: two snapshots of one repository joined into one folder whose store holds
//! each content-addressed file once; every arm searches a merged bundle exactly as the bundle it
//! came from; inputs are verified before anything is written.

mod common;

use std::path::Path;

use common::{git, ok, routelens};

/// Every file under `dir`, as (path relative to it, size).
fn files_under(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, path.metadata().unwrap().len()));
            }
        }
    }
    out.sort();
    out
}

/// What `routelens search --arm all` ranks, without its timings and byte counts.
fn rankings(bundle: &str, dir: &Path) -> serde_json::Value {
    let text = ok(routelens(
        &[
            "search",
            bundle,
            "--arm",
            "all",
            "--query",
            "parse the router configuration and evict cached entries",
            "--format",
            "json",
        ],
        dir,
    ));
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for arm in value.as_array_mut().unwrap() {
        let arm = arm.as_object_mut().unwrap();
        for field in ["query_ms", "fetched", "fetched_bytes"] {
            arm.remove(field);
        }
    }
    value
}

#[test]
fn two_snapshots_share_their_unchanged_chunks_and_search_as_before() {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    // About 1.6 MB of distinct files: several chunks of 256 KiB.
    for i in 0..80 {
        let body: String = (0..400)
            .map(|line| format!("fn item_{i}_{line}() {{ route(config_{i}); evict({line}); }}\n"))
            .collect();
        std::fs::write(repo.join(format!("src/m{i:02}.rs")), body).unwrap();
    }
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    std::fs::write(repo.join("src/m40.rs"), "fn changed() { parse(router) }\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "two"]);
    let dir = temp.path();
    for (commit, out) in [("HEAD~1", "snaps/one"), ("HEAD", "snaps/two")] {
        ok(routelens(
            &[
                "bundle",
                "repo",
                "--commit",
                commit,
                "--out",
                out,
                "--chunkers",
                "none",
            ],
            dir,
        ));
    }
    let said = ok(routelens(&["merge", "snaps", "--out", "site"], dir));
    assert!(said.contains("merged    2 bundles into site"), "{said}");

    let site = files_under(&dir.join("site"));
    let names: Vec<&str> = site.iter().map(|(name, _)| name.as_str()).collect();
    assert!(names.contains(&"merged.json") && names.contains(&"one/manifest.json"));
    assert!(names.iter().all(|n| n.starts_with("store/")
        || ["merged.json", "one/manifest.json", "two/manifest.json"].contains(n)));
    // The chunks the edit did not touch are stored once.
    let chunks =
        |files: &[(String, u64)]| files.iter().filter(|(n, _)| n.contains("chunks/")).count();
    let (one, two) = (
        files_under(&dir.join("snaps/one")),
        files_under(&dir.join("snaps/two")),
    );
    assert!(chunks(&one) >= 4, "{} chunks", chunks(&one));
    assert!(chunks(&site) < chunks(&one) + chunks(&two) - 2, "{site:?}");
    let total = |files: &[(String, u64)]| files.iter().map(|(_, size)| size).sum::<u64>();
    assert!(total(&site) < total(&one) + total(&two));

    // Each merged bundle names the store and searches exactly as its own bundle.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("site/two/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["store"], "../store");
    for name in ["one", "two"] {
        assert_eq!(
            rankings(&format!("site/{name}"), dir),
            rankings(&format!("snaps/{name}"), dir),
            "{name}"
        );
    }

    // A damaged input is refused by name, and nothing is written.
    let chunk = one.iter().find(|(n, _)| n.starts_with("chunks/")).unwrap();
    let path = dir.join("snaps/one").join(&chunk.0);
    let original = std::fs::read(&path).unwrap();
    let mut bytes = original.clone();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let failed = routelens(&["merge", "snaps", "--out", "again"], dir);
    assert_eq!(failed.status.code(), Some(65));
    let error = String::from_utf8_lossy(&failed.stderr);
    assert!(
        error.contains(&chunk.0) && error.contains("SHA-256"),
        "{error}"
    );
    assert!(!dir.join("again").exists());
    std::fs::write(&path, &original).unwrap();

    // A damaged second bundle, once the first is written (merge writes as it reads): the
    // written part is removed, and a merged folder already there is left as it was.
    let only_two = two
        .iter()
        .find(|(n, _)| n.starts_with("chunks/") && !one.iter().any(|(o, _)| o == n))
        .unwrap();
    let path = dir.join("snaps/two").join(&only_two.0);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let before = files_under(&dir.join("site"));
    for target in ["again", "site"] {
        let failed = routelens(&["merge", "snaps", "--out", target], dir);
        assert_eq!(failed.status.code(), Some(65), "{target}");
        assert!(String::from_utf8_lossy(&failed.stderr).contains(&only_two.0));
    }
    assert!(!dir.join("again").exists());
    assert_eq!(files_under(&dir.join("site")), before);
    let hidden: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "temporary folders left: {hidden:?}");

    // Today's layout (--no-split) and an already merged bundle are refused.
    ok(routelens(
        &[
            "bundle",
            "repo",
            "--out",
            "whole",
            "--no-split",
            "--chunkers",
            "none",
        ],
        dir,
    ));
    for input in ["whole", "site/one"] {
        let refused = routelens(&["merge", input, "--out", "x"], dir);
        assert_eq!(refused.status.code(), Some(64), "{input}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("format-6"));
    }
}
