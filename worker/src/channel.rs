//! The worker's message loop: calls arrive as JSON strings, are answered one at a time in the
//! order they came (a queue, so no two touch the session at once), and each answer goes back as
//! a JSON string with its call's id. `cancel` is heard at once, between a long call's steps.
//! The first message out is `ready`: calls posted before the module was running would be lost,
//! so the page holds them until then.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, VecDeque};

use routelens_engine::live_session::{Answer, AnswerBody, Call, CallBody, LiveSession};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::calls;

/// The id of the `ready` announcement (the page numbers its calls from 1).
pub const READY_ID: u64 = 0;

thread_local! {
    static SESSION: RefCell<LiveSession> = RefCell::new(LiveSession::new());
    static QUEUE: RefCell<VecDeque<Call>> = const { RefCell::new(VecDeque::new()) };
    static BUSY: Cell<bool> = const { Cell::new(false) };
    static CANCELLED: RefCell<BTreeSet<u64>> = const { RefCell::new(BTreeSet::new()) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Installs the message handler and announces that the worker is ready.
pub fn start() {
    console_error_panic_hook::set_once();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        match serde_json::from_str::<Call>(&text) {
            Ok(Call {
                body: CallBody::Cancel { call },
                ..
            }) => {
                CANCELLED.with(|c| c.borrow_mut().insert(call));
            }
            Ok(call) => enqueue(call),
            Err(error) => post(&Answer {
                id: READY_ID,
                body: AnswerBody::Failed {
                    message: format!("the live worker cannot read a call ({error}): {text:.200}"),
                },
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&Answer {
        id: READY_ID,
        body: AnswerBody::Progress {
            text: "ready".into(),
        },
    });
}

fn enqueue(call: Call) {
    QUEUE.with(|q| q.borrow_mut().push_back(call));
    if !BUSY.with(|b| b.replace(true)) {
        wasm_bindgen_futures::spawn_local(pump());
    }
}

async fn pump() {
    while let Some(call) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
        let id = call.id;
        let body = calls::answer(Progress { id }, call.body).await;
        CANCELLED.with(|c| c.borrow_mut().remove(&id));
        post(&Answer { id, body });
    }
    BUSY.with(|b| b.set(false));
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
    id: u64,
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
