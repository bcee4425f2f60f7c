//! routelens' embedder against sentence-transformers' own vectors (tests/minilm/reference.json,
//! made once by tests/minilm/make-reference.py): for every text, cosine >= 0.99999 and every
//! component within 1e-4, and the same number of word pieces. The model comes from the folder
//! scripts/setup.sh installs it into; a missing model fails, naming that step.

use routelens_engine::retrieval::dense::embedder::{Embedder, ModelFiles, MAX_PIECES};
use routelens_engine::retrieval::dense::pin::ModelPin;
use serde_json::Value;

fn model_folder() -> std::path::PathBuf {
    let home = std::env::var_os("ROUTELENS_MODELS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
                .join(".cache/routelens/models")
        });
    home.join(ModelPin::minilm().install_as)
}

fn read(name: &str) -> Vec<u8> {
    let path = model_folder().join(name);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; install the model with `python3 scripts/install-model.py` (scripts/setup.sh does)", path.display())
    })
}

#[test]
fn vectors_match_sentence_transformers() {
    let reference: Value =
        serde_json::from_str(include_str!("../../tests/minilm/reference.json")).unwrap();
    let pin = ModelPin::minilm();
    for (name, digest) in reference["sha256"].as_object().unwrap() {
        assert_eq!(
            digest.as_str(),
            Some(pin.files[name].sha256.as_str()),
            "the fixture was made with {name} as pinned"
        );
    }
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let embedder = Embedder::load(
        &ModelFiles {
            config: &config,
            weights: &weights,
            tokenizer: &tokenizer,
        },
        pin,
    )
    .unwrap();
    let cases = reference["cases"].as_array().unwrap();
    let texts: Vec<&str> = cases
        .iter()
        .map(|case| case["text"].as_str().unwrap())
        .collect();
    let vectors = embedder.embed(&texts).unwrap();
    for (case, vector) in cases.iter().zip(&vectors) {
        let expected: Vec<f32> = case["vector"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let text = case["text"].as_str().unwrap();
        assert_eq!(vector.len(), expected.len(), "{text:?}");
        let dot: f32 = vector.iter().zip(&expected).map(|(a, b)| a * b).sum();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let cosine = dot / (norm(vector) * norm(&expected));
        assert!(cosine >= 0.99999, "{text:?}: cosine {cosine}");
        let worst = vector
            .iter()
            .zip(&expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0_f32, f32::max);
        assert!(worst <= 1e-4, "{text:?}: a component is {worst} off");
        let pieces = embedder.pieces(text).unwrap().min(MAX_PIECES);
        assert_eq!(pieces as u64, case["pieces"].as_u64().unwrap(), "{text:?}");
    }
}

#[test]
fn other_model_files_are_refused_naming_the_file() {
    let pin = ModelPin::minilm();
    let tokenizer = read("tokenizer.json");
    let failure = Embedder::load(
        &ModelFiles {
            config: b"{}",
            weights: b"",
            tokenizer: &tokenizer,
        },
        pin,
    )
    .err()
    .expect("a config that is not the pinned one is refused")
    .to_string();
    assert!(
        failure.starts_with("config.json: embedding model:"),
        "{failure}"
    );
}
