//! The keys several views read, each beside the views that read it:
//! - `k=8`: the k of the single-k study views (paired, per repository, operations, subgroups,
//!   per issue) and of the Search, Context and Route views; always written.
//! - `seed=0`, `resamples=10000`: every bootstrap (the study views, a score table, the Evaluate
//!   view's grid); always written.
//! - `bundle=<name>`, `q=<question id or issue text>`: the bundle views' bundle and question
//!   (Search, Context, Route, Chunks, Rerank; the line level view's bundle); written when set.
//! - `chunker=<name>`: the Chunks view's chunk search and the Rerank view's chunking; written
//!   when set.
//! - `base=<URL>`: the decision API's base URL, for the Route view's http decider and the Rerank
//!   view's Jev judge (default `https://api.typesafe.ai`); written when not the default.
//! - `xmodel=<URL>`, `xname=<text>`: the cross-encoder's folder URL and how reports name it (its
//!   hub id and revision), for the Evaluate view's reranker rows and the Rerank view's
//!   cross-encoder (default: the site's copy, if any); written when set.

use reactive_stores::Store;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::scoring::stats::{DEFAULT_RESAMPLES, DEFAULT_SEED};
use routelens_engine::BootstrapConfig;

use super::part::{k_value, set, set_some, Claim, Params};
use crate::decisions::DEFAULT_API_BASE;

/// The settings several views share (see the module doc for their keys).
#[derive(Debug, Clone, PartialEq, Store)]
pub struct SharedParams {
    /// The k of the single-k views (default 8, the paper's primary k).
    pub k: usize,
    /// Bootstrap seed (default 0).
    pub seed: u64,
    /// Bootstrap resamples (default 10,000).
    pub resamples: usize,
    /// The bundle views' bundle, by name in the bundle store: the site's, or `url:…` /
    /// `picked:…` for one the reader opened (default none).
    pub bundle: Option<String>,
    /// The bundle views' question: a question id of the bundle's set, or issue text (default
    /// none).
    pub query: Option<String>,
    /// The chunking of the Chunks view's chunk search and of the Rerank view (default none: the
    /// bundle's first, the Rerank view's own preference).
    pub chunker: Option<Chunker>,
    /// The decision API's base URL (default `https://api.typesafe.ai`).
    pub api_base: String,
    /// The cross-encoder's folder URL (default none: the site's copy, if any).
    pub cross_encoder: Option<String>,
    /// How reports name the cross-encoder (default none: its URL or folder name).
    pub cross_encoder_name: Option<String>,
}

impl Default for SharedParams {
    fn default() -> Self {
        SharedParams {
            k: 8,
            seed: DEFAULT_SEED,
            resamples: DEFAULT_RESAMPLES,
            bundle: None,
            query: None,
            chunker: None,
            api_base: DEFAULT_API_BASE.into(),
            cross_encoder: None,
            cross_encoder_name: None,
        }
    }
}

impl Params for SharedParams {
    fn keys(&self) -> &'static [&'static str] {
        &[
            "k",
            "seed",
            "resamples",
            "bundle",
            "q",
            "chunker",
            "base",
            "xmodel",
            "xname",
        ]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        pairs.push(("k", self.k.to_string()));
        pairs.push(("seed", self.seed.to_string()));
        pairs.push(("resamples", self.resamples.to_string()));
        if let Some(bundle) = &self.bundle {
            pairs.push(("bundle", bundle.clone()));
        }
        if let Some(query) = &self.query {
            pairs.push(("q", query.clone()));
        }
        if let Some(chunker) = self.chunker {
            pairs.push(("chunker", chunker.name().into()));
        }
        if self.api_base != DEFAULT_API_BASE {
            pairs.push(("base", self.api_base.clone()));
        }
        if let Some(url) = &self.cross_encoder {
            pairs.push(("xmodel", url.clone()));
        }
        if let Some(name) = &self.cross_encoder_name {
            pairs.push(("xname", name.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "k" => set(&mut self.k, k_value(value)),
            "seed" => set(
                &mut self.seed,
                value
                    .parse()
                    .map_err(|_| "expected a whole number ≥ 0".into()),
            ),
            "resamples" => set(
                &mut self.resamples,
                match value.parse::<usize>() {
                    Ok(resamples) => BootstrapConfig { resamples, seed: 0 }
                        .validated()
                        .map(|_| resamples)
                        .map_err(|err| err.to_string()),
                    Err(_) => Err("not a whole number".into()),
                },
            ),
            "bundle" => set_some(&mut self.bundle, value),
            "q" => set_some(&mut self.query, value),
            "chunker" => match Chunker::from_name(value) {
                Some(chunker) => set(&mut self.chunker, Ok(Some(chunker))),
                None => Claim::Refused("expected structural, structural-unmerged or window".into()),
            },
            // A host is required: `http://` alone was once read and then written as `http:`,
            // which the next read refused (found by the `permalink` fuzz target).
            "base" => match value.trim_end_matches('/') {
                base if routelens_engine::publish::csp::origin(base).is_some() => {
                    set(&mut self.api_base, Ok(base.to_string()))
                }
                _ => Claim::Refused("expected an http:// or https:// URL".into()),
            },
            "xmodel" => set_some(&mut self.cross_encoder, value),
            "xname" => set_some(&mut self.cross_encoder_name, value),
            _ => Claim::Unknown,
        }
    }
}
