//! Stub tests: choice answers the client accepts, scripted faults as counted, the API's refusals,
//! cross-origin headers and score answers.

use super::*;
use routelens_engine::remote::route::{parse_response, DecisionError, Request, RouteSettings};

fn route_request() -> Request {
    let options = vec![
        routelens_engine::remote::route::MenuOption {
            path: "src/parser.rs".into(),
            is_dir: false,
            text: "src/parser.rs: - [parser.rs](parser.rs)".into(),
        },
        routelens_engine::remote::route::MenuOption {
            path: "docs".into(),
            is_dir: true,
            text: "docs: - [docs/](docs/); subtopics: guide".into(),
        },
    ];
    routelens_engine::remote::route::menu::choice_request(
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
    let value: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let u = &value["answers"]["u"];
    assert_eq!(u["legend"]["1"], "urgent outage now");
    assert!(u["score"].as_f64().unwrap() > 0.5);
    let p0 = u["probabilities"]["0"].as_f64().unwrap();
    let p1 = u["probabilities"]["1"].as_f64().unwrap();
    assert!((p0 + p1 - 1.0).abs() < 1e-12);
}
