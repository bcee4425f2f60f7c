//! `routelens typesafe-stub`: a loopback server that speaks TypeSafe's System One protocol, for
//! the test suite (Rust integration tests, the SDK check and the browser end-to-end tests).
//!
//! `POST …/v1/systemone` (any prefix, so it also stands behind a gateway path) answers every
//! choice question with the engine's lexical probabilities ([`lexical_response`], seeded so ties
//! break reproducibly), score questions with a lexical rubric, noul questions with 0.5. Usage is
//! an estimate (a token per four characters); a score question about a candidate of a Jev
//! reranking state (`state.candidates.<name>`) is answered with the engine's offline judge of
//! that candidate against `state.query`. `POST …/chat/completions` is the live planner's
//! endpoint: it answers with the offline planner's plan of the issue in the user message, as
//! the message content (`planning.rs`). `GET …/v1/models` lists the model.
//!
//! It checks what the real API checks first: a `Bearer` key (else 401), an uncompressed JSON
//! body (else 415 for `Content-Encoding`), the request's shape (else 422 with FastAPI-style
//! `detail`). Faults are scripted by the key (`fault-<spec>`) or the `X-Stub-Fault` header
//! (`<spec>`), where a spec is a kind and, after `:`, a count:
//!
//! | kind | answer |
//! | --- | --- |
//! | `429`, `529` | that status with `Retry-After: 1` |
//! | `401`, `403`, `422`, `500` | that status with a JSON `error` |
//! | `malformed` | 200 with a body cut off mid-JSON |
//! | `missing-key` | 200 with `option_0`'s probability left out |
//! | `out-of-range` | 200 with `option_0`'s probability 1.5 |
//! | `slow` | a normal answer after the count in milliseconds (default 2,000) |
//!
//! Every answer allows any origin (`Access-Control-Allow-Origin: *`, with `Retry-After` and the
//! request id exposed) and `OPTIONS` preflights are answered, so the browser's direct transport can
//! call the stub from the app's origin as it would call a gateway that allows it.
//!
//! For the status and body kinds, the count is how many requests with that spec fail before the
//! stub answers normally (`429:2` fails twice, then answers); without a count every request
//! fails. The server prints its address on its first line and never prints a key.

mod answers;
mod planning;
mod response;
mod server;

#[cfg(test)]
mod tests;

pub use server::run;

use planning::plan_reply;
use response::json_response;
pub use response::StubResponse;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use routelens_engine::remote::rerank::chat_planner::CHAT_PATH;
use routelens_engine::remote::route::protocol::{DEFAULT_MODEL, SYSTEMONE_PATH};
use serde_json::json;

/// The stub's state: the seed and how often each fault spec has fired.
#[derive(Debug, Default)]
pub struct Stub {
    seed: u64,
    fired: Mutex<HashMap<String, u32>>,
    requests: AtomicU64,
}

/// What the stub needs of a request.
#[derive(Debug, Default)]
pub struct StubRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path (and query).
    pub url: String,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The `X-Stub-Fault` header.
    pub fault: Option<String>,
    /// The `Content-Encoding` header.
    pub content_encoding: Option<String>,
    /// The body.
    pub body: String,
}

fn error(status: u16, message: &str) -> StubResponse {
    json_response(status, json!({ "error": message }))
}

fn unprocessable(loc: &[&str], message: &str) -> StubResponse {
    json_response(
        422,
        json!({"detail": [{"loc": loc, "msg": message, "type": "value_error"}]}),
    )
}

impl Stub {
    /// A stub whose lexical probabilities use `seed`.
    pub fn new(seed: u64) -> Stub {
        Stub {
            seed,
            ..Stub::default()
        }
    }

    /// Whether the fault `spec` fires now (and counts it).
    fn fires(&self, spec: &str, count: Option<u32>) -> bool {
        let Some(limit) = count else {
            return true;
        };
        let mut fired = self
            .fired
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let times = fired.entry(spec.to_string()).or_insert(0);
        if *times < limit {
            *times += 1;
            true
        } else {
            false
        }
    }

    /// The answer to one request.
    pub fn answer(&self, request: &StubRequest) -> StubResponse {
        let number = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
        let mut response = if request.method == "OPTIONS" {
            StubResponse {
                status: 204,
                headers: vec![
                    (
                        "Access-Control-Allow-Methods".into(),
                        "POST, GET, OPTIONS".into(),
                    ),
                    (
                        "Access-Control-Allow-Headers".into(),
                        "Authorization, Content-Type, X-Stub-Fault".into(),
                    ),
                    ("Access-Control-Max-Age".into(), "600".into()),
                ],
                body: String::new(),
                delay_ms: 0,
            }
        } else {
            self.route(request)
        };
        response.headers.extend([
            ("x-typesafe-request-id".into(), format!("stub-{number}")),
            ("Access-Control-Allow-Origin".into(), "*".into()),
            (
                "Access-Control-Expose-Headers".into(),
                "Retry-After, retry-after-ms, x-typesafe-request-id".into(),
            ),
        ]);
        response
    }

    fn route(&self, request: &StubRequest) -> StubResponse {
        let path = request.url.split('?').next().unwrap_or_default();
        if request.method == "GET" && path.ends_with("/v1/models") {
            return json_response(
                200,
                json!({"models": [{"name": DEFAULT_MODEL, "description": "routelens protocol stub", "release_date": "2026-09-15"}]}),
            );
        }
        let chat = path.ends_with(CHAT_PATH);
        if !chat && !path.ends_with(SYSTEMONE_PATH) {
            return error(404, "not found");
        }
        if request.method != "POST" {
            return error(405, "method not allowed");
        }
        let key = request
            .authorization
            .as_deref()
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|key| !key.is_empty());
        let Some(key) = key else {
            return error(401, "missing or malformed Authorization header");
        };
        if let Some(encoding) = &request.content_encoding {
            if !encoding.eq_ignore_ascii_case("identity") {
                return error(
                    415,
                    &format!("the stub does not decode Content-Encoding {encoding}"),
                );
            }
        }
        let spec = request
            .fault
            .clone()
            .or_else(|| key.strip_prefix("fault-").map(str::to_string));
        let (kind, count) = match &spec {
            Some(spec) => match spec.split_once(':') {
                Some((kind, n)) => (kind.to_string(), n.parse::<u32>().ok()),
                None => (spec.clone(), None),
            },
            None => (String::new(), None),
        };
        let fires = |kind_count: Option<u32>| self.fires(spec.as_deref().unwrap_or(""), kind_count);
        let mut delay_ms = 0;
        match kind.as_str() {
            "" => {}
            "slow" => delay_ms = u64::from(count.unwrap_or(2_000)),
            "429" | "529" if fires(count) => {
                let status = kind.parse().unwrap_or(429);
                let mut response = error(
                    status,
                    if status == 429 {
                        "rate limited by the stub"
                    } else {
                        "overloaded (stub)"
                    },
                );
                response.headers.push(("Retry-After".into(), "1".into()));
                return response;
            }
            "401" | "403" | "422" | "500" if fires(count) => {
                let status = kind.parse().unwrap_or(500);
                return error(status, &format!("scripted {status} from the stub"));
            }
            "malformed" if fires(count) => {
                return StubResponse {
                    status: 200,
                    headers: Vec::new(),
                    body: r#"{"model": "jev-1.13.0", "answers": {"route": {"type": "ch"#.into(),
                    delay_ms: 0,
                };
            }
            "missing-key" | "out-of-range" if fires(count) => {}
            "429" | "529" | "401" | "403" | "422" | "500" | "malformed" | "missing-key"
            | "out-of-range"
                if chat =>
            {
                return plan_reply(&request.body, 0)
            }
            "429" | "529" | "401" | "403" | "422" | "500" | "malformed" | "missing-key"
            | "out-of-range" => return self.decide(&request.body, None, 0),
            other => return error(400, &format!("unknown stub fault {other:?}")),
        }
        if chat {
            return plan_reply(&request.body, delay_ms);
        }
        let damage =
            matches!(kind.as_str(), "missing-key" | "out-of-range").then_some(kind.as_str());
        self.decide(&request.body, damage, delay_ms)
    }
}
