//! Chunk search and the CodeAtlas grid in the live session (what the browser's worker runs)
//! answer as the engine's own calls over the same chunkings do: the same chunks and scores,
//! the same report stepped as run whole; chunkings come from a bundle's stored bytes, checked
//! against its manifest; a pinned corpus that differs is refused.
#![cfg(feature = "lexical")]

use routelens_engine::corpus::bundle::{
    encode_bundle, encode_chunking, BundleInput, EncodedBundle, StoredIndex,
};
use routelens_engine::corpus::code_chunks::{BudgetCounter, Chunker, CodeChunk};
use routelens_engine::evaluate::{GridRun, GridSettings, GridStep};
use routelens_engine::live::live_session::{AnswerBody, Call, CallBody, LiveSession};
use routelens_engine::load::question_set::parse_question_set;
use routelens_engine::retrieval::chunk_search::Retriever;
use routelens_engine::retrieval::lexical::chunk_index::{
    build_chunk_index, chunk_texts, ChunkIndex, CHUNK_INDEX_FORMAT,
};
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;
use routelens_engine::SourceFile;

const FILES: &[(&str, &str)] = &[
    (
        "api/limits.rs",
        "struct RateLimitFilter;\nimpl RateLimitFilter {\n    fn allow(&self) -> bool {\n        true\n    }\n}\n",
    ),
    ("api/routes.rs", "fn route(request: Request) {\n    dispatch(request)\n}\n"),
    ("store/cache.rs", "fn evict(cache: &mut Cache) {\n    cache.clear()\n}\n"),
    ("docs/limits.md", "# Limits\nThe rate limit filter allows a request per token.\n"),
];

const QUESTIONS: &str = concat!(
    r#"{"id":"q1","question":"rate limit filter allows too much","gold":["api/limits.rs"]}"#,
    "\n",
    r#"{"id":"q2","question":"cache evict does not clear","gold":["store/cache.rs"]}"#,
    "\n",
    r#"{"id":"q3","question":"route dispatch request","gold":["api/routes.rs"]}"#,
    "\n",
    r#"{"projects":{"api/":"api","store/":"store","docs/":"api"}}"#,
    "\n",
);

fn chunk(path: &str, start_line: u32, end_line: u32, kind: &str, name: &str) -> CodeChunk {
    CodeChunk {
        path: path.into(),
        start_line,
        end_line,
        kind: kind.into(),
        name: name.into(),
        tokens: 10,
    }
}

/// Hand-written chunkings (the chunkers themselves are tested in `code_chunks`): structural
/// splits the filter's header from its method; windows take whole files.
fn tables() -> Vec<(Chunker, Vec<CodeChunk>)> {
    let mut paths: Vec<&str> = FILES.iter().map(|(p, _)| *p).collect();
    paths.sort();
    let windows = paths
        .iter()
        .map(|p| {
            let lines = FILES
                .iter()
                .find(|(q, _)| q == p)
                .unwrap()
                .1
                .lines()
                .count() as u32;
            chunk(p, 1, lines, "window", "")
        })
        .collect();
    let structural = vec![
        chunk("api/limits.rs", 1, 2, "struct", "RateLimitFilter"),
        chunk("api/limits.rs", 3, 6, "method", "RateLimitFilter.allow"),
        chunk("api/routes.rs", 1, 3, "function", "route"),
        chunk("docs/limits.md", 1, 2, "section", "Limits"),
        chunk("store/cache.rs", 1, 3, "function", "evict"),
    ];
    vec![
        (Chunker::Structural, structural),
        (Chunker::Window, windows),
    ]
}

fn text_of(path: &str) -> &'static str {
    FILES.iter().find(|(p, _)| *p == path).unwrap().1
}

fn bundle() -> EncodedBundle {
    let input = BundleInput {
        source: "two-projects".into(),
        files: FILES
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        ..BundleInput::default()
    };
    let encoded = encode_bundle(input, Default::default()).unwrap();
    let stored = tables()
        .into_iter()
        .map(|(chunker, chunks)| {
            let blob = build_chunk_index(&chunks, &chunk_texts(&chunks, text_of)).unwrap();
            let index = StoredIndex::new(&blob, CHUNK_INDEX_FORMAT.to_string(), 1);
            let mut chunking = encode_chunking(
                &encoded.manifest.files,
                (chunker, 254, BudgetCounter::Cl100k),
                &chunks,
                1,
            )
            .unwrap();
            chunking.entry.index = Some(index.entry);
            chunking.index_file = Some(index.file);
            chunking
        })
        .collect();
    encoded.with_chunkings(stored).unwrap()
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

fn session(bundle: &EncodedBundle) -> LiveSession {
    let mut session = LiveSession::new();
    session
        .open(
            "b",
            &file(bundle, "manifest.json"),
            bundle.file_list_bytes(),
        )
        .unwrap();
    for entry in &bundle.manifest.chunkings {
        let index = entry.index.as_ref().unwrap();
        session
            .load_chunking(
                "b",
                entry.chunker,
                &file(bundle, &entry.file),
                &file(bundle, &index.file),
            )
            .unwrap();
    }
    session
}

/// The same chunkings opened directly, without a bundle.
fn direct() -> OpenChunkings {
    let mut open = OpenChunkings::new();
    for (chunker, chunks) in tables() {
        let blob = build_chunk_index(&chunks, &chunk_texts(&chunks, text_of)).unwrap();
        let index = ChunkIndex::open("direct", &blob, &chunks).unwrap();
        open.insert(chunker, chunks, index);
    }
    open
}

fn ticks() -> impl FnMut() -> f64 {
    let mut t = 0.0;
    move || {
        t += 1.0;
        t
    }
}

#[test]
fn chunk_search_finds_what_the_engine_finds() {
    let bundle = bundle();
    let session = session(&bundle);
    let open = direct();
    for cap in [None, Some(1)] {
        let (hits, ms) = session
            .chunk_search(
                "b",
                (Chunker::Structural, Retriever::Bm25),
                "impl RateLimitFilter fn allow",
                (5, cap),
                &mut ticks(),
            )
            .unwrap();
        assert_eq!(ms, 1.0);
        let expected = open
            .search(
                (Chunker::Structural, Retriever::Bm25),
                "impl RateLimitFilter fn allow",
                5,
                cap,
            )
            .unwrap();
        assert_eq!(hits.len(), expected.len());
        let table = &tables()[0].1;
        for (hit, e) in hits.iter().zip(&expected) {
            assert_eq!(hit.path, table[e.chunk].path);
            assert_eq!(hit.start_line, table[e.chunk].start_line);
            assert_eq!(hit.score, e.score);
        }
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        let all = [
            "api/limits.rs",
            "docs/limits.md",
            "api/routes.rs",
            "store/cache.rs",
        ];
        match cap {
            None => assert_eq!(paths, ["api/limits.rs", all[0], all[1], all[2], all[3]]),
            // The filter's second chunk goes below every other file's first.
            Some(_) => assert_eq!(paths, [all[0], all[1], all[2], all[3], "api/limits.rs"]),
        }
    }
}

#[test]
fn the_grid_stepped_in_the_session_is_the_grid_run_whole() {
    let bundle = bundle();
    let session = session(&bundle);
    let settings = GridSettings {
        caps: vec![1],
        resamples: 200,
        ..GridSettings::default()
    };
    let mut run = session
        .grid("b", "q.jsonl", QUESTIONS, settings.clone())
        .unwrap();
    while session.grid_step("b", &mut run).unwrap() != GridStep::Done {}
    let stepped = run.report().unwrap();
    let set = parse_question_set("q.jsonl", QUESTIONS).unwrap();
    let whole = GridRun::new(
        "q.jsonl",
        set,
        settings,
        &[Chunker::Structural, Chunker::Window],
    )
    .unwrap()
    .run(&direct())
    .unwrap();
    assert_eq!(stepped, whole);
    assert_eq!(stepped.configurations.len(), 4);
    assert!(stepped.split.is_some());
}

#[test]
fn a_pinned_corpus_that_differs_is_refused_naming_the_file() {
    let bundle = bundle();
    let mut session = session(&bundle);
    let pinned = format!(
        "{QUESTIONS}{}\n",
        r#"{"corpus":[{"path":"api/limits.rs","lines":6,"sha256":"00"}]}"#
    );
    // Format 6 keeps the files' hashes with their texts: the check needs them loaded.
    assert!(session.pins_need_texts("b", "q.jsonl", &pinned));
    assert!(!session.pins_need_texts("b", "q.jsonl", QUESTIONS));
    let message = session
        .grid("b", "q.jsonl", &pinned, GridSettings::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("texts") && message.contains("pins"),
        "{message}"
    );
    let chunks: Vec<Vec<u8>> = bundle
        .manifest
        .chunks
        .iter()
        .map(|c| file(&bundle, &c.file))
        .collect();
    session.load_texts("b", &chunks).unwrap();
    assert!(!session.pins_need_texts("b", "q.jsonl", &pinned));
    let message = session
        .grid("b", "q.jsonl", &pinned, GridSettings::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("api/limits.rs differs"), "{message}");
}

#[test]
fn a_chunking_not_loaded_or_damaged_is_named() {
    let bundle = bundle();
    let mut session = LiveSession::new();
    session
        .open(
            "b",
            &file(&bundle, "manifest.json"),
            bundle.file_list_bytes(),
        )
        .unwrap();
    let message = session
        .chunk_search(
            "b",
            (Chunker::Window, Retriever::Bm25),
            "cache",
            (5, None),
            &mut ticks(),
        )
        .unwrap_err()
        .to_string();
    assert!(message.contains("window"), "{message}");
    let entry = &bundle.manifest.chunkings[0];
    let mut table = file(&bundle, &entry.file);
    table[0] ^= 1;
    let index = file(&bundle, &entry.index.as_ref().unwrap().file);
    let message = session
        .load_chunking("b", entry.chunker, &table, &index)
        .unwrap_err()
        .to_string();
    assert!(message.contains(&entry.file), "{message}");
    assert!(!session.has_chunking("b", entry.chunker));
}

#[test]
fn the_new_calls_and_answers_survive_json() {
    let bundle = bundle();
    let session = session(&bundle);
    let call = Call {
        id: 7,
        body: CallBody::Evaluate {
            bundle: "b".into(),
            questions: "http://127.0.0.1/q.jsonl".into(),
            settings: GridSettings {
                chunkers: vec![Chunker::StructuralUnmerged],
                caps: vec![2],
                ..GridSettings::default()
            },
            reranker_model: None,
            also_questions: Some("http://127.0.0.1/adjudicated.jsonl".into()),
        },
    };
    let back: Call = serde_json::from_str(&serde_json::to_string(&call).unwrap()).unwrap();
    assert_eq!(back, call);
    let mut run = session
        .grid(
            "b",
            "q.jsonl",
            QUESTIONS,
            GridSettings {
                resamples: 20,
                ..GridSettings::default()
            },
        )
        .unwrap();
    while session.grid_step("b", &mut run).unwrap() != GridStep::Done {}
    let report = run.report().unwrap();
    let set =
        routelens_engine::load::question_set::parse_question_set("q.jsonl", QUESTIONS).unwrap();
    let gold_agreement = routelens_engine::evaluate::adjudication_report::gold_agreement(
        &set.questions,
        &set.questions,
        routelens_engine::BootstrapConfig {
            resamples: 20,
            seed: 0,
        },
    )
    .unwrap();
    let answer = AnswerBody::Evaluated {
        report: Some(Box::new(report.clone())),
        also: Some(Box::new(routelens_engine::live::live_session::AlsoGold {
            questions: "adjudicated.jsonl".into(),
            report,
            agreement: gold_agreement
                .statistics
                .iter()
                .map(|s| s.sentence.clone())
                .collect(),
        })),
        done: 3,
        total: 3,
        ms: 1.5,
    };
    let back: AnswerBody = serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap();
    assert_eq!(back, answer);
    let (hits, _) = session
        .chunk_search(
            "b",
            (Chunker::Window, Retriever::Bm25),
            "cache evict",
            (3, None),
            &mut ticks(),
        )
        .unwrap();
    let answer = AnswerBody::ChunkHits { hits, ms: 0.25 };
    let back: AnswerBody = serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap();
    assert_eq!(back, answer);
}
