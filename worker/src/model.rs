//! The embedding model in the worker: its three pinned files (from a site that has them, the
//! weights as the page's narrowed copy) fetched once, each checked against its pinned SHA-256
//! before use, and kept in the browser's Cache API under its URL and hash, so a later visit
//! starts from there (a damaged cached copy is refused, dropped and fetched again).
//! Only a dense or hybrid question the bundle stores no vector for gets here: the study pages,
//! the grid over a question set and BM25 never fetch the model.

use std::collections::BTreeMap;

use routelens_engine::retrieval::dense::embedder::{ModelDigests, ModelFiles};
use routelens_engine::retrieval::dense::pin::{ModelPin, PinnedFile};

use crate::host::{
    cached, fetch_metered, forget_cached, keep, next_tick, now_ms, open_cache, sha256_hex,
    with_session, Progress,
};

/// The Cache API cache the model's files are kept in.
const CACHE: &str = "routelens-models";

/// Fetches (or takes from the cache) the model under `base` and loads it into the session:
/// with `page_weights`, the pin's narrowed weights file in place of `model.safetensors` (about
/// half the bytes; widened in the engine).
pub async fn load_model(p: Progress, base: &str, page_weights: bool) -> Result<(), String> {
    let started = now_ms();
    let pin = ModelPin::minilm();
    let narrowed = match page_weights {
        true => Some(pin.page_weights().map_err(|e| e.to_string())?),
        false => None,
    };
    // Each of the model's files (by the pin's name for its part) as fetched: its file name at
    // `base`, size and SHA-256.
    let wanted: Vec<(&String, &str, &PinnedFile)> = pin
        .files
        .iter()
        .map(|(part, file)| match narrowed {
            Some(page) if *part == page.from => (part, page.file.as_str(), &page.pinned),
            _ => (part, part.as_str(), file),
        })
        .collect();
    let check = |part: &str, len: usize, digest: &str| match narrowed {
        Some(page) if part == page.from => pin.check_page_weights(len, digest),
        _ => pin.check_digest(part, len, digest),
    };
    let total: u64 = wanted.iter().map(|(_, _, f)| f.bytes).sum();
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
    for (part, name, pinned) in wanted {
        let url = format!("{}/{name}", base.trim_end_matches('/'));
        // Keyed by URL and hash: another pin never reads this copy.
        let key = format!("{url}?sha256={}", pinned.sha256);
        let mut bytes = None;
        if let Some(cache) = &cache {
            if let Some(copy) = cached(cache, &key).await {
                let digest = sha256_hex(&copy).await;
                if check(part, copy.len(), &digest).is_ok() {
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
                check(part, fetched.len(), &digest)
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
        files.insert(part.clone(), bytes);
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
    with_session(|s| s.load_embedder(&model, &digests, page_weights))
        .map_err(|error| format!("{base}: {error}"))?;
    p.say(format!(
        "the embedding model is loaded ({:.0} ms)",
        now_ms() - started
    ));
    Ok(())
}
