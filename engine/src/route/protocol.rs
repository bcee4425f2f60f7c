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

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

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

/// A System One request body. It never holds the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// What every question is about: for the router, `User question: ` and the issue's start.
    pub state: String,
    /// The model name, e.g. `jev-1.13.0`.
    pub model: String,
    /// The questions by name; the router asks one, [`ROUTE_QUESTION`].
    pub questions: BTreeMap<String, Question>,
}

impl Request {
    /// The JSON body as sent.
    pub fn to_json(&self) -> String {
        // Serialising these plain types cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The request's size in characters of state and criteria, the measure menus are split by.
    pub fn chars(&self) -> usize {
        let criteria: usize = self
            .questions
            .values()
            .map(|question| match question {
                Question::Choice { criteria, .. } => criteria
                    .0
                    .iter()
                    .map(|(_, text)| text.chars().count())
                    .sum::<usize>(),
                Question::Score { criteria, .. } => {
                    criteria.iter().map(|t| t.chars().count()).sum::<usize>()
                }
            })
            .sum();
        self.state.chars().count() + criteria
    }
}

/// One question of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[non_exhaustive]
pub enum Question {
    /// Pick one of named options; every option gets a probability.
    Choice {
        /// What to decide.
        instructions: String,
        /// The options by key, in menu order.
        criteria: Criteria,
    },
    /// Rate on an ordered rubric; level `i` is the `i`-th description (for the reranker later).
    Score {
        /// What to rate.
        instructions: String,
        /// The levels' descriptions, lowest first (2 to 10 of them).
        criteria: Vec<String>,
    },
}

/// The criteria of a choice question: `(key, text)` pairs in menu order, a JSON object on the
/// wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Criteria(pub Vec<(String, String)>);

impl Criteria {
    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(key, _)| key.as_str())
    }

    /// The text of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, text)| text.as_str())
    }
}

impl Serialize for Criteria {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, text) in &self.0 {
            map.serialize_entry(key, text)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Criteria {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Criteria;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of option keys to option texts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Criteria, A::Error> {
                let mut pairs = Vec::new();
                while let Some((key, text)) = map.next_entry::<String, String>()? {
                    pairs.push((key, text));
                }
                Ok(Criteria(pairs))
            }
        }
        deserializer.deserialize_map(Ordered)
    }
}

/// A System One response, checked by [`parse_response`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The versioned model that answered (may differ from the alias asked for).
    pub model: String,
    /// The answers by question name.
    pub answers: BTreeMap<String, Answer>,
    /// Token counts of this call.
    pub usage: Usage,
}

impl Response {
    /// The probabilities of the router's choice question, by criterion key.
    pub fn route_probabilities(&self) -> Option<&BTreeMap<String, f64>> {
        match self.answers.get(ROUTE_QUESTION)? {
            Answer::Choice { probabilities, .. } => Some(probabilities),
            Answer::Score { .. } => None,
        }
    }
}

/// One answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Answer {
    /// The answer to a choice question.
    Choice {
        /// The key with the highest probability.
        choice: String,
        /// Every key's probability, in [0, 1].
        probabilities: BTreeMap<String, f64>,
        /// The model's confidence in `choice`, in [0, 1].
        confidence: f64,
    },
    /// The answer to a score question.
    Score {
        /// The expected level: the probability-weighted mean of the levels.
        score: f64,
        /// Each level (`"0"`, `"1"`, …) with its description.
        legend: BTreeMap<String, String>,
        /// Each level's probability, keyed as `legend`.
        probabilities: BTreeMap<String, f64>,
        /// The model's confidence, in [0, 1].
        confidence: f64,
    },
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Billable input tokens.
    pub input_tokens: u64,
    /// Output tokens (free at the paper's price).
    pub output_tokens: u64,
}

/// Why a call produced no usable answer. HTTP statuses, transport failures and bad answers are
/// separate variants: only [`DecisionError::RateLimited`] and [`DecisionError::Overloaded`] are
/// worth retrying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|value| {
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

/// Turns an HTTP reply into the call's outcome, whatever the transport: a 2xx body is parsed and
/// checked by [`parse_response`], any other status becomes [`DecisionError::from_status`] with the
/// `Retry-After` and `retry-after-ms` header values.
pub fn decode_reply(
    request: &Request,
    status: u16,
    retry_after: Option<&str>,
    retry_after_ms: Option<&str>,
    body: &str,
) -> Result<Response, DecisionError> {
    if (200..300).contains(&status) {
        parse_response(request, body)
    } else {
        Err(DecisionError::from_status(
            status,
            retry_after,
            retry_after_ms,
            body,
        ))
    }
}

/// Parses and checks a success body against the request it answers: the JSON shape, then every
/// criterion of every choice question present in `probabilities` with a number in [0, 1].
pub fn parse_response(request: &Request, body: &str) -> Result<Response, DecisionError> {
    let value: Value = serde_json::from_str(body).map_err(|err| DecisionError::Malformed {
        message: format!("not JSON: {err}"),
    })?;
    for (name, question) in &request.questions {
        let answer = value
            .get("answers")
            .and_then(|answers| answers.get(name))
            .ok_or_else(|| DecisionError::Malformed {
                message: format!("field answers.{name} is missing"),
            })?;
        let keys: Vec<&str> = match question {
            Question::Choice { criteria, .. } => criteria.keys().collect(),
            Question::Score { .. } => Vec::new(),
        };
        let probabilities = answer.get("probabilities").and_then(Value::as_object);
        let Some(probabilities) = probabilities else {
            return Err(DecisionError::Malformed {
                message: format!("field answers.{name}.probabilities is missing or not an object"),
            });
        };
        for key in keys {
            check_probability(name, key, probabilities.get(key))?;
        }
        for (key, p) in probabilities {
            check_probability(name, key, Some(p))?;
        }
    }
    let mut track = serde_json::Deserializer::from_str(body);
    serde_path_to_error::deserialize(&mut track).map_err(|err| DecisionError::Malformed {
        message: format!("field {}: {}", err.path(), err.inner()),
    })
}

fn check_probability(
    question: &str,
    key: &str,
    value: Option<&Value>,
) -> Result<(), DecisionError> {
    let invalid = |message: String| DecisionError::InvalidAnswer {
        key: key.to_string(),
        message,
    };
    match value {
        None => Err(invalid(format!(
            "answers.{question}.probabilities has no probability for option {key}"
        ))),
        Some(value) => match value.as_f64() {
            Some(p) if (0.0..=1.0).contains(&p) => Ok(()),
            Some(p) => Err(invalid(format!(
                "answers.{question}.probabilities.{key} = {p} is outside [0, 1]"
            ))),
            None => Err(invalid(format!(
                "answers.{question}.probabilities.{key} = {value} is not a number"
            ))),
        },
    }
}

/// The price estimate: dollars per million tokens. It is an estimate from reported usage, not a
/// bill.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pricing {
    /// Dollars per million input tokens (default 0.042, Jev 1.13's rate the paper used).
    pub usd_per_million_input: f64,
    /// Dollars per million output tokens (default 0: output is free).
    pub usd_per_million_output: f64,
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing {
            usd_per_million_input: 0.042,
            usd_per_million_output: 0.0,
        }
    }
}

impl Pricing {
    /// The estimated cost in dollars of these token counts.
    pub fn cost_usd(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.usd_per_million_input
            + output_tokens as f64 * self.usd_per_million_output)
            / 1_000_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(keys: &[&str]) -> Request {
        let criteria = Criteria(
            keys.iter()
                .map(|key| (key.to_string(), format!("text of {key}")))
                .collect(),
        );
        Request {
            state: "User question: x".into(),
            model: DEFAULT_MODEL.into(),
            questions: BTreeMap::from([(
                ROUTE_QUESTION.to_string(),
                Question::Choice {
                    instructions: "pick".into(),
                    criteria,
                },
            )]),
        }
    }

    #[test]
    fn request_serialises_as_the_issue_says_in_menu_order() {
        let req = request(&["option_0", "option_1", "option_10", "option_2", NONE_KEY]);
        let json = req.to_json();
        assert_eq!(
            json,
            r#"{"state":"User question: x","model":"jev-1.13.0","questions":{"route":{"type":"choice","instructions":"pick","criteria":{"option_0":"text of option_0","option_1":"text of option_1","option_10":"text of option_10","option_2":"text of option_2","none_of_these":"text of none_of_these"}}}}"#
        );
        let back: Request = serde_json::from_str(&json).unwrap();
        assert_eq!(back, req);
        let score = r#"{"state":"s","model":"m","questions":{"q":{"type":"score","instructions":"rate","criteria":["low","high"]}}}"#;
        let parsed: Request = serde_json::from_str(score).unwrap();
        assert_eq!(parsed.to_json(), score);
        assert!(serde_json::from_str::<Request>(
            r#"{"state":"s","model":"m","questions":{},"key":"k"}"#
        )
        .is_err());
    }

    #[test]
    fn accepts_a_complete_answer() {
        let req = request(&["option_0", NONE_KEY]);
        let body = r#"{"model":"jev-1.13.0-2026","answers":{"route":{"type":"choice","choice":"option_0","probabilities":{"option_0":0.9,"none_of_these":0.1},"confidence":0.9}},"usage":{"input_tokens":120,"output_tokens":12},"extra":1}"#;
        let response = parse_response(&req, body).unwrap();
        assert_eq!(response.usage.input_tokens, 120);
        assert_eq!(response.route_probabilities().unwrap()["option_0"], 0.9);
    }

    #[test]
    fn names_the_missing_or_bad_key() {
        let req = request(&["option_0", "option_1", NONE_KEY]);
        let answer = |probabilities: &str| {
            format!(
                r#"{{"model":"m","answers":{{"route":{{"type":"choice","choice":"option_0","probabilities":{probabilities},"confidence":0.5}}}},"usage":{{"input_tokens":1,"output_tokens":0}}}}"#
            )
        };
        let err =
            parse_response(&req, &answer(r#"{"option_0":0.5,"none_of_these":0.5}"#)).unwrap_err();
        assert!(
            matches!(&err, DecisionError::InvalidAnswer { key, .. } if key == "option_1"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("no probability for option option_1"),
            "{err}"
        );
        let err = parse_response(
            &req,
            &answer(r#"{"option_0":1.5,"option_1":0,"none_of_these":0}"#),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("option_0 = 1.5 is outside [0, 1]"),
            "{err}"
        );
        let err = parse_response(
            &req,
            &answer(r#"{"option_0":"0.5","option_1":0,"none_of_these":0}"#),
        )
        .unwrap_err();
        assert!(err.to_string().contains("is not a number"), "{err}");
        let err = parse_response(
            &req,
            &answer(r#"{"option_0":-0.1,"option_1":0,"none_of_these":0}"#),
        )
        .unwrap_err();
        assert!(matches!(err, DecisionError::InvalidAnswer { .. }));
    }

    #[test]
    fn malformed_bodies_are_not_answers() {
        let req = request(&["option_0", NONE_KEY]);
        for (body, says) in [
            ("{not json", "not JSON"),
            (
                r#"{"model":"m","answers":{},"usage":{}}"#,
                "answers.route is missing",
            ),
            (
                r#"{"model":"m","answers":{"route":{"type":"choice","choice":"option_0","probabilities":{"option_0":1,"none_of_these":0},"confidence":1}}}"#,
                "usage",
            ),
        ] {
            let err = parse_response(&req, body).unwrap_err();
            assert!(
                matches!(err, DecisionError::Malformed { .. }),
                "{body}: {err}"
            );
            assert!(err.to_string().contains(says), "{body}: {err}");
        }
    }

    #[test]
    fn statuses_become_typed_errors() {
        let e = DecisionError::from_status(429, Some("3"), None, r#"{"error":"slow down"}"#);
        assert_eq!(
            e,
            DecisionError::RateLimited {
                retry_after_ms: Some(3000),
                message: "slow down".into()
            }
        );
        let e = DecisionError::from_status(429, Some("3"), Some("250"), "");
        assert_eq!(e.retry_after_ms(), Some(Some(250)));
        let e =
            DecisionError::from_status(529, Some("Wed, 21 Oct 2026 07:28:00 GMT"), None, "busy");
        assert_eq!(e.retry_after_ms(), Some(None));
        assert_eq!(e.status(), Some(529));
        assert!(matches!(
            DecisionError::from_status(401, None, None, ""),
            DecisionError::Unauthorized { .. }
        ));
        assert!(matches!(
            DecisionError::from_status(403, None, None, ""),
            DecisionError::Forbidden { .. }
        ));
        assert!(
            matches!(DecisionError::from_status(422, None, None, r#"{"detail":[{"msg":"Field required"}]}"#), DecisionError::Unprocessable { message } if message == "Field required")
        );
        assert!(matches!(
            DecisionError::from_status(503, None, None, ""),
            DecisionError::Server { status: 503, .. }
        ));
        assert!(matches!(
            DecisionError::from_status(404, None, None, ""),
            DecisionError::Status { status: 404, .. }
        ));
        assert_eq!(
            DecisionError::from_status(500, None, None, "").retry_after_ms(),
            None
        );
    }

    #[test]
    fn price_is_per_million_input_tokens() {
        let pricing = Pricing::default();
        assert!((pricing.cost_usd(12_200, 1_930) - 0.0005124).abs() < 1e-12);
        assert_eq!(pricing.cost_usd(0, 1_000_000), 0.0);
    }
}
