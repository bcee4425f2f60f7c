//! What the worker has of its host, shared by the message loop ([`crate::channel`]) and the calls
//! ([`crate::calls`]): the live session it holds, posting to the page, a call's progress and
//! cancel flag, the clock, yielding to the event loop, fetching (whole, or read as it streams in
//! with a count of bytes), the browser's Cache API and its SHA-256.

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
            body: AnswerBody::Progress { text, bytes: None },
        });
    }

    /// Posts a progress line with the bytes fetched of `total`.
    pub fn say_bytes(self, text: String, done: u64, total: u64) {
        post(&Answer {
            id: self.id,
            body: AnswerBody::Progress {
                text,
                bytes: Some([done, total]),
            },
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

/// The bytes at `url`, read as they stream in: `on_bytes` hears the count so far (at most every
/// 100 ms) and returns `false` to stop, which stops the download and fails with "cancelled".
pub async fn fetch_metered(
    url: &str,
    mut on_bytes: impl FnMut(u64) -> bool,
) -> Result<Vec<u8>, String> {
    let response: web_sys::Response =
        wasm_bindgen_futures::JsFuture::from(scope().fetch_with_str(url))
            .await
            .map_err(|error| format!("{url}: {}", js_message(&error)))?
            .unchecked_into();
    if !response.ok() {
        return Err(format!(
            "{url}: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let body = response
        .body()
        .ok_or_else(|| format!("{url}: the response has no body"))?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut bytes = Vec::new();
    let mut told = f64::NEG_INFINITY;
    loop {
        let step = wasm_bindgen_futures::JsFuture::from(reader.read())
            .await
            .map_err(|error| format!("{url}: {}", js_message(&error)))?;
        let done =
            js_sys::Reflect::get(&step, &JsValue::from_str("done")).map_or(true, |d| d.is_truthy());
        if done {
            return Ok(bytes);
        }
        let value = js_sys::Reflect::get(&step, &JsValue::from_str("value"))
            .map_err(|error| format!("{url}: {}", js_message(&error)))?;
        bytes.extend(js_sys::Uint8Array::new(&value).to_vec());
        if now_ms() - told > 100.0 {
            told = now_ms();
            if !on_bytes(bytes.len() as u64) {
                let _ = reader.cancel();
                return Err(format!("{url}: cancelled"));
            }
        }
    }
}

/// A JavaScript error's message.
fn js_message(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}

/// The browser's cache named `name`, or why there is none (the Cache API needs a secure
/// context: https, or a loopback address).
pub async fn open_cache(name: &str) -> Result<web_sys::Cache, String> {
    let caches = scope().caches().map_err(|error| js_message(&error))?;
    let cache = wasm_bindgen_futures::JsFuture::from(caches.open(name))
        .await
        .map_err(|error| js_message(&error))?;
    Ok(cache.unchecked_into())
}

/// The bytes `cache` holds under `key`, if any.
pub async fn cached(cache: &web_sys::Cache, key: &str) -> Option<Vec<u8>> {
    let found = wasm_bindgen_futures::JsFuture::from(cache.match_with_str(key))
        .await
        .ok()?;
    let response: web_sys::Response = found.dyn_into().ok()?;
    let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer().ok()?)
        .await
        .ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The lower-case hex SHA-256 of `bytes`, by the browser's SubtleCrypto (native code: the
/// engine's hash compiled to wasm took about half a second for the model's 91 MB), or by the
/// engine where the page is not a secure context and SubtleCrypto is absent.
pub async fn sha256_hex(bytes: &[u8]) -> String {
    match subtle_sha256(bytes).await {
        Some(digest) => routelens_engine::checksum::hex(&digest),
        None => routelens_engine::checksum::sha256_hex(bytes),
    }
}

/// SubtleCrypto's SHA-256 of `bytes` (it copies them when called), if the worker has it.
async fn subtle_sha256(bytes: &[u8]) -> Option<Vec<u8>> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let subtle = scope.crypto().ok()?.subtle();
    let promise = subtle.digest_with_str_and_u8_array("SHA-256", bytes).ok()?;
    let digest = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    Some(js_sys::Uint8Array::new(&digest).to_vec())
}

/// Keeps `bytes` in `cache` under `key`.
pub async fn keep(cache: &web_sys::Cache, key: &str, bytes: &[u8]) -> Result<(), String> {
    let body = js_sys::Uint8Array::from(bytes);
    let response = web_sys::Response::new_with_opt_buffer_source(Some(&body))
        .map_err(|error| js_message(&error))?;
    wasm_bindgen_futures::JsFuture::from(cache.put_with_str(key, &response))
        .await
        .map_err(|error| js_message(&error))?;
    Ok(())
}

/// Drops `cache`'s entry under `key`.
pub async fn forget_cached(cache: &web_sys::Cache, key: &str) {
    let _ = wasm_bindgen_futures::JsFuture::from(cache.delete_with_str(key)).await;
}
