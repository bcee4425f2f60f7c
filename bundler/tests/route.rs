//! `routelens route` end to end: the offline decider, record and replay, and the HTTP decider
//! against the protocol stub (`routelens typesafe-stub`) with its scripted faults, directly and
//! through `routelens serve`'s decision proxy. Every server is a child process on a free
//! loopback port, killed when its test ends.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{ctrl_c_when, start, start_recording, stub};

const BIN: &str = env!("CARGO_BIN_EXE_routelens");

fn fixture_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repo.bundle")
}

/// Runs `routelens route` on the fixture bundle with extra arguments and an optional key.
fn route(args: &[&str], key: Option<&str>) -> Output {
    let mut command = Command::new(BIN);
    command
        .arg("route")
        .arg(fixture_bundle())
        .args(args)
        .env_remove("TYPESAFE_API_KEY");
    if let Some(key) = key {
        command.env("TYPESAFE_API_KEY", key);
    }
    command.output().expect("routelens runs")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

const QUERY: &str = "The router forgets cached routes after a reload";

fn http(base: &str, extra: &[&str], key: Option<&str>) -> Output {
    let mut args = vec![
        "--query",
        QUERY,
        "--decider",
        "http",
        "--base",
        base,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    route(&args, key)
}

/// `QUERY` replayed from a run file, as JSON.
fn replayed(record: &Path) -> Output {
    let replay = format!("replay:{}", record.display());
    route(
        &["--query", QUERY, "--decider", &replay, "--format", "json"],
        None,
    )
}

/// The run's fields that a replay must reproduce.
fn outcome(run: &Value) -> Value {
    serde_json::json!({
        "paths": run["paths"], "calls": run["calls"], "input_tokens": run["input_tokens"],
        "output_tokens": run["output_tokens"], "cost_usd": run["cost_usd"],
        "truncated": run["truncated"], "menus": run["menus"], "retries": run["retries"],
    })
}

#[test]
fn offline_routes_toward_the_issue_and_prints_the_issue_json() {
    let output = route(
        &["--query", QUERY, "--decider", "offline", "--format", "json"],
        None,
    );
    assert!(output.status.success(), "{output:?}");
    let run = json(&output);
    assert_eq!(run["paths"][0], "src/router.rs");
    assert_eq!(run["decider"], "offline");
    assert_eq!(run["strategy"], "tree");
    assert_eq!(run["truncated"], false);
    for field in [
        "paths",
        "calls",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "truncated",
        "elapsed_ms",
        "menus",
    ] {
        assert!(run.get(field).is_some(), "missing {field}");
    }
    let menu = &run["menus"][0];
    for field in ["directory", "options", "probabilities", "kept"] {
        assert!(menu.get(field).is_some(), "menu lacks {field}");
    }
    assert_eq!(menu["directory"], "");
    let flat = route(
        &[
            "--query",
            QUERY,
            "--decider",
            "offline",
            "--strategy",
            "flat",
            "--format",
            "json",
        ],
        None,
    );
    let flat = json(&flat);
    assert_eq!(flat["strategy"], "flat");
    // The fixture has no more than 16 files: as in the paper, the tournament has nothing to ask
    // and ranks them in its SHA-256 order.
    assert_eq!(flat["calls"], 0);
    let manifest = common::read_manifest(&fixture_bundle());
    let mut ranked: Vec<&str> = flat["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    ranked.sort_unstable();
    let listed: Vec<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(ranked, listed);
}

#[test]
fn a_recorded_http_run_replays_identically_without_the_network() {
    let server = stub();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let live = http(
        &server.base,
        &["--record", record.to_str().unwrap()],
        Some("secret-key-123"),
    );
    assert!(live.status.success(), "{live:?}");
    let live = json(&live);
    assert_eq!(live["decider"], "http");
    assert!(live["calls"].as_u64().unwrap() >= 1);
    assert!(live["input_tokens"].as_u64().unwrap() > 0);
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(!text.contains("secret-key-123"), "the key was recorded");
    drop(server);
    let again = replayed(&record);
    assert!(again.status.success(), "{again:?}");
    let again = json(&again);
    assert_eq!(outcome(&again), outcome(&live));
    assert_eq!(again["decider"], "replay of http");
    // Another question is refused, naming the request and the field.
    let replay = format!("replay:{}", record.display());
    let other = route(&["--query", "something else", "--decider", &replay], None);
    assert_eq!(other.status.code(), Some(65));
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(
        stderr.contains("request 1 differs from the recorded one in state"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_keeps_the_partial_run_file_and_it_replays() {
    let server = stub();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    // Each call takes 1.5 s, so Ctrl-C lands while the second of the walk's three is in flight.
    let args = live_route(&server.base);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = start_recording(&args, &record, "fault-slow:1500");
    let output = ctrl_c_when(child, &record, |file| {
        file["exchanges"].as_array().is_some_and(|e| !e.is_empty())
    });
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: interrupted by Ctrl-C after 2 calls; the run file keeps it"),
        "{stderr}"
    );
    let live = json(&output);
    assert_eq!(live["error"]["message"], "interrupted by Ctrl-C");
    assert_eq!(
        live["calls"], 2,
        "the call in flight finished, no other was sent"
    );

    let text = std::fs::read_to_string(&record).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["partial"], true);
    assert_eq!(file["exchanges"].as_array().unwrap().len(), 2);
    assert_eq!(file["run"]["error"]["message"], "interrupted by Ctrl-C");
    assert!(!text.contains("fault-slow"), "the key was recorded");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file is left: {leftovers:?}"
    );

    drop(server);
    let again = replayed(&record);
    assert!(again.status.success(), "{again:?}");
    let note = String::from_utf8_lossy(&again.stderr);
    assert!(
        note.contains("the recording is partial (interrupted by Ctrl-C)"),
        "{note}"
    );
    let again = json(&again);
    assert_eq!(outcome(&again), outcome(&live));
    assert_eq!(again["error"], live["error"]);

    // A file cut off by a kill (partial, the run not ended) replays to where it was cut.
    // (Edited as text: a JSON value would sort the requests' keys, which replay compares.)
    let error = text.rfind("\"error\": {").unwrap();
    let end = error + text[error..].find('}').unwrap() + 1;
    assert!(text[error..end].contains("interrupted by Ctrl-C"));
    let killed = format!("{}\"error\": null{}", &text[..error], &text[end..]);
    std::fs::write(&record, killed).unwrap();
    let again = replayed(&record);
    assert!(again.status.success(), "{again:?}");
    assert_eq!(json(&again)["calls"], 2);
    let note = String::from_utf8_lossy(&again.stderr);
    assert!(note.contains("the recording ends here"), "{note}");
}

/// `route` over the fixture bundle with the HTTP decider at `base`, as JSON.
fn live_route(base: &str) -> Vec<String> {
    let bundle = fixture_bundle().display().to_string();
    let args = [
        "route",
        &bundle,
        "--query",
        QUERY,
        "--decider",
        "http",
        "--base",
        base,
        "--format",
        "json",
    ];
    args.map(String::from).to_vec()
}

#[test]
fn ctrl_c_during_a_retry_wait_sends_nothing_more() {
    let server = stub();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    // Every call is answered 429 with Retry-After: 1: Ctrl-C lands in the first wait.
    let args = live_route(&server.base);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = start_recording(&args, &record, "fault-429");
    let output = ctrl_c_when(child, &record, |file| {
        file["exchanges"].as_array().is_some_and(|e| !e.is_empty())
    });
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    let run = json(&output);
    assert_eq!(run["error"]["message"], "interrupted by Ctrl-C");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(file["partial"], true);
    assert_eq!(
        file["exchanges"].as_array().unwrap().len(),
        1,
        "the retry after the wait was not sent"
    );
}

#[test]
fn rate_limits_and_overloads_are_retried() {
    let server = stub();
    let run = json(&http(&server.base, &[], Some("fault-429:1")));
    assert_eq!(run["retries"], 1);
    assert!(run["error"].is_null());
    assert!(
        run["elapsed_ms"].as_u64().unwrap() >= 1_000,
        "Retry-After: 1 was not honoured"
    );
    let run = json(&http(&server.base, &[], Some("fault-529:1")));
    assert_eq!(run["retries"], 1);
    assert!(run["error"].is_null());
}

#[test]
fn other_faults_fail_the_run_with_their_status_and_keep_it() {
    let server = stub();
    for (key, status, says) in [
        ("fault-403", Some(403), "403 forbidden"),
        ("fault-401", Some(401), "401 unauthorized"),
        ("fault-500", Some(500), "500 server error"),
        ("fault-malformed", None, "malformed response: not JSON"),
        (
            "fault-missing-key",
            None,
            "no probability for option option_0",
        ),
        (
            "fault-out-of-range",
            None,
            "option_0 = 1.5 is outside [0, 1]",
        ),
    ] {
        let output = http(&server.base, &[], Some(key));
        assert_eq!(output.status.code(), Some(69), "{key}: {output:?}");
        let run = json(&output);
        assert_eq!(run["error"]["status"], serde_json::json!(status), "{key}");
        let message = run["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{key}: {message}");
        assert_eq!(run["calls"], 0, "{key}");
        assert_eq!(run["retries"], 0, "{key}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("error: routing failed: "),
            "{key}: {stderr}"
        );
        assert!(
            !stderr.contains(key) || key.starts_with("fault-"),
            "{stderr}"
        );
    }
    // Four 429s in a row: three retries, then the run fails with 429.
    let output = http(&server.base, &[], Some("fault-429"));
    let run = json(&output);
    assert_eq!(run["retries"], 3);
    assert_eq!(run["error"]["status"], 429);
}

#[test]
fn a_slow_server_times_out_as_a_transport_failure() {
    let server = stub();
    let output = http(
        &server.base,
        &["--timeout-ms", "300"],
        Some("fault-slow:3000"),
    );
    assert_eq!(output.status.code(), Some(69));
    let run = json(&output);
    let message = run["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("transport: POST "), "{message}");
    assert!(run["error"]["status"].is_null());
    // Slow but within the timeout is fine.
    let ok = http(
        &server.base,
        &["--timeout-ms", "5000"],
        Some("fault-slow:200"),
    );
    assert!(ok.status.success(), "{ok:?}");
}

fn post(port_base: &str, path: &str, origin: Option<&str>, body: &str) -> (u16, String) {
    let host = port_base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).unwrap();
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{origin}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn the_serve_proxy_adds_the_key_so_the_client_needs_none() {
    let server = stub();
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(dist.path().join("index.html"), "<p>app</p>").unwrap();
    let serve = |key: Option<&str>| {
        let mut envs = vec![];
        if let Some(key) = key {
            envs.push(("TYPESAFE_API_KEY", key));
        }
        start(
            &[
                "serve",
                "--port",
                "0",
                "--dist",
                dist.path().to_str().unwrap(),
                "--data",
                "/nonexistent",
                "--bundles",
                "/nonexistent",
                "--typesafe-base",
                &server.base,
            ],
            &envs,
        )
    };
    let proxy = serve(Some("k"));
    let gateway = format!("{}/typesafe", proxy.base);
    // No key on the client side: the proxy adds it.
    let output = http(&gateway, &[], None);
    assert!(output.status.success(), "{output:?}");
    let run = json(&output);
    assert_eq!(run["paths"][0], "src/router.rs");
    // The upstream's faults and Retry-After come through.
    let faulty = serve(Some("fault-403"));
    let output = http(&format!("{}/typesafe", faulty.base), &[], None);
    assert_eq!(json(&output)["error"]["status"], 403);
    // Another site's page may not use the key.
    let (status, body) = post(
        &proxy.base,
        "/typesafe/v1/systemone",
        Some("https://evil.example"),
        "{}",
    );
    assert_eq!(status, 403, "{body}");
    let (status, _) = post(
        &proxy.base,
        "/typesafe/v1/systemone",
        Some(&proxy.base),
        r#"{"model":"m","state":"s","questions":{}}"#,
    );
    assert_eq!(status, 422);
    // Without a key in its environment the proxy says so.
    let keyless = serve(None);
    let (status, body) = post(&keyless.base, "/typesafe/v1/systemone", None, "{}");
    assert_eq!(status, 401);
    assert!(body.contains("TYPESAFE_API_KEY"), "{body}");
}

/// The router's parameters are settings: a cap of one file stops after the first nomination
/// (marked truncated), and settings that cannot route are refused with the setting's name.
#[test]
fn router_parameters_are_command_line_settings() {
    let query = "how are cached responses evicted";
    let capped = json(&route(
        &[
            "--query",
            query,
            "--decider",
            "offline",
            "--max-files",
            "1",
            "--format",
            "json",
        ],
        None,
    ));
    assert_eq!(capped["paths"].as_array().unwrap().len(), 1, "{capped}");
    assert_eq!(capped["truncated"], true);
    let free = json(&route(
        &["--query", query, "--decider", "offline", "--format", "json"],
        None,
    ));
    assert!(free["paths"].as_array().unwrap().len() > 1, "{free}");
    let refused = route(
        &[
            "--query",
            query,
            "--decider",
            "offline",
            "--max-menu-options",
            "1",
        ],
        None,
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("max_menu_options"), "{stderr}");
}
