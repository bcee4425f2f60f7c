//! What `serve`, its decision proxy and the protocol stub share about `tiny_http`: listening,
//! reading a request's headers and body, and constant response headers.

use std::io::Read;

use tiny_http::{Header, Request, Server};

use crate::failure::Failure;

/// The largest body read: a request's, or the proxy's upstream answer (a System One exchange is
/// far smaller).
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// A server listening on `addr` (`host:port`; port 0 picks a free one).
pub fn listen(addr: &str) -> Result<Server, Failure> {
    Server::http(addr).map_err(|err| Failure::Io {
        context: format!("listening on {addr}"),
        source: std::io::Error::other(err.to_string()),
    })
}

/// A request header's value (the name compared without case).
pub fn request_header(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_string())
}

/// A request's body, at most [`MAX_BODY_BYTES`] of it, or `None` when reading fails.
pub fn read_body(request: &mut Request) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY_BYTES)
        .read_to_end(&mut body)
        .ok()?;
    Some(body)
}

/// A header from fixed ASCII text.
pub fn header(name: &str, value: &str) -> Header {
    // Only called with constants and MIME types, which are valid header text.
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|()| unreachable!("invalid constant header {name}: {value}"))
}
