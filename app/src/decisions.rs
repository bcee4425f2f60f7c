//! The browser's transport for the decision API (TypeSafe's System One): the engine's offline
//! decider, a recorded run's replayer, or HTTP through gloo-net to `{base}/v1/systemone` or to
//! the same-origin proxy of `routelens serve`. The key goes into the `Authorization` header and
//! nowhere else. The Route view's driver (`views/route/run.rs`) steps a session through it.

use gloo_net::http::Request as HttpRequest;
use routelens_engine::remote::route::protocol::decode_reply;
use routelens_engine::remote::route::{
    Decider, DecisionError, OfflineDecider, Replayer, Request, Response,
};

use crate::api;
use crate::error::Error;

/// The decision API's public base URL, the http decider's default.
pub const DEFAULT_API_BASE: &str = "https://api.typesafe.ai";

/// The same-origin proxy of `routelens serve` (it adds the key from its environment).
pub const PROXY_URL: &str = "typesafe/v1/systemone";

/// The decision API's path under a base URL.
const SYSTEMONE_PATH: &str = "/v1/systemone";

/// Who answers the decision API's calls: the Route view's decider, the Rerank view's Jev judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeciderKind {
    /// The engine's lexical scorer: no key, no network.
    #[default]
    Offline,
    /// The decision API (or a gateway) from the browser, with a key typed into the page.
    Http,
    /// `routelens serve`'s same-origin proxy, which adds the key; the page holds none.
    Proxy,
    /// A recorded run file, replayed exactly with no network.
    Replay,
}

impl DeciderKind {
    /// Every kind, in menu order.
    pub const ALL: [DeciderKind; 4] = [
        DeciderKind::Offline,
        DeciderKind::Http,
        DeciderKind::Proxy,
        DeciderKind::Replay,
    ];

    /// The name used in the permalink (`decider=`, `judge=`) and in runs.
    pub fn name(self) -> &'static str {
        match self {
            DeciderKind::Offline => "offline",
            DeciderKind::Http => "http",
            DeciderKind::Proxy => "proxy",
            DeciderKind::Replay => "replay",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<DeciderKind> {
        DeciderKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// Who answers one run's calls.
pub enum Transport {
    /// The engine's lexical scorer, in the page.
    Offline(OfflineDecider),
    /// A recorded run file.
    Replay(Box<Replayer>),
    /// HTTP to `url`, with the key when there is one (none through the proxy).
    Http { url: String, key: Option<String> },
}

impl Transport {
    /// The transport of a kind, with the API's base URL for `http`; the error says what is
    /// missing.
    pub fn for_kind(kind: DeciderKind, base: &str, key: &str) -> Result<Transport, Error> {
        match kind {
            DeciderKind::Offline => Ok(Transport::Offline(OfflineDecider::default())),
            DeciderKind::Proxy => Ok(Transport::Http {
                url: PROXY_URL.into(),
                key: None,
            }),
            DeciderKind::Http => {
                let base = base.trim().trim_end_matches('/');
                if !(base.starts_with("http://") || base.starts_with("https://")) {
                    return Err(Error::refused(format!(
                        "the base URL {base:?} is not an http:// or https:// URL"
                    )));
                }
                if key.trim().is_empty() {
                    return Err(Error::refused(
                        "the http decider needs an API key: type it into the key field \
                                (or use the proxy decider of routelens serve, or offline)",
                    ));
                }
                Ok(Transport::Http {
                    url: format!("{base}{SYSTEMONE_PATH}"),
                    key: Some(key.trim().to_string()),
                })
            }
            DeciderKind::Replay => Err(Error::refused("pick a recorded run file to replay")),
        }
    }

    /// Whether calls go over the network (then retries wait for real).
    pub fn is_remote(&self) -> bool {
        matches!(self, Transport::Http { .. })
    }

    /// The outcome of one request.
    pub async fn send(&mut self, request: &Request) -> Result<Response, DecisionError> {
        match self {
            Transport::Offline(decider) => decider.decide(request),
            Transport::Replay(replayer) => replayer.decide(request),
            Transport::Http { url, key } => post(url, key.as_deref(), request).await,
        }
    }
}

/// POSTs one request; a reply becomes a checked response or a typed error.
async fn post(url: &str, key: Option<&str>, request: &Request) -> Result<Response, DecisionError> {
    let mut builder = HttpRequest::post(url).header("Content-Type", "application/json");
    if let Some(key) = key {
        builder = builder.header("Authorization", &format!("Bearer {key}"));
    }
    let transport = |what: &str, err: gloo_net::Error| DecisionError::Transport {
        message: format!("{url}: {what}: {err}"),
    };
    let response = builder
        .body(request.to_json())
        .map_err(|err| transport("could not build the request", err))?
        .send()
        .await
        .map_err(|err| DecisionError::Transport {
            message: fetch_failed(url, &err),
        })?;
    let status = response.status();
    if key.is_none() && matches!(status, 404 | 405 | 501) {
        return Err(DecisionError::Transport {
            message: format!(
                "{url}: HTTP {status}: this host has no decision proxy; only `routelens serve` \
                 has one (it adds the key from its environment). On a static site use the \
                 offline decider, a replay, or the http decider where the API allows this \
                 page's origin"
            ),
        });
    }
    let headers = response.headers();
    let (retry_after, retry_after_ms) = (headers.get("retry-after"), headers.get("retry-after-ms"));
    let body = response
        .text()
        .await
        .map_err(|err| transport("reading the reply failed", err))?;
    decode_reply(
        request,
        status,
        retry_after.as_deref(),
        retry_after_ms.as_deref(),
        &body,
    )
}

/// Why a call never got an answer ([`api::fetch_failed`]), with the way around a cross-origin
/// refusal.
fn fetch_failed(url: &str, err: &gloo_net::Error) -> String {
    let why = api::fetch_failed(url, err);
    if why.contains("CORS") {
        format!(
            "{url}: {why}, and the decision API may not: `routelens serve` and its proxy decider \
             avoid the cross-origin call and keep the key off the page"
        )
    } else {
        format!("{url}: {why}")
    }
}

/// Waits `ms` milliseconds on the page's timer.
pub async fn sleep_ms(ms: u64) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = leptos::prelude::window().set_timeout_with_callback_and_timeout_and_arguments_0(
            &resolve,
            ms.min(i32::MAX as u64) as i32,
        );
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
