//! What the worker has of its host, shared by the message loop ([`crate::channel`]) and the calls
//! ([`crate::calls`]): the live session it holds, posting to the page, a call's progress and
//! cancel flag, the clock, yielding to the event loop, and fetching.

use std::cell::RefCell;
use std::collections::BTreeSet;

use routelens_engine::live::live_session::{Answer, AnswerBody, LiveSession};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

thread_local! {
    static SESSION: RefCell<LiveSession> = RefCell::new(LiveSession::new());
    static CANCELLED: RefCell<BTreeSet<u64>> = const { RefCell::new(BTreeSet::new()) };
}

/// The worker's global scope.
pub fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Marks call `id` cancelled (heard at once, read between a long call's steps).
pub fn cancel(id: u64) {
    CANCELLED.with(|c| c.borrow_mut().insert(id));
}

/// Forgets call `id`'s cancel flag once it is answered.
pub fn forget(id: u64) {
    CANCELLED.with(|c| c.borrow_mut().remove(&id));
}

/// Posts an answer as JSON.
pub fn post(answer: &Answer) {
    match serde_json::to_string(answer) {
        Ok(json) => {
            let _ = scope().post_message(&JsValue::from_str(&json));
        }
        Err(error) => {
            let failed = Answer {
                id: answer.id,
                body: AnswerBody::Failed {
                    message: format!("the live worker cannot write its answer: {error}"),
                },
            };
            if let Ok(json) = serde_json::to_string(&failed) {
                let _ = scope().post_message(&JsValue::from_str(&json));
            }
        }
    }
}

/// Runs `f` with the session borrowed (never across an await).
pub fn with_session<T>(f: impl FnOnce(&mut LiveSession) -> T) -> T {
    SESSION.with(|s| f(&mut s.borrow_mut()))
}

/// One call's line back to the page: progress and whether it was cancelled.
#[derive(Clone, Copy)]
pub struct Progress {
    /// The call's id.
    pub id: u64,
}

impl Progress {
    /// Posts a progress line.
    pub fn say(self, text: String) {
        post(&Answer {
            id: self.id,
            body: AnswerBody::Progress { text },
        });
    }

    /// Whether the page cancelled this call.
    pub fn cancelled(self) -> bool {
        CANCELLED.with(|c| c.borrow().contains(&self.id))
    }
}

/// The worker's clock in ms (`performance.now()`).
pub fn now_ms() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

/// Lets the worker's event loop run (to hear `cancel`).
pub async fn next_tick() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The bytes at `url`, or a message naming it and the HTTP status.
pub async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|error| format!("{url}: {error}"))?;
    if response.status() == 404 {
        return Err(format!("{url}: not found (HTTP 404)"));
    }
    if !response.ok() {
        return Err(format!(
            "{url}: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    response
        .binary()
        .await
        .map_err(|error| format!("{url}: {error}"))
}
