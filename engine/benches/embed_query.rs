//! A typed question's embedding, the part of a dense query that is not the scan
//! (`dense_rank`): all-MiniLM-L6-v2 on one question of 22 word pieces. The model is the
//! installed one (`scripts/setup.sh`), from `ROUTELENS_MODELS/all-MiniLM-L6-v2` or
//! `~/.cache/routelens/models/all-MiniLM-L6-v2`; sentence-transformers' time for the same
//! question is measured by `bench/embed_query.py` (docs/dense.md). Run it with
//! `RAYON_NUM_THREADS=2`, as `routelens search` sets for a typed question (unset, candle asks the
//! system for the core count on every product).

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::retrieval::dense::embedder::{Embedder, ModelFiles};
use routelens_engine::retrieval::dense::pin::ModelPin;

/// The question both benchmarks embed.
const QUESTION: &str =
    "How does the bundle writer verify the chunk hashes before it renames the folder in this code";

fn embedder() -> Embedder {
    let root = std::env::var("ROUTELENS_MODELS").unwrap_or_else(|_| {
        format!(
            "{}/.cache/routelens/models",
            std::env::var("HOME").unwrap_or_default()
        )
    });
    let folder = format!("{root}/all-MiniLM-L6-v2");
    let read = |name: &str| {
        std::fs::read(format!("{folder}/{name}")).unwrap_or_else(|e| panic!("{folder}/{name}: {e}"))
    };
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let files = ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
    };
    Embedder::load(&files, ModelPin::minilm()).unwrap()
}

fn typed_question(c: &mut Criterion) {
    let model = embedder();
    c.bench_function("embed one typed question (22 pieces)", |b| {
        b.iter(|| model.embed(&[QUESTION]).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = typed_question
}
criterion_main!(benches);
