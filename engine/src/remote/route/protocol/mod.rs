//! TypeSafe's System One protocol: the request the router sends, the response it reads, the
//! errors a call can end with, and the price estimate.
//!
//! `POST {base}/v1/systemone` with `Authorization: Bearer <key>` and a JSON body
//! `{"state", "model", "questions": {"route": {"type": "choice", "instructions", "criteria"}}}`;
//! the answer is `{"model", "answers": {"route": {"type": "choice", "choice", "probabilities",
//! "confidence"}}, "usage": {"input_tokens", "output_tokens"}}`. These types hold no key: the key
//! is a header the transport adds, so a request can be recorded and shown without leaking it.
//!
//! The criteria of a choice question are a JSON object whose key order is the menu's order
//! (`option_0`, `option_1`, …, `none_of_these`); [`Criteria`] keeps that order, so a recorded
//! request compares equal to a replayed one field by field and option by option.
//!
//! A response is checked before the router uses it ([`parse_response`]): every criterion of the
//! question must have a probability, and each must be a number in [0, 1]. The official SDK checks
//! only the types; a missing option here would silently prune a branch, so it is an error naming
//! the key.

mod error;
mod error_json;
mod pricing;
mod request;
mod response;

#[cfg(test)]
mod tests;

pub use error::DecisionError;
pub use pricing::Pricing;
pub use request::{Criteria, Question, Request};
pub use response::{decode_reply, parse_response, Answer, Response, Usage};

/// The endpoint's path below the base URL.
pub const SYSTEMONE_PATH: &str = "/v1/systemone";
/// The API's base URL (the official SDK's default).
pub const DEFAULT_BASE: &str = "https://api.typesafe.ai";
/// The model the paper used.
pub const DEFAULT_MODEL: &str = "jev-1.13.0";
/// The name of the router's one question in every request.
pub const ROUTE_QUESTION: &str = "route";
/// The criterion key of the "none of these" option.
pub const NONE_KEY: &str = "none_of_these";
/// The environment variable the command line and the proxy read the key from.
pub const KEY_ENV: &str = "TYPESAFE_API_KEY";

/// The criterion key of the option at `index` in its menu: `option_0`, `option_1`, …
pub fn option_key(index: usize) -> String {
    format!("option_{index}")
}
