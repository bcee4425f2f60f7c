//! `routelens rerank` with its remote halves against the loopback protocol stub: the live
//! planner over chat completions and the Jev Score judge over System One, their 429s retried,
//! a 403 failing only the judging, and a recorded run replayed with no network.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{ctrl_c_when, start_recording, stub};

fn bundler(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `routelens rerank` on the fixture bundle with these arguments and keys.
fn rerank(args: &[&str], typesafe_key: &str, planner_key: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .arg("rerank")
        .arg(bundler("tests/fixtures/repo.bundle"))
        .args(args)
        .env("TYPESAFE_API_KEY", typesafe_key)
        .env("OPENROUTER_API_KEY", planner_key)
        .output()
        .expect("routelens runs")
}

fn json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

const QUERY: &str = "When is an entry evicted from the cache by dispatch?";

/// Each arm's results and judge counts, which a replay must reproduce (times may differ).
fn outcome(run: &Value) -> Value {
    let arms: Vec<Value> = run["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            serde_json::json!({
                "route": a["route"], "reranker": a["reranker"], "results": a["results"],
                "failed": a["failed_batches"], "calls": a["accounting"]["calls"],
                "tokens": a["accounting"]["input_tokens"], "cost": a["accounting"]["cost_usd"],
            })
        })
        .collect();
    serde_json::json!({"plan": run["plan"], "arms": arms})
}

#[test]
fn a_live_planner_and_the_jev_judge_run_through_the_stub_and_replay_exactly() {
    let server = stub();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let planner_base = format!("{}/api/v1", server.base);
    let live = json(&rerank(
        &[
            "--query",
            QUERY,
            "--route",
            "grep",
            "--route",
            "bm25",
            "--planner",
            "http",
            "--planner-base",
            &planner_base,
            "--reranker",
            "http",
            "--reranker",
            "offline",
            "--base",
            &server.base,
            "--batch",
            "2",
            "--record",
            record.to_str().unwrap(),
            "--format",
            "json",
        ],
        "k",
        "k",
    ));
    let plan = &live["plan"]["actions"];
    assert!(plan.as_array().is_some_and(|a| !a.is_empty()), "{live}");
    assert_eq!(live["planner"]["requests"], 1);
    let arms = live["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 4, "two routes × two rerankers");
    let jev = &arms[0];
    assert_eq!(jev["reranker"], "jev-1.13");
    let pool = jev["pool"].as_u64().unwrap();
    assert!(pool > 0);
    assert_eq!(
        jev["accounting"]["calls"].as_u64().unwrap(),
        pool.div_ceil(2)
    );
    assert!(jev["accounting"]["input_tokens"].as_u64().unwrap() > 0);
    // The stub scores a candidate with the engine's offline judge: the same order comes back,
    // the scores to the last bits the normalisation of the answer's probabilities may move.
    let (judged, offline) = (
        jev["results"].as_array().unwrap(),
        arms[1]["results"].as_array().unwrap(),
    );
    assert_eq!(judged.len(), offline.len());
    for (a, b) in judged.iter().zip(offline) {
        assert_eq!(
            (&a["path"], &a["start_line"]),
            (&b["path"], &b["start_line"])
        );
        let (x, y) = (a["score"].as_f64().unwrap(), b["score"].as_f64().unwrap());
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    assert_eq!(arms[1]["reranker"], "offline");

    let file: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(file["format"], "routelens-rerank-run/1");
    assert_eq!(file["partial"], false);
    assert!(!std::fs::read_to_string(&record).unwrap().contains("Bearer"));
    let replay = format!("replay:{}", record.display());
    let again = json(&rerank(
        &[
            "--query",
            QUERY,
            "--route",
            "grep",
            "--route",
            "bm25",
            "--planner",
            &replay,
            "--reranker",
            &replay,
            "--reranker",
            "offline",
            "--format",
            "json",
        ],
        "",
        "",
    ));
    assert_eq!(outcome(&again), outcome(&live));
    drop(server);
    // Another question is not in the recording: its planning is refused, naming why.
    let other = json(&rerank(
        &[
            "--query",
            "another issue",
            "--route",
            "grep",
            "--planner",
            &replay,
            "--reranker",
            "none",
            "--format",
            "json",
        ],
        "",
        "",
    ));
    assert!(
        other["plan_error"]
            .as_str()
            .unwrap()
            .contains("not recorded"),
        "{other}"
    );
    assert_eq!(
        other["arms"][0]["pool"], 0,
        "no plan, no refill: an empty grep pool"
    );
}

#[test]
fn rate_limits_are_retried_and_a_forbidden_judge_keeps_the_pools_order() {
    let planner_stub = stub();
    let judge_stub = stub();
    let planner_base = format!("{}/v1", planner_stub.base);
    let limited = json(&rerank(
        &[
            "--query",
            QUERY,
            "--route",
            "grep",
            "--planner",
            "http",
            "--planner-base",
            &planner_base,
            "--planner-retry-ms",
            "10",
            "--reranker",
            "http",
            "--base",
            &judge_stub.base,
            "--format",
            "json",
        ],
        "fault-429:1",
        "fault-429:1",
    ));
    assert_eq!(limited["planner"]["retries"], 1, "{limited}");
    assert_eq!(limited["planner"]["requests"], 2);
    assert!(limited["planner"]["latency_ms"].as_u64().is_some());
    let arm = &limited["arms"][0];
    assert_eq!(arm["accounting"]["retries"], 1);
    assert!(arm["failed_batches"].as_array().unwrap().is_empty());

    let forbidden = json(&rerank(
        &[
            "--query",
            QUERY,
            "--route",
            "bm25",
            "--reranker",
            "http",
            "--reranker",
            "none",
            "--base",
            &judge_stub.base,
            "--format",
            "json",
        ],
        "fault-403",
        "",
    ));
    let (jev, none) = (&forbidden["arms"][0], &forbidden["arms"][1]);
    assert_eq!(jev["all_failed"], true);
    assert!(jev["failed_batches"][0][1]
        .as_str()
        .unwrap()
        .contains("403"));
    assert_eq!(
        jev["results"], none["results"],
        "every batch failed: the pool's order"
    );
}

#[test]
fn ctrl_c_keeps_the_judged_pools_in_a_partial_run_file_that_replays() {
    let server = stub();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let args = [
        "--query", QUERY, "--route", "grep", "--route", "bm25", "--batch", "1",
    ];
    // Each judge call takes 1.5 s: the file is first written when the grep pool is judged, and
    // Ctrl-C then lands during the bm25 pool's first call.
    let bundle = bundler("tests/fixtures/repo.bundle");
    let live = ["rerank", bundle.to_str().unwrap(), "--reranker", "http"];
    let child = start_recording(
        &[&live[..], &args, &["--base", &server.base]].concat(),
        &record,
        "fault-slow:1500",
    );
    let output = ctrl_c_when(child, &record, |file| {
        file["questions"][0]["arms"]
            .as_array()
            .is_some_and(|arms| !arms.is_empty())
    });
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "error: interrupted by Ctrl-C (at question \"query\"); the run file keeps what was \
             done, marked partial"
        ),
        "{stderr}"
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(file["partial"], true);
    assert!(file["stopped_by"]
        .as_str()
        .unwrap()
        .starts_with("interrupted by Ctrl-C"));
    let arms = file["questions"][0]["arms"].as_array().unwrap();
    let calls: Vec<(&str, usize)> = arms
        .iter()
        .map(|a| {
            let route = a["route"].as_str().unwrap();
            (route, a["exchanges"].as_array().unwrap().len())
        })
        .collect();
    assert_eq!(calls[0].0, "grep");
    assert!(calls[0].1 >= 2, "the grep pool was judged whole: {calls:?}");
    assert_eq!(
        calls.get(1),
        Some(&("bm25", 1)),
        "the call in flight finished"
    );

    drop(server);
    let replay = format!("replay:{}", record.display());
    let again = rerank(
        &[&args[..], &["--reranker", &replay, "--format", "json"]].concat(),
        "",
        "",
    );
    let note = String::from_utf8_lossy(&again.stderr).to_string();
    assert!(note.contains("is partial (interrupted by Ctrl-C"), "{note}");
    let again = json(&again);
    let replayed = again["arms"].as_array().unwrap();
    assert_eq!(
        replayed[0]["failed_batches"],
        serde_json::json!([]),
        "grep replays whole"
    );
    let failed = replayed[1]["failed_batches"].as_array().unwrap();
    let pool = replayed[1]["pool"].as_u64().unwrap() as usize;
    assert_eq!(
        failed.len(),
        pool - 1,
        "the recorded batch replays, the rest not: {again}"
    );
    for batch in failed {
        let why = batch[1].as_str().unwrap();
        assert!(why.contains("was not recorded"), "{why}");
    }
}

#[test]
fn a_question_set_is_a_study_with_a_jev_arm() {
    let server = stub();
    let set = bundler("tests/fixtures/eval-questions.jsonl");
    let out = json(&rerank(
        &[
            "--questions",
            set.to_str().unwrap(),
            "--route",
            "bm25",
            "--reranker",
            "http",
            "--reranker",
            "none",
            "--base",
            &server.base,
            "--resamples",
            "100",
            "--format",
            "json",
        ],
        "k",
        "",
    ));
    let arms: Vec<&str> = out["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["arm"].as_str().unwrap())
        .collect();
    assert!(
        arms.contains(&"bm25/jev-1.13") && arms.contains(&"bm25/none"),
        "{arms:?}"
    );
}

#[test]
fn remote_choices_are_checked_before_anything_runs() {
    let refused = |args: &[&str]| {
        let out = rerank(args, "", "");
        assert_eq!(
            out.status.code(),
            Some(64),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    assert!(refused(&["--query", "q", "--reranker", "jev"]).contains("unknown reranker"));
    assert!(refused(&["--query", "q", "--planner", "model"]).contains("unknown planner"));
    assert!(refused(&[
        "--query",
        "q",
        "--reranker",
        "http",
        "--reranker",
        "replay:x.json"
    ])
    .contains("one Jev judge"));
}
