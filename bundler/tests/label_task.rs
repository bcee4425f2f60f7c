//! `routelens label-task` over the fixture bundle, then `routelens agreement` on labels written
//! against that task: the pool is every arm's top K files and the gold, the task names no arm,
//! rank, score or gold, the coordinator's file names the task by its SHA-256 and says what pooled
//! each file, and the two commands fit together.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn routelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
        .output()
        .expect("routelens runs")
}

fn ok(args: &[&str]) -> String {
    let output = routelens(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_task_pooled_from_arms_and_runs_is_blind_and_agreement_reads_labels_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let task_path = dir.path().join("task.json");
    let said = ok(&[
        "label-task",
        "repo.bundle",
        "--questions",
        "eval-questions.jsonl",
        "--pool",
        "fts5@2",
        "--pool",
        "structural/hybrid@2",
        "--run",
        "agreement/pool.run@1",
        "--out",
        task_path.to_str().unwrap(),
    ]);
    assert!(
        said.contains("6 questions, 15 question–file pairs to judge, 2 labellers"),
        "{said}"
    );
    let task_bytes = std::fs::read(&task_path).unwrap();
    let task: Value = serde_json::from_slice(&task_bytes).unwrap();
    let text = String::from_utf8(task_bytes.clone()).unwrap();
    for hidden in ["fts5", "hybrid", "run:", "gold", "rank", "score"] {
        assert!(!text.contains(hidden), "the task shows {hidden:?}");
    }
    let coordinator: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("task.coordinator.json")).unwrap())
            .unwrap();
    let sha = routelens_engine::checksum::sha256_hex(&task_bytes);
    assert_eq!(coordinator["task_sha256"], sha.as_str());
    // The question "evict": fts5's and hybrid's top 2, the run's README.md, and the gold.
    let evict = &coordinator["questions"][2];
    assert_eq!(evict["id"], "evict");
    let candidates: Vec<&str> = evict["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        task["questions"][2]["candidates"],
        serde_json::json!(candidates)
    );
    let readme = evict["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "README.md")
        .unwrap();
    assert_eq!(readme["arms"], serde_json::json!([["run:mine", 1]]));
    assert!(evict["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["path"] == "src/cache.rs" && c["gold"] == true));
    // Two labellers' files against this task: agreement reads them.
    let header = |who: &str| {
        format!(r#"{{"format":"routelens-labels/1","task":"{sha}","labeller":"{who}","app":"t"}}"#)
    };
    let line =
        |q: &str, p: &str, g: u8| format!(r#"{{"question":"{q}","path":"{p}","grade":{g}}}"#);
    let a = [
        header("a"),
        line("evict", "src/cache.rs", 3),
        line("route", "src/router.rs", 3),
    ];
    let b = [
        header("b"),
        line("evict", "src/cache.rs", 2),
        line("route", "src/router.rs", 0),
    ];
    std::fs::write(dir.path().join("a.jsonl"), a.join("\n")).unwrap();
    std::fs::write(dir.path().join("b.jsonl"), b.join("\n")).unwrap();
    let report: Value = serde_json::from_str(&ok(&[
        "agreement",
        task_path.to_str().unwrap(),
        dir.path().join("a.jsonl").to_str().unwrap(),
        dir.path().join("b.jsonl").to_str().unwrap(),
        "--resamples",
        "50",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(report["coverage"]["both"], 2);
    assert_eq!(report["coverage"]["neither"], 13);
    assert_eq!(report["statistics"][0]["value"], 0.5);
    // The adjudicator sees the one dispute, decides it, and the outcome is new gold that
    // `routelens evaluate` scores.
    let paths = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let disputes = ok(&[
        "adjudicate",
        &paths("task.json"),
        &paths("a.jsonl"),
        &paths("b.jsonl"),
        "--questions",
        "eval-questions.jsonl",
        "--format",
        "json",
    ]);
    let disputes: Vec<Value> = disputes
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Both pairs: the grades differ (3 and 2 on the cache, 3 and 0 on the router).
    assert_eq!(disputes.len(), 2);
    assert_eq!(disputes[0]["path"], "src/router.rs");
    assert_eq!(disputes[0]["grades"], serde_json::json!([3, 0]));
    let log = [
        format!(r#"{{"format":"routelens-adjudication/1","task":"{sha}","adjudicator":"cy"}}"#),
        r#"{"question":"evict","path":"src/cache.rs","grade":3,"reason":"answers"}"#.into(),
        r#"{"question":"route","path":"src/router.rs","grade":0,"reason":"misread"}"#.into(),
    ];
    std::fs::write(dir.path().join("log.jsonl"), log.join("\n")).unwrap();
    let said = ok(&[
        "adjudicate",
        &paths("task.json"),
        &paths("a.jsonl"),
        &paths("b.jsonl"),
        "--questions",
        "eval-questions.jsonl",
        "--log",
        &paths("log.jsonl"),
        "--qrels",
        &paths("new.qrels"),
        "--new-questions",
        &paths("new.jsonl"),
        "--resamples",
        "50",
    ]);
    assert!(
        said.starts_with(
            "2 judged pairs, 2 disputes decided by cy; 1 of 6 questions have new gold"
        ),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.qrels")).unwrap(),
        "evict 0 src/cache.rs 3\nroute 0 src/router.rs 0\n"
    );
    let new = std::fs::read_to_string(dir.path().join("new.jsonl")).unwrap();
    assert!(
        new.lines().next().unwrap().contains(r#""gold":[]"#),
        "{new}"
    );
    assert!(new.contains(r#"{"corpus""#), "the corpus pin is kept");
    let scored = ok(&[
        "evaluate",
        "repo.bundle",
        "--questions",
        "eval-questions.jsonl",
        "--also-questions",
        &paths("new.jsonl"),
        "--retriever",
        "bm25",
        "--chunker",
        "structural",
        "--resamples",
        "50",
        "--format",
        "json",
    ]);
    let scored: Value = serde_json::from_str(&scored).unwrap();
    assert_eq!(scored["questions"], 6);
    // Side by side: the question whose gold was emptied no longer counts as a hit.
    let hit = |report: &Value| -> f64 {
        report["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["arm"] == "structural/bm25" && m["metric"] == "hit@10")
            .unwrap()["mean"]
            .as_f64()
            .unwrap()
    };
    let also = &scored["also"]["report"];
    assert_eq!(also["questions"], 6);
    // How far the two golds agree: every file gold in either set is a pair, and the emptied
    // question's file is one the second gold drops.
    let golds = &scored["also"]["gold_agreement"];
    assert_eq!(golds["confusion"][3][0], 1, "{golds}");
    assert_eq!(golds["confusion"][0][3], 0, "{golds}");
    assert!(
        hit(also) < hit(&scored),
        "{} against {}",
        hit(also),
        hit(&scored)
    );
    let refused = routelens(&[
        "evaluate",
        "repo.bundle",
        "--questions",
        "eval-questions.jsonl",
        "--also-questions",
        "rerank/plan.json",
    ]);
    assert!(!refused.status.success());
    let refused = routelens(&[
        "evaluate",
        "repo.bundle",
        "--questions",
        "eval-questions.jsonl",
        "--also-questions",
        "agreement/../blank.jsonl",
    ]);
    assert_eq!(
        refused.status.code(),
        Some(64),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not the same questions"));
}

#[test]
fn an_arm_or_depth_it_cannot_pool_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    for (pool, says) in [
        ("fts6@2", "fts6"),
        ("fts5", "expected NAME@K"),
        ("fts5@0", "K must be a whole number, 1 or more"),
        ("structural/nearest@2", "nearest"),
    ] {
        let output = routelens(&[
            "label-task",
            "repo.bundle",
            "--questions",
            "eval-questions.jsonl",
            "--pool",
            pool,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{pool}: {stderr}");
    }
    assert!(!out.exists(), "nothing written");
}
