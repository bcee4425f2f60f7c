//! Shared by the CLI's integration tests: finding the inputs beside the checkout that are never
//! copied into it (the paper's archive, CodeNib's per-issue results).
#![allow(dead_code)] // Each test binary uses part of it.
#![allow(clippy::print_stderr)] // A skipped test must say why on the test output.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};

/// `$<var>`, else `../shared/data/<folder>` beside the checkout, when `<marker>` is a file in it.
/// Otherwise the test skips, saying so, or fails under ROUTELENS_REQUIRE_FIXTURES=1 (the test
/// command and CI set it, so a missing input is a failure there).
fn shared_data(var: &str, folder: &str, marker: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data")
            .join(folder)
    });
    if dir.join(marker).is_file() {
        return Some(dir);
    }
    let reason = format!("{what} is not at {} (set {var})", dir.display());
    if std::env::var_os("ROUTELENS_REQUIRE_FIXTURES").is_some_and(|value| value == "1") {
        panic!("missing fixture: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
    None
}

/// The paper's archive folder (`$ROUTELENS_FASTINDEX`, or `../shared/data/fastindex`).
pub fn archive_dir() -> Option<PathBuf> {
    shared_data(
        "ROUTELENS_FASTINDEX",
        "fastindex",
        "paper/data/README.md",
        "the paper archive",
    )
}

/// The four issue texts kept beside the archive (`$ROUTELENS_FASTINDEX_TEXTS`, or
/// `../shared/data/fastindex-texts`): `<case id>.txt` each.
pub fn fastindex_texts() -> Option<PathBuf> {
    shared_data(
        "ROUTELENS_FASTINDEX_TEXTS",
        "fastindex-texts",
        "PROVENANCE.md",
        "the fastindex issue texts",
    )
}

/// CodeNib's `jev_candidates_cases.csv` (in `$ROUTELENS_CODENIB`, or `../shared/data/codenib`).
pub fn codenib_cases() -> Option<PathBuf> {
    const CASES: &str = "jev_candidates_cases.csv";
    shared_data("ROUTELENS_CODENIB", "codenib", CASES, "CodeNib's results").map(|d| d.join(CASES))
}

/// A child server; killed on drop.
pub struct ChildServer {
    child: Child,
    /// `http://HOST:PORT`.
    pub base: String,
    _stdout: BufReader<ChildStdout>,
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a server and reads `http://HOST:PORT` from the first line it prints that has one.
pub fn start(args: &[&str], envs: &[(&str, &str)]) -> ChildServer {
    let mut command = Command::new(env!("CARGO_BIN_EXE_routelens"));
    command
        .args(args)
        .env_remove("TYPESAFE_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in envs {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the server starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("a first line");
    let base = line
        .split("http://")
        .nth(1)
        .map(|rest| format!("http://{}", rest.trim().trim_end_matches('/')))
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    ChildServer {
        child,
        base,
        _stdout: stdout,
    }
}

/// The protocol stub on a free loopback port.
pub fn stub() -> ChildServer {
    start(&["typesafe-stub", "--addr", "127.0.0.1:0"], &[])
}

/// Starts `routelens ARGS --timeout-ms 20000 --record RECORD` with the stub's fault `key`
/// (`fault-slow:1500`: every call takes 1.5 s), its output piped, for [`ctrl_c_when`].
pub fn start_recording(args: &[&str], record: &std::path::Path, key: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .args(["--timeout-ms", "20000", "--record"])
        .arg(record)
        .env("TYPESAFE_API_KEY", key)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("routelens runs")
}

/// Presses Ctrl-C for `child` (SIGINT, through `kill`, as the terminal would send it) once
/// `ready` holds for the file at `path`, checked every 50 ms for at most a minute (a deadline
/// against a hung test, not a timing assertion), and returns the child's output.
pub fn ctrl_c_when(
    child: Child,
    path: &std::path::Path,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let file = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        if file.as_ref().is_some_and(&ready) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} never got ready",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -INT failed");
    child.wait_with_output().expect("the run ends")
}

/// A bundle folder's manifest as a reader decodes it: `manifest.json` with, for format 6, the
/// file list it names.
pub fn read_manifest(bundle: &std::path::Path) -> routelens_engine::Manifest {
    use routelens_engine::corpus::bundle::{decode_listed_manifest, file_list_of};
    let json = std::fs::read(bundle.join("manifest.json")).unwrap();
    let list = file_list_of(&json)
        .unwrap()
        .map(|list| std::fs::read(bundle.join(list)).unwrap());
    decode_listed_manifest(&json, list.as_deref()).unwrap()
}

/// `routelens ARGS` run in `cwd`.
pub fn routelens(args: &[&str], cwd: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("routelens runs")
}

/// A run's stdout, after asserting it succeeded (its output shown when not).
pub fn ok(output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// `git -C REPO ARGS` with a fixed identity and no user or system configuration.
pub fn git(repo: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// The installed embedding model's folder (`$ROUTELENS_MODELS/all-MiniLM-L6-v2`, else under
/// `~/.cache/routelens/models`). Not a shared input: `scripts/setup.sh` installs it, so a missing
/// model fails, naming that step.
pub fn installed_model() -> PathBuf {
    let model = std::env::var_os("ROUTELENS_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/routelens/models")
        })
        .join("all-MiniLM-L6-v2");
    assert!(
        model.join("model.safetensors").is_file(),
        "missing fixture: the embedding model at {} (scripts/setup.sh installs it)",
        model.display()
    );
    model
}
