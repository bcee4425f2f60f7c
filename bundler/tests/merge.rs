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

/// Bundles `dir/repo` at `commit` into `dir/out`, without chunkings (as `routelens snapshots`).
fn bundle_at(dir: &Path, commit: &str, out: &str) {
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

/// What `routelens search --arm all` ranks, without its timings and byte counts.
fn rankings(bundle: &str, dir: &Path) -> serde_json::Value {
    rankings_for(
        bundle,
        dir,
        "parse the router configuration and evict cached entries",
    )
}

/// [`rankings`] for `query`, every match (`--k` past any file count).
fn rankings_for(bundle: &str, dir: &Path, query: &str) -> serde_json::Value {
    let text = ok(routelens(
        &[
            "search", bundle, "--arm", "all", "--query", query, "--k", "100000", "--format", "json",
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
        bundle_at(dir, commit, out);
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

/// Three snapshots of one repository whose files change by a few lines between commits (and a
/// file added, one deleted), bundled at each commit under `dir/snaps`.
fn three_snapshots(dir: &Path) -> Vec<&'static str> {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    // Files of 20 to 60 kB, past DEFLATE's 32 KiB window.
    let body = |i: usize, edit: usize| -> String {
        (0..(400 + 40 * i))
            .map(|line| {
                if line % 97 == edit {
                    format!("fn edited_{i}_{edit}() {{ parse_router(café_{edit}); }}\n")
                } else {
                    format!("fn item_{i}_{line}() {{ route(config_{i}); evict({line}); }}\n")
                }
            })
            .collect()
    };
    for i in 0..20 {
        std::fs::write(repo.join(format!("src/m{i:02}.rs")), body(i, 1)).unwrap();
    }
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    for i in (0..20).step_by(2) {
        std::fs::write(repo.join(format!("src/m{i:02}.rs")), body(i, 2)).unwrap();
    }
    std::fs::write(
        repo.join("src/new.rs"),
        "fn parse_router() { evict(cache) }\n",
    )
    .unwrap();
    std::fs::remove_file(repo.join("src/m05.rs")).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "two"]);
    for i in 10..20 {
        std::fs::write(repo.join(format!("src/m{i:02}.rs")), body(i, 3)).unwrap();
    }
    git(&repo, &["commit", "-q", "-am", "three"]);
    let names = vec!["one", "two", "three"];
    for (commit, name) in ["HEAD~2", "HEAD~1", "HEAD"].into_iter().zip(&names) {
        bundle_at(dir, commit, &format!("snaps/{name}"));
    }
    names
}

#[test]
fn version_packs_and_derived_indexes_search_exactly_as_the_snapshots() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let names = three_snapshots(dir);
    let queries = [
        "parse the router configuration and evict cached entries",
        "parse_router café_2 edited_12_3 item_7_300",
        "config_19 evict absent_token new",
    ];
    let sized = |path: &str| -> u64 { files_under(&dir.join(path)).iter().map(|f| f.1).sum() };
    let one_bundle = sized("snaps/three");
    for (out, flags) in [
        ("both", &["--versions", "--derive-index"][..]),
        ("packs", &["--versions", "--level", "3"][..]),
        ("derived", &["--derive-index"][..]),
    ] {
        let mut args = vec!["merge", "snaps", "--out", out];
        args.extend_from_slice(flags);
        let said = ok(routelens(&args, dir));
        assert!(said.contains("merged    3 bundles"), "{said}");
        let packed = flags.contains(&"--versions");
        let derived = flags.contains(&"--derive-index");
        for name in &names {
            let manifest: serde_json::Value = serde_json::from_slice(
                &std::fs::read(dir.join(format!("{out}/{name}/manifest.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(manifest["format_version"], 7, "{out}/{name}");
            assert_eq!(
                manifest["derived_index"].is_string(),
                derived,
                "{out}/{name}"
            );
            assert_eq!(
                manifest["split_index"].is_object(),
                !derived,
                "{out}/{name}"
            );
            let chunks = manifest["chunks"].as_array().unwrap();
            assert!(chunks.iter().all(|c| c["entries"].is_array() == packed
                && c["file"].as_str().unwrap().ends_with(if packed {
                    ".zst"
                } else {
                    ".deflate"
                })));
            for query in queries {
                assert_eq!(
                    rankings_for(&format!("{out}/{name}"), dir, query),
                    rankings_for(&format!("snaps/{name}"), dir, query),
                    "{out}/{name}: {query}"
                );
            }
        }
        let stored = sized(out);
        if packed && derived {
            // Three snapshots in about the bytes of one.
            assert!(
                stored < one_bundle * 2,
                "{stored} against one bundle's {one_bundle}"
            );
        }
        if packed {
            let store = files_under(&dir.join(out).join("store"));
            assert!(store
                .iter()
                .all(|(n, _)| !n.ends_with(".deflate") || !n.starts_with("chunks/")));
        }
    }
    assert!(sized("both") < sized("packs") && sized("both") < sized("derived"));

    // A damaged pack is refused by name when a search reads it.
    let pack = files_under(&dir.join("both/store"))
        .into_iter()
        .find(|(n, _)| n.ends_with(".zst"))
        .unwrap();
    let path = dir.join("both/store").join(&pack.0);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let failed = routelens(
        &["search", "both/two", "--arm", "fts5", "--query", "parse"],
        dir,
    );
    assert_eq!(failed.status.code(), Some(65));
    let error = String::from_utf8_lossy(&failed.stderr);
    assert!(
        error.contains(&pack.0) && error.contains("SHA-256"),
        "{error}"
    );

    // --level is for version packs only.
    let refused = routelens(&["merge", "snaps", "--out", "x", "--level", "3"], dir);
    assert_ne!(refused.status.code(), Some(0));
    assert!(!dir.join("x").exists());
}
