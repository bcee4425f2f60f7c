//! Archive loader tests: the README's checksum table, a missing README, and folder picks.

use super::*;

#[test]
fn reads_checksum_tables() {
    let readme = "| File | SHA-256 |\n| --- | --- |\n| `a.json` | `".to_string()
        + &"ab".repeat(32)
        + "` |\n| `b.json` | `short` |\n";
    let listed = listed_checksums(&readme);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed["a.json"], "ab".repeat(32));
}

#[test]
fn missing_readme_is_named() {
    let err = load_archive(&ArchiveBytes::new()).unwrap_err();
    assert_eq!(
        err,
        Error::MissingFile {
            file: README.to_string()
        }
    );
}

#[test]
fn matches_picked_folders_at_any_level() {
    let pick = |paths: &[&str]| {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        match_picked_files(&paths)
    };
    // The archive root, with a top-level README that must not stand in for the data README.
    let root = pick(&[
        "fastindex/README.md",
        "fastindex/paper/data/README.md",
        "fastindex/paper/data/contextbench-paper-tree.json",
        "fastindex/evals/other.json",
    ])
    .unwrap();
    assert_eq!(root.len(), 2);
    assert_eq!(root[README], 1);
    assert_eq!(root[TREE], 2);
    // A folder above the root, and the data folder itself.
    let above = pick(&["shared/data/fastindex/paper/data/README.md"]).unwrap();
    assert_eq!(above[README], 0);
    let data = pick(&["data/README.md", "data/contextbench-paper-rg.json"]).unwrap();
    assert_eq!((data[README], data[RG]), (0, 1));
    // Two copies at the same depth are ambiguous, and the message names both.
    let err = pick(&["x/a/paper/data/README.md", "x/b/paper/data/README.md"]).unwrap_err();
    assert!(
        err.to_string()
            .contains("x/a/paper/data/README.md and x/b/"),
        "{err}"
    );
}
