//! `routelens bundle`, `search` and `demo` end to end, where trycmd's one-command cases are not
//! enough: a git commit read with `--commit`, the demo's idempotence, the committed fixture
//! bundle's drift, the real demo's gold files, and the `fts5` arm against real SQLite FTS5.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{git, ok, routelens};

/// The manifest as a reader decodes it (format 6: with its file list), as JSON.
fn manifest(bundle: &Path) -> serde_json::Value {
    serde_json::to_value(decoded(bundle)).unwrap()
}

fn decoded(bundle: &Path) -> routelens_engine::Manifest {
    common::read_manifest(bundle)
}

fn paths(manifest: &serde_json::Value) -> Vec<String> {
    manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn reads_a_git_commit_not_the_working_tree() {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::create_dir_all(repo.join("target/debug")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn committed() {}\n").unwrap();
    std::fs::write(repo.join("target/debug/out.txt"), "generated\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "# nothing ignored\n").unwrap();
    std::fs::write(repo.join("logo.bin"), b"PNG\0\x01").unwrap();
    std::fs::write(repo.join("big.txt"), "x".repeat(100)).unwrap();
    std::os::unix::fs::symlink("src/lib.rs", repo.join("link.rs")).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    // The working tree moves on; the commit's files are what gets bundled.
    std::fs::write(repo.join("src/lib.rs"), "pub fn edited() {}\n").unwrap();
    std::fs::write(repo.join("src/new.rs"), "pub fn untracked() {}\n").unwrap();

    let out = temp.path().join("at-head");
    let text = ok(routelens(
        &[
            "bundle",
            "repo",
            "--commit",
            "HEAD",
            "--out",
            "at-head",
            "--max-file-bytes",
            "64",
        ],
        temp.path(),
    ));
    let at_head = manifest(&out);
    assert_eq!(paths(&at_head), ["src/lib.rs"], "{text}");
    assert_eq!(at_head["commit"].as_str().unwrap().len(), 40);
    assert_eq!(
        at_head["excluded"],
        serde_json::json!({"hidden": 1, "generated-dir": 1, "too-large": 1, "binary": 1, "symlink": 1})
    );
    let search = ok(routelens(
        &[
            "search",
            "at-head",
            "--arm",
            "rg",
            "--query",
            "committed",
            "--format",
            "json",
        ],
        temp.path(),
    ));
    let found: serde_json::Value = serde_json::from_str(&search).unwrap();
    assert_eq!(found["results"][0]["path"], "src/lib.rs");

    // The working tree holds the edit and the new file.
    let tree = ok(routelens(
        &["bundle", "repo", "--out", "tree", "--max-file-bytes", "64"],
        temp.path(),
    ));
    assert_eq!(
        paths(&manifest(&temp.path().join("tree"))),
        ["src/lib.rs", "src/new.rs"],
        "{tree}"
    );

    // --explain reads the commit too; a folder inside the repository is its own part of the tree.
    let explained = ok(routelens(
        &["bundle", "repo", "--commit", "HEAD", "--explain", "link.rs"],
        temp.path(),
    ));
    assert!(explained.contains("excluded (symlink)"), "{explained}");
    let explained = ok(routelens(
        &[
            "bundle",
            "repo",
            "--commit",
            "HEAD",
            "--explain",
            "src/lib.rs",
        ],
        temp.path(),
    ));
    assert!(
        explained.contains("included under the paper policy: UTF-8 text, 22 bytes"),
        "{explained}"
    );
    ok(routelens(
        &[
            "bundle", "repo/src", "--commit", "HEAD", "--out", "src-only",
        ],
        temp.path(),
    ));
    assert_eq!(paths(&manifest(&temp.path().join("src-only"))), ["lib.rs"]);
    let unknown = routelens(
        &["bundle", "repo", "--commit", "no-such-rev", "--out", "x"],
        temp.path(),
    );
    assert_eq!(unknown.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no commit \"no-such-rev\""));
    assert!(!temp.path().join("x").exists());
}

/// Copies the demo fixture into a temporary folder, so it can be changed.
fn demo_fixture(temp: &Path) -> PathBuf {
    let from = Path::new("tests/fixtures/demo");
    let to = temp.join("demo");
    for entry in walk(from) {
        let target = to.join(entry.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, target).unwrap();
    }
    to
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_demo_is_rebuilt_only_when_its_sources_change() {
    let temp = tempfile::tempdir().unwrap();
    let demo = demo_fixture(temp.path());
    let args = [
        "demo",
        "--out",
        "out/demo",
        "--repo",
        "demo/repo",
        "--cargo-home",
        "demo/cargo-home",
        "--crates",
        "demo/crates.txt",
        "--questions",
        "demo/questions.jsonl",
        "--format",
        "json",
    ];
    let run = || -> serde_json::Value {
        serde_json::from_str(&ok(routelens(&args, temp.path()))).unwrap()
    };
    let first = run();
    assert_eq!(first["bundle"]["up_to_date"], false);
    let out = temp.path().join("out/demo");
    let index_file = manifest(&out)["split_index"]["file"].clone();
    assert!(index_file.is_string(), "the demo's index is split");
    let written = std::fs::metadata(out.join("manifest.json"))
        .unwrap()
        .modified()
        .unwrap();
    let second = run();
    assert_eq!(second["bundle"]["up_to_date"], true);
    // Untouched: the manifest was not rewritten, and names the same index.
    let kept = std::fs::metadata(out.join("manifest.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(kept, written);
    assert_eq!(manifest(&out)["split_index"]["file"], index_file);
    assert_eq!(
        std::fs::read_to_string(out.join("questions.jsonl")).unwrap(),
        std::fs::read_to_string(demo.join("questions.jsonl")).unwrap()
    );
    // A changed source file makes it stale.
    std::fs::write(demo.join("repo/src/main.rs"), "fn main() {}\n").unwrap();
    let third = run();
    assert_eq!(third["bundle"]["up_to_date"], false);
    assert_ne!(manifest(&out)["split_index"]["file"], index_file);
    // So does --force; a changed question set alone is rewritten without a rebuild.
    std::fs::write(
        demo.join("questions.jsonl"),
        "{\"id\": \"q\", \"question\": \"split\", \"gold\": [\"crates/tinyparse/src/lib.rs\"]}\n",
    )
    .unwrap();
    let fourth = run();
    assert_eq!(fourth["bundle"]["up_to_date"], true);
    assert_eq!(fourth["questions"], 1);
    assert!(std::fs::read_to_string(out.join("questions.jsonl"))
        .unwrap()
        .contains("\"id\": \"q\""));
    let mut forced = args.to_vec();
    forced.push("--force");
    let fifth: serde_json::Value =
        serde_json::from_str(&ok(routelens(&forced, temp.path()))).unwrap();
    assert_eq!(fifth["bundle"]["up_to_date"], false);
}

/// The committed fixture bundle must be what the bundler makes of the fixture repository today
/// (the vectors' bytes and each chunking's index blob aside: their bytes, and so their
/// compressed sizes, differ on every build; the split file index is the same every build). When this fails after an intended
/// change, regenerate it:
///
/// ```text
/// cd bundler/tests/fixtures && rm -rf repo.bundle tampered.bundle &&
///   cargo run -p routelens -- bundle repo --out repo.bundle --policy strict --max-file-bytes 512 \
///     --embed all --embed-questions eval-questions.jsonl
/// ```
///
/// then copy it to `tampered.bundle` and flip one byte in the middle of its chunk and of its
/// index (the trycmd cases expect the new hashes: `TRYCMD=overwrite`).
#[test]
fn the_fixture_bundle_is_current() {
    let temp = tempfile::tempdir().unwrap();
    ok(routelens(
        &["bundle", "repo", "--out"]
            .into_iter()
            .chain([temp.path().join("b").to_str().unwrap()])
            .chain(["--policy", "strict", "--max-file-bytes", "512"])
            .chain([
                "--embed",
                "all",
                "--embed-questions",
                "eval-questions.jsonl",
            ])
            .collect::<Vec<_>>(),
        Path::new("tests/fixtures"),
    ));
    let mut fresh = manifest(&temp.path().join("b"));
    let mut committed = manifest(Path::new("tests/fixtures/repo.bundle"));
    let blobs = |value: &mut serde_json::Value| {
        let forget = |index: &mut serde_json::Value| {
            index["file"] = serde_json::Value::Null;
            index["sha256"] = serde_json::Value::Null;
            // Compressed, a blob's size varies by a byte or two with the segment's random id.
            index["bytes"] = serde_json::Value::Null;
        };
        forget(&mut value["index"]);
        for chunking in value["chunkings"].as_array_mut().into_iter().flatten() {
            forget(&mut chunking["index"]);
            // Vectors are compared by count and size: their last bits may differ between
            // machines (the embedder's accuracy is engine/tests/minilm.rs's).
            chunking["vectors"]["file"] = serde_json::Value::Null;
            chunking["vectors"]["sha256"] = serde_json::Value::Null;
        }
        value["question_vectors"]["file"] = serde_json::Value::Null;
        value["question_vectors"]["sha256"] = serde_json::Value::Null;
    };
    blobs(&mut fresh);
    blobs(&mut committed);
    assert_eq!(
        fresh, committed,
        "tests/fixtures/repo.bundle is stale; see this test's documentation"
    );
}

/// The real demo: this repository and its pinned crates (unpacked by building this very binary).
/// Every gold file of the committed question set must be in the bundle, and every question must
/// run. Without vectors: embedding its 35,000 chunks in a debug build would take most of the
/// test command's time (the fixture bundle's vectors test the embedding path).
#[test]
fn the_demo_holds_every_gold_file() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("demo");
    let text = ok(routelens(
        &[
            "demo",
            "--out",
            out.to_str().unwrap(),
            "--repo",
            "..",
            "--embed",
            "none",
            "--format",
            "json",
        ],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    ));
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(summary["warnings"], serde_json::json!([]), "{text}");
    assert!(summary["questions"].as_u64().unwrap() >= 20);
    let gold = summary["gold"].as_array().unwrap();
    assert!(
        gold.iter().all(|status| status["included"] == true),
        "{text}"
    );
    assert!(summary["crates"].as_array().unwrap().len() >= 10);
    gold_lines_are_current(&out);
    let files = paths(&manifest(&out));
    assert!(files
        .iter()
        .any(|path| path == "routelens/engine/src/corpus/policy/mod.rs"));
    assert!(!files
        .iter()
        .any(|path| path.starts_with("routelens/bundler/demo/")));
    // Every arm answers every question.
    let answers = ok(routelens(
        &[
            "search",
            out.to_str().unwrap(),
            "--arm",
            "all",
            "--queries",
            "demo/questions.jsonl",
            "--format",
            "json",
        ],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    ));
    assert_eq!(
        answers.lines().count() as u64,
        summary["questions"].as_u64().unwrap() * 7
    );
}

/// The demo's gold line spans: this repository's files move when they change, the crates'
/// are read at the versions Cargo.lock pins (as the bundle is built). Every span must be on one of
/// its question's gold files and lie inside the file as the bundle holds it, and its first and
/// last lines must not be blank (a span that slid onto blank lines or past the end fails here;
/// re-read the file and fix the span in `bundler/demo/questions.jsonl`). Every question carries
/// spans, so the set scores code-block recall.
fn gold_lines_are_current(bundle: &Path) {
    let manifest = decoded(bundle);
    let chunks: Vec<Vec<u8>> = manifest
        .chunks
        .iter()
        .map(|chunk| std::fs::read(bundle.join(&chunk.file)).unwrap())
        .collect();
    let texts: std::collections::BTreeMap<String, String> =
        manifest.read_all(&chunks).unwrap().into_iter().collect();
    let questions = routelens_engine::load::question_set::parse_questions(
        "demo/questions.jsonl",
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/questions.jsonl"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut with_lines = 0;
    for question in &questions {
        with_lines += usize::from(!question.gold_lines.is_empty());
        for span in &question.gold_lines {
            let place = format!(
                "question {}: {}:{}-{}",
                question.id, span.path, span.start_line, span.end_line
            );
            assert!(
                question.gold.contains(&span.path),
                "{place}: not one of the question's gold files"
            );
            let text = texts
                .get(&span.path)
                .unwrap_or_else(|| panic!("{place}: the file is not in the bundle"));
            let lines: Vec<&str> = routelens_engine::delivery::select::split_lines(text).collect();
            assert!(
                span.start_line >= 1 && span.end_line as usize <= lines.len(),
                "{place}: outside the file's {} lines",
                lines.len()
            );
            for end in [span.start_line, span.end_line] {
                assert!(
                    !lines[end as usize - 1].trim().is_empty(),
                    "{place}: line {end} is blank; the span is stale"
                );
            }
        }
    }
    assert_eq!(
        with_lines,
        questions.len(),
        "every demo question has gold lines"
    );
}

/// routelens's `fts5` arm against real SQLite FTS5 (Python's sqlite3) on a small real corpus, the
/// engine's sources, with 60 queries taken from their doc comments: the top-8 lists must share at
/// least 0.99 on average (see bench/fts5_compare.py for the comparison and its report). Before
/// phrase terms were matched from positions they shared 0.952, with every difference a phrase.
#[test]
fn fts5_agrees_with_sqlite_fts5() {
    let temp = tempfile::tempdir().unwrap();
    let bundle = temp.path().join("engine-src");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ok(routelens(
        &[
            "bundle",
            "engine/src",
            "--out",
            bundle.to_str().unwrap(),
            "--chunkers",
            "none",
        ],
        &root,
    ));
    let output = Command::new("python3")
        .arg("bench/fts5_compare.py")
        .args(["--bundle", bundle.to_str().unwrap()])
        .args(["--routelens", env!("CARGO_BIN_EXE_routelens")])
        .args(["--derived", "60", "--min-overlap", "0.99"])
        .current_dir(&root)
        .output()
        .expect("python3 runs (the comparison needs Python's sqlite3 with FTS5)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("over 60 queries"), "{stdout}");
}

#[test]
fn a_bundle_inside_its_repository_is_left_out() {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
    for _ in 0..2 {
        ok(routelens(&["bundle", ".", "--out", "bundles/self"], &repo));
    }
    assert_eq!(paths(&manifest(&repo.join("bundles/self"))), ["src/lib.rs"]);
}

/// `--tokenizer code` writes a `code` index, and the search uses it: a stemmed word finds the
/// file whose identifier holds its stem, which the paper's `unicode61` index does not.
#[test]
fn the_code_tokenizer_is_a_bundle_option_the_search_follows() {
    let temp = tempfile::tempdir().unwrap();
    let fixtures = Path::new("tests/fixtures");
    let search = |bundle: &Path| -> serde_json::Value {
        let out = ok(routelens(
            &[
                "search",
                bundle.to_str().unwrap(),
                "--arm",
                "fts5",
                "--query",
                "evicting entry",
                "--format",
                "json",
            ],
            fixtures,
        ));
        serde_json::from_str(&out).unwrap()
    };
    let mut found = Vec::new();
    for tokenizer in ["unicode61", "code"] {
        let bundle = temp.path().join(tokenizer);
        ok(routelens(
            &[
                "bundle",
                "repo",
                "--out",
                bundle.to_str().unwrap(),
                "--tokenizer",
                tokenizer,
            ],
            fixtures,
        ));
        assert_eq!(
            manifest(&bundle)["split_index"]["format"],
            format!("split-1/tantivy-0.27/{tokenizer}+positions/3")
        );
        let results = search(&bundle)["results"].clone();
        found.push(
            results
                .as_array()
                .unwrap()
                .iter()
                .map(|hit| hit["path"].as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
        );
    }
    assert!(found[0].is_empty(), "unicode61 found {:?}", found[0]);
    assert_eq!(found[1].first().map(String::as_str), Some("src/cache.rs"));
}

/// Embedding reads its vector cache back: a rebuild embeds nothing new, a record cut short (a
/// process killed while appending) is embedded again and the rest are kept, and the vectors
/// stored are the same bytes whichever way they came.
#[test]
fn a_rebuild_embeds_only_what_its_cache_lacks() {
    let temp = tempfile::tempdir().unwrap();
    let cache = temp.path().join("cache");
    let build = |out: &str| -> serde_json::Value {
        let out = temp.path().join(out);
        let text = ok(routelens(
            &[
                "bundle",
                "repo",
                "--out",
                out.to_str().unwrap(),
                "--policy",
                "strict",
                "--max-file-bytes",
                "512",
                "--chunkers",
                "structural-unmerged",
                "--embed",
                "all",
                "--vector-cache",
                cache.to_str().unwrap(),
                "--format",
                "json",
            ],
            Path::new("tests/fixtures"),
        ));
        serde_json::from_str(&text).unwrap()
    };
    let counts = |summary: &serde_json::Value| {
        let e = &summary["embedding"][0];
        (
            e["texts"].as_u64().unwrap(),
            e["cached"].as_u64().unwrap(),
            e["embedded"].as_u64().unwrap(),
        )
    };
    assert_eq!(counts(&build("first")), (7, 0, 7));
    assert_eq!(counts(&build("second")), (7, 7, 0));
    // Cut the last record short: it alone is embedded again.
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "vectors"))
        .unwrap();
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes.len(), 7 * (32 + 4 * 384));
    std::fs::write(&file, &bytes[..bytes.len() - 100]).unwrap();
    assert_eq!(counts(&build("third")), (7, 6, 1));
    assert_eq!(std::fs::read(&file).unwrap().len(), bytes.len());
    let vectors = |out: &str| {
        let m = manifest(&temp.path().join(out));
        m["chunkings"][0]["vectors"]["sha256"].clone()
    };
    assert_eq!(vectors("first"), vectors("second"));
    assert_eq!(vectors("first"), vectors("third"));
}
