//! The golden bundle of format 1, and native/wasm parity of the lexical arms.
//!
//! `tests/data/golden-bundle-v1.bin` is a small synthetic bundle (manifest, chunks and, built
//! natively, the index blob) packed into one file. Every run decodes it with the current code,
//! so a change that breaks reading format-1 bundles fails here, then runs every arm on fixed
//! issues and compares a fingerprint of the results (SHA-256 of every ranked path and its score
//! to 12 significant digits: `ln` may differ in the last bit between glibc and the wasm libm)
//! with one committed value. (The BM25 arms use the default FTS5 scoring, computed in f64 by the
//! engine; tantivy's own f32 scoring is not fingerprinted.) The same test runs natively under
//! `cargo test` and in headless Chromium:
//!
//! ```text
//! cd engine && CHROMEDRIVER=/usr/bin/chromedriver \
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --features lexical,embedded-cl100k --test parity
//! ```
//!
//! To rebuild the fixture after an intended format change (and bump the format version):
//! `cargo test -p routelens-engine --features lexical --test parity -- --ignored`.

use routelens_engine::checksum::sha256_hex;
use routelens_engine::corpus::bundle::decode_manifest;
use routelens_engine::retrieval::lexical::{run_arm, LexicalArm, Sources, TextCorpus};

const GOLDEN: &[u8] = include_bytes!("../data/golden-bundle-v1.bin");

/// Fingerprint of the arms that need no index, computed natively on x86_64.
const EXPECTED_PLAIN: &str = "515d6cfcf976b5426e93516df83206d7d88316e3127ae10178a8064c85c087bb";
/// Fingerprint of the BM25 arms, computed natively on x86_64.
#[cfg(feature = "lexical")]
const EXPECTED_BM25: &str = "f6d381b51508a2429fe96bf83b662801c3d0418f1947927072bf7c5769eaac86";

const ISSUES: &[&str] = &[
    "The parser drops the cache when the router retries a request.",
    "Tokenizer index is stale after merge; see src/store/segment_writer.rs",
    "Why does config loading ignore the environment? theme colour settings",
];

/// Unpacks the fixture: repeated `u16 name length, name, u32 length, bytes` (little-endian).
fn unpack(mut bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    while !bytes.is_empty() {
        let name_len = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
        let name = String::from_utf8(bytes[2..2 + name_len].to_vec()).unwrap();
        bytes = &bytes[2 + name_len..];
        let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        files.push((name, bytes[4..4 + len].to_vec()));
        bytes = &bytes[4 + len..];
    }
    files
}

fn file<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &files.iter().find(|(n, _)| n == name).unwrap().1
}

/// The fingerprint and the lines it hashes (shown when it does not match).
fn fingerprint(arms: &[LexicalArm]) -> (String, String) {
    fingerprint_with(arms, false)
}

/// [`fingerprint`], the BM25 arms over the stored index or, `built`, over one built here from
/// the texts with the stored one's spec (as the worker does for a merged snapshot that stores
/// none).
fn fingerprint_with(arms: &[LexicalArm], built: bool) -> (String, String) {
    let files = unpack(GOLDEN);
    let manifest = decode_manifest(file(&files, "manifest.json")).unwrap();
    let chunks: Vec<&[u8]> = manifest
        .chunks
        .iter()
        .map(|chunk| file(&files, &chunk.file))
        .collect();
    let texts = TextCorpus::new(manifest.read_all(&chunks).unwrap());
    let paths = manifest.paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    #[cfg(feature = "lexical")]
    let index = {
        use routelens_engine::retrieval::lexical::fts::{build_index_blob_with, IndexSpec};
        use routelens_engine::retrieval::lexical::FtsIndex;
        let entry = manifest.index.as_ref().unwrap();
        if built {
            let spec = IndexSpec::from_index_format(&entry.format).unwrap();
            let blob = build_index_blob_with(&manifest.read_all(&chunks).unwrap(), spec).unwrap();
            FtsIndex::open("built", &blob, paths.clone()).unwrap()
        } else {
            FtsIndex::from_bundle(&manifest, file(&files, &entry.file)).unwrap()
        }
    };
    #[cfg(not(feature = "lexical"))]
    let _ = built;
    #[cfg(feature = "lexical")]
    let index = routelens_engine::retrieval::lexical::LexicalIndex::Whole(index);
    #[cfg(feature = "lexical")]
    let sources = sources.with_index(&index);
    let mut lines = Vec::new();
    for issue in ISSUES {
        for &arm in arms {
            let output = run_arm(arm, &sources, issue, 16).unwrap();
            assert!(
                !output.results.is_empty(),
                "{arm} found nothing for {issue:?}"
            );
            lines.push(format!(
                "{arm} {:?} {:?}",
                output.terms, output.feedback_terms
            ));
            for (path, score) in &output.results {
                // `ln` in the wasm libm and in glibc can differ in the last bit, so scores are
                // compared to 12 significant digits; rankings (ties included) exactly.
                lines.push(format!("{path} {score:.11e}"));
            }
        }
    }
    let text = lines.join("\n");
    (sha256_hex(text.as_bytes()), text)
}

const PLAIN: [LexicalArm; 4] = [
    LexicalArm::Basename,
    LexicalArm::Rg,
    LexicalArm::RgFirst500,
    LexicalArm::RgFeedback,
];

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn plain_arms_match_the_committed_fingerprint() {
    let (hash, lines) = fingerprint(&PLAIN);
    assert_eq!(hash, EXPECTED_PLAIN, "results:\n{lines}");
}

#[cfg(feature = "lexical")]
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bm25_arms_match_the_committed_fingerprint() {
    let arms = [LexicalArm::Fts5, LexicalArm::Fts5Full, LexicalArm::PathFts5];
    let (hash, lines) = fingerprint(&arms);
    assert_eq!(hash, EXPECTED_BM25, "results:\n{lines}");
}

/// The index built in this binary (in wasm, on the worker's one thread) from the texts ranks and
/// scores as the stored one, built natively when the fixture was made.
#[cfg(feature = "lexical")]
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bm25_arms_over_an_index_built_here_match_the_committed_fingerprint() {
    let arms = [LexicalArm::Fts5, LexicalArm::Fts5Full, LexicalArm::PathFts5];
    let (hash, lines) = fingerprint_with(&arms, true);
    assert_eq!(hash, EXPECTED_BM25, "results:\n{lines}");
}

/// Regenerates `tests/data/golden-bundle-v1.bin` (native, `lexical` feature).
#[cfg(all(feature = "lexical", not(target_arch = "wasm32")))]
#[test]
#[ignore]
fn regenerate_golden_bundle() {
    use routelens_engine::corpus::bundle::{encode_bundle, BundleInput, BundleOptions, SourceFile};
    use routelens_engine::retrieval::lexical::fts::{build_index_blob, INDEX_FORMAT};

    let files = synthetic_corpus();
    let blob = build_index_blob(&files).unwrap();
    let input = BundleInput {
        source: "synthetic golden corpus".into(),
        commit: Some("0000000000000000000000000000000000000000".into()),
        tool_version: "routelens test".into(),
        files: files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.clone(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        index: Some((blob, INDEX_FORMAT.to_string())),
        ..BundleInput::default()
    };
    let options = BundleOptions {
        chunk_target_bytes: 4096,
        ..BundleOptions::default()
    };
    let encoded = encode_bundle(input, options).unwrap();
    let mut packed = Vec::new();
    for file in &encoded.files {
        packed.extend_from_slice(&(file.name.len() as u16).to_le_bytes());
        packed.extend_from_slice(file.name.as_bytes());
        packed.extend_from_slice(&(file.bytes.len() as u32).to_le_bytes());
        packed.extend_from_slice(&file.bytes);
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/golden-bundle-v1.bin"
    );
    std::fs::write(path, packed).unwrap();
}

/// Forty source-like files drawn with an xorshift generator from a small vocabulary.
#[cfg(all(feature = "lexical", not(target_arch = "wasm32")))]
fn synthetic_corpus() -> Vec<(String, String)> {
    const DIRS: &[&str] = &["src", "src/store", "src/router", "docs", "tests", "config"];
    const WORDS: &[&str] = &[
        "parser",
        "cache",
        "router",
        "request",
        "retry",
        "token",
        "tokenizer",
        "index",
        "segment",
        "writer",
        "merge",
        "stale",
        "config",
        "environment",
        "theme",
        "colour",
        "settings",
        "load",
        "drop",
        "handler",
        "fn",
        "let",
        "struct",
        "impl",
        "return",
        "Parser",
        "CACHE",
        "segment_writer",
        "RouterError",
        "max_depth",
    ];
    let mut state: u32 = 0x2545_F491;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as usize % n
    };
    (0..40)
        .map(|i| {
            let dir = DIRS[next(DIRS.len())];
            let stem = WORDS[next(WORDS.len())].to_lowercase();
            let path = format!("{dir}/{stem}_{i}.rs");
            let lines: Vec<String> = (0..1 + next(12))
                .map(|_| {
                    (0..1 + next(8))
                        .map(|_| WORDS[next(WORDS.len())])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            (path, lines.join("\n") + "\n")
        })
        .collect()
}
