//! The page's side of the live worker (`worker/`, the engine's live session in a Web Worker):
//! started on the first call, so that a page showing studies never loads it; one per page and
//! shared by every view, so a bundle loaded for Search is loaded for Context. Calls are numbered,
//! held until the worker says it is ready, and each answer goes to its caller; progress lines go
//! to the caller's callback. If the worker dies, every waiting call fails with the reason and
//! the next call starts a new worker.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures_channel::oneshot;
use routelens_engine::live::live_session::{Answer, AnswerBody, Call, CallBody};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::error::{Error, Result};

/// The worker's script: Trunk's loader shim for the `routelens-worker` binary, relative to the
/// page (the site may live under a sub-path).
const WORKER_SCRIPT: &str = "routelens-worker_loader.js";

/// The id the worker's `ready` announcement carries.
const READY_ID: u64 = 0;

/// Who hears a call's progress lines.
pub type OnProgress = Rc<dyn Fn(Meter)>;

/// A progress line, with the bytes fetched of the total while a large file comes in.
#[derive(Debug, Clone, PartialEq)]
pub struct Meter {
    /// What is happening, in words.
    pub text: String,
    /// Bytes fetched and expected.
    pub bytes: Option<[u64; 2]>,
}

struct Pending {
    progress: OnProgress,
    done: oneshot::Sender<Result<AnswerBody>>,
}

struct Client {
    worker: Worker,
    ready: Cell<bool>,
    held: RefCell<Vec<String>>,
    next_id: Cell<u64>,
    pending: RefCell<BTreeMap<u64, Pending>>,
}

thread_local! {
    static CLIENT: RefCell<Option<Rc<Client>>> = const { RefCell::new(None) };
}

/// A call in flight: its id (for [`cancel`]) and its answer.
pub struct Running {
    /// The call's id.
    pub id: u64,
    answer: oneshot::Receiver<Result<AnswerBody>>,
}

impl Running {
    /// The final answer; `Err` with the worker's message when the call failed.
    pub async fn answer(self) -> Result<AnswerBody> {
        self.answer.await.unwrap_or_else(|_| {
            Err(Error::Worker(
                "the live worker went away before answering".into(),
            ))
        })
    }
}

/// Sends `body` to the worker (starting it if needed); `progress` hears each progress line.
pub fn start(body: CallBody, progress: impl Fn(String) + 'static) -> Result<Running> {
    start_metered(body, Rc::new(move |meter: Meter| progress(meter.text)))
}

/// [`start`], `progress` hearing each line with its byte count when it has one. Not generic:
/// one copy of the call's sending in the page's module, whoever calls.
pub fn start_metered(body: CallBody, progress: OnProgress) -> Result<Running> {
    let client = client()?;
    let id = client.next_id.get();
    client.next_id.set(id + 1);
    let (done, answer) = oneshot::channel();
    client
        .pending
        .borrow_mut()
        .insert(id, Pending { progress, done });
    send(&client, &Call { id, body })?;
    Ok(Running { id, answer })
}

/// [`start`] and wait for the final answer.
pub async fn call(body: CallBody, progress: impl Fn(String) + 'static) -> Result<AnswerBody> {
    start(body, progress)?.answer().await
}

/// Asks the worker to stop call `id` at its next step (it then answers with what it has).
pub fn cancel(id: u64) {
    if let Some(client) = CLIENT.with(|c| c.borrow().clone()) {
        let _ = send(
            &client,
            &Call {
                id: 0,
                body: CallBody::Cancel { call: id },
            },
        );
    }
}

/// The message for an answer that does not fit its call (a worker of another build). It names
/// the answer's kind only: printing the answer whole would put a debug printer of every answer
/// type into the page's first load.
pub fn unexpected(answer: &AnswerBody) -> Error {
    Error::Worker(format!(
        "the live worker answered out of turn: a {:?} answer",
        answer.kind()
    ))
}

fn send(client: &Client, call: &Call) -> Result<()> {
    let json = serde_json::to_string(call).map_err(|error| {
        Error::Worker(format!("cannot write a call to the live worker: {error}"))
    })?;
    if !client.ready.get() {
        client.held.borrow_mut().push(json);
        return Ok(());
    }
    client
        .worker
        .post_message(&JsValue::from_str(&json))
        .map_err(|error| Error::Browser(format!("cannot reach the live worker: {error:?}")))
}

fn client() -> Result<Rc<Client>> {
    if let Some(client) = CLIENT.with(|c| c.borrow().clone()) {
        return Ok(client);
    }
    let worker = Worker::new(WORKER_SCRIPT).map_err(|error| {
        Error::Browser(format!(
            "cannot start the live worker {WORKER_SCRIPT}: {error:?}"
        ))
    })?;
    let client = Rc::new(Client {
        worker,
        ready: Cell::new(false),
        held: RefCell::new(Vec::new()),
        next_id: Cell::new(READY_ID + 1),
        pending: RefCell::new(BTreeMap::new()),
    });
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        match serde_json::from_slice::<Answer>(text.as_bytes()) {
            Ok(answer) => deliver(answer),
            Err(error) => stop(format!(
                "the live worker sent what this page cannot read ({error})"
            )),
        }
    });
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(|event: ErrorEvent| {
        let message = event.message();
        stop(if message.is_empty() {
            format!("the live worker {WORKER_SCRIPT} failed to start or stopped")
        } else {
            format!("the live worker stopped: {message}")
        });
    });
    client
        .worker
        .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    client
        .worker
        .set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The handlers live as long as the page (a stopped worker's are never called again).
    on_message.forget();
    on_error.forget();
    CLIENT.with(|c| *c.borrow_mut() = Some(client.clone()));
    Ok(client)
}

fn deliver(answer: Answer) {
    let Some(client) = CLIENT.with(|c| c.borrow().clone()) else {
        return;
    };
    if answer.id == READY_ID {
        match answer.body {
            AnswerBody::Failed { message } => stop(message),
            _ => {
                client.ready.set(true);
                for json in client.held.take() {
                    let _ = client.worker.post_message(&JsValue::from_str(&json));
                }
            }
        }
        return;
    }
    if !answer.body.is_final() {
        if let AnswerBody::Progress { text, bytes } = answer.body {
            // Called with no borrow held: the callback may start another call.
            let progress = client
                .pending
                .borrow()
                .get(&answer.id)
                .map(|pending| pending.progress.clone());
            if let Some(progress) = progress {
                progress(Meter { text, bytes });
            }
        }
        return;
    }
    let Some(pending) = client.pending.borrow_mut().remove(&answer.id) else {
        return;
    };
    let _ = pending.done.send(match answer.body {
        AnswerBody::Failed { message } => Err(Error::Worker(message)),
        body => Ok(body),
    });
}

/// Fails every waiting call with `why` and forgets the worker.
fn stop(why: String) {
    let Some(client) = CLIENT.with(|c| c.borrow_mut().take()) else {
        return;
    };
    client.worker.terminate();
    for (_, pending) in client.pending.take() {
        let _ = pending.done.send(Err(Error::Worker(why.clone())));
    }
}
