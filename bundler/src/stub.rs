//! `routelens typesafe-stub`: a loopback server that speaks TypeSafe's System One protocol, for
//! the test suite (Rust integration tests, the SDK check and the browser end-to-end tests).
//!
//! `POST …/v1/systemone` (any prefix, so it also stands behind a gateway path) answers every
//! choice question with the engine's lexical probabilities ([`lexical_response`], seeded so ties
//! break reproducibly), score questions with a lexical rubric, noul questions with 0.5. Usage is
//! an estimate (a token per four characters). `GET …/v1/models` lists the model.
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

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use routelens_engine::route::protocol::{DEFAULT_MODEL, SYSTEMONE_PATH};
use routelens_engine::route::{lexical_response, Criteria, Question, Request};
use routelens_engine::terms::{extract_terms, tokenize};
use serde_json::{json, Map, Value};
use tiny_http::{Header, Method, Response, Server};

use crate::cli::StubArgs;
use crate::failure::Failure;

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

fn json_response(status: u16, body: Value) -> StubResponse {
    StubResponse {
        status,
        headers: Vec::new(),
        body: body.to_string(),
        delay_ms: 0,
    }
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
        if !path.ends_with(SYSTEMONE_PATH) {
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
            | "out-of-range" => return self.decide(&request.body, None, 0),
            other => return error(400, &format!("unknown stub fault {other:?}")),
        }
        let damage =
            matches!(kind.as_str(), "missing-key" | "out-of-range").then_some(kind.as_str());
        self.decide(&request.body, damage, delay_ms)
    }

    /// A normal answer, optionally damaged.
    fn decide(&self, body: &str, damage: Option<&str>, delay_ms: u64) -> StubResponse {
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
                    score(&state, levels)
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
            state: state.to_string(),
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

/// Runs the stub until the process is stopped.
pub fn run(args: &StubArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let server = Server::http(args.addr.as_str()).map_err(|err| Failure::Io {
        context: format!("listening on {}", args.addr),
        source: std::io::Error::other(err.to_string()),
    })?;
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
    let header = |name: &str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str().to_string())
    };
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
    let mut body = Vec::new();
    if request
        .as_reader()
        .take(64 * 1024 * 1024)
        .read_to_end(&mut body)
        .is_err()
    {
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use routelens_engine::route::{parse_response, DecisionError, RouteSettings};

    fn route_request() -> Request {
        let options = vec![
            routelens_engine::route::MenuOption {
                path: "src/parser.rs".into(),
                is_dir: false,
                text: "src/parser.rs: - [parser.rs](parser.rs)".into(),
            },
            routelens_engine::route::MenuOption {
                path: "docs".into(),
                is_dir: true,
                text: "docs: - [docs/](docs/); subtopics: guide".into(),
            },
        ];
        routelens_engine::route::menu::choice_request(
            "User question: the parser fails",
            "pick",
            &options,
            &RouteSettings::default(),
        )
    }

    fn post(stub: &Stub, key: &str, body: &str) -> StubResponse {
        stub.answer(&StubRequest {
            method: "POST".into(),
            url: "/v1/systemone".into(),
            authorization: Some(format!("Bearer {key}")),
            body: body.into(),
            ..StubRequest::default()
        })
    }

    #[test]
    fn answers_choice_questions_the_client_accepts() {
        let stub = Stub::new(1);
        let request = route_request();
        let answer = post(&stub, "k", &request.to_json());
        assert_eq!(answer.status, 200);
        let response = parse_response(&request, &answer.body).unwrap();
        let p = response.route_probabilities().unwrap();
        assert!(p["option_0"] > p["option_1"]);
        assert!(answer
            .headers
            .iter()
            .any(|(n, v)| n == "x-typesafe-request-id" && v == "stub-1"));
    }

    #[test]
    fn scripted_faults_fire_as_counted() {
        let stub = Stub::new(1);
        let body = route_request().to_json();
        let first = post(&stub, "fault-429:1", &body);
        assert_eq!(first.status, 429);
        assert!(first.headers.contains(&("Retry-After".into(), "1".into())));
        assert_eq!(post(&stub, "fault-429:1", &body).status, 200);
        assert_eq!(post(&stub, "fault-403", &body).status, 403);
        assert_eq!(post(&stub, "fault-403", &body).status, 403);
        let request = route_request();
        let missing = post(&stub, "fault-missing-key", &body);
        let err = parse_response(&request, &missing.body).unwrap_err();
        assert!(matches!(err, DecisionError::InvalidAnswer { ref key, .. } if key == "option_0"));
        let bad = post(&stub, "fault-out-of-range", &body);
        assert!(parse_response(&request, &bad.body)
            .unwrap_err()
            .to_string()
            .contains("1.5"));
        let cut = post(&stub, "fault-malformed", &body);
        assert!(matches!(
            parse_response(&request, &cut.body),
            Err(DecisionError::Malformed { .. })
        ));
        assert_eq!(post(&stub, "fault-slow:5", &body).delay_ms, 5);
        assert_eq!(post(&stub, "fault-nonsense", &body).status, 400);
    }

    #[test]
    fn refuses_what_the_api_refuses() {
        let stub = Stub::new(1);
        let body = route_request().to_json();
        let no_key = stub.answer(&StubRequest {
            method: "POST".into(),
            url: "/v1/systemone".into(),
            body: body.clone(),
            ..StubRequest::default()
        });
        assert_eq!(no_key.status, 401);
        assert_eq!(post(&stub, "k", "{").status, 422);
        assert_eq!(
            post(&stub, "k", r#"{"model":"m","state":"s","questions":{}}"#).status,
            422
        );
        let zstd = stub.answer(&StubRequest {
            method: "POST".into(),
            url: "/gateway/v1/systemone".into(),
            authorization: Some("Bearer k".into()),
            content_encoding: Some("zstd".into()),
            body,
            ..StubRequest::default()
        });
        assert_eq!(zstd.status, 415);
    }

    #[test]
    fn browsers_may_call_it_from_another_origin() {
        let stub = Stub::new(1);
        let preflight = stub.answer(&StubRequest {
            method: "OPTIONS".into(),
            url: "/v1/systemone".into(),
            ..StubRequest::default()
        });
        assert_eq!(preflight.status, 204);
        let has = |r: &StubResponse, name: &str, part: &str| {
            r.headers.iter().any(|(n, v)| n == name && v.contains(part))
        };
        assert!(has(
            &preflight,
            "Access-Control-Allow-Headers",
            "Authorization"
        ));
        assert!(has(&preflight, "Access-Control-Allow-Origin", "*"));
        let limited = post(&stub, "fault-429", &route_request().to_json());
        assert!(has(
            &limited,
            "Access-Control-Expose-Headers",
            "Retry-After"
        ));
    }

    #[test]
    fn score_questions_get_a_legend_and_an_expected_score() {
        let stub = Stub::new(1);
        let answer = post(
            &stub,
            "k",
            r#"{"model":"m","state":"urgent outage","questions":{"u":{"type":"score","criteria":["can wait","urgent outage now"]}}}"#,
        );
        let value: Value = serde_json::from_str(&answer.body).unwrap();
        let u = &value["answers"]["u"];
        assert_eq!(u["legend"]["1"], "urgent outage now");
        assert!(u["score"].as_f64().unwrap() > 0.5);
        let p0 = u["probabilities"]["0"].as_f64().unwrap();
        let p1 = u["probabilities"]["1"].as_f64().unwrap();
        assert!((p0 + p1 - 1.0).abs() < 1e-12);
    }
}
