//! The response side: the answer types, and turning a reply (status and body) into a checked
//! [`Response`] or a [`DecisionError`], the same for every transport.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{DecisionError, Question, Request, ROUTE_QUESTION};

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
    let value: Value =
        serde_json::from_slice(body.as_bytes()).map_err(|err| DecisionError::Malformed {
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
    crate::json_path::from_slice(body.as_bytes()).map_err(|err| DecisionError::Malformed {
        message: format!("field {}: {}", err.path, err.error),
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
