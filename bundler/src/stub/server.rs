//! The HTTP side of the stub: a loopback `tiny_http` server, one thread per request, turning each
//! request into a [`StubRequest`] and the stub's answer into a response.

use std::io::Write;
use std::sync::Arc;

use tiny_http::{Header, Method, Response};

use super::{Stub, StubRequest};
use crate::cli::StubArgs;
use crate::failure::Failure;
use crate::http::{listen, read_body, request_header};

/// Runs the stub until the process is stopped.
pub fn run(args: &StubArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let server = listen(&args.addr)?;
    let addr = server
        .server_addr()
        .to_ip()
        .map_or_else(|| args.addr.clone(), |addr| addr.to_string());
    let _ = writeln!(out, "routelens: typesafe stub listening on http://{addr}")
        .and_then(|()| out.flush());
    let stub = Arc::new(Stub::new(args.seed));
    for request in server.incoming_requests() {
        let stub = Arc::clone(&stub);
        std::thread::spawn(move || serve_one(&stub, request));
    }
    Ok(())
}

fn serve_one(stub: &Stub, mut request: tiny_http::Request) {
    let header = |name: &str| request_header(&request, name);
    let mut stub_request = StubRequest {
        method: match request.method() {
            Method::Get => "GET".into(),
            Method::Post => "POST".into(),
            Method::Options => "OPTIONS".into(),
            other => other.as_str().to_string(),
        },
        url: request.url().to_string(),
        authorization: header("Authorization"),
        fault: header("X-Stub-Fault"),
        content_encoding: header("Content-Encoding"),
        body: String::new(),
    };
    let Some(body) = read_body(&mut request) else {
        return;
    };
    stub_request.body = String::from_utf8_lossy(&body).into_owned();
    let answer = stub.answer(&stub_request);
    if answer.delay_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(answer.delay_ms));
    }
    let mut response = Response::from_string(answer.body).with_status_code(answer.status);
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    headers.extend(answer.headers);
    for (name, value) in headers {
        if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response = response.with_header(header);
        }
    }
    // A client that hung up is its own business.
    let _ = request.respond(response);
}
