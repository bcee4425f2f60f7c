//! The split index (bundle format 5) against the whole one it was cut from: over the same
//! corpus, `fts5`, `fts5-full` and `path-fts5` must return the same complete ranked lists, paths
//! and score bits, and each search must have fetched only packs its query terms fall in.
//!
//! Corpora: this repository's own sources and documents, with the demo's question set, the
//! fastindex issue texts and a few thousand generated queries (absent tokens, terms cut into
//! phrases by `_` and `.`, tokens over 255 bytes, accented letters); and random corpora by
//! property test. Packs are cut small so that every query spans many of them.
#![cfg(feature = "lexical")]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestRng};
use routelens_engine::corpus::bundle::{
    decode_listed_manifest, encode_bundle, file_list_of, BundleInput, BundleOptions,
};
use routelens_engine::corpus::policy::{Decision, Policy};
use routelens_engine::load::question_set::parse_questions;
use routelens_engine::retrieval::lexical::fts::split::{split_index, SplitIndex, SplitOptions};
use routelens_engine::retrieval::lexical::fts::{
    build_index_blob_with, IndexSpec, Tokenizer, INDEX_FORMAT,
};
use routelens_engine::retrieval::lexical::{ArmOutput, FtsIndex, LexicalArm};
use routelens_engine::SourceFile;

const ARMS: [LexicalArm; 3] = [LexicalArm::Fts5, LexicalArm::Fts5Full, LexicalArm::PathFts5];

/// A corpus bundled twice: whole, and split into packs of about `pack_bytes`.
struct Pair {
    whole: FtsIndex,
    /// The split index with its base file only; each query adds its packs to a clone.
    base: SplitIndex,
    /// Every file of the split bundle by name.
    folder: BTreeMap<String, Vec<u8>>,
    /// How many pages and packs the split index has.
    packs: usize,
}

fn pair(files: &[(String, String)], spec: IndexSpec, pack_bytes: usize) -> Pair {
    let blob = build_index_blob_with(files, spec).unwrap();
    let mut paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
    paths.sort();
    let whole = FtsIndex::open("index", &blob, paths).unwrap();
    let split = split_index(
        &whole,
        SplitOptions {
            pack_bytes,
            ..SplitOptions::default()
        },
    )
    .unwrap();
    let input = BundleInput {
        source: "split-test".into(),
        tool_version: "routelens test".into(),
        files: files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.clone(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        index: Some((blob, spec.index_format())),
        ..BundleInput::default()
    };
    let encoded = encode_bundle(input, BundleOptions::default())
        .unwrap()
        .with_split_index(split.entry.clone(), split.files)
        .unwrap();
    assert_eq!(encoded.manifest.format_version, 6);
    assert!(encoded.manifest.index.is_none(), "the blob is dropped");
    let folder: BTreeMap<String, Vec<u8>> = encoded
        .files
        .into_iter()
        .map(|file| (file.name, file.bytes))
        .collect();
    let list = file_list_of(&folder["manifest.json"])
        .unwrap()
        .map(|list| &folder[&list][..]);
    let manifest = decode_listed_manifest(&folder["manifest.json"], list).unwrap();
    let entry = manifest.split_index.clone().unwrap();
    let base = SplitIndex::from_bundle(&manifest, &folder[&entry.file]).unwrap();
    let packs = folder
        .keys()
        .filter(|name| name.ends_with(".postings.deflate") || name.ends_with(".positions.deflate"))
        .count();
    Pair {
        whole,
        base,
        folder,
        packs,
    }
}

fn run_whole(index: &FtsIndex, arm: LexicalArm, query: &str) -> ArmOutput {
    match arm {
        LexicalArm::Fts5 => index.fts5(query, usize::MAX),
        LexicalArm::Fts5Full => index.fts5_full(query, usize::MAX),
        _ => index.path_fts5(query, usize::MAX),
    }
    .unwrap()
}

fn run_split(index: &SplitIndex, arm: LexicalArm, query: &str) -> ArmOutput {
    match arm {
        LexicalArm::Fts5 => index.fts5(query, usize::MAX),
        LexicalArm::Fts5Full => index.fts5_full(query, usize::MAX),
        _ => index.path_fts5(query, usize::MAX),
    }
    .unwrap()
}

/// The complete ranked list with each score's bits.
fn bits(output: &ArmOutput) -> Vec<(String, u64)> {
    output
        .results
        .iter()
        .map(|(path, score)| (path.clone(), score.to_bits()))
        .collect()
}

impl Pair {
    /// Runs `query` on both for every arm; the split index from its base file and only the
    /// pages and packs it names, round by round. Returns how many packs were fetched.
    fn check(&self, query: &str) -> usize {
        let mut fetched = 0;
        for arm in ARMS {
            let mut split = self.base.clone();
            let mut added = Vec::new();
            for round in 0.. {
                let missing = split.missing_files(arm, query);
                if missing.is_empty() {
                    break;
                }
                assert!(round < 2, "a term takes a page and a pack: {missing:?}");
                for file in missing {
                    let bytes = &self.folder[&file.file];
                    assert_eq!(bytes.len() as u64, file.bytes, "{}", file.file);
                    split.add_file(&file.file, bytes).unwrap();
                    added.push(file);
                }
            }
            // Nothing else was added, and what was added is what the search reads.
            let mut known_added: Vec<String> = split
                .known_files()
                .into_iter()
                .filter(|(_, added)| *added)
                .map(|(file, _)| file.file)
                .collect();
            let mut names: Vec<String> = added.iter().map(|f| f.file.clone()).collect();
            names.sort();
            known_added.sort();
            assert_eq!(names, known_added);
            let reads: Vec<String> = split
                .files_for(arm, query)
                .into_iter()
                .map(|f| f.file)
                .collect();
            assert_eq!(
                reads, names,
                "{arm}: the files it reads are the files added"
            );
            let whole = run_whole(&self.whole, arm, query);
            let cut = run_split(&split, arm, query);
            assert_eq!(whole.terms, cut.terms, "{arm} terms of {query:?}");
            assert_eq!(bits(&whole), bits(&cut), "{arm} ranking of {query:?}");
            fetched += names
                .iter()
                .filter(|f| !f.ends_with(".table.deflate"))
                .count();
        }
        fetched
    }
}

/// This repository's Rust sources and Markdown documents, as `(path, text)`.
fn repository_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["engine/src", "bundler/src", "app/src", "worker/src", "docs"] {
        walk(&root, &root.join(dir), &mut files);
    }
    // As a bundle holds them: the paper's policy keeps out `index.md` and the like.
    files.retain(|(path, text)| {
        Policy::default().check(path, text.as_bytes()) == Decision::Included
    });
    assert!(files.len() > 200, "{} files", files.len());
    files
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(root, &path, files);
        } else if path
            .extension()
            .is_some_and(|ext| ext == "rs" || ext == "md")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            files.push((name, text));
        }
    }
}

/// The demo's questions and the fastindex issue texts.
fn question_texts() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let demo = std::fs::read_to_string(root.join("bundler/demo/questions.jsonl")).unwrap();
    let mut texts: Vec<String> = parse_questions("questions.jsonl", &demo)
        .unwrap()
        .into_iter()
        .map(|question| question.question)
        .collect();
    let dir = common::archive_dir().join("../fastindex-texts");
    let mut issues: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| {
            panic!(
                "the fastindex issue texts are not at {} ({err})",
                dir.display()
            )
        })
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    issues.sort();
    assert_eq!(issues.len(), 4, "the four fastindex issue texts");
    texts.extend(
        issues
            .iter()
            .map(|path| std::fs::read_to_string(path).unwrap()),
    );
    texts
}

/// `count` queries drawn from the corpus's words and beyond, seeded.
fn generated_queries(files: &[(String, String)], count: usize) -> Vec<String> {
    let mut words: Vec<&str> = files
        .iter()
        .flat_map(|(_, text)| text.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.'))
        .filter(|word| word.len() > 2)
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let odd = [
        "zzqxjv_absent",
        "Ünïcödé_naïve",
        "straße",
        "café.résumé",
        "ÉCOLE",
        "a.b.c_d_e",
        "x__y..z",
        "tokenizer.rs",
        "__init__",
    ];
    (0..count)
        .map(|at| {
            let length = 1 + rng.random_range(0..12);
            let mut query: Vec<String> = (0..length)
                .map(|_| match rng.random_range(0..10) {
                    0 => odd[rng.random_range(0..odd.len())].to_string(),
                    1 => {
                        // A phrase: two corpus words joined by `_` or `.`.
                        let a = words[rng.random_range(0..words.len())];
                        let b = words[rng.random_range(0..words.len())];
                        format!("{a}{}{b}", if rng.random_bool(0.5) { "_" } else { "." })
                    }
                    2 => words[rng.random_range(0..words.len())].to_uppercase(),
                    _ => words[rng.random_range(0..words.len())].to_string(),
                })
                .collect();
            if at % 97 == 0 {
                // A token over 255 bytes, which neither index holds.
                query.push("y".repeat(300));
            }
            if at % 13 == 0 {
                // Past the first 500 characters: only `fts5-full` reads on.
                query.insert(0, " ".repeat(600));
            }
            query.join(" ")
        })
        .collect()
}

#[test]
fn split_rankings_equal_the_whole_index_on_the_question_sets_and_generated_queries() {
    let files = repository_files();
    let mut queries = question_texts();
    queries.extend(generated_queries(&files, 2000));
    let pair = pair(&files, IndexSpec::default(), 1024);
    assert!(
        pair.packs > 200,
        "{} packs: more than a table page's",
        pair.packs
    );
    let mut fetched = 0;
    for query in &queries {
        fetched += pair.check(query);
    }
    // Each search read a small part of the index.
    let per_search = fetched as f64 / (queries.len() * ARMS.len()) as f64;
    assert!(
        per_search < pair.packs as f64 / 4.0,
        "{per_search} of {} packs a search",
        pair.packs
    );
}

#[test]
fn every_index_spec_splits_to_the_same_rankings() {
    let files = repository_files();
    let queries = generated_queries(&files, 200);
    for spec in IndexSpec::ALL {
        let pair = pair(&files, spec, 2048);
        if !spec.positions {
            assert!(
                !pair
                    .folder
                    .keys()
                    .any(|name| name.ends_with(".positions.deflate")),
                "no positions packs without positions"
            );
        }
        for query in queries.iter().chain(question_texts().iter()) {
            pair.check(query);
        }
    }
    assert_eq!(IndexSpec::default().index_format(), INDEX_FORMAT);
    assert_eq!(IndexSpec::default().tokenizer, Tokenizer::Unicode61);
}

#[test]
fn a_search_without_its_packs_names_the_missing_pack_and_a_bad_pack_is_refused() {
    let files = repository_files();
    let pair = pair(&files, IndexSpec::default(), 1024);
    let query = "the tokenizer splits empty_set into a phrase";
    // Without its pages the search names one.
    let error = pair.base.fts5(query, 16).unwrap_err().to_string();
    assert!(
        error.contains(".table.deflate") && error.contains("not fetched"),
        "{error}"
    );
    let mut split = pair.base.clone();
    for file in split.missing_files(LexicalArm::Fts5, query) {
        split
            .add_file(&file.file, &pair.folder[&file.file])
            .unwrap();
    }
    // With its pages but not its packs it names a pack; a phrase's are positions packs.
    let packs = split.missing_files(LexicalArm::Fts5, query);
    assert!(packs.iter().any(|p| p.file.ends_with(".positions.deflate")));
    let error = split.fts5(query, 16).unwrap_err().to_string();
    assert!(
        packs.iter().any(|p| error.contains(&p.file)) && error.contains("not fetched"),
        "{error}"
    );
    let pack = &packs[0];
    let mut bytes = pair.folder[&pack.file].clone();
    bytes[0] ^= 1;
    let error = split.add_file(&pack.file, &bytes).unwrap_err().to_string();
    assert!(
        error.contains(&pack.file) && error.contains("SHA-256 mismatch"),
        "{error}"
    );
    let error = split
        .add_file("index/nothing.postings.deflate", &bytes)
        .unwrap_err()
        .to_string();
    assert!(error.contains("list no such file"), "{error}");
}

/// A random corpus: a few files over a small vocabulary, so terms repeat and phrases match.
fn corpus() -> impl Strategy<Value = Vec<(String, String)>> {
    let word = prop::sample::select(vec![
        "alpha", "beta", "gamma", "delta", "set", "empty", "Émile", "naïve", "x", "io", "the",
        "parse", "config", "run", "test", "rs", "py", "md", "src", "lib",
    ]);
    let separator = prop::sample::select(vec![" ", "_", ".", "\n", "/", "-"]);
    let text = prop::collection::vec((word.clone(), separator), 0..60).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(w, s)| format!("{w}{s}"))
            .collect::<String>()
    });
    let path = prop::collection::vec(word, 1..4).prop_map(|parts| parts.join("/") + ".rs");
    prop::collection::btree_map(path, text, 1..25).prop_map(|files| files.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_corpora_split_to_the_same_rankings(
        files in corpus(),
        queries in prop::collection::vec("[a-zA-Zé_. ]{0,80}", 1..8),
        pack_bytes in 16usize..400,
        positions in any::<bool>(),
    ) {
        let spec = IndexSpec::of(Tokenizer::Unicode61, positions);
        let pair = pair(&files, spec, pack_bytes);
        for query in &queries {
            pair.check(query);
        }
        pair.check("alpha_beta gamma.delta empty_set naive emile src/lib");
    }
}
