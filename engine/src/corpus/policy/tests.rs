//! The policies' rules, one test per rule group, and the manifest form.

use super::*;

fn decide(path: &str, bytes: &[u8]) -> Decision {
    Policy::strict().check(path, bytes)
}

#[test]
fn includes_plain_text_and_empty_files() {
    assert_eq!(decide("src/lib.rs", b"fn main() {}\n"), Decision::Included);
    assert_eq!(decide("README", b""), Decision::Included);
    assert_eq!(
        decide("docs/caf\u{e9}.md", "h\u{e9}".as_bytes()),
        Decision::Included
    );
}

#[test]
fn excludes_hidden_components_anywhere() {
    use ExclusionReason::Hidden;
    assert_eq!(decide(".gitignore", b"x"), Decision::Excluded(Hidden));
    assert_eq!(
        decide(".github/workflows/ci.yml", b"x"),
        Decision::Excluded(Hidden)
    );
    assert_eq!(decide("src/.cache/a.rs", b"x"), Decision::Excluded(Hidden));
}

#[test]
fn excludes_generated_directories_but_not_files_with_those_names() {
    use ExclusionReason::GeneratedDir;
    assert_eq!(
        decide("build/gen.c", b"x"),
        Decision::Excluded(GeneratedDir)
    );
    assert_eq!(
        decide("web/node_modules/a/index.js", b"x"),
        Decision::Excluded(GeneratedDir)
    );
    assert_eq!(
        decide("vendor/lib.go", b"x"),
        Decision::Excluded(GeneratedDir)
    );
    // A file named like a generated directory is kept; so is a look-alike directory.
    assert_eq!(decide("scripts/build", b"#!/bin/sh\n"), Decision::Included);
    assert_eq!(decide("builds/a.c", b"x"), Decision::Included);
    assert_eq!(decide("Build/a.c", b"x"), Decision::Included);
}

#[test]
fn first_failing_component_decides() {
    assert_eq!(
        decide("build/.hidden/a.c", b"x"),
        Decision::Excluded(ExclusionReason::GeneratedDir)
    );
    assert_eq!(
        decide(".git/build/a.c", b"x"),
        Decision::Excluded(ExclusionReason::Hidden)
    );
}

#[test]
fn rejects_unclean_paths() {
    for path in ["", "/etc/passwd", "a//b", "a/./b", "../a", "a/"] {
        assert_eq!(
            decide(path, b"x"),
            Decision::Excluded(ExclusionReason::BadPath),
            "{path:?}"
        );
    }
}

#[test]
fn content_rules_in_order() {
    let policy = Policy {
        max_file_bytes: Some(4),
        ..Policy::strict()
    };
    assert_eq!(policy.check("a", b"abcd"), Decision::Included);
    assert_eq!(
        policy.check("a", b"abcde"),
        Decision::Excluded(ExclusionReason::TooLarge)
    );
    // NUL and invalid UTF-8 together: binary wins.
    assert_eq!(
        policy.check("a", b"\xff\0"),
        Decision::Excluded(ExclusionReason::Binary)
    );
    assert_eq!(
        policy.check("a", b"\xff\xfe"),
        Decision::Excluded(ExclusionReason::NotUtf8)
    );
    // Path rules come before content rules.
    assert_eq!(
        policy.check(".a", b"\0\0\0\0\0"),
        Decision::Excluded(ExclusionReason::Hidden)
    );
}

#[test]
fn explains_each_verdict() {
    let policy = Policy::strict();
    let explain = |path: &str, bytes: &[u8]| policy.explain(path, bytes);
    assert!(explain("src/a.rs", b"ok").contains("included"));
    let text = explain("pkg/build/gen/a.c", b"x");
    assert!(text.contains("`pkg/build/`"), "{text}");
    assert!(text.contains("generated-dir"), "{text}");
    assert!(explain("a/.env", b"x").contains("the file name `.env` starts with a dot"));
    assert!(explain(".ci/run", b"x").contains("`.ci` starts with a dot"));
    assert!(explain("a.bin", b"ab\0").contains("NUL byte at offset 2"));
    assert!(explain("a.txt", b"ab\xff").contains("not UTF-8 from offset 2"));
    assert!(explain("a/../b", b"x").contains("bad-path"));
    let big = vec![b'a'; (DEFAULT_MAX_FILE_BYTES + 1) as usize];
    assert!(explain("big.txt", &big).contains("1048577 bytes is over the cap of 1048576"));
}

#[test]
fn the_paper_policy_enters_hidden_dirs_and_drops_hidden_files() {
    use ExclusionReason::*;
    let paper = Policy::paper();
    let check = |path: &str, bytes: &[u8]| paper.check(path, bytes);
    // Hidden directories are entered; only the skipped names are out.
    assert_eq!(
        check(".github/ISSUE_TEMPLATE/bug.yml", b"x"),
        Decision::Included
    );
    assert_eq!(check(".release-notes/1.2.md", b"x"), Decision::Included);
    assert_eq!(check(".ci/run", b"x"), Decision::Included);
    for dir in PAPER_SKIPPED_DIRS {
        let path = format!("pkg/{dir}/a.py");
        assert_eq!(
            check(&path, b"x"),
            Decision::Excluded(GeneratedDir),
            "{path}"
        );
    }
    // No vendor rule: NodeBB's public/vendor/ is searched.
    assert_eq!(check("public/vendor/jquery.js", b"x"), Decision::Included);
    // A file name starting with a dot is dropped, wherever it is.
    assert_eq!(check(".gitignore", b"x"), Decision::Excluded(Hidden));
    assert_eq!(check(".github/.keep", b"x"), Decision::Excluded(Hidden));
    // Reserved names, as files only.
    for name in PAPER_RESERVED_NAMES {
        assert_eq!(
            check(&format!("docs/{name}"), b"x"),
            Decision::Excluded(ReservedName)
        );
    }
    assert_eq!(check("index.md/a.md", b"x"), Decision::Included);
    assert_eq!(check("docs/Index.md", b"x"), Decision::Included);
    // No size cap; NUL and bad UTF-8 are still out.
    let big = vec![b'a'; 2 << 20];
    assert_eq!(check("big.txt", &big), Decision::Included);
    assert_eq!(
        Policy::strict().check("big.txt", &big),
        Decision::Excluded(TooLarge)
    );
    assert_eq!(check("a.bin", b"a\0b"), Decision::Excluded(Binary));
    assert_eq!(check("a.txt", b"a\xffb"), Decision::Excluded(NotUtf8));
    // A skipped name decides even when it is hidden, and a file of such a name is dropped
    // too (the paper's loader rejects any path part with a skipped name).
    assert_eq!(check(".git/config", b"x"), Decision::Excluded(GeneratedDir));
    assert_eq!(
        check("scripts/build", b"x"),
        Decision::Excluded(GeneratedDir)
    );
    assert_eq!(
        check(".git", b"gitdir: x"),
        Decision::Excluded(GeneratedDir)
    );
    assert!(paper
        .explain("scripts/target", b"x")
        .contains("its name `target`"));
    assert_eq!(
        Policy::strict().check("scripts/build", b"x"),
        Decision::Included
    );
}

#[test]
fn policies_are_named_and_labelled() {
    assert_eq!(Policy::default(), Policy::paper());
    assert!(Policy::paper().is_pristine() && Policy::strict().is_pristine());
    assert_eq!(Policy::paper().label(), "paper");
    let capped = Policy {
        max_file_bytes: Some(10),
        ..Policy::paper()
    };
    assert!(!capped.is_pristine());
    assert_eq!(capped.label(), "paper (changed: max_file_bytes)");
    assert_eq!("strict".parse::<PolicyName>(), Ok(PolicyName::Strict));
    assert!("lax"
        .parse::<PolicyName>()
        .unwrap_err()
        .contains("paper, strict"));
    let text = Policy::paper().explain(".github/x.yml", b"x");
    assert!(text.contains("included under the paper policy"), "{text}");
    let text = Policy::paper().explain("docs/log.md", b"x");
    assert!(
        text.contains("reserved-name") && text.contains("_error.log"),
        "{text}"
    );
    let text = Policy::strict().explain(".github/x.yml", b"x");
    assert!(text.contains("under the strict policy"), "{text}");
}

#[test]
fn manifests_without_a_policy_name_read_as_strict() {
    let old: Policy =
        serde_json::from_str(r#"{"max_file_bytes":1048576,"excluded_dirs":["build"]}"#).unwrap();
    assert_eq!(old.name, PolicyName::Strict);
    assert!(old.skip_hidden_dirs && old.reserved_names.is_empty());
    assert_eq!(old.max_file_bytes, Some(1 << 20));
    let paper = serde_json::to_string(&Policy::paper()).unwrap();
    assert!(
        paper.contains(r#""name":"paper","max_file_bytes":null"#),
        "{paper}"
    );
    assert_eq!(
        serde_json::from_str::<Policy>(&paper).unwrap(),
        Policy::paper()
    );
}

#[test]
fn clean_paths() {
    assert!(is_clean_path("a/b.rs") && is_clean_path(".github/x"));
    for path in ["", "/a", "a//b", "a/./b", "../a", "a/"] {
        assert!(!is_clean_path(path), "{path:?}");
    }
}

#[test]
fn reasons_serialize_as_their_names() {
    for reason in ExclusionReason::ALL {
        let json = serde_json::to_string(&reason).unwrap();
        assert_eq!(json, format!("\"{}\"", reason.name()));
        assert_eq!(reason.to_string(), reason.name());
    }
    assert!(ExclusionReason::Hidden.is_path_rule());
    assert!(!ExclusionReason::Binary.is_path_rule());
}
