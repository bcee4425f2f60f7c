//! The cross-encoder the reader brings, in the worker: its three files fetched from where the
//! page says (a URL the reader typed, a site's copy, or a picked folder's blob URLs) with a
//! byte count, and loaded into the session, once per set of URLs. Nothing pins these files: their
//! SHA-256 go into every report, and a grid whose settings name other files is refused.

use routelens_engine::live::live_session::CrossEncoderAt;
use routelens_engine::retrieval::cross_encoder::model::CrossEncoderFiles;
use routelens_engine::retrieval::cross_encoder::{CrossEncoderIdentity, MODEL_FILES};

use crate::host::{fetch_metered, next_tick, now_ms, with_session, Progress};

/// The session's cross-encoder from `at`, fetched and loaded unless it already is.
pub async fn load_cross_encoder(
    p: Progress,
    at: &CrossEncoderAt,
) -> Result<CrossEncoderIdentity, String> {
    let key = at.key();
    if with_session(|s| s.has_cross_encoder(&key)) {
        if let Some(identity) = with_session(|s| s.cross_encoder_identity()) {
            return Ok(identity);
        }
    }
    let started = now_ms();
    let mut files = Vec::with_capacity(MODEL_FILES.len());
    let mut done = 0;
    for name in MODEL_FILES {
        let url = at
            .files
            .url_of(name)
            .ok_or_else(|| format!("the cross-encoder's folder has no {name}"))?;
        let bytes = fetch_metered(&url, |got| {
            p.say(format!(
                "fetching the cross-encoder's {name}: {:.1} MB",
                (done + got) as f64 / 1e6
            ));
            !p.cancelled()
        })
        .await?;
        done += bytes.len() as u64;
        files.push(bytes);
    }
    p.say("starting the cross-encoder".into());
    next_tick().await;
    let model = CrossEncoderFiles {
        config: &files[0],
        weights: &files[1],
        tokenizer: &files[2],
    };
    let identity = with_session(|s| s.load_cross_encoder(&key, &model, &at.name))
        .map_err(|error| format!("{}: {error}", at.name))?;
    p.say(format!(
        "the cross-encoder is loaded ({} bytes, {:.0} ms)",
        done,
        now_ms() - started
    ));
    Ok(identity)
}
