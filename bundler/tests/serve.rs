//! `routelens serve` on loopback: start it on a free port (`--port 0`), read the port from the URL
//! it prints, and check the app files, the wasm MIME type, `/site.json`'s studies with and without
//! an archive, the read-only data mount, the bundles and their `/site.json` entries, and the refusal of `..`
//! paths. Requests are written by hand
//! over a TcpStream so that a `..` reaches the server exactly as sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

mod common;

/// The server process; killed when the test ends, also when it fails.
struct Server {
    child: Child,
    port: u16,
    /// The server's stdout, kept open for as long as it runs.
    _stdout: BufReader<ChildStdout>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dist: &Path, data: &Path) -> Server {
    start_with_bundles(dist, data, &data.join("no-bundles-here"))
}

fn start_with_bundles(dist: &Path, data: &Path, bundles: &Path) -> Server {
    start_with_args(dist, data, bundles, &[])
}

/// `routelens serve` with more options.
fn start_with_args(dist: &Path, data: &Path, bundles: &Path, more: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(["serve", "--port", "0", "--dist"])
        .arg(dist)
        .arg("--data")
        .arg(data)
        .arg("--bundles")
        .arg(bundles)
        .args(more)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("routelens serve starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut first = String::new();
    stdout
        .read_line(&mut first)
        .expect("the server prints its URL");
    let port = first
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {first:?}"));
    Server {
        child,
        port,
        _stdout: stdout,
    }
}

/// A response: status code, headers (names in lower case) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn request(port: u16, method: &str, path: &str) -> Reply {
    request_with(port, method, path, "")
}

/// A request with more header lines (each ending in `\r\n`).
fn request_with(port: u16, method: &str, path: &str, headers: &str) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("reads the reply");
    parse_reply(&raw)
}

/// A reply's status line, headers and body.
fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

fn get(port: u16, path: &str) -> Reply {
    request(port, "GET", path)
}

#[test]
fn serves_the_app_and_the_archive() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    let data = root.path().join("fastindex");
    std::fs::create_dir_all(dist.join("assets")).unwrap();
    std::fs::create_dir_all(data.join("paper/data")).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html><title>routelens</title>",
    )
    .unwrap();
    std::fs::write(dist.join("app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dist.join("assets/app.js"), "export {};").unwrap();
    std::fs::write(data.join("paper/data/README.md"), "# archive\n").unwrap();
    std::fs::write(root.path().join("secret.txt"), "outside").unwrap();

    let server = start(&dist, &data);
    let port = server.port;

    let index = get(port, "/");
    assert_eq!(index.status, 200);
    assert_eq!(
        index.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(String::from_utf8_lossy(&index.body).contains("<title>routelens</title>"));
    assert_eq!(get(port, "/?study=fastindex&k=8").status, 200);

    let wasm = get(port, "/app_bg.wasm");
    assert_eq!(wasm.status, 200);
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));
    assert_eq!(wasm.body, b"\0asm\x01\0\0\0");
    assert_eq!(
        get(port, "/assets/app.js").header("content-type"),
        Some("text/javascript; charset=utf-8")
    );

    let site = get(port, "/site.json");
    assert_eq!(site.status, 200);
    assert_eq!(site.header("content-type"), Some("application/json"));
    let index =
        routelens_engine::publish::site::SiteIndex::from_json("site.json", &site.body).unwrap();
    assert_eq!(index.built.tool, "routelens serve");
    assert!(!index.checksums);
    let listed = serde_json::to_value(&index.studies).unwrap();
    assert_eq!(
        listed,
        serde_json::json!([{
            "id": "fastindex",
            "title": "Name-only directory routing (fastindex, 82 cases)",
            "kind": "archive",
            "path": "data/fastindex"
        }])
    );
    assert_eq!(
        get(port, "/studies.json").status,
        404,
        "the old list is gone"
    );
    let readme = get(port, "/data/fastindex/paper/data/README.md");
    assert_eq!(
        (readme.status, readme.body.as_slice()),
        (200, &b"# archive\n"[..])
    );

    for escape in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/data/fastindex/../../secret.txt",
        "/assets/..%2f..%2fsecret.txt",
    ] {
        let reply = get(port, escape);
        assert!(
            matches!(reply.status, 400 | 404),
            "{escape} answered {}",
            reply.status
        );
        assert!(!String::from_utf8_lossy(&reply.body).contains("outside"));
    }
    assert_eq!(get(port, "/missing.js").status, 404);
    assert_eq!(request(port, "POST", "/").status, 405);
    let head = request(port, "HEAD", "/app_bg.wasm");
    assert_eq!((head.status, head.body.len()), (200, 0));
}

#[test]
fn lists_no_studies_without_the_archive() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();

    let server = start(&dist, &root.path().join("no-archive-here"));
    let site = get(server.port, "/site.json");
    let index =
        routelens_engine::publish::site::SiteIndex::from_json("site.json", &site.body).unwrap();
    assert!(index.studies.is_empty());
    assert_eq!(
        get(server.port, "/data/fastindex/paper/data/README.md").status,
        404
    );
}

#[test]
fn refuses_a_missing_dist_folder() {
    let root = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(["serve", "--port", "0", "--dist"])
        .arg(root.path().join("dist"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(66));
    assert!(String::from_utf8_lossy(&output.stderr).contains("build the app first"));
}

/// Copies a folder's files (no links) recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn serves_bundles_and_lists_them() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    let bundles = root.path().join("bundles");
    copy_dir(
        Path::new("tests/fixtures/repo.bundle"),
        &bundles.join("tiny"),
    );
    std::fs::write(
        bundles.join("tiny/questions.jsonl"),
        "{\"id\": \"q1\", \"question\": \"router\", \"gold\": [\"src/router.rs\"]}\n",
    )
    .unwrap();
    copy_dir(
        Path::new("tests/fixtures/repo.bundle"),
        &bundles.join("b-two"),
    );
    // Not listed: no manifest, a hidden name, a name that is not one plain URL segment.
    std::fs::create_dir_all(bundles.join("empty")).unwrap();
    copy_dir(
        Path::new("tests/fixtures/repo.bundle"),
        &bundles.join(".hidden"),
    );
    copy_dir(
        Path::new("tests/fixtures/repo.bundle"),
        &bundles.join("with space"),
    );
    std::fs::write(root.path().join("secret.txt"), "outside").unwrap();

    let server = start_with_bundles(&dist, &root.path().join("no-archive"), &bundles);
    let port = server.port;
    let listing = get(port, "/site.json");
    assert_eq!(listing.status, 200);
    assert_eq!(listing.header("content-type"), Some("application/json"));
    let index =
        routelens_engine::publish::site::SiteIndex::from_json("site.json", &listing.body).unwrap();
    assert_eq!(
        serde_json::to_value(&index.bundles).unwrap(),
        serde_json::json!([
            {"name": "b-two", "base": "bundles/b-two", "questions": null},
            {"name": "tiny", "base": "bundles/tiny", "questions": "bundles/tiny/questions.jsonl"}
        ])
    );

    let manifest = get(port, "/bundles/tiny/manifest.json");
    assert_eq!(manifest.status, 200);
    assert_eq!(manifest.header("cache-control"), Some("no-cache"));
    // Cross-origin isolation, for the page's fine clock.
    for response in [&listing, &manifest] {
        assert_eq!(
            response.header("cross-origin-opener-policy"),
            Some("same-origin")
        );
        assert_eq!(
            response.header("cross-origin-embedder-policy"),
            Some("require-corp")
        );
    }
    let value: serde_json::Value = serde_json::from_slice(&manifest.body).unwrap();
    // A file that may change is revalidated: the same tag again answers 304 with no body, so
    // the worker's fetch of a manifest the page already fetched costs no bytes; another tag, 200.
    let tag = manifest.header("etag").expect("a validator").to_string();
    let again = request_with(
        port,
        "GET",
        "/bundles/tiny/manifest.json",
        &format!("If-None-Match: {tag}\r\n"),
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    let other = request_with(
        port,
        "GET",
        "/bundles/tiny/manifest.json",
        "If-None-Match: \"0-0\"\r\n",
    );
    assert_eq!(other.status, 200);
    assert_eq!(other.body, manifest.body);
    let chunk = value["chunks"][0]["file"].as_str().unwrap();
    let stored = get(port, &format!("/bundles/tiny/{chunk}"));
    assert_eq!(stored.status, 200);
    assert_eq!(
        stored.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(
        stored.body,
        std::fs::read(Path::new("tests/fixtures/repo.bundle").join(chunk)).unwrap()
    );
    let index = value["split_index"]["file"].as_str().unwrap();
    assert_eq!(get(port, &format!("/bundles/tiny/{index}")).status, 200);
    let questions = get(port, "/bundles/tiny/questions.jsonl");
    assert_eq!(questions.status, 200);
    assert_eq!(
        questions.header("content-type"),
        Some("application/x-ndjson")
    );

    assert_eq!(get(port, "/bundles/missing/manifest.json").status, 404);
    assert_eq!(get(port, "/bundles/.hidden/manifest.json").status, 404);
    assert_eq!(
        get(port, "/bundles/tiny/chunks/nothing.deflate").status,
        404
    );
    for escape in [
        "/bundles/tiny/../../secret.txt",
        "/bundles/..%2f..%2fsecret.txt",
        "/bundles/%2e%2e/secret.txt",
    ] {
        let reply = get(port, escape);
        assert!(
            matches!(reply.status, 400 | 404),
            "{escape} answered {}",
            reply.status
        );
        assert!(!String::from_utf8_lossy(&reply.body).contains("outside"));
    }
}

#[test]
fn lists_no_bundles_without_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    let server = start(&dist, &root.path().join("no-archive-here"));
    let listing = get(server.port, "/site.json");
    let index =
        routelens_engine::publish::site::SiteIndex::from_json("site.json", &listing.body).unwrap();
    assert!(index.bundles.is_empty());
    assert_eq!(get(server.port, "/bundles/demo/manifest.json").status, 404);
}

/// A client that requests a large file and does not read it must not hold up anyone else: each
/// request is answered on its own thread (Chromium's parallel archive fetches once stalled here).
#[test]
fn a_slow_reader_does_not_block_other_requests() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    // Larger than the loopback socket buffers, so writing it blocks until the client reads.
    std::fs::write(dist.join("big.bin"), vec![7u8; 32 << 20]).unwrap();
    let server = start(&dist, &root.path().join("no-archive"));
    let mut slow = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(slow, "GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let port = server.port;
    let others: Vec<_> = (0..8)
        .map(|_| std::thread::spawn(move || get(port, "/index.html").status))
        .collect();
    for other in others {
        assert_eq!(other.join().expect("answered within the read timeout"), 200);
    }
    drop(slow);
}

/// Sends raw bytes and reads the reply until the server closes; its status code.
fn raw_status(port: u16, bytes: &[u8]) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // A refusal may come, and the connection close, before every byte is written.
    let _ = stream.write_all(bytes);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    parse_reply(&reply).status
}

/// Every hostile request issue 19 names, sent as bytes to a running `routelens serve`: each is
/// refused, nothing outside the served folders is read, and the next request is served.
#[test]
fn hostile_requests_are_refused_and_the_server_keeps_serving() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(dist.join("sub")).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(root.path().join("secret.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(root.path().join("secret.txt"), dist.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(root.path(), dist.join("sub/up")).unwrap();
    let server = start(&dist, &root.path().join("no-archive"));
    let port = server.port;
    let served = |what: &str| {
        assert_eq!(get(port, "/index.html").status, 200, "after {what}");
    };

    for escape in [
        "/..",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/.%2e/secret.txt",
        "/sub/..\\..\\secret.txt",
        "/sub/%5c..%5csecret.txt",
        "//secret.txt",
        &format!("/{}", root.path().join("secret.txt").display()),
        "/%00secret.txt",
        "/link.txt",
        "/sub/up/secret.txt",
        "http://127.0.0.1/../secret.txt",
        "*",
    ] {
        let reply = get(port, escape);
        assert!(
            matches!(reply.status, 400 | 404),
            "{escape} answered {}",
            reply.status
        );
        assert!(
            !String::from_utf8_lossy(&reply.body).contains("outside"),
            "{escape}"
        );
        served(escape);
    }

    // The proxy: a body beyond the limit is refused before it is read; another origin is refused.
    let big = "POST /typesafe/v1/systemone HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{";
    assert_eq!(raw_status(port, big.as_bytes()), 413);
    served("an oversized body");
    let foreign = "POST /typesafe/v1/systemone HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    assert_eq!(raw_status(port, foreign.as_bytes()), 403);
    served("another origin");

    // Header floods: many headers, one endless header, a head that never ends.
    let many: String = (0..200).map(|i| format!("X-Flood-{i}: 1\r\n")).collect();
    assert_eq!(
        raw_status(port, format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes()),
        431
    );
    let long = format!(
        "GET / HTTP/1.1\r\nX-Long: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    assert_eq!(raw_status(port, long.as_bytes()), 431);
    assert_eq!(raw_status(port, &vec![b'A'; 1 << 20]), 431);
    served("header floods");
    assert_eq!(
        raw_status(port, b"\x16\x03\x01\x02\x00\x01\x00\r\n\r\n"),
        400
    );
    served("a TLS hello");

    // Many slow connections: 64 are held open (the bound), the next is turned away with 503,
    // and once they go the server serves again. The server takes the held connections up as its
    // accept loop gets to them, so the test asks until it sees each answer (a busy machine may be
    // slow to get there). Between asks each held connection sends one more byte of its head, so
    // the server's idle timeout (10 s between reads) never frees a slot while the test waits; the
    // deadline (25 s) stays within the server's whole-request limit (30 s). A connection of the
    // requests above may still count against the bound when the 64 arrive (its handler not yet
    // done on a busy machine): a held one turned away with 503 then is opened again.
    let slow = || {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\nX-Slow: ").unwrap();
        stream.set_nonblocking(true).unwrap();
        stream
    };
    let mut held: Vec<TcpStream> = (0..64).map(|_| slow()).collect();
    // The status of a request once every held connection was found still held (none opened
    // again since the last ask), or the last one at the deadline.
    let until = |status: u16, held: &mut [TcpStream]| {
        let deadline = std::time::Instant::now() + Duration::from_secs(25);
        loop {
            let mut opened_again = 0;
            for stream in held.iter_mut() {
                if turned_away(stream) {
                    *stream = slow();
                    opened_again += 1;
                }
            }
            let got = get(port, "/index.html").status;
            if (got == status && opened_again == 0) || std::time::Instant::now() > deadline {
                return got;
            }
            for stream in held.iter_mut() {
                let _ = stream.write_all(b"a");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let got = until(503, &mut held);
    assert_eq!(
        got,
        503,
        "the 65th connection is turned away; of the 64 held, the server has closed {}",
        closed_by_server(&mut held)
    );
    assert!(
        !held.iter_mut().any(turned_away),
        "all 64 are held when the 65th is turned away"
    );
    drop(held);
    assert_eq!(
        until(200, &mut []),
        200,
        "served again after 64 slow connections"
    );
}

/// Whether the server has answered `stream` (non-blocking) with 503, the bound's refusal; any
/// other answer or close of a held connection fails the test.
fn turned_away(stream: &mut TcpStream) -> bool {
    let mut buffer = [0u8; 256];
    match stream.read(&mut buffer) {
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => false,
        Ok(read)
            if String::from_utf8_lossy(&buffer[..read])
                .split_whitespace()
                .nth(1)
                == Some("503") =>
        {
            true
        }
        other => panic!("a held connection was answered or closed: {other:?}"),
    }
}

/// How many of `held` the server has closed, with the first reply one of them got: the question
/// a failure of the connection bound leaves open (it failed once, on a fresh machine, and has
/// not been reproduced since).
fn closed_by_server(held: &mut [TcpStream]) -> String {
    let mut closed = 0;
    let mut first_reply = None;
    for stream in held.iter_mut() {
        stream
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let mut buffer = [0u8; 256];
        match stream.read(&mut buffer) {
            Ok(0) => closed += 1,
            Ok(read) => {
                closed += 1;
                first_reply.get_or_insert_with(|| {
                    String::from_utf8_lossy(&buffer[..read])
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_string()
                });
            }
            Err(error)
                if error.kind() == std::io::ErrorKind::WouldBlock
                    || error.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => closed += 1,
        }
    }
    format!(
        "{closed} (first reply: {})",
        first_reply.as_deref().unwrap_or("none")
    )
}

/// The Content-Security-Policy on every response: the inline start-up script by its hash,
/// wasm allowed, connections to this server, the decision API base and `--connect-src` only.
#[test]
fn every_response_carries_the_content_security_policy() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let page = "<!doctype html><html><head><script type=\"module\">import init from './a.js'; await init();</script></head><body></body></html>";
    std::fs::write(dist.join("index.html"), page).unwrap();
    std::fs::write(dist.join("a.js"), "export default async () => {};").unwrap();
    let nowhere = root.path().join("nowhere");
    let server = start_with_args(
        &dist,
        &nowhere,
        &nowhere,
        &[
            "--typesafe-base",
            "http://127.0.0.1:9/api",
            "--connect-src",
            "https://studies.example.org/x",
        ],
    );
    let expected = routelens_engine::publish::csp::policy(
        page,
        &[
            routelens_engine::publish::csp::default_connect_origins(),
            vec![
                "http://127.0.0.1:9".into(),
                "https://studies.example.org".into(),
            ],
        ]
        .concat(),
        true,
    );
    for path in ["/", "/a.js", "/missing", "/site.json"] {
        let reply = get(server.port, path);
        let policy = reply.header("content-security-policy").unwrap_or_default();
        assert_eq!(policy, expected, "{path}");
    }
    assert!(expected.contains("connect-src 'self' blob: http://127.0.0.1:9 "));
    assert!(expected.contains(" https://studies.example.org"));
    assert!(expected.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-"));
    assert!(expected.ends_with("frame-ancestors 'none'"));
}

/// Over the paper's own archive and CodeNib's results, each study is listed with the printed
/// numbers routelens carries, checked at start (the counts of a check that ran: they sum to the
/// numbers in the file), and `/printed/<id>.json` answers the committed file; a study with
/// none answers 404.
#[test]
fn lists_each_papers_printed_numbers_checked() {
    use routelens_engine::check::printed::BUILT_IN;
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<title>routelens</title>").unwrap();
    let (Some(archive), Some(cases)) = (common::archive_dir(), common::codenib_cases()) else {
        return;
    };
    let codenib = cases.parent().unwrap().display().to_string();
    let server = start_with_args(
        &dist,
        &archive,
        &root.path().join("none"),
        &["--codenib", &codenib],
    );
    let site = get(server.port, "/site.json");
    let index =
        routelens_engine::publish::site::SiteIndex::from_json("site.json", &site.body).unwrap();
    let ids: Vec<&str> = index.studies.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["fastindex", "codenib"]);
    for (study, (name, text)) in index.studies.iter().zip(BUILT_IN) {
        assert_eq!(study.id, name);
        let path = study.printed.as_deref().unwrap();
        assert_eq!(path, format!("printed/{name}.json"));
        let numbers = routelens_engine::check::printed::PrintedFile::from_json(name, text)
            .unwrap()
            .numbers
            .len();
        let checked = study.checked.unwrap();
        assert_eq!(checked.total(), numbers);
        assert!(checked.reproduced > 0);
        let served = get(server.port, &format!("/{path}"));
        assert_eq!(
            (served.status, served.body.as_slice()),
            (200, text.as_bytes())
        );
    }
    assert_eq!(get(server.port, "/printed/nosuch.json").status, 404);
    assert_eq!(get(server.port, "/printed/fastindex").status, 404);
}

#[test]
fn serves_the_embedding_models_pinned_files_only_and_names_it() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    let model = root.path().join("model");
    std::fs::create_dir(&model).unwrap();
    for (file, body) in [
        ("config.json", "{}"),
        ("model.safetensors", "weights"),
        ("tokenizer.json", "{}"),
        ("vocab.txt", "not served"),
    ] {
        std::fs::write(model.join(file), body).unwrap();
    }
    let no_bundles = root.path().join("none");
    let model_arg = model.display().to_string();
    let server = start_with_args(&dist, &no_bundles, &no_bundles, &["--model", &model_arg]);
    let index = routelens_engine::publish::site::SiteIndex::from_json(
        "site.json",
        &get(server.port, "/site.json").body,
    )
    .unwrap();
    assert_eq!(index.model.as_deref(), Some("models/all-MiniLM-L6-v2"));
    // Files that are not the pinned ones give no narrowed weights: the page fetches the full.
    assert!(!index.model_page_weights);
    assert_eq!(
        get(
            server.port,
            "/models/all-MiniLM-L6-v2/model.safetensors.rlpw"
        )
        .status,
        404
    );
    let weights = get(server.port, "/models/all-MiniLM-L6-v2/model.safetensors");
    assert_eq!(
        (weights.status, weights.body.as_slice()),
        (200, &b"weights"[..])
    );
    for path in [
        "/models/all-MiniLM-L6-v2/vocab.txt",
        "/models/another-model/config.json",
    ] {
        assert_eq!(get(server.port, path).status, 404, "{path}");
    }
    drop(server);

    // A folder without the files: no model named.
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let empty_arg = empty.display().to_string();
    let server = start_with_args(&dist, &no_bundles, &no_bundles, &["--model", &empty_arg]);
    let index = routelens_engine::publish::site::SiteIndex::from_json(
        "site.json",
        &get(server.port, "/site.json").body,
    )
    .unwrap();
    assert_eq!(index.model, None);
    assert_eq!(
        get(server.port, "/models/all-MiniLM-L6-v2/config.json").status,
        404
    );
}

/// The installed model: served with the page's narrowed weights, made (once) and checked
/// against their pin, and site.json says so.
#[test]
fn serves_the_pages_narrowed_weights_of_the_installed_model() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    let model = common::installed_model();
    let none = root.path().join("none");
    let model_arg = model.display().to_string();
    let server = start_with_args(&dist, &none, &none, &["--model", &model_arg]);
    let index = routelens_engine::publish::site::SiteIndex::from_json(
        "site.json",
        &get(server.port, "/site.json").body,
    )
    .unwrap();
    assert!(index.model_page_weights);
    let narrowed = get(
        server.port,
        "/models/all-MiniLM-L6-v2/model.safetensors.rlpw",
    );
    assert_eq!(narrowed.status, 200);
    routelens_engine::retrieval::dense::pin::ModelPin::minilm()
        .check_page_weights(
            narrowed.body.len(),
            &routelens_engine::checksum::sha256_hex(&narrowed.body),
        )
        .unwrap();
}
