//! Dense and hybrid chunk search over a bundle's stored vectors, checked against brute force:
//! dense is every chunk's cosine with the question's stored vector, highest first, ties by table
//! position; hybrid is RRF (k = 60) of BM25's top 60 and dense's top 60, ties by chunk key; the
//! per-file cap over either; and vectors of another model are refused naming their file.
#![cfg(feature = "lexical")]

use std::collections::BTreeMap;

use proptest::prelude::*;
use routelens_engine::checksum::sha256;
use routelens_engine::corpus::bundle::{
    encode_bundle, encode_chunking, store_question_vectors, store_vectors, BundleInput,
    EncodedBundle, Precision, StoredIndex, VectorModel,
};
use routelens_engine::corpus::code_chunks::{BudgetCounter, Chunker, CodeChunk};
use routelens_engine::retrieval::chunk_search::{
    cap_per_file, chunk_key, ChunkRankings, Retriever,
};
use routelens_engine::retrieval::dense::pin::ModelPin;
use routelens_engine::retrieval::lexical::chunk_index::{
    build_chunk_index, chunk_texts, CHUNK_INDEX_FORMAT,
};
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;
use routelens_engine::SourceFile;

const WORDS: &[&str] = &[
    "cache", "route", "filter", "limit", "evict", "token", "parse",
];

/// A corpus of `files.len()` files, each of `lines` lines of the words picked, one chunk per
/// two lines; chunk vectors from `values` (dimension 3, left unnormalised: the ranking is a
/// dot product either way); and the questions with their stored vectors.
struct Case {
    bundle: EncodedBundle,
    chunks: Vec<CodeChunk>,
    rows: Vec<f32>,
    questions: Vec<(String, Vec<f32>)>,
}

const DIMENSION: usize = 3;

fn pinned() -> (String, String) {
    let pin = ModelPin::minilm();
    let weights = pin.files["model.safetensors"].sha256.clone();
    (pin.name, weights)
}

fn build(
    files: &[Vec<usize>],
    values: &[i8],
    questions: &[(Vec<usize>, [i8; 3])],
    model: &str,
) -> Case {
    let texts: Vec<(String, String)> = files
        .iter()
        .enumerate()
        .map(|(at, words)| {
            let lines: Vec<&str> = words.iter().map(|&w| WORDS[w % WORDS.len()]).collect();
            (format!("f{at:02}.rs"), lines.join("\n") + "\n")
        })
        .collect();
    let input = BundleInput {
        source: "dense".into(),
        files: texts
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.clone(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        ..BundleInput::default()
    };
    let encoded = encode_bundle(input, Default::default()).unwrap();
    let mut chunks = Vec::new();
    for (path, text) in &texts {
        let lines = text.lines().count() as u32;
        let mut start = 1;
        while start <= lines {
            let end = (start + 1).min(lines);
            chunks.push(CodeChunk {
                path: path.clone(),
                start_line: start,
                end_line: end,
                kind: "window".into(),
                name: String::new(),
                tokens: 2,
            });
            start = end + 1;
        }
    }
    let by_path: BTreeMap<&str, &str> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let blob = build_chunk_index(&chunks, &chunk_texts(&chunks, |p| by_path[p])).unwrap();
    let index = StoredIndex::new(&blob, CHUNK_INDEX_FORMAT.to_string(), 1);
    let mut chunking = encode_chunking(
        &encoded.manifest.files,
        (Chunker::Window, 254, BudgetCounter::Minilm),
        &chunks,
        1,
    )
    .unwrap();
    chunking.entry.index = Some(index.entry);
    chunking.index_file = Some(index.file);
    let rows: Vec<f32> = (0..chunks.len() * DIMENSION)
        .map(|at| f32::from(values[at % values.len()]) / 8.0)
        .collect();
    let (_, weights) = pinned();
    let model = VectorModel {
        name: model,
        weights_sha256: &weights,
    };
    let (entry, file) = store_vectors(model, &rows, DIMENSION, Precision::F32);
    chunking.entry.vectors = Some(entry);
    chunking.vectors_file = Some(file);
    // One vector per text: a repeated question keeps its first.
    let mut questions: Vec<(String, Vec<f32>)> = questions
        .iter()
        .map(|(words, vector)| {
            let text = words
                .iter()
                .map(|&w| WORDS[w % WORDS.len()])
                .collect::<Vec<_>>()
                .join(" ");
            (text, vector.iter().map(|&x| f32::from(x)).collect())
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    questions.retain(|(text, _)| seen.insert(text.clone()));
    let keyed: Vec<([u8; 32], Vec<f32>)> = questions
        .iter()
        .map(|(text, vector)| (sha256(text.as_bytes()), vector.clone()))
        .collect();
    let bundle = encoded
        .with_chunkings(vec![chunking])
        .unwrap()
        .with_question_vectors(store_question_vectors(model, &keyed, DIMENSION))
        .unwrap();
    Case {
        bundle,
        chunks,
        rows,
        questions,
    }
}

fn file(bundle: &EncodedBundle, name: &str) -> Vec<u8> {
    bundle
        .files
        .iter()
        .find(|f| f.name == name)
        .unwrap()
        .bytes
        .clone()
}

fn open(case: &Case) -> routelens_engine::Result<OpenChunkings> {
    let manifest = &case.bundle.manifest;
    let entry = &manifest.chunkings[0];
    let mut open = OpenChunkings::new();
    open.open_stored(
        manifest,
        Chunker::Window,
        &file(&case.bundle, &entry.file),
        &file(&case.bundle, &entry.index.as_ref().unwrap().file),
    )?;
    open.open_vectors(
        manifest,
        Chunker::Window,
        (
            &file(&case.bundle, &entry.vectors.as_ref().unwrap().file),
            None,
        ),
    )?;
    let questions = manifest.question_vectors.as_ref().unwrap();
    open.open_question_vectors(manifest, &file(&case.bundle, &questions.file))?;
    Ok(open)
}

/// Every chunk by its dot product with `query`, highest first, ties by position.
fn brute_dense(rows: &[f32], query: &[f32]) -> Vec<usize> {
    let scores: Vec<f32> = rows
        .chunks_exact(DIMENSION)
        // + 0.0: a zero product sum is +0.0, as the engine's lane sums give it (Rust's float
        // `sum` starts from -0.0, which total_cmp would rank below +0.0).
        .map(|row| row.iter().zip(query).map(|(a, b)| a * b).sum::<f32>() + 0.0)
        .collect();
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
}

/// RRF of two rankings' top 60, k = 60, ties by chunk key.
fn brute_hybrid(chunks: &[CodeChunk], lexical: &[usize], dense: &[usize]) -> Vec<usize> {
    let mut score: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for list in [lexical, dense] {
        for (rank, &at) in list.iter().take(60).enumerate() {
            score.entry(chunk_key(&chunks[at])).or_insert((0.0, at)).0 +=
                1.0 / (61.0 + rank as f64);
        }
    }
    let mut fused: Vec<(String, f64, usize)> =
        score.into_iter().map(|(k, (s, at))| (k, s, at)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.into_iter().map(|(_, _, at)| at).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn dense_and_hybrid_rank_as_brute_force(
        files in prop::collection::vec(prop::collection::vec(0..7usize, 1..9), 8..40),
        values in prop::collection::vec(-8..8i8, 5..50),
        questions in prop::collection::vec((prop::collection::vec(0..7usize, 1..4), [-4..4i8, -4..4i8, -4..4i8]), 1..4),
        k in 1..150usize,
        cap in 1..3usize,
        prepared in any::<bool>(),
    ) {
        let case = build(&files, &values, &questions, &pinned().0);
        let open = open(&case).unwrap();
        if prepared {
            // The grid's batch: every question scanned in one pass before any is ranked.
            let texts: Vec<&str> = case.questions.iter().map(|(t, _)| t.as_str()).collect();
            open.prepare(Chunker::Window, &texts).unwrap();
        }
        for (text, vector) in &case.questions {
            let search = |retriever, cap| {
                open.search((Chunker::Window, retriever), text, k, cap)
                    .unwrap()
                    .into_iter()
                    .map(|h| h.chunk)
                    .collect::<Vec<_>>()
            };
            let dense = brute_dense(&case.rows, vector);
            prop_assert_eq!(search(Retriever::Dense, None), dense.iter().copied().take(k).collect::<Vec<_>>());
            let lexical = search(Retriever::Bm25, None);
            let lexical60: Vec<usize> = open
                .search((Chunker::Window, Retriever::Bm25), text, 60, None)
                .unwrap()
                .into_iter()
                .map(|h| h.chunk)
                .collect();
            prop_assert!(lexical.len() <= k);
            let hybrid = brute_hybrid(&case.chunks, &lexical60, &dense);
            prop_assert_eq!(search(Retriever::Hybrid, None), hybrid.iter().copied().take(k).collect::<Vec<_>>());
            // A chunking keeps its last scan and BM25 search for the next call: searches at
            // any depth, in any order, equal those of a chunking opened afresh.
            for depth in [k, 60, 1, k + 5, 2 * k] {
                for retriever in [Retriever::Bm25, Retriever::Dense, Retriever::Hybrid] {
                    let fresh = crate::open(&case).unwrap();
                    prop_assert_eq!(
                        open.search((Chunker::Window, retriever), text, depth, None).unwrap(),
                        fresh.search((Chunker::Window, retriever), text, depth, None).unwrap()
                    );
                }
            }
            // The cap over the whole ranking, cut at k.
            for (retriever, whole) in [(Retriever::Dense, &dense), (Retriever::Hybrid, &hybrid)] {
                let mut capped = cap_per_file(whole, &case.chunks, cap).unwrap();
                capped.truncate(k);
                prop_assert_eq!(search(retriever, Some(cap)), capped);
            }
        }
    }
}

#[test]
fn vectors_of_another_model_are_refused_naming_their_file() {
    let case = build(
        &[vec![0, 1], vec![2, 3]],
        &[1, 2, 3],
        &[(vec![0], [1, 0, 0])],
        "someone/else",
    );
    let refused = open(&case).unwrap_err().to_string();
    let file = &case.bundle.manifest.chunkings[0]
        .vectors
        .as_ref()
        .unwrap()
        .file;
    assert!(
        refused.starts_with(&format!(
            "{file}: embedding model: vectors made by someone/else"
        )),
        "{refused}"
    );
    assert!(
        refused.contains("sentence-transformers/all-MiniLM-L6-v2"),
        "{refused}"
    );
}

#[test]
fn a_question_without_a_stored_vector_needs_the_model() {
    let case = build(
        &[vec![0, 1], vec![2, 3]],
        &[1, 2, 3],
        &[(vec![0], [1, 0, 0])],
        &pinned().0,
    );
    let open = open(&case).unwrap();
    assert!(open
        .search((Chunker::Window, Retriever::Dense), "cache", 3, None)
        .is_ok());
    let refused = open
        .search(
            (Chunker::Window, Retriever::Hybrid),
            "an unseen question",
            3,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(refused.contains("embedding model loaded"), "{refused}");
    // BM25 needs no vector.
    assert!(open
        .search(
            (Chunker::Window, Retriever::Bm25),
            "an unseen question",
            3,
            None
        )
        .is_ok());
}

/// The live worker's session: vectors and the question set's loaded from the stored bytes, dense
/// and hybrid answered as the engine's own search, and the model asked for only by a dense or
/// hybrid question the bundle stores no vector for.
#[test]
fn the_live_session_searches_its_vectors_as_the_engine_does() {
    use routelens_engine::live::live_session::LiveSession;
    let case = build(
        &[vec![0, 1, 2], vec![2, 3, 4], vec![5, 6, 0, 1]],
        &[3, -1, 2, 5, -4],
        &[(vec![0, 2], [1, 2, 0]), (vec![4], [0, -1, 3])],
        &pinned().0,
    );
    let manifest = &case.bundle.manifest;
    let entry = &manifest.chunkings[0];
    let manifest_bytes = file(&case.bundle, "manifest.json");
    let mut session = LiveSession::new();
    session
        .open("b", &manifest_bytes, case.bundle.file_list_bytes())
        .unwrap();
    session
        .load_chunking(
            "b",
            Chunker::Window,
            &file(&case.bundle, &entry.file),
            &file(&case.bundle, &entry.index.as_ref().unwrap().file),
        )
        .unwrap();
    let vectors_file = &entry.vectors.as_ref().unwrap().file;
    let mut tampered = file(&case.bundle, vectors_file);
    tampered[0] ^= 1;
    // As the worker loads them: with the digest the browser computed of the bytes it got.
    let digest = routelens_engine::checksum::sha256_hex(&tampered);
    let refused = session
        .load_vectors("b", Chunker::Window, (&tampered, Some(&digest)))
        .unwrap_err()
        .to_string();
    assert!(refused.starts_with(vectors_file.as_str()), "{refused}");
    assert!(!session.has_vectors("b", Chunker::Window));
    let good = file(&case.bundle, vectors_file);
    let digest = routelens_engine::checksum::sha256_hex(&good);
    session
        .load_vectors("b", Chunker::Window, (&good, Some(&digest)))
        .unwrap();
    let questions = manifest.question_vectors.as_ref().unwrap();
    assert!(!session.has_question_vectors("b"));
    session
        .load_question_vectors("b", &file(&case.bundle, &questions.file))
        .unwrap();
    assert!(session.has_vectors("b", Chunker::Window) && session.has_question_vectors("b"));
    let engine = open(&case).unwrap();
    let mut tick = 0.0;
    let mut clock = move || {
        tick += 1.0;
        tick
    };
    for (text, _) in &case.questions {
        for retriever in Retriever::ALL {
            assert!(!session.needs_model("b", retriever, text));
            for cap in [None, Some(1)] {
                let (hits, _) = session
                    .chunk_search(
                        "b",
                        (Chunker::Window, retriever),
                        text,
                        (5, cap),
                        &mut clock,
                    )
                    .unwrap();
                let expected = engine
                    .search((Chunker::Window, retriever), text, 5, cap)
                    .unwrap();
                let got: Vec<(u32, f32)> = hits.iter().map(|h| (h.start_line, h.score)).collect();
                let want: Vec<(u32, f32)> = expected
                    .iter()
                    .map(|h| (case.chunks[h.chunk].start_line, h.score))
                    .collect();
                assert_eq!(got, want, "{text} {retriever:?} {cap:?}");
            }
        }
    }
    let unseen = "a question nobody stored";
    assert!(session.needs_model("b", Retriever::Dense, unseen));
    assert!(session.needs_model("b", Retriever::Hybrid, unseen));
    assert!(!session.needs_model("b", Retriever::Bm25, unseen));
    assert!(session
        .chunk_search(
            "b",
            (Chunker::Window, Retriever::Dense),
            unseen,
            (5, None),
            &mut clock
        )
        .is_err());
}
