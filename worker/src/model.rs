//! The embedding model in the worker: its three pinned files fetched once, each checked against
//! its pinned SHA-256 before use, and kept in the browser's Cache API under its URL and hash, so a
//! later visit starts from there (a damaged cached copy is refused, dropped and fetched again).
//! Only a dense or hybrid question the bundle stores no vector for gets here: the study pages,
//! the grid over a question set and BM25 never fetch the model.

use std::collections::BTreeMap;

use routelens_engine::retrieval::dense::embedder::{ModelDigests, ModelFiles};
use routelens_engine::retrieval::dense::pin::ModelPin;

use crate::host::{
    cached, fetch_metered, forget_cached, keep, next_tick, now_ms, open_cache, sha256_hex,
    with_session, Progress,
};

/// The Cache API cache the model's files are kept in.
const CACHE: &str = "routelens-models";

/// Fetches (or takes from the cache) the model under `base` and loads it into the session.
pub async fn load_model(p: Progress, base: &str) -> Result<(), String> {
    let started = now_ms();
    let pin = ModelPin::minilm();
    let total: u64 = pin.files.values().map(|f| f.bytes).sum();
    let cache = match open_cache(CACHE).await {
        Ok(cache) => Some(cache),
        Err(why) => {
            p.say(format!(
                "the model will not be kept for a later visit: {why}"
            ));
            None
        }
    };
    // Each file's bytes and SHA-256, hashed once by the browser and checked against the pin.
    let mut files = BTreeMap::new();
    let mut done = 0;
    for (name, pinned) in &pin.files {
        let url = format!("{}/{name}", base.trim_end_matches('/'));
        // Keyed by URL and hash: another pin never reads this copy.
        let key = format!("{url}?sha256={}", pinned.sha256);
        let mut bytes = None;
        if let Some(cache) = &cache {
            if let Some(copy) = cached(cache, &key).await {
                let digest = sha256_hex(&copy).await;
                if pin.check_digest(name, copy.len(), &digest).is_ok() {
                    bytes = Some((copy, digest));
                } else {
                    p.say(format!(
                        "the cached copy of {name} is damaged: fetching it again"
                    ));
                    forget_cached(cache, &key).await;
                }
            }
        }
        let bytes = match bytes {
            Some(bytes) => bytes,
            None => {
                let text = format!("fetching the embedding model's {name}");
                let fetched = fetch_metered(&url, |got| {
                    p.say_bytes(text.clone(), done + got, total);
                    !p.cancelled()
                })
                .await?;
                let digest = sha256_hex(&fetched).await;
                pin.check_digest(name, fetched.len(), &digest)
                    .map_err(|error| format!("{url}: refused: {error}"))?;
                if let Some(cache) = &cache {
                    if let Err(why) = keep(cache, &key, &fetched).await {
                        p.say(format!("{name} was not kept for a later visit: {why}"));
                    }
                }
                (fetched, digest)
            }
        };
        done += pinned.bytes;
        p.say_bytes(format!("the embedding model's {name} is in"), done, total);
        files.insert(name.clone(), bytes);
    }
    p.say("starting the embedding model".into());
    next_tick().await;
    let file = |name: &str| {
        files
            .get(name)
            .map(|(bytes, digest): &(Vec<u8>, String)| (bytes.as_slice(), digest.clone()))
            .ok_or_else(|| format!("the pin lists no {name}"))
    };
    let (config, weights, tokenizer) = (
        file("config.json")?,
        file("model.safetensors")?,
        file("tokenizer.json")?,
    );
    let model = ModelFiles {
        config: config.0,
        weights: weights.0,
        tokenizer: tokenizer.0,
    };
    let digests = ModelDigests {
        config: config.1,
        weights: weights.1,
        tokenizer: tokenizer.1,
    };
    with_session(|s| s.load_embedder(&model, &digests))
        .map_err(|error| format!("{base}: {error}"))?;
    p.say(format!(
        "the embedding model is loaded ({:.0} ms)",
        now_ms() - started
    ));
    Ok(())
}
