//! The routelens live worker: a Web Worker that holds the engine's [`LiveSession`] (a bundle's
//! search index, every file's text, the cl100k_base counter, chunkings with their vectors, the
//! embedding model) and answers the page's calls, so the page's own module never carries
//! tantivy, the tokenizers or candle, and long work (timing runs, a question set through every
//! arm) runs off the page's thread.
//!
//! Trunk builds it (`index.html`, `data-type="worker"`, with a loader shim); the page starts it
//! on the first live call (`app/src/live.rs`). [`channel`] is the message loop, [`calls`] what
//! each call does, [`host`] what both use of the worker's host, [`model`] the embedding model's
//! files, [`cross_encoder`] the cross-encoder a reader brings, [`packs`] a split index's packs, fetched
//! as searches need them. Natively this binary does nothing: it exists for wasm32.
//!
//! It allocates with the standard library's dlmalloc: with talc the grep pool's p50 in Chromium
//! was about a tenth slower (the typed dense query a tenth faster, the hybrid slower; the grid
//! the same: docs/benchmarks.md, step 15).
//!
//! [`LiveSession`]: routelens_engine::live::live_session::LiveSession

#[cfg(target_arch = "wasm32")]
mod calls;
#[cfg(target_arch = "wasm32")]
mod channel;
#[cfg(target_arch = "wasm32")]
mod cross_encoder;
#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod model;
#[cfg(target_arch = "wasm32")]
mod packs;

fn main() {
    #[cfg(target_arch = "wasm32")]
    channel::start();
}
