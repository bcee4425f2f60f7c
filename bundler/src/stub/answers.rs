//! The stub's normal answers to a well-formed request: the body's shape checked as the API
//! checks it (422 otherwise), choice questions answered with the engine's lexical probabilities,
//! score questions with a lexical rubric, and the scripted damage applied.

use std::collections::BTreeMap;

use routelens_engine::remote::rerank::pools::Candidate;
use routelens_engine::remote::rerank::reranker::{Judge, OfflineJudge};
use routelens_engine::remote::route::{lexical_response, Criteria, Question, Request};
use routelens_engine::terms::{extract_terms, tokenize};
use serde_json::{json, Map, Value};

use super::response::{json_response, StubResponse};
use super::{unprocessable, Stub};

impl Stub {
    /// A normal answer, optionally damaged.
    pub(super) fn decide(&self, body: &str, damage: Option<&str>, delay_ms: u64) -> StubResponse {
        let value: Value = match serde_json::from_str(body) {
            Ok(value) => value,
            Err(err) => return unprocessable(&["body"], &format!("JSON decode error: {err}")),
        };
        let Some(model) = value.get("model").and_then(Value::as_str) else {
            return unprocessable(&["body", "model"], "Field required");
        };
        let state = match value.get("state") {
            Some(Value::String(text)) => text.clone(),
            Some(other @ (Value::Object(_) | Value::Array(_))) => other.to_string(),
            _ => return unprocessable(&["body", "state"], "Field required"),
        };
        let Some(questions) = value
            .get("questions")
            .and_then(Value::as_object)
            .filter(|q| !q.is_empty())
        else {
            return unprocessable(&["body", "questions"], "at least one question is required");
        };
        let mut answers = Map::new();
        let mut input_tokens = body.chars().count().div_ceil(4) as u64;
        for (name, question) in questions {
            let kind = question.get("type").and_then(Value::as_str).unwrap_or("");
            let answer = match kind {
                "choice" => {
                    let Some(criteria) = question
                        .get("criteria")
                        .and_then(Value::as_object)
                        .filter(|c| !c.is_empty())
                    else {
                        return unprocessable(
                            &["body", "questions", name, "choice", "criteria"],
                            "a nonempty object is required",
                        );
                    };
                    self.choice(&state, model, name, criteria)
                }
                "score" => {
                    let Some(levels) = question
                        .get("criteria")
                        .and_then(Value::as_array)
                        .filter(|c| !c.is_empty())
                    else {
                        return unprocessable(
                            &["body", "questions", name, "score", "criteria"],
                            "a nonempty list is required",
                        );
                    };
                    match value.get("state").and_then(|s| jev_candidate(s, name)) {
                        Some((query, candidate)) if levels.len() == 4 => {
                            jev_score(&query, candidate, levels)
                        }
                        _ => score(&state, levels),
                    }
                }
                "noul" => json!({"type": "noul", "noul": 0.5}),
                _ => {
                    return unprocessable(
                        &["body", "questions", name, "type"],
                        "expected choice, score, noul or box",
                    )
                }
            };
            answers.insert(name.clone(), answer);
        }
        if let Some(damage) = damage {
            for answer in answers.values_mut() {
                if let Some(Value::Object(p)) = answer.get_mut("probabilities") {
                    if damage == "missing-key" {
                        p.remove("option_0");
                    } else {
                        p.insert("option_0".into(), json!(1.5));
                    }
                }
            }
        }
        input_tokens = input_tokens.max(1);
        let mut response = json_response(
            200,
            json!({
                "model": model,
                "answers": answers,
                "usage": {"input_tokens": input_tokens, "output_tokens": questions.len()},
            }),
        );
        response.delay_ms = delay_ms;
        response
    }

    fn choice(&self, state: &str, model: &str, name: &str, criteria: &Map<String, Value>) -> Value {
        let pairs = criteria
            .iter()
            .map(|(key, text)| {
                let text = match text {
                    Value::String(text) => text.clone(),
                    Value::Null => key.clone(),
                    other => other.to_string(),
                };
                (key.clone(), text)
            })
            .collect();
        let request = Request {
            state: state.into(),
            model: model.to_string(),
            questions: BTreeMap::from([(
                name.to_string(),
                Question::Choice {
                    instructions: String::new(),
                    criteria: Criteria(pairs),
                },
            )]),
        };
        let response = lexical_response(&request, self.seed, model);
        response
            .answers
            .get(name)
            .and_then(|answer| serde_json::to_value(answer).ok())
            .unwrap_or(Value::Null)
    }
}

/// The query and the candidate a Jev reranking state holds under the question's name.
fn jev_candidate(state: &Value, name: &str) -> Option<(String, Candidate)> {
    let query = state.get("query")?.as_str()?.to_string();
    let node = state.get("candidates")?.get(name)?;
    let text = |field: &str| {
        node.get(field)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Some((
        query,
        Candidate {
            chunk: 0,
            name: text("name"),
            file: text("file"),
            start_line: 0,
            end_line: 0,
            content: text("content"),
        },
    ))
}

/// A Jev candidate's score answer: the engine's offline judge of it against the query, so a
/// reranking through the stub orders the pool as the offline reranker does.
fn jev_score(query: &str, candidate: Candidate, levels: &[Value]) -> Value {
    let judged = OfflineJudge
        .judge(query, &[candidate])
        .ok()
        .and_then(|mut all| all.pop())
        .unwrap_or([0.25; 4]);
    let probabilities: Map<String, Value> = judged
        .iter()
        .enumerate()
        .map(|(i, p)| (i.to_string(), json!(p)))
        .collect();
    let legend: Map<String, Value> = levels
        .iter()
        .enumerate()
        .map(|(i, level)| (i.to_string(), level.clone()))
        .collect();
    let expected: f64 = judged.iter().enumerate().map(|(i, p)| i as f64 * p).sum();
    let confidence = judged.iter().copied().fold(0.0, f64::max);
    json!({"type": "score", "score": expected, "legend": legend, "probabilities": probabilities, "confidence": confidence})
}

/// A score answer: each level weighted 2^(issue terms its description shares).
fn score(state: &str, levels: &[Value]) -> Value {
    let terms = extract_terms(state);
    let weights: Vec<f64> = levels
        .iter()
        .map(|level| {
            let text = level
                .as_str()
                .map_or_else(|| level.to_string(), str::to_string);
            let tokens = tokenize(&text);
            let shared = terms.iter().filter(|t| tokens.contains(t)).count();
            2f64.powi(shared.min(30) as i32)
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let probabilities: Map<String, Value> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| (i.to_string(), json!(w / total)))
        .collect();
    let legend: Map<String, Value> = levels
        .iter()
        .enumerate()
        .map(|(i, level)| (i.to_string(), level.clone()))
        .collect();
    let expected: f64 = weights
        .iter()
        .enumerate()
        .map(|(i, w)| i as f64 * w / total)
        .sum();
    let confidence = weights.iter().copied().fold(0.0, f64::max) / total;
    json!({"type": "score", "score": expected, "legend": legend, "probabilities": probabilities, "confidence": confidence})
}
