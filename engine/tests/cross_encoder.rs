//! routelens' cross-encoder against `transformers`' and `sentence-transformers`' own logits for
//! a tiny model made for the purpose (tests/cross_encoder/: its files and reference.json, made
//! once by make-tiny.py): every pair's logit within 1e-4 of both, one pair over the maximum
//! length among them; and the ways a model folder is refused.

use routelens_engine::retrieval::cross_encoder::model::{CrossEncoder, CrossEncoderFiles};
use serde_json::Value;

const CONFIG: &[u8] = include_bytes!("../../tests/cross_encoder/tiny/config.json");
const WEIGHTS: &[u8] = include_bytes!("../../tests/cross_encoder/tiny/model.safetensors");
const TOKENIZER: &[u8] = include_bytes!("../../tests/cross_encoder/tiny/tokenizer.json");

fn tiny() -> CrossEncoder {
    CrossEncoder::load(
        &CrossEncoderFiles {
            config: CONFIG,
            weights: WEIGHTS,
            tokenizer: TOKENIZER,
        },
        "tiny",
    )
    .unwrap()
}

#[test]
fn logits_match_transformers_and_sentence_transformers() {
    let reference: Value =
        serde_json::from_str(include_str!("../../tests/cross_encoder/reference.json")).unwrap();
    let model = tiny();
    for (name, digest) in reference["sha256"].as_object().unwrap() {
        assert_eq!(
            digest.as_str(),
            model.identity().sha256.get(name).map(String::as_str),
            "the fixture was made with these {name} bytes"
        );
    }
    let cases = reference["cases"].as_array().unwrap();
    assert!(
        cases
            .iter()
            .any(|c| c["untruncated_pieces"].as_u64().unwrap() > 512),
        "one pair is over the maximum length"
    );
    // All at once (batched by length, padded and masked) and one at a time give the same.
    let query_groups: Vec<(&str, &str)> = cases
        .iter()
        .map(|c| (c["query"].as_str().unwrap(), c["passage"].as_str().unwrap()))
        .collect();
    for (at, case) in cases.iter().enumerate() {
        let (query, passage) = query_groups[at];
        let same_query: Vec<&str> = query_groups
            .iter()
            .filter(|(q, _)| *q == query)
            .map(|(_, p)| *p)
            .collect();
        let together = model.score(query, &same_query).unwrap();
        let alone = model.score(query, &[passage]).unwrap()[0];
        let within = same_query.iter().position(|p| *p == passage).unwrap();
        for source in ["transformers", "sentence_transformers"] {
            let want = case[source].as_f64().unwrap() as f32;
            for got in [alone, together[within]] {
                assert!(
                    (got - want).abs() <= 1e-4,
                    "pair {at} ({query:?}): {got} against {source}'s {want}"
                );
            }
        }
    }
}

#[test]
fn a_folder_that_is_not_a_one_label_cross_encoder_is_refused_naming_the_file() {
    let load = |config: &[u8], weights: &[u8], tokenizer: &[u8]| {
        CrossEncoder::load(
            &CrossEncoderFiles {
                config,
                weights,
                tokenizer,
            },
            "tiny",
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
    };
    let two_labels =
        String::from_utf8(CONFIG.to_vec())
            .unwrap()
            .replacen('{', "{\"num_labels\": 2, ", 1);
    let refused = load(two_labels.as_bytes(), WEIGHTS, TOKENIZER);
    assert!(
        refused.starts_with("config.json: cross-encoder: 2 labels"),
        "{refused}"
    );
    let refused = load(CONFIG, &WEIGHTS[..1000], TOKENIZER);
    assert!(
        refused.starts_with("model.safetensors: cross-encoder:"),
        "{refused}"
    );
    let refused = load(CONFIG, WEIGHTS, b"{}");
    assert!(
        refused.starts_with("tokenizer.json: cross-encoder:"),
        "{refused}"
    );
    let refused = load(b"{\"hidden_size\": 32}", WEIGHTS, TOKENIZER);
    assert!(
        refused.starts_with("config.json: cross-encoder:"),
        "{refused}"
    );
}
