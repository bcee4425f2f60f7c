//! The Rerank view's remote halves, driven from the page: the live planner (chat completions
//! through gloo-net, or a run file's recorded planning) and the Jev judge (the engine's
//! [`JevRun`] stepped through a [`Transport`]: HTTP, `routelens serve`'s proxy, or a run file's
//! recorded judgments). Keys go into the `Authorization` header and nowhere else; the run file
//! holds request bodies only.

use gloo_net::http::Request as HttpRequest;
use routelens_engine::remote::rerank::chat_planner::{
    ChatOutcome, ChatReplayer, PlannerAccounting, PlannerPayload, PlannerRun, PlannerSettings,
    CHAT_PATH,
};
use routelens_engine::remote::rerank::jev::{JevRun, JevSettings};
use routelens_engine::remote::rerank::record::{RecordedArm, RerankRunFile};
use routelens_engine::remote::rerank::settings::RerankArm;

use crate::api;
use crate::decisions::{sleep_ms, Transport};
use crate::error::Error;

/// One plan asked of the live planner or replayed: the plan's JSON text (read by the worker)
/// or why there is none, with the exchanges and their cost.
pub(super) struct Planned {
    pub text: Result<String, String>,
    pub exchanges: Vec<routelens_engine::remote::rerank::chat_planner::ChatExchange>,
    pub accounting: PlannerAccounting,
}

/// Asks for a plan: over HTTP when `replay` is none (the key typed into the page, if any), else
/// from the run file's recording of this question.
pub(super) async fn plan(
    payload: &PlannerPayload,
    settings: PlannerSettings,
    key: &str,
    replay: Option<(&RerankRunFile, &str)>,
    progress: impl Fn(String),
) -> Planned {
    let mut run = PlannerRun::new(payload, settings.clone());
    let mut replayer = replay.map(|(file, id)| {
        ChatReplayer::new(
            file.question(id, &payload.issue)
                .map(|q| q.planning.clone())
                .unwrap_or_default(),
        )
    });
    let url = format!("{}{CHAT_PATH}", settings.base.trim_end_matches('/'));
    while let Some(call) = run.next_call() {
        let (outcome, ms) = match replayer.as_mut() {
            Some(replayer) => replayer.answer(&call.body),
            None => {
                if call.wait_ms > 0 {
                    progress(format!(
                        "planner: retry {} in {} ms (rate limited)",
                        call.attempt, call.wait_ms
                    ));
                    sleep_ms(call.wait_ms).await;
                }
                progress(format!("planner: asking {}", settings.model));
                let started = api::now_ms();
                let outcome = post_chat(&url, key, &call.body).await;
                (outcome, (api::now_ms() - started).max(0.0) as u64)
            }
        };
        run.answer(outcome, ms);
    }
    let (exchanges, accounting) = run.record();
    Planned {
        text: run
            .result()
            .cloned()
            .unwrap_or_else(|| Err("no reply".into())),
        exchanges,
        accounting,
    }
}

/// POSTs one planning request.
async fn post_chat(url: &str, key: &str, body: &serde_json::Value) -> ChatOutcome {
    let mut builder = HttpRequest::post(url).header("Content-Type", "application/json");
    if !key.trim().is_empty() {
        builder = builder.header("Authorization", &format!("Bearer {}", key.trim()));
    }
    let request = match builder.body(body.to_string()) {
        Ok(request) => request,
        Err(err) => return ChatOutcome::Transport(format!("{url}: {err}")),
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) => return ChatOutcome::Transport(api::fetch_failed(url, &err)),
    };
    let status = response.status();
    let retry_after = response.headers().get("retry-after");
    match response.text().await {
        Ok(body) => ChatOutcome::Reply {
            status,
            retry_after,
            body,
        },
        Err(err) => ChatOutcome::Transport(format!("{url}: reading the reply: {err}")),
    }
}

/// Judges every pending arm of one question with Jev through `transport` (a replay's transport
/// is made per arm from the run file), recording each pool into `record`. `cancelled` is asked
/// before every call: a cancelled arm keeps its unjudged batches in the pool's order, marked.
pub(super) async fn judge(
    arms: &mut [RerankArm],
    (id, query): (&str, &str),
    (jev, batch): (&JevSettings, usize),
    (transport, replay): (&mut Option<Transport>, Option<&RerankRunFile>),
    record: &mut RerankRunFile,
    cancelled: impl Fn() -> bool,
    progress: impl Fn(String),
) -> Result<(), Error> {
    for arm in arms.iter_mut().filter(|a| a.judge_pending) {
        let mut per_arm = match replay {
            Some(file) => Some(Transport::Replay(Box::new(
                file.judge_replayer(id, query, arm.route),
            ))),
            None => None,
        };
        let Some(sender) = per_arm.as_mut().or(transport.as_mut()) else {
            return Err(Error::refused("the Jev judge has no transport"));
        };
        let mut run = JevRun::new(query, arm.candidates.clone(), batch, jev.clone());
        let batches = arm.candidates.len().div_ceil(batch.max(1));
        while let Some(call) = run.next_call() {
            if cancelled() {
                break;
            }
            if call.wait_ms > 0 && sender.is_remote() {
                progress(format!(
                    "{} pool: batch {} retried in {} ms",
                    arm.route.name(),
                    call.batch + 1,
                    call.wait_ms
                ));
                sleep_ms(call.wait_ms).await;
            }
            progress(format!(
                "{} pool: judging batch {} of {batches} with {}",
                arm.route.name(),
                call.batch + 1,
                jev.model
            ));
            let started = api::now_ms();
            let outcome = sender.send(&call.request).await;
            run.answer(outcome, (api::now_ms() - started).max(0.0) as u64);
            api::next_tick().await;
        }
        let (reranked, exchanges) = run.finish();
        arm.reranked = reranked;
        arm.judge_pending = false;
        record.question_mut(id, query).arms.push(RecordedArm {
            route: arm.route,
            exchanges,
            reranked: arm.reranked.clone(),
        });
    }
    Ok(())
}
