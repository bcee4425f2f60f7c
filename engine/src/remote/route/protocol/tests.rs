//! Protocol tests: the request's wire form, answer checks naming the key at fault, malformed
//! bodies, typed status errors and the price.

use std::collections::BTreeMap;

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
    let err = parse_response(&req, &answer(r#"{"option_0":0.5,"none_of_these":0.5}"#)).unwrap_err();
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
    let e = DecisionError::from_status(529, Some("Wed, 21 Oct 2026 07:28:00 GMT"), None, "busy");
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
