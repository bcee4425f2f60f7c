//! routelens' embedder against sentence-transformers' own vectors (tests/minilm/reference.json,
//! made once by tests/minilm/make-reference.py): for every text, cosine >= 0.99999 and every
//! component within 1e-4, and the same number of word pieces; the page's narrowed weights, made
//! as pinned, within cosine 0.9999 of them. The model comes from the folder
//! scripts/setup.sh installs it into; a missing model fails, naming that step.

use routelens_engine::checksum::sha256_hex;
use routelens_engine::retrieval::dense::embedder::{
    Embedder, ModelDigests, ModelFiles, MAX_PIECES,
};
use routelens_engine::retrieval::dense::page_weights;
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

/// The fixture's texts and sentence-transformers' vectors for them.
fn reference_cases() -> Vec<(String, Vec<f32>)> {
    let reference: Value =
        serde_json::from_str(include_str!("../../tests/minilm/reference.json")).unwrap();
    reference["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let vector = case["vector"].as_array().unwrap();
            let vector = vector.iter().map(|v| v.as_f64().unwrap() as f32).collect();
            (case["text"].as_str().unwrap().to_string(), vector)
        })
        .collect()
}

#[test]
fn the_pages_narrowed_weights_are_made_as_pinned_and_stay_within_the_loss() {
    let pin = ModelPin::minilm();
    let page = pin.page_weights().unwrap().clone();
    let (config, weights, tokenizer) = (
        read("config.json"),
        read(&page.from),
        read("tokenizer.json"),
    );
    // This build makes the pinned bytes from the pinned f32 file.
    let narrowed = page_weights::narrow(&weights, page.mantissa_bits, page.level).unwrap();
    pin.check_page_weights(narrowed.len(), &sha256_hex(&narrowed))
        .unwrap();
    let files = ModelFiles {
        config: &config,
        weights: &narrowed,
        tokenizer: &tokenizer,
    };
    let in_page =
        Embedder::load_page_weights(&files, &ModelDigests::of(&files), pin.clone()).unwrap();
    let full_files = ModelFiles {
        weights: &weights,
        ..files
    };
    let rounded = Embedder::load_rounded(&full_files, pin.clone(), page.mantissa_bits).unwrap();
    let cases = reference_cases();
    let texts: Vec<&str> = cases.iter().map(|(text, _)| text.as_str()).collect();
    let vectors = in_page.embed(&texts).unwrap();
    // What `embed --weights page` computes natively is what the page computes.
    assert_eq!(vectors, rounded.embed(&texts).unwrap());
    for ((text, expected), vector) in cases.iter().zip(&vectors) {
        let dot: f32 = vector.iter().zip(expected).map(|(a, b)| a * b).sum();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let cosine = dot / (norm(vector) * norm(expected));
        assert!(cosine >= 0.9999, "{text:?}: cosine {cosine}");
    }

    // One byte changed: refused before use, naming the file.
    let mut changed = narrowed.clone();
    changed[1_000] ^= 1;
    let files = ModelFiles {
        weights: &changed,
        ..files
    };
    let refused = Embedder::load_page_weights(&files, &ModelDigests::of(&files), pin)
        .err()
        .expect("other bytes are refused")
        .to_string();
    assert!(
        refused.starts_with(&format!("{}: embedding model:", page.file)),
        "{refused}"
    );
}
