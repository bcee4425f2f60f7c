//! `routelens publish`: a site written from a small built app, a JSON Lines study and the fixture
//! bundle, then read back: `site.json`, `CHECKSUMS` (each line the file's own SHA-256), the base
//! URL in `index.html`; `--verify` accepting the copy and refusing a one-byte change, an unlisted
//! file and a missing one, each named; a damaged bundle refused before anything is written; a
//! folder that is not a site never replaced; and the paper's archive published with only the
//! files its loader reads; a TREC run published with its qrels.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use routelens_engine::publish::site::{Checksums, SiteIndex, StudyKind};
use routelens_engine::{sha256_hex, ARCHIVE_FILES};

#[path = "../../engine/tests/rank_table/mod.rs"]
mod rank_table;

const STUDY: &str = r#"{"id": "r::1", "gold": ["src/cache.rs"]}
{"id": "r::1", "arm": "bm25", "paths": ["src/router.rs", "src/cache.rs"]}
"#;

fn routelens(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .args(paths)
        .output()
        .expect("routelens runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A built app: an index page, a script, and the rank table the Context view fetches.
fn fake_dist(root: &Path) -> Option<PathBuf> {
    let table = rank_table::read_rank_table()?;
    let dist = root.join("dist");
    std::fs::create_dir_all(dist.join("assets")).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html><html><head><script src=\"./app.js\"></script></head></html>",
    )
    .unwrap();
    std::fs::write(dist.join("assets/app.js"), "init()").unwrap();
    std::fs::write(dist.join("cl100k_base.tiktoken"), table).unwrap();
    std::fs::create_dir_all(dist.join(".stage")).unwrap();
    std::fs::write(dist.join(".stage/leftover"), "x").unwrap();
    Some(dist)
}

fn publish(dist: &Path, out: &Path, extra: &[&str], inputs: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_routelens"));
    command
        .arg("publish")
        .arg("--dist")
        .arg(dist)
        .arg("--out")
        .arg(out)
        .args(extra);
    for (flag, path) in inputs {
        command.arg(flag).arg(path);
    }
    command.output().expect("routelens runs")
}

#[test]
fn publishes_a_site_that_verifies_and_refuses_a_changed_byte() {
    let root = tempfile::tempdir().unwrap();
    let Some(dist) = fake_dist(root.path()) else {
        return;
    };
    let study = root.path().join("small.jsonl");
    std::fs::write(&study, STUDY).unwrap();
    let bundle = root.path().join("tiny");
    copy_dir(Path::new("tests/fixtures/repo.bundle"), &bundle);
    std::fs::copy(
        "tests/fixtures/questions.jsonl",
        bundle.join("questions.jsonl"),
    )
    .unwrap();
    let site = root.path().join("site");
    let output = publish(
        &dist,
        &site,
        &["--title", "A paper", "--base-path", "/paper/"],
        &[("--study", &study), ("--bundle", &bundle)],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let said = text(&output.stdout);
    assert!(
        said.starts_with(&format!("published {}: ", site.display())),
        "{said}"
    );
    assert!(
        said.contains("1 studies") && said.contains("1 bundles"),
        "{said}"
    );

    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    assert_eq!(index.title, "A paper");
    assert_eq!(index.base_path.as_deref(), Some("/paper/"));
    assert!(index.checksums);
    assert_eq!(index.built.tool, "routelens publish");
    assert_eq!(index.built.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(index.studies.len(), 1);
    assert_eq!(index.studies[0].id, "small");
    assert_eq!(index.studies[0].kind, StudyKind::Jsonl);
    assert_eq!(index.studies[0].path, "studies/small/small.jsonl");
    // The bundle goes whole: every chunking's table and chunk index beside its files.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("manifest.json")).unwrap()).unwrap();
    let chunkings = manifest["chunkings"].as_array().unwrap();
    assert_eq!(
        chunkings.len(),
        routelens_engine::corpus::code_chunks::Chunker::ALL.len()
    );
    let questions = &manifest["question_vectors"]["file"];
    assert!(
        questions.is_string(),
        "the fixture stores its questions' vectors"
    );
    assert!(site
        .join("bundles/tiny")
        .join(questions.as_str().unwrap())
        .is_file());
    for chunking in chunkings {
        let files = [
            &chunking["file"],
            &chunking["index"]["file"],
            &chunking["vectors"]["file"],
        ];
        for file in files {
            let name = file.as_str().unwrap();
            assert!(
                site.join("bundles/tiny").join(name).is_file(),
                "{name} not published"
            );
        }
    }
    assert_eq!(index.bundles[0].name, "tiny");
    assert_eq!(index.bundles[0].base, "bundles/tiny");
    assert_eq!(
        index.bundles[0].questions.as_deref(),
        Some("bundles/tiny/questions.jsonl")
    );
    assert_eq!(
        std::fs::read_to_string(site.join("studies/small/small.jsonl")).unwrap(),
        STUDY
    );
    // The page carries its Content-Security-Policy (a static host sends no headers), then its
    // base URL.
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let published = "<!doctype html><html><head>\n    <base href=\"/paper/\" /><script src=\"./app.js\"></script></head></html>";
    let policy = routelens_engine::publish::csp::policy(
        published,
        &routelens_engine::publish::csp::default_connect_origins(),
        false,
    );
    assert_eq!(
        html,
        routelens_engine::publish::csp::with_meta(published, &policy).unwrap(),
        "{html}"
    );
    assert!(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; script-src 'self' 'wasm-unsafe-eval';"), "{html}");
    assert!(
        !site.join(".stage").exists(),
        "hidden build leftovers stay out"
    );

    // Every file but CHECKSUMS is listed with its own hash.
    let on_disk = checksums_list_every_file(&site);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("bundles/tiny/manifest.json")).unwrap())
            .unwrap();
    let chunk = manifest["chunks"][0]["file"].as_str().unwrap();
    assert!(on_disk.contains(&format!("bundles/tiny/{chunk}")));

    let verified = routelens(&["publish", "--verify"], &[&site]);
    assert!(verified.status.success(), "{}", text(&verified.stderr));
    assert!(text(&verified.stdout).contains(&format!("{} files", on_disk.len())));

    // A copy with one byte of a chunk changed, a stray file and a missing file.
    let copy = root.path().join("copy");
    copy_dir(&site, &copy);
    let chunk_path = copy.join("bundles/tiny").join(chunk);
    let mut bytes = std::fs::read(&chunk_path).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&chunk_path, bytes).unwrap();
    std::fs::write(copy.join("extra.js"), "x").unwrap();
    std::fs::remove_file(copy.join("assets/app.js")).unwrap();
    let refused = routelens(&["publish", "--verify"], &[&copy]);
    assert_eq!(refused.status.code(), Some(65));
    let said = text(&refused.stderr);
    assert!(said.contains("3 problem(s)"), "{said}");
    assert!(
        said.contains(&format!(
            "bundles/tiny/{chunk}: SHA-256 mismatch: the site's CHECKSUMS lists"
        )),
        "{said}"
    );
    assert!(said.contains("extra.js: not listed in CHECKSUMS"), "{said}");
    assert!(said.contains("assets/app.js: No such file"), "{said}");

    // Publishing again replaces the site; a folder that is not a site is never replaced.
    let again = publish(&dist, &site, &[], &[("--bundle", &bundle)]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(!site.join("studies").exists(), "the old site is gone whole");
    let foreign = root.path().join("notes");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("todo.txt"), "keep me").unwrap();
    let refused = publish(&dist, &foreign, &[], &[("--bundle", &bundle)]);
    assert_eq!(refused.status.code(), Some(64));
    assert!(text(&refused.stderr).contains("is not a site folder (no site.json)"));
    assert_eq!(
        std::fs::read_to_string(foreign.join("todo.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn a_damaged_bundle_is_refused_before_anything_is_written() {
    let root = tempfile::tempdir().unwrap();
    let Some(dist) = fake_dist(root.path()) else {
        return;
    };
    let site = root.path().join("site");
    let output = publish(
        &dist,
        &site,
        &[],
        &[("--bundle", Path::new("tests/fixtures/tampered.bundle"))],
    );
    assert_eq!(output.status.code(), Some(65), "{}", text(&output.stderr));
    let said = text(&output.stderr);
    assert!(said.contains("tampered.bundle/"), "{said}");
    assert!(
        said.contains("SHA-256 mismatch: the manifest lists"),
        "{said}"
    );
    assert!(!site.exists(), "nothing written");
    let names: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".site")), "{names:?}");
    let bad = publish(&dist, &site, &["--base-path", "paper"], &[]);
    assert_eq!(bad.status.code(), Some(64));
    assert!(text(&bad.stderr).contains("--base-path: \"paper\" is not a base path"));
}

#[test]
fn publishes_only_the_archive_files_the_loader_reads() {
    let root = tempfile::tempdir().unwrap();
    let Some(dist) = fake_dist(root.path()) else {
        return;
    };
    let Some(archive) = common::archive_dir() else {
        return;
    };
    let site = root.path().join("site");
    let output = publish(&dist, &site, &[], &[("--study", &archive)]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    assert_eq!(index.studies[0].id, "fastindex");
    assert_eq!(index.studies[0].kind, StudyKind::Archive);
    assert_eq!(index.studies[0].path, "studies/fastindex");
    let mut files = Vec::new();
    collect_files(
        &site.join("studies/fastindex"),
        &site.join("studies/fastindex"),
        &mut files,
    );
    let mut expected: Vec<String> = ARCHIVE_FILES
        .iter()
        .filter(|f| archive.join(f.path).is_file())
        .map(|f| f.path.to_string())
        .collect();
    expected.sort();
    assert_eq!(files, expected);
    for name in &files {
        assert_eq!(
            std::fs::read(site.join("studies/fastindex").join(name)).unwrap(),
            std::fs::read(archive.join(name)).unwrap()
        );
    }
}

/// A folder of TREC runs as a researcher has it: the runs joined into one study (each tag an arm)
/// and published with their qrels, side by side and unconverted; each run alone beside it, the
/// one `--qrels` shared. The site verifies, and the published files load to the same study.
#[test]
fn publishes_a_trec_run_with_its_qrels() {
    let root = tempfile::tempdir().unwrap();
    let Some(dist) = fake_dist(root.path()) else {
        return;
    };
    let runs = Path::new("tests/fixtures/runs");
    let joined = root.path().join("alpha-beta.run");
    let text_of = |name: &str| std::fs::read_to_string(runs.join(name)).unwrap();
    std::fs::write(&joined, text_of("alpha.run") + &text_of("beta.run")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&joined).unwrap(),
        std::fs::read_to_string("tests/fixtures/alpha-beta.run").unwrap(),
        "the committed alpha-beta.run is the two runs joined"
    );
    let site = root.path().join("site");
    let mut command = Command::new(env!("CARGO_BIN_EXE_routelens"));
    command
        .arg("publish")
        .arg("--dist")
        .arg(&dist)
        .arg("--out")
        .arg(&site)
        .arg("--study")
        .arg(&joined)
        .arg("--study")
        .arg(runs.join("alpha.run"))
        .arg("--study")
        .arg(runs.join("beta.run"))
        .arg("--qrels")
        .arg(runs.join("qrels.txt"));
    let output = command.output().expect("routelens runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("3 studies"));

    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    let ids: Vec<&str> = index.studies.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["alpha-beta", "alpha", "beta"]);
    let study = &index.studies[0];
    assert_eq!(study.kind, StudyKind::Trec);
    assert_eq!(study.path, "studies/alpha-beta/alpha-beta.run");
    assert_eq!(study.qrels.as_deref(), Some("studies/alpha-beta/qrels.txt"));
    assert!(study
        .title
        .ends_with("alpha-beta.run + tests/fixtures/runs/qrels.txt"));
    for entry in &index.studies {
        let qrels = entry.qrels.as_deref().unwrap();
        assert_eq!(
            std::fs::read_to_string(site.join(qrels)).unwrap(),
            text_of("qrels.txt")
        );
    }
    let (run, qrels) = (
        std::fs::read_to_string(site.join(&study.path)).unwrap(),
        std::fs::read_to_string(site.join(study.qrels.as_deref().unwrap())).unwrap(),
    );
    assert_eq!(run, std::fs::read_to_string(&joined).unwrap());
    let loaded = routelens_engine::load_trec(&study.path, &run, "qrels.txt", &qrels).unwrap();
    assert_eq!(loaded.arm_names(), ["alpha", "beta"]);
    assert_eq!(loaded.cases.len(), 6);

    // CHECKSUMS lists every file but itself, the run and qrels included.
    let on_disk = checksums_list_every_file(&site);
    assert!(on_disk.contains(&"studies/beta/qrels.txt".to_string()));
    let verified = routelens(&["publish", "--verify"], &[&site]);
    assert!(verified.status.success(), "{}", text(&verified.stderr));
    assert!(text(&verified.stdout).contains(&format!("{} files", on_disk.len())));

    // An empty run is refused before anything is written, naming the file.
    let empty = root.path().join("empty.run");
    std::fs::write(&empty, "").unwrap();
    let other = root.path().join("other");
    let refused = publish(
        &dist,
        &other,
        &["--qrels", "tests/fixtures/runs/qrels.txt"],
        &[("--study", &empty)],
    );
    assert_eq!(refused.status.code(), Some(65));
    assert!(
        text(&refused.stderr).contains("empty.run: holds no rankings"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!other.exists(), "nothing written");
}

/// Checks that the site's CHECKSUMS lists every other file with its own hash; returns the files.
fn checksums_list_every_file(site: &Path) -> Vec<String> {
    let checksums = Checksums::parse(
        "CHECKSUMS",
        &std::fs::read_to_string(site.join("CHECKSUMS")).unwrap(),
    )
    .unwrap();
    let mut on_disk = Vec::new();
    collect_files(site, site, &mut on_disk);
    on_disk.retain(|name| name != "CHECKSUMS");
    assert_eq!(checksums.paths().collect::<Vec<_>>(), on_disk);
    for name in &on_disk {
        let bytes = std::fs::read(site.join(name)).unwrap();
        assert_eq!(
            checksums.get(name),
            Some(sha256_hex(&bytes).as_str()),
            "{name}"
        );
    }
    on_disk
}

/// Every file under `dir`, as `/`-separated paths relative to `root`, sorted.
fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_files(root, &path, out);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    out.sort();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `--printed ID=FILE`: each study's printed numbers checked against it and published beside
/// it; `site.json` names the file and holds the same counts the engine's check gives; the
/// numbers' file is listed in `CHECKSUMS`. A `--printed` naming no study, or a bare file when
/// two studies are published, is refused with the studies' ids.
#[test]
fn publishes_the_papers_printed_numbers_checked() {
    use routelens_engine::check::printed::PrintedFile;
    use routelens_engine::check::{check, Source};
    use routelens_engine::publish::site::Checked;
    use routelens_engine::scoring::score_table::{load_score_table, Mapping};

    let root = tempfile::tempdir().unwrap();
    let (Some(dist), Some(archive), Some(cases)) = (
        fake_dist(root.path()),
        common::archive_dir(),
        common::codenib_cases(),
    ) else {
        return;
    };
    let papers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src/check/papers");
    let (fastindex, codenib) = (papers.join("fastindex.json"), papers.join("codenib.json"));
    let site = root.path().join("site");
    let printed = |id: &str, file: &Path| format!("{id}={}", file.display());
    let extra = [
        "--printed".to_string(),
        printed("fastindex", &fastindex),
        "--printed".to_string(),
        printed("jev_candidates_cases", &codenib),
    ];
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let output = publish(
        &dist,
        &site,
        &extra,
        &[("--study", &archive), ("--study", &cases)],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("fastindex: "), "{stdout}");
    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    let read = |file: &Path| {
        PrintedFile::from_json("printed", &std::fs::read_to_string(file).unwrap()).unwrap()
    };
    let cases_text = std::fs::read_to_string(&cases).unwrap();
    let table = load_score_table(
        "cases",
        &cases_text,
        &Mapping::detect(cases_text.lines().next().unwrap()).unwrap(),
    )
    .unwrap();
    let expected = Checked::of(&check(&read(&codenib), Source::Scores(&table)));
    let entry = &index.studies[1];
    assert_eq!(
        entry.printed.as_deref(),
        Some("printed/jev_candidates_cases.json")
    );
    assert_eq!(entry.checked, Some(expected));
    assert_eq!(expected.total(), read(&codenib).numbers.len());
    assert!(stdout.contains(&format!(
        "jev_candidates_cases: {} of {}",
        expected.reproduced,
        expected.total()
    )));
    let fastindex_entry = &index.studies[0];
    assert_eq!(
        fastindex_entry.printed.as_deref(),
        Some("printed/fastindex.json")
    );
    assert_eq!(
        fastindex_entry.checked.map(|c| c.total()),
        Some(read(&fastindex).numbers.len())
    );
    assert_eq!(
        std::fs::read(site.join("printed/fastindex.json")).unwrap(),
        std::fs::read(&fastindex).unwrap()
    );
    assert!(checksums_list_every_file(&site).contains(&"printed/fastindex.json".to_string()));

    for (arg, says) in [
        (
            printed("nosuch", &fastindex),
            "no study \"nosuch\" is published",
        ),
        (
            fastindex.display().to_string(),
            "2 studies are published, so name the one",
        ),
    ] {
        let output = publish(
            &dist,
            &root.path().join("refused"),
            &["--printed", &arg],
            &[("--study", &archive), ("--study", &cases)],
        );
        assert_eq!(output.status.code(), Some(64), "{}", text(&output.stderr));
        let stderr = text(&output.stderr);
        assert!(stderr.contains(says), "{stderr}");
        assert!(
            stderr.contains("fastindex, jev_candidates_cases"),
            "{stderr}"
        );
        assert!(!root.path().join("refused").exists());
    }
}

/// `--issue-texts PATH`: the four issue texts kept beside the archive (a folder of `<id>.txt`)
/// published with the paper's study, each as its file holds it; `site.json` names the file and
/// `CHECKSUMS` lists it. A text changed by one byte, or one naming no case, stops publishing
/// with the case named, and nothing is written.
#[test]
fn publishes_the_issue_texts_checked_against_their_hashes() {
    let root = tempfile::tempdir().unwrap();
    let (Some(dist), Some(archive), Some(texts)) = (
        fake_dist(root.path()),
        common::archive_dir(),
        common::fastindex_texts(),
    ) else {
        return;
    };
    let site = root.path().join("site");
    let texts_arg = texts.display().to_string();
    let output = publish(
        &dist,
        &site,
        &["--issue-texts", &texts_arg],
        &[("--study", &archive)],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("fastindex: 4 issue texts"));
    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    assert_eq!(
        index.studies[0].issue_texts.as_deref(),
        Some("issue-texts/fastindex.json")
    );
    let shipped: std::collections::BTreeMap<String, String> =
        serde_json::from_slice(&std::fs::read(site.join("issue-texts/fastindex.json")).unwrap())
            .unwrap();
    assert_eq!(shipped.len(), 4);
    let files: routelens_engine::ArchiveBytes = ARCHIVE_FILES
        .iter()
        .filter_map(|file| {
            let bytes = std::fs::read(archive.join(file.path)).ok()?;
            Some((file.path.to_string(), bytes))
        })
        .collect();
    let study = routelens_engine::load_archive(&files).unwrap();
    for (id, body) in &shipped {
        assert_eq!(
            body,
            &std::fs::read_to_string(texts.join(format!("{id}.txt"))).unwrap()
        );
        let case = study.case_index(id).expect("a case of the study");
        assert_eq!(
            study.cases[case].query_sha256.as_deref(),
            Some(sha256_hex(body.as_bytes()).as_str())
        );
    }
    assert!(checksums_list_every_file(&site).contains(&"issue-texts/fastindex.json".to_string()));

    // One byte changed, or a text for no case: refused naming the case, nothing written.
    let first = shipped.keys().next().unwrap().clone();
    for (name, body, says) in [
        (
            first.clone(),
            format!("{} ", shipped[&first]),
            "SHA-256 mismatch",
        ),
        (
            "no-such-case".to_string(),
            "text".to_string(),
            "no case with this id",
        ),
    ] {
        let changed = root.path().join(format!("texts-{name}"));
        copy_dir(&texts, &changed);
        std::fs::write(changed.join(format!("{name}.txt")), body).unwrap();
        let refused = root.path().join("refused");
        let output = publish(
            &dist,
            &refused,
            &["--issue-texts", &changed.display().to_string()],
            &[("--study", &archive)],
        );
        assert_eq!(output.status.code(), Some(65), "{}", text(&output.stderr));
        let stderr = text(&output.stderr);
        assert!(stderr.contains(&name) && stderr.contains(says), "{stderr}");
        assert!(!refused.exists());
    }
}

#[test]
fn publishes_the_model_checked_or_names_its_url_in_the_policy() {
    let root = tempfile::tempdir().unwrap();
    let Some(dist) = fake_dist(root.path()) else {
        return;
    };
    let model = common::installed_model();
    let site = root.path().join("site");
    let model_arg = model.display().to_string();
    let output = publish(&dist, &site, &["--model", &model_arg], &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let index =
        SiteIndex::from_json("site.json", &std::fs::read(site.join("site.json")).unwrap()).unwrap();
    assert_eq!(index.model.as_deref(), Some("models/all-MiniLM-L6-v2"));
    let listed = checksums_list_every_file(&site);
    for file in [
        "config.json",
        "model.safetensors",
        "model.safetensors.rlpw",
        "tokenizer.json",
    ] {
        let name = format!("models/all-MiniLM-L6-v2/{file}");
        assert!(listed.contains(&name), "{name} not in CHECKSUMS");
    }
    // The page's narrowed weights, as pinned; site.json tells the page to fetch them.
    assert!(index.model_page_weights);
    let pin = routelens_engine::retrieval::dense::pin::ModelPin::minilm();
    let narrowed =
        std::fs::read(site.join("models/all-MiniLM-L6-v2/model.safetensors.rlpw")).unwrap();
    pin.check_page_weights(
        narrowed.len(),
        &routelens_engine::checksum::sha256_hex(&narrowed),
    )
    .unwrap();

    // One byte of config.json changed: refused, naming the file, and nothing written.
    let changed = root.path().join("changed");
    std::fs::create_dir(&changed).unwrap();
    for file in ["model.safetensors", "tokenizer.json"] {
        std::fs::hard_link(model.join(file), changed.join(file)).unwrap();
    }
    let mut config = std::fs::read(model.join("config.json")).unwrap();
    config[10] ^= 1;
    std::fs::write(changed.join("config.json"), config).unwrap();
    let refused_site = root.path().join("refused");
    let changed_arg = changed.display().to_string();
    let output = publish(&dist, &refused_site, &["--model", &changed_arg], &[]);
    assert_eq!(output.status.code(), Some(65), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("config.json: embedding model: 612 bytes with SHA-256"),
        "{}",
        text(&output.stderr)
    );
    assert!(!refused_site.exists());

    // A model at another origin: named in site.json, its origin in the page's connect-src.
    let remote_site = root.path().join("remote");
    let url = "https://hub.example.org/sentence-transformers/all-MiniLM-L6-v2/resolve/abc123/";
    let output = publish(&dist, &remote_site, &["--model-url", url], &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let index = SiteIndex::from_json(
        "site.json",
        &std::fs::read(remote_site.join("site.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index.model.as_deref(), Some(url.trim_end_matches('/')));
    // A hub has only its own files: the page fetches the full weights there.
    assert!(!index.model_page_weights);
    let page = std::fs::read_to_string(remote_site.join("index.html")).unwrap();
    let policy = page
        .split("connect-src")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_default();
    assert!(policy.contains(" https://hub.example.org"), "{page}");
    let output = publish(
        &dist,
        &root.path().join("bad"),
        &["--model-url", "hub.example.org/m"],
        &[],
    );
    assert_eq!(output.status.code(), Some(64), "{}", text(&output.stderr));
}
