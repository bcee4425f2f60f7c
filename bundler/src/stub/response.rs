//! What the stub answers with, shared by its endpoints (`mod.rs`, `planning.rs`).

use serde_json::Value;

/// The stub's answer.
#[derive(Debug)]
pub struct StubResponse {
    /// The status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
    /// Wait this long before answering.
    pub delay_ms: u64,
}

/// A JSON answer with `status`.
pub fn json_response(status: u16, body: Value) -> StubResponse {
    StubResponse {
        status,
        headers: Vec::new(),
        body: body.to_string(),
        delay_ms: 0,
    }
}
