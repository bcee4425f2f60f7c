//! The worker's message loop: calls arrive as JSON strings, are answered one at a time in the
//! order they came (a queue, so no two touch the session at once), and each answer goes back as
//! a JSON string with its call's id. `cancel` is heard at once, between a long call's steps.
//! The first message out is `ready`: calls posted before the module was running would be lost,
//! so the page holds them until then.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use routelens_engine::live::live_session::{Answer, AnswerBody, Call, CallBody};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use crate::calls;
use crate::host::{self, post, scope, Progress};

/// The id of the `ready` announcement (the page numbers its calls from 1).
pub const READY_ID: u64 = 0;

thread_local! {
    static QUEUE: RefCell<VecDeque<Call>> = const { RefCell::new(VecDeque::new()) };
    static BUSY: Cell<bool> = const { Cell::new(false) };
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
                host::cancel(call);
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
            bytes: None,
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
        host::forget(id);
        post(&Answer { id, body });
    }
    BUSY.with(|b| b.set(false));
}
