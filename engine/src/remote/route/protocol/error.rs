//! The typed errors of a call ([`DecisionError`]) and their decoding from an HTTP status, its
//! Retry-After headers and the server's error body.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a call produced no usable answer. HTTP statuses, transport failures and bad answers are
/// separate variants: only [`DecisionError::RateLimited`] and [`DecisionError::Overloaded`] are
/// worth retrying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    try_from = "super::error_json::ErrorFields"
)]
#[non_exhaustive]
pub enum DecisionError {
    /// 401: the key is missing or wrong.
    #[error("401 unauthorized: the API key was refused ({message})")]
    Unauthorized {
        /// The server's message.
        message: String,
    },
    /// 403: the key may not use this model or endpoint.
    #[error("403 forbidden ({message})")]
    Forbidden {
        /// The server's message.
        message: String,
    },
    /// 422: the server refused the request's shape.
    #[error("422 unprocessable request ({message})")]
    Unprocessable {
        /// The server's message.
        message: String,
    },
    /// 429: too many requests; retried after `retry_after_ms` (or a backoff).
    #[error("429 rate limited ({message})")]
    RateLimited {
        /// The server's Retry-After (or retry-after-ms) in milliseconds.
        retry_after_ms: Option<u64>,
        /// The server's message.
        message: String,
    },
    /// 529: the service is overloaded; retried like 429.
    #[error("529 overloaded ({message})")]
    Overloaded {
        /// The server's Retry-After in milliseconds.
        retry_after_ms: Option<u64>,
        /// The server's message.
        message: String,
    },
    /// Another 5xx.
    #[error("{status} server error ({message})")]
    Server {
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// Another non-success status.
    #[error("{status} ({message})")]
    Status {
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// A success status whose body is not the protocol's JSON.
    #[error("malformed response: {message}")]
    Malformed {
        /// What is wrong, naming the field.
        message: String,
    },
    /// A well-formed response whose answer fails the checks: a missing key, a probability that is
    /// not a number in [0, 1].
    #[error("invalid answer: {message}")]
    InvalidAnswer {
        /// The criterion key at fault (`option_3`, `none_of_these`), or the field.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// No HTTP response: connection refused, timeout, DNS, TLS.
    #[error("transport: {message}")]
    Transport {
        /// What the client said.
        message: String,
    },
    /// A replayed run met a request the recording does not have.
    #[error("replay: {message}")]
    Replay {
        /// What differs.
        message: String,
    },
}

impl DecisionError {
    /// The error for a non-success HTTP status, with the body and the Retry-After headers
    /// (`retry-after-ms` wins over `Retry-After`, as in the official SDK).
    pub fn from_status(
        status: u16,
        retry_after: Option<&str>,
        retry_after_ms: Option<&str>,
        body: &str,
    ) -> DecisionError {
        let message = server_message(body);
        let wait = retry_after_ms
            .and_then(|ms| ms.trim().parse::<f64>().ok())
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map(|ms| ms.round() as u64)
            .or_else(|| parse_retry_after(retry_after?));
        match status {
            401 => DecisionError::Unauthorized { message },
            403 => DecisionError::Forbidden { message },
            422 => DecisionError::Unprocessable { message },
            429 => DecisionError::RateLimited {
                retry_after_ms: wait,
                message,
            },
            529 => DecisionError::Overloaded {
                retry_after_ms: wait,
                message,
            },
            500..=599 => DecisionError::Server { status, message },
            _ => DecisionError::Status { status, message },
        }
    }

    /// The HTTP status this error came with, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            DecisionError::Unauthorized { .. } => Some(401),
            DecisionError::Forbidden { .. } => Some(403),
            DecisionError::Unprocessable { .. } => Some(422),
            DecisionError::RateLimited { .. } => Some(429),
            DecisionError::Overloaded { .. } => Some(529),
            DecisionError::Server { status, .. } | DecisionError::Status { status, .. } => {
                Some(*status)
            }
            _ => None,
        }
    }

    /// The server's requested wait for a retryable error, `None` for every other error.
    pub fn retry_after_ms(&self) -> Option<Option<u64>> {
        match self {
            DecisionError::RateLimited { retry_after_ms, .. }
            | DecisionError::Overloaded { retry_after_ms, .. } => Some(*retry_after_ms),
            _ => None,
        }
    }
}

/// `Retry-After` in seconds (a number) as milliseconds. The HTTP-date form needs a clock, which
/// the engine has not; it counts as absent and the backoff applies.
fn parse_retry_after(value: &str) -> Option<u64> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// The server's message from an error body: `error`, `error.message`, `message` or `detail`
/// when it is JSON, else the text itself, cut to 200 characters.
fn server_message(body: &str) -> String {
    let from_json = serde_json::from_slice::<Value>(body.as_bytes())
        .ok()
        .and_then(|value| {
            let pick = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
            pick(value.get("error"))
                .or_else(|| pick(value.get("error").and_then(|e| e.get("message"))))
                .or_else(|| pick(value.get("message")))
                .or_else(|| pick(value.get("detail")))
                .or_else(|| {
                    let detail = value.get("detail")?.as_array()?;
                    let parts: Vec<String> = detail
                        .iter()
                        .filter_map(|entry| entry.get("msg")?.as_str().map(str::to_string))
                        .collect();
                    (!parts.is_empty()).then(|| parts.join("; "))
                })
        });
    let text = from_json.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        return "no body".into();
    }
    crate::terms::first_chars(&text, 200).to_string()
}
