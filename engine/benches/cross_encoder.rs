//! The cross-encoder's cost for one question: 30 (question, chunk) pairs, CodeAtlas's rerank
//! depth, each chunk about 240 word pieces of the real model's vocabulary (CodeAtlas's chunks keep
//! within 254 with their prefix, so every pair fits the reranker's 512). The model is the tiny test model
//! (tests/cross_encoder/tiny), or the folder `ROUTELENS_CE_MODEL` names: a model of the real
//! reranker's shape (`bench/cross_encoder_shape.py` makes one with random weights) gives the real
//! model's time, as the cost does not depend on what the weights are (docs/reranker.md).

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::retrieval::cross_encoder::model::{CrossEncoder, CrossEncoderFiles};

fn model() -> (String, CrossEncoder) {
    let folder = std::env::var("ROUTELENS_CE_MODEL").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cross_encoder/tiny").to_string()
    });
    let read = |name: &str| {
        std::fs::read(format!("{folder}/{name}")).unwrap_or_else(|e| panic!("{folder}/{name}: {e}"))
    };
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let files = CrossEncoderFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
    };
    (folder.clone(), CrossEncoder::load(&files, &folder).unwrap())
}

fn passage(at: usize) -> String {
    let mut text = format!("src/module_{at}.rs :: handler_{at}\n");
    for line in 0..6 {
        text += &format!(
            "    let value_{line} = cache.lookup(key_{at}, route_{line}).unwrap_or_default(); // evict {line}\n"
        );
    }
    text
}

fn one_question(c: &mut Criterion) {
    let (folder, model) = model();
    let passages: Vec<String> = (0..30).map(passage).collect();
    let passages: Vec<&str> = passages.iter().map(String::as_str).collect();
    let question = "When is an entry evicted from the cache, and which route handler does it?";
    let name = format!(
        "cross-encoder, 30 pairs of one question ({})",
        folder.rsplit('/').next().unwrap_or(&folder)
    );
    c.bench_function(&name, |b| {
        b.iter(|| model.score(question, &passages).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = one_question
}
criterion_main!(benches);
