//! The HTTP/1.1 server under `serve`, its decision proxy and the protocol stub: loopback only,
//! and bounded in every way a stranger's bytes could stretch it.
//!
//! Hand-written around `httparse` (which parses a request head into a fixed array of headers)
//! because the server crate used before, tiny_http, gives every connection a thread of its own
//! without limit, reads header lines of any length and any number of them, and never times a read
//! out: a page of slow or endless requests could hold the process. Here:
//!
//! - at most [`Limits::connections`] connections are served at once; one more is answered `503`
//!   with `Retry-After: 1` and closed;
//! - a request head larger than [`Limits::head_bytes`] or with more than [`MAX_HEADERS`] headers
//!   is answered `431`; a malformed one `400`;
//! - a body larger than the handler allows (`Content-Length` beyond [`Limits::body_bytes`]) is
//!   answered `413` before it is read, a body without a length `411` (browsers always send one);
//! - every read waits at most [`Limits::read_timeout`], and a request must arrive whole within
//!   [`Limits::request_time`] of its first byte, else `408`;
//! - connections are kept alive between requests (HTTP/1.1), idle ones closed after the read
//!   timeout.

use std::io::{BufWriter, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::failure::Failure;

/// The most headers a request may carry.
pub const MAX_HEADERS: usize = 64;

/// How far a stranger may stretch the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections served at once.
    pub connections: usize,
    /// A request's line and headers, in bytes.
    pub head_bytes: usize,
    /// A request's body, in bytes.
    pub body_bytes: u64,
    /// The longest wait for one read.
    pub read_timeout: Duration,
    /// The longest a request may take to arrive, from its first byte.
    pub request_time: Duration,
}

impl Default for Limits {
    /// Room for a browser's parallel fetches and a System One request (far below a megabyte).
    fn default() -> Self {
        Limits {
            connections: 64,
            head_bytes: 16 * 1024,
            body_bytes: 4 * 1024 * 1024,
            read_timeout: Duration::from_secs(10),
            request_time: Duration::from_secs(30),
        }
    }
}

/// One request, read whole.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, … as sent.
    pub method: String,
    /// The request target as sent (path and query).
    pub url: String,
    /// Every header as sent, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty without one).
    pub body: Vec<u8>,
    /// Whether the connection ends after this request: `Connection: close`, or HTTP/1.0
    /// without `Connection`.
    pub close: bool,
}

impl Request {
    /// A header's value (the name compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What a response carries.
pub enum Body {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// A file sent from disk, with its length.
    File(std::fs::File, u64),
}

/// One response.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Headers besides `Content-Length` and `Connection`, which the server writes.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl Response {
    /// A response of bytes.
    pub fn bytes(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: Body::Bytes(body.into()),
        }
    }

    /// A plain-text response.
    pub fn text(status: u16, body: &str) -> Response {
        Response::bytes(status, "text/plain; charset=utf-8", body)
    }

    /// A header's value (the name compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The response with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What answers each request; called on the connection's thread.
pub type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A socket listening on `addr` (`host:port`; port 0 picks a free one).
pub fn listen(addr: &str) -> Result<TcpListener, Failure> {
    TcpListener::bind(addr).map_err(|source| Failure::Io {
        context: format!("listening on {addr}"),
        source,
    })
}

/// Serves connections from `listener` until the process stops.
pub fn serve(listener: TcpListener, limits: Limits, handler: Arc<Handler>) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        // A connection that failed while being accepted is the client's business.
        let Ok(stream) = stream else { continue };
        if open.fetch_add(1, Ordering::AcqRel) >= limits.connections {
            open.fetch_sub(1, Ordering::AcqRel);
            refuse_busy(stream);
            continue;
        }
        let (open, handler) = (Arc::clone(&open), Arc::clone(&handler));
        std::thread::spawn(move || {
            connection(stream, limits, &*handler);
            open.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

/// Answers a connection beyond the bound without reading it.
fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let response = Response::text(503, "503 busy: too many connections; retry\n")
        .with_header("Retry-After", "1");
    let _ = write_response(&mut stream, response, false, true);
    close_gently(stream, Duration::from_millis(100), 64 * 1024);
}

/// Closes after a refusal without resetting the connection: a socket closed with unread input
/// sends RST, and the client may then lose the refusal it was sent. So the write side is shut
/// first and the input read and dropped, for at most `wait` per read and `limit` bytes.
fn close_gently(mut stream: TcpStream, wait: Duration, limit: u64) {
    if stream.shutdown(std::net::Shutdown::Write).is_err()
        || stream.set_read_timeout(Some(wait)).is_err()
    {
        return;
    }
    let _ = std::io::copy(&mut (&mut stream).take(limit), &mut std::io::sink());
}

/// Serves one connection's requests until it closes, errs or idles out.
fn connection(mut stream: TcpStream, limits: Limits, handler: &Handler) {
    if stream.set_read_timeout(Some(limits.read_timeout)).is_err()
        || stream
            .set_write_timeout(Some(limits.read_timeout * 3))
            .is_err()
    {
        return;
    }
    let mut buffer = Vec::new();
    loop {
        let request = match read_request(&mut stream, &mut buffer, &limits) {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(refusal) => {
                let _ = write_response(&mut stream, refusal, false, true);
                close_gently(stream, Duration::from_millis(500), limits.body_bytes);
                return;
            }
        };
        let close = request.close;
        let head_only = request.method == "HEAD";
        let response = handler(&request);
        if write_response(&mut stream, response, head_only, close).is_err() || close {
            return;
        }
    }
}

/// Reads one request; `Ok(None)` when the client closed or idled out between requests, and
/// `Err(response)` the refusal to send before closing.
fn read_request(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    limits: &Limits,
) -> Result<Option<Request>, Response> {
    let mut started: Option<Instant> = (!buffer.is_empty()).then(Instant::now);
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = find_head_end(buffer) {
            break end;
        }
        if buffer.len() > limits.head_bytes {
            return Err(Response::text(431, "431 request head too large\n"));
        }
        if started.is_some_and(|at| at.elapsed() > limits.request_time) {
            return Err(Response::text(408, "408 request took too long\n"));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(read) => {
                started.get_or_insert_with(Instant::now);
                buffer.extend_from_slice(&chunk[..read]);
            }
            Err(_) if started.is_none() => return Ok(None),
            Err(_) => return Err(Response::text(408, "408 request took too long\n")),
        }
    };
    if head_end > limits.head_bytes {
        return Err(Response::text(431, "431 request head too large\n"));
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&buffer[..head_end]) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(Response::text(400, "400 bad request\n")),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Response::text(431, "431 too many request headers\n"))
        }
        Err(err) => return Err(Response::text(400, &format!("400 bad request: {err}\n"))),
    }
    let (Some(method), Some(url)) = (parsed.method, parsed.path) else {
        return Err(Response::text(400, "400 bad request\n"));
    };
    let mut request = Request {
        method: method.to_string(),
        url: url.to_string(),
        headers: parsed
            .headers
            .iter()
            .map(|h| {
                let value = String::from_utf8_lossy(h.value).into_owned();
                (h.name.to_string(), value)
            })
            .collect(),
        body: Vec::new(),
        close: false,
    };
    request.close = match request.header("Connection") {
        Some(value) => value.eq_ignore_ascii_case("close"),
        None => parsed.version == Some(0),
    };
    buffer.drain(..head_end);
    if request.header("Transfer-Encoding").is_some() {
        return Err(Response::text(
            411,
            "411 send the body with a Content-Length\n",
        ));
    }
    let length = match request.header("Content-Length") {
        None => 0,
        Some(text) => text
            .trim()
            .parse::<u64>()
            .map_err(|_| Response::text(400, "400 bad Content-Length\n"))?,
    };
    if length > limits.body_bytes {
        return Err(Response::text(
            413,
            &format!(
                "413 request body of {length} bytes; at most {} are accepted\n",
                limits.body_bytes
            ),
        ));
    }
    let started = started.unwrap_or_else(Instant::now);
    // Within the limit checked just above, so it fits in memory.
    let length = length as usize;
    while buffer.len() < length {
        if started.elapsed() > limits.request_time {
            return Err(Response::text(408, "408 request took too long\n"));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(_) => return Err(Response::text(408, "408 request took too long\n")),
        }
    }
    request.body = buffer.drain(..length).collect();
    Ok(Some(request))
}

/// The length of the request head (through its blank line), once it has all arrived.
fn find_head_end(buffer: &[u8]) -> Option<usize> {
    buffer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map(|at| at + 4)
}

/// Writes a response; `head_only` leaves the body out (HEAD), `close` says the connection ends.
fn write_response(
    stream: &mut TcpStream,
    response: Response,
    head_only: bool,
    close: bool,
) -> std::io::Result<()> {
    let length = match &response.body {
        Body::Bytes(bytes) => bytes.len() as u64,
        Body::File(_, length) => *length,
    };
    let mut out = BufWriter::new(stream);
    write!(
        out,
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    )?;
    for (name, value) in &response.headers {
        // A header value the handler copied from elsewhere must not split the response.
        if value.contains(['\r', '\n']) || name.contains(['\r', '\n', ':']) {
            continue;
        }
        write!(out, "{name}: {value}\r\n")?;
    }
    write!(out, "Content-Length: {length}\r\n")?;
    write!(
        out,
        "Connection: {}\r\n\r\n",
        if close { "close" } else { "keep-alive" }
    )?;
    if !head_only {
        match response.body {
            Body::Bytes(bytes) => out.write_all(&bytes)?,
            Body::File(file, length) => {
                let copied = std::io::copy(&mut file.take(length), &mut out)?;
                if copied != length {
                    // The file shrank while being sent: the length already promised is wrong,
                    // so the connection cannot carry another response.
                    return Err(std::io::Error::other("file shrank while sent"));
                }
            }
        }
    }
    out.flush()
}

/// The reason phrase of the statuses this server and its handlers send.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server with `limits` whose handler answers with the request's method, target and body
    /// length; returns its port.
    fn start(limits: Limits) -> u16 {
        let listener = listen("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handler = |request: &Request| {
            let text = format!("{} {} {}", request.method, request.url, request.body.len());
            Response::text(200, &text).with_header("X-Injected", "a\r\nSet-Cookie: b=c")
        };
        std::thread::spawn(move || serve(listener, limits, Arc::new(handler)));
        port
    }

    /// Small limits for the refusal tests. The connection bound is one they cannot reach: a
    /// refused connection is closed gently and counts until its thread has drained it, which on
    /// a busy machine can be after the next request arrives. The bound has a test of its own.
    fn small() -> Limits {
        Limits {
            connections: 64,
            head_bytes: 1024,
            body_bytes: 100,
            read_timeout: Duration::from_millis(300),
            request_time: Duration::from_millis(700),
        }
    }

    fn connect(port: u16) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
    }

    /// Sends `bytes` and reads until the server closes.
    fn exchange(port: u16, bytes: &[u8]) -> String {
        let mut stream = connect(port);
        // The server may answer and close before reading everything (a refusal).
        let _ = stream.write_all(bytes);
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        String::from_utf8_lossy(&reply).into_owned()
    }

    fn status(reply: &str) -> u16 {
        reply
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {reply:?}"))
    }

    const CLOSE: &str = "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

    #[test]
    fn keeps_a_connection_alive_and_answers_in_order() {
        let port = start(small());
        let reply = exchange(
            port,
            format!(
                "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /b HTTP/1.1\r\n\r\n{CLOSE}"
            )
            .as_bytes(),
        );
        let bodies: Vec<&str> = reply
            .matches("POST /a 3")
            .chain(reply.matches("GET /b 0"))
            .collect();
        assert_eq!(bodies.len(), 2, "{reply}");
        assert!(reply.contains("GET /next 0"), "{reply}");
        assert!(
            !reply.contains("Set-Cookie"),
            "a header value split the response: {reply}"
        );
    }

    #[test]
    fn refuses_floods_of_headers_and_oversized_heads() {
        let port = start(small());
        let many: String = (0..MAX_HEADERS + 1)
            .map(|i| format!("X-{i}: 1\r\n"))
            .collect();
        // Too many headers, within the size limit of a larger server.
        let roomy = start(Limits {
            head_bytes: 64 * 1024,
            ..small()
        });
        let reply = exchange(roomy, format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes());
        assert_eq!(status(&reply), 431, "{reply}");
        // One endless header line.
        let long = format!("GET / HTTP/1.1\r\nX-Long: {}\r\n\r\n", "a".repeat(4096));
        assert_eq!(status(&exchange(port, long.as_bytes())), 431);
        // A head that never ends.
        assert_eq!(status(&exchange(port, &vec![b'a'; 8192])), 431);
        assert_eq!(status(&exchange(port, b"\x00\x01garbage\r\n\r\n")), 400);
        assert_eq!(
            status(&exchange(port, CLOSE.as_bytes())),
            200,
            "still serving"
        );
    }

    #[test]
    fn refuses_bodies_beyond_the_limit_without_reading_them() {
        let port = start(small());
        let big = "POST / HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n";
        assert_eq!(status(&exchange(port, big.as_bytes())), 413);
        let chunked =
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        assert_eq!(status(&exchange(port, chunked.as_bytes())), 411);
        let bad = "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n";
        assert_eq!(status(&exchange(port, bad.as_bytes())), 400);
        assert_eq!(
            status(&exchange(port, CLOSE.as_bytes())),
            200,
            "still serving"
        );
    }

    #[test]
    fn a_dribbling_request_times_out_and_an_idle_one_is_closed() {
        let port = start(small());
        let mut slow = connect(port);
        // One byte at a time, each within the read timeout, the whole beyond the request time.
        for byte in b"GET / HTTP/1.1\r\nX: aaaaaaaaaaaa".iter() {
            if slow.write_all(&[*byte]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(60));
        }
        let mut reply = Vec::new();
        let _ = slow.read_to_end(&mut reply);
        assert_eq!(status(&String::from_utf8_lossy(&reply)), 408);
        // A connection that sends nothing is closed after the read timeout, without a reply.
        let mut idle = connect(port);
        let mut nothing = Vec::new();
        assert_eq!(idle.read_to_end(&mut nothing).unwrap(), 0);
        assert_eq!(
            status(&exchange(port, CLOSE.as_bytes())),
            200,
            "still serving"
        );
    }

    #[test]
    fn connections_beyond_the_bound_are_turned_away_until_one_ends() {
        // The held connections are accepted before the third (the listener takes them in
        // order), and they idle far longer than the test takes.
        let port = start(Limits {
            connections: 2,
            read_timeout: Duration::from_secs(60),
            request_time: Duration::from_secs(60),
            ..small()
        });
        let held: Vec<TcpStream> = (0..2).map(|_| connect(port)).collect();
        let reply = exchange(port, CLOSE.as_bytes());
        assert_eq!(status(&reply), 503, "{reply}");
        assert!(reply.contains("Retry-After: 1"), "{reply}");
        drop(held);
        // The server notices the closed connections when their threads read end of file: wait
        // for that, however busy the machine is, rather than for a fixed time.
        let served = (0..600).find_map(|_| {
            let status = status(&exchange(port, CLOSE.as_bytes()));
            if status == 503 {
                std::thread::sleep(Duration::from_millis(100));
                return None;
            }
            Some(status)
        });
        assert_eq!(served, Some(200), "a freed place is served again");
    }
}
