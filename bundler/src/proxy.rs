//! The decision proxy of `routelens serve`: `POST /typesafe/v1/systemone` forwarded to TypeSafe's
//! System One API with the key from this process's environment, so the page never holds it (the
//! `serve` module doc says what comes back and what is refused).

use std::time::Duration;

use crate::http::{Request, Response};
use routelens_engine::remote::route::protocol::{KEY_ENV, SYSTEMONE_PATH};

/// The largest answer read from upstream (a System One exchange is far smaller).
const MAX_UPSTREAM_BYTES: u64 = 64 * 1024 * 1024;

/// Where the decision proxy listens.
pub const PROXY_PATH: &str = "/typesafe/v1/systemone";

/// The decision proxy's upstream and key.
pub struct Proxy {
    /// `{base}/v1/systemone`.
    url: String,
    /// The key from the environment; never printed.
    key: Option<String>,
    agent: ureq::Agent,
    /// The origins allowed to call it: this server's own.
    origins: Vec<String>,
}

impl Proxy {
    /// The proxy of a server on loopback `port`, to `typesafe_base`, with the key from
    /// [`KEY_ENV`] (blank counts as unset).
    pub fn new(typesafe_base: &str, port: u16) -> Proxy {
        let key = std::env::var(KEY_ENV)
            .ok()
            .map(|key| key.trim().to_string())
            .filter(|key| !key.is_empty());
        Proxy {
            url: format!("{}{SYSTEMONE_PATH}", typesafe_base.trim_end_matches('/')),
            key,
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(120)))
                .build()
                .into(),
            origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
        }
    }

    /// The line `serve` prints about the proxy (whether the key is set, never the key).
    pub fn describe(&self, typesafe_base: &str) -> String {
        format!(
            "routelens: proxying POST {PROXY_PATH} to {typesafe_base} ({KEY_ENV} {})",
            if self.key.is_some() {
                "set"
            } else {
                "not set: the proxy answers 401"
            }
        )
    }

    /// Forwards a System One request upstream with the key, and the answer back.
    pub fn forward(&self, request: &Request) -> Response {
        if let Some(origin) = request.header("Origin") {
            if !self.origins.iter().any(|own| own == origin) {
                return json_error(
                    403,
                    "the decision proxy answers only this server's own pages",
                );
            }
        }
        let Some(key) = &self.key else {
            return json_error(
                401,
                &format!("routelens serve has no {KEY_ENV} in its environment; set it and restart"),
            );
        };
        let sent = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Authorization", &format!("Bearer {key}"))
            .send(&request.body[..]);
        let mut upstream = match sent {
            Ok(upstream) => upstream,
            Err(err) => return json_error(502, &format!("upstream {}: {err}", self.url)),
        };
        let status = upstream.status().as_u16();
        let copied: Vec<(String, String)> = [
            "content-type",
            "retry-after",
            "retry-after-ms",
            "x-typesafe-request-id",
        ]
        .iter()
        .filter_map(|name| {
            let value = upstream.headers().get(*name)?.to_str().ok()?;
            Some((name.to_string(), value.to_string()))
        })
        .collect();
        let text = match upstream
            .body_mut()
            .with_config()
            .limit(MAX_UPSTREAM_BYTES)
            .read_to_vec()
        {
            Ok(bytes) => bytes,
            Err(err) => return json_error(502, &format!("upstream {}: {err}", self.url)),
        };
        Response {
            status,
            headers: copied,
            body: crate::http::Body::Bytes(text),
        }
    }
}

/// A JSON error body `{"error": message}` with a status.
fn json_error(status: u16, message: &str) -> Response {
    let body = serde_json::json!({ "error": message }).to_string();
    Response::bytes(status, "application/json", body)
}
