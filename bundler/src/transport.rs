//! The native HTTP clients: the decider (System One over a blocking `ureq` agent), the live
//! planner's chat completions, and the wall clock the drivers sleep on between retries.
//!
//! The key comes from `TYPESAFE_API_KEY` and lives only in this struct and the request header it
//! becomes: it is never printed, logged or recorded (a run file holds request bodies, which have
//! no key). Without a key no `Authorization` header is sent, which is what a same-origin gateway
//! such as `routelens serve`'s proxy expects. Retries are not done here: the router's policy
//! decides them and the driver sleeps.

use std::time::{Duration, Instant};

use routelens_engine::remote::rerank::chat_planner::{ChatOutcome, CHAT_PATH};
use routelens_engine::remote::route::protocol::{decode_reply, SYSTEMONE_PATH};
use routelens_engine::remote::route::{Clock, Decider, DecisionError, Request, Response};

use crate::interrupt;

/// Largest response body read (the answers to 254 options are a few kilobytes).
const MAX_BODY_BYTES: u64 = 8 * 1024 * 1024;

/// A blocking agent that hands back every status (the engine decides what a status means), with
/// a per-request timeout.
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .user_agent(concat!("routelens/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// System One over HTTP.
pub struct HttpDecider {
    agent: ureq::Agent,
    url: String,
    key: Option<String>,
}

impl std::fmt::Debug for HttpDecider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("HttpDecider")
            .field("url", &self.url)
            .field("key", &self.key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl HttpDecider {
    /// A client of `{base}/v1/systemone`, with the key (if any) and a per-request timeout.
    pub fn new(base: &str, key: Option<String>, timeout: Duration) -> HttpDecider {
        let agent = agent(timeout);
        HttpDecider {
            agent,
            url: format!("{}{SYSTEMONE_PATH}", base.trim_end_matches('/')),
            key: key.filter(|key| !key.trim().is_empty()),
        }
    }
}

impl Decider for HttpDecider {
    fn decide(&mut self, request: &Request) -> Result<Response, DecisionError> {
        let mut call = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.key {
            call = call.header("Authorization", &format!("Bearer {}", key.trim()));
        }
        let mut response =
            call.send(request.to_json().as_str())
                .map_err(|err| DecisionError::Transport {
                    message: format!("POST {}: {err}", self.url),
                })?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = header("retry-after");
        let retry_after_ms = header("retry-after-ms");
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_string()
            .map_err(|err| DecisionError::Transport {
                message: format!("POST {}: reading the response: {err}", self.url),
            })?;
        decode_reply(
            request,
            status,
            retry_after.as_deref(),
            retry_after_ms.as_deref(),
            &body,
        )
    }

    fn kind(&self) -> String {
        "http".into()
    }
}

/// The wall clock: time since the run started, and real sleeps (or none, for a replay, whose
/// recorded 429s need no waiting).
#[derive(Debug)]
pub struct WallClock {
    start: Instant,
    sleeps: bool,
}

impl WallClock {
    /// A clock starting now; `sleeps` says whether waits before retries really wait.
    pub fn start(sleeps: bool) -> WallClock {
        WallClock {
            start: Instant::now(),
            sleeps,
        }
    }
}

impl Clock for WallClock {
    fn now_ms(&mut self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Sleeps in slices of at most 100 ms, returning early on Ctrl-C, so a retry's wait (up
    /// to 15 s) does not hold an interrupted run.
    fn sleep_ms(&mut self, ms: u64) {
        if !self.sleeps {
            return;
        }
        let until = Instant::now() + Duration::from_millis(ms);
        while !interrupt::requested() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
    }
}

/// The live planner's native client: chat completions over a blocking `ureq` agent. The key
/// (from `OPENROUTER_API_KEY`) lives here and in the header it becomes, nowhere else.
pub struct ChatClient {
    agent: ureq::Agent,
    url: String,
    key: Option<String>,
}

impl std::fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatClient")
            .field("url", &self.url)
            .field("key", &self.key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl ChatClient {
    /// A client of `{base}/chat/completions`.
    pub fn new(base: &str, key: Option<String>, timeout: Duration) -> ChatClient {
        let agent = agent(timeout);
        ChatClient {
            agent,
            url: format!("{}{CHAT_PATH}", base.trim_end_matches('/')),
            key: key.filter(|key| !key.trim().is_empty()),
        }
    }

    /// POSTs one planning request; any reply (whatever its status) is an outcome.
    pub fn send(&self, body: &serde_json::Value) -> ChatOutcome {
        let mut call = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.key {
            call = call.header("Authorization", &format!("Bearer {}", key.trim()));
        }
        let mut response = match call.send(body.to_string().as_str()) {
            Ok(response) => response,
            Err(err) => return ChatOutcome::Transport(format!("POST {}: {err}", self.url)),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        match response
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_string()
        {
            Ok(body) => ChatOutcome::Reply {
                status,
                retry_after,
                body,
            },
            Err(err) => {
                ChatOutcome::Transport(format!("POST {}: reading the reply: {err}", self.url))
            }
        }
    }
}
