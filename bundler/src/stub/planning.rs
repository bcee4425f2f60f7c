//! The stub's chat-completions answers, for the live planner: the user message's payload read
//! as the planner sends it (`{"repo", "issue", …}`), and the offline planner's plan of the issue
//! returned as the message content, in the strict schema's shape (every field present). Usage is
//! an estimate: a token per four characters in, per four characters of the plan out.

use routelens_engine::remote::rerank::planner::offline_plan;
use serde_json::{json, Value};

use super::response::{json_response, StubResponse};

/// The answer to one planning request.
pub(super) fn plan_reply(body: &str, delay_ms: u64) -> StubResponse {
    let invalid = |message: &str| json_response(400, json!({"error": {"message": message}}));
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return invalid("the body is not JSON");
    };
    let Some(model) = value.get("model").and_then(Value::as_str) else {
        return invalid("model is required");
    };
    let user = value
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str());
    let Some(user) = user else {
        return invalid("messages must hold a user message");
    };
    let issue = serde_json::from_str::<Value>(user)
        .ok()
        .and_then(|payload| payload["issue"].as_str().map(str::to_string))
        .unwrap_or_else(|| user.to_string());
    // No corpus here: every term counts as held once, so terms keep their order in the issue.
    let actions = offline_plan(&issue, &|_| 1).map_or_else(Vec::new, |plan| plan.actions);
    let content = json!({ "actions": actions }).to_string();
    let mut response = json_response(
        200,
        json!({
            "id": "stub-plan",
            "model": model,
            "choices": [{
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }],
            "usage": {
                "prompt_tokens": body.chars().count().div_ceil(4),
                "completion_tokens": content.chars().count().div_ceil(4),
                "cost": 0.0,
            },
        }),
    );
    response.delay_ms = delay_ms;
    response
}
