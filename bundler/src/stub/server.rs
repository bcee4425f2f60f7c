//! The HTTP side of the stub: the loopback server of `http` (bounded connections, a thread
//! each), turning each request into a [`StubRequest`] and the stub's answer into a response.

use std::io::Write;
use std::sync::Arc;

use super::{Stub, StubRequest};
use crate::cli::StubArgs;
use crate::failure::Failure;
use crate::http::{listen, serve, Body, Limits, Request, Response};

/// Runs the stub until the process is stopped.
pub fn run(args: &StubArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let server = listen(&args.addr)?;
    let addr = server
        .local_addr()
        .map_or_else(|_| args.addr.clone(), |addr| addr.to_string());
    let _ = writeln!(out, "routelens: typesafe stub listening on http://{addr}")
        .and_then(|()| out.flush());
    let stub = Arc::new(Stub::new(args.seed));
    serve(
        server,
        Limits::default(),
        Arc::new(move |request: &Request| serve_one(&stub, request)),
    );
    Ok(())
}

fn serve_one(stub: &Stub, request: &Request) -> Response {
    let header = |name: &str| request.header(name).map(str::to_string);
    let stub_request = StubRequest {
        method: request.method.clone(),
        url: request.url.clone(),
        authorization: header("Authorization"),
        fault: header("X-Stub-Fault"),
        content_encoding: header("Content-Encoding"),
        body: String::from_utf8_lossy(&request.body).into_owned(),
    };
    let answer = stub.answer(&stub_request);
    if answer.delay_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(answer.delay_ms));
    }
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    headers.extend(answer.headers);
    Response {
        status: answer.status,
        headers,
        body: Body::Bytes(answer.body.into_bytes()),
    }
}
