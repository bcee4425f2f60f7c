//! The live session (what the browser's worker runs) answers exactly as the engine's own calls
//! do: its arms are `run_issue`'s, its packs `build_context`'s, its line scores the same packs'
//! scores; it refuses work for a bundle it does not hold, naming both; and every message it
//! takes or gives survives JSON, errors keeping their text.
#![cfg(feature = "lexical")]

mod rank_table;

use routelens_engine::corpus::bundle::{encode_bundle, BundleInput, BundleOptions, EncodedBundle};
use routelens_engine::delivery::context::{build_context, ContextSettings};
use routelens_engine::delivery::synthetic::pack_bench_corpus;
use routelens_engine::live::live_session::{
    Answer, AnswerBody, BundleUrls, Call, CallBody, LineJob, LiveSession, WireRun,
};
use routelens_engine::retrieval::lexical::fts::{build_index_blob, INDEX_FORMAT};
use routelens_engine::retrieval::lexical::issue_run::run_issue;
use routelens_engine::retrieval::lexical::timing::ArmTiming;
use routelens_engine::{GoldSpan, LexicalArm, SourceFile, Sources, TextCorpus};
use std::collections::BTreeMap;

const FILES: &[(&str, &str)] = &[
    (
        "src/router.rs",
        "fn route(request) {\n    dispatch(request)\n}\n",
    ),
    (
        "src/cache.rs",
        "struct Cache;\nimpl Cache {\n    fn evict() {}\n}\n",
    ),
    (
        "docs/routing.md",
        "Routing sends each request to a handler.\nThe router uses the cache.\n",
    ),
    ("README.md", "# Demo\nA router and a cache.\n"),
];

const ISSUE: &str = "The router forgets cached routes after a reload";

fn encoded(name_suffix: &str) -> EncodedBundle {
    let input = BundleInput {
        source: format!("demo{name_suffix}"),
        files: FILES
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        index: Some((build_index_blob(FILES).unwrap(), INDEX_FORMAT.to_string())),
        ..BundleInput::default()
    };
    let options = BundleOptions {
        chunk_target_bytes: 40,
        ..BundleOptions::default()
    };
    encode_bundle(input, options).unwrap()
}

/// The stored bytes of the manifest, the chunks (in manifest order) and the index.
fn parts(bundle: &EncodedBundle) -> (Vec<u8>, Vec<Vec<u8>>, Vec<u8>) {
    let file = |name: &str| {
        bundle
            .files
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .bytes
            .clone()
    };
    let chunks = bundle
        .manifest
        .chunks
        .iter()
        .map(|chunk| file(&chunk.file))
        .collect();
    let index = file(&bundle.manifest.index.as_ref().unwrap().file);
    (file("manifest.json"), chunks, index)
}

/// A session holding the demo bundle as `demo`, with its index and texts.
fn loaded() -> LiveSession {
    loaded_from(&encoded(""))
}

fn loaded_from(bundle: &EncodedBundle) -> LiveSession {
    let (manifest, chunks, index) = parts(bundle);
    let mut session = LiveSession::new();
    session
        .open("demo", &manifest, bundle.file_list_bytes())
        .unwrap();
    session.load_index("demo", &index).unwrap();
    for (at, chunk) in chunks.iter().enumerate() {
        session.check_chunk("demo", at, chunk).unwrap();
    }
    assert_eq!(session.load_texts("demo", &chunks).unwrap(), FILES.len());
    session
}

fn clock() -> impl FnMut() -> f64 {
    let mut t = 0.0;
    move || {
        t += 1.0;
        t
    }
}

#[test]
fn the_sessions_arms_are_run_issues_arms() {
    let session = loaded();
    let fused = vec!["fts5".to_string(), "rg".to_string()];
    let ours = session
        .run_issue("demo", ISSUE, 16, &fused, &mut clock())
        .unwrap();

    let paths: Vec<String> = {
        let mut p: Vec<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        p.sort();
        p
    };
    let index = routelens_engine::retrieval::lexical::FtsIndex::open(
        "i",
        &build_index_blob(FILES).unwrap(),
        paths.clone(),
    )
    .unwrap();
    let index = routelens_engine::retrieval::lexical::LexicalIndex::Whole(index);
    let corpus = TextCorpus::new(FILES.iter().copied());
    let sources = Sources::new(&paths).with_index(&index).with_texts(&corpus);
    let direct = run_issue(&sources, ISSUE, 16, &fused, &mut clock());
    assert_eq!(ours.len(), LexicalArm::ALL.len() + 1);
    for (wire, direct) in ours.into_iter().zip(direct) {
        let back = wire.into_run();
        assert_eq!(back.arm, direct.arm);
        assert_eq!(back.output.unwrap(), direct.output.unwrap(), "{}", back.arm);
    }
}

#[test]
fn arms_whose_parts_are_not_loaded_fail_with_what_they_need() {
    let bundle = encoded("");
    let (manifest, _, index) = parts(&bundle);
    let mut session = LiveSession::new();
    session
        .open("demo", &manifest, bundle.file_list_bytes())
        .unwrap();
    session.load_index("demo", &index).unwrap();
    assert!(session.has_index("demo") && !session.has_texts("demo"));
    let fused = vec!["fts5".to_string(), "rg".to_string()];
    let runs = session
        .run_issue("demo", ISSUE, 16, &fused, &mut clock())
        .unwrap();
    let of = |name: &str| runs.iter().find(|run| run.arm == name).unwrap();
    assert!(of("fts5").output.is_ok());
    let rg = of("rg").output.clone().unwrap_err();
    assert!(rg.contains("needs"), "{rg}");
    let fusion = of("fts5+rg").output.clone().unwrap_err();
    assert!(fusion.contains("rg's ranking, which failed"), "{fusion}");
}

#[test]
fn work_for_another_bundle_is_refused_naming_both() {
    let session = loaded();
    let error = session
        .run_issue("other", ISSUE, 16, &[], &mut clock())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("\"other\"") && error.contains("\"demo\""),
        "{error}"
    );
    let error = LiveSession::new()
        .time_call("demo", LexicalArm::Fts5, ISSUE, 16, &mut clock())
        .unwrap_err()
        .to_string();
    assert!(error.contains("no bundle is"), "{error}");
}

#[test]
fn reopening_keeps_what_is_loaded_and_another_bundle_drops_it() {
    let bundle = encoded("");
    let mut session = loaded_from(&bundle);
    let (manifest, _, _) = parts(&bundle);
    session
        .open("demo", &manifest, bundle.file_list_bytes())
        .unwrap();
    assert!(session.has_index("demo") && session.has_texts("demo"));
    let second = encoded("-2");
    let (other, _, _) = parts(&second);
    session
        .open("demo", &other, second.file_list_bytes())
        .unwrap();
    assert!(!session.has_index("demo") && !session.has_texts("demo"));
}

#[test]
fn a_manifest_other_than_the_pages_is_refused() {
    let bundle = encoded("");
    let (manifest, _, _) = parts(&bundle);
    let mut session = LiveSession::new();
    let checked = routelens_engine::sha256_hex(&manifest);
    session
        .open_checked(
            "demo",
            (&manifest, bundle.file_list_bytes()),
            Some(&checked),
        )
        .unwrap();
    let second = encoded("-2");
    let (other, _, _) = parts(&second);
    let error = session
        .open_checked("demo", (&other, second.file_list_bytes()), Some(&checked))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("demo/manifest.json: refused: the copy the live worker fetched"),
        "{error}"
    );
    assert!(error.contains(&checked), "{error}");
    assert!(session
        .manifest("demo")
        .is_some_and(|m| m.paths() == bundle.manifest.paths()));
}

#[test]
fn a_damaged_chunk_is_named_before_the_rest() {
    let bundle = encoded("");
    let (manifest, mut chunks, _) = parts(&bundle);
    let mut session = LiveSession::new();
    session
        .open("demo", &manifest, bundle.file_list_bytes())
        .unwrap();
    let at = chunks[1].len() / 2;
    chunks[1][at] ^= 0x55;
    let error = session
        .check_chunk("demo", 1, &chunks[1])
        .unwrap_err()
        .to_string();
    assert!(error.contains(&bundle.manifest.chunks[1].file), "{error}");
    assert!(session.load_texts("demo", &chunks).is_err());
}

#[test]
fn timed_calls_time_the_arm_and_name_a_failure() {
    let session = loaded();
    let ms = session
        .time_call("demo", LexicalArm::Fts5, ISSUE, 16, &mut clock())
        .unwrap();
    assert_eq!(ms, 1.0);
    let mut bare = LiveSession::new();
    let bundle = encoded("");
    bare.open("demo", &parts(&bundle).0, bundle.file_list_bytes())
        .unwrap();
    let error = bare
        .time_call("demo", LexicalArm::Rg, ISSUE, 16, &mut clock())
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("rg: "), "{error}");
}

#[test]
fn packs_and_line_scores_are_build_contexts() {
    let Some(table) = rank_table::read_rank_table() else {
        return;
    };
    let mut session = loaded();
    let settings = ContextSettings::default();
    let ranking: Vec<String> = vec![
        "src/router.rs".into(),
        "missing.rs".into(),
        "README.md".into(),
    ];
    let gold = vec![GoldSpan {
        path: "src/router.rs".into(),
        start_line: 1,
        end_line: 2,
    }];
    let rankings = vec![("a".to_string(), ranking.clone())];
    // No counter yet: the pack says what it needs.
    let error = session
        .pack("demo", ISSUE, &rankings, &settings, &gold, &mut clock())
        .unwrap_err()
        .to_string();
    assert!(error.contains("cl100k_base"), "{error}");
    session.load_counter(&table).unwrap();
    let packs = session
        .pack("demo", ISSUE, &rankings, &settings, &gold, &mut clock())
        .unwrap();
    let packed = packs[0].result.as_ref().unwrap();
    let mut counter = routelens_engine::TokenCache::new(
        routelens_engine::Cl100k::from_rank_table(&table).unwrap(),
    );
    let text_of = |path: &str| FILES.iter().find(|(p, _)| *p == path).map(|(_, t)| *t);
    let direct = build_context(
        ISSUE,
        &ranking,
        &settings,
        text_of,
        Some(&gold),
        &mut counter,
    )
    .unwrap();
    assert_eq!(packed.report, direct);
    assert_eq!(packed.ms, 1.0);
    // The texts shown beside the pack: the ranked files that exist and the gold file.
    let shown: Vec<&str> = packed.texts.keys().map(String::as_str).collect();
    assert_eq!(shown, ["README.md", "src/router.rs"]);
    assert_eq!(packed.texts["src/router.rs"], FILES[0].1);

    let job = LineJob {
        index: 7,
        text: ISSUE.into(),
        gold: gold.clone(),
        rankings: vec![
            ("a".into(), ranking.clone()),
            ("b".into(), vec!["README.md".into()]),
        ],
    };
    let mut rows = Vec::new();
    session
        .score_lines("demo", &job, &settings, &mut rows)
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].scores, vec![(7, direct.score.clone().unwrap())]);
    assert_eq!(rows[1].scores[0].1.line_recall, 0.0);

    // A gold span outside the bundle fails the line scores, never scores zero.
    let bad = LineJob {
        gold: vec![GoldSpan {
            path: "not/here.rs".into(),
            start_line: 1,
            end_line: 1,
        }],
        ..job
    };
    assert!(session
        .score_lines("demo", &bad, &settings, &mut rows)
        .is_err());

    // The pack bench: a cold round and a warm one over the bench corpus pack the same tokens.
    let corpus = pack_bench_corpus();
    let (_, cold_tokens) = session
        .pack_bench_round(&corpus, None, &mut clock())
        .unwrap();
    let (_, warm_tokens) = session
        .pack_bench_round(&corpus, Some(0), &mut clock())
        .unwrap();
    assert!(cold_tokens > 0);
    assert_eq!(cold_tokens, warm_tokens);
}

#[test]
fn messages_survive_json_and_errors_keep_their_text() {
    let calls = vec![
        CallBody::Load {
            bundle: "demo".into(),
            files: BundleUrls {
                base: "http://127.0.0.1:1/bundles/demo".into(),
                each: BTreeMap::new(),
            },
            manifest_sha256: Some("00".repeat(32)),
            index: true,
            texts: false,
            chunkings: Vec::new(),
            vectors: false,
        },
        CallBody::RunIssue {
            bundle: "demo".into(),
            issue: ISSUE.into(),
            k: 16,
            fused: vec!["fts5".into(), "rg".into()],
        },
        CallBody::Pack {
            bundle: "demo".into(),
            issue: ISSUE.into(),
            rankings: vec![("fts5".into(), vec!["a.rs".into()])],
            settings: ContextSettings::default(),
            gold: Vec::new(),
        },
        CallBody::Load {
            bundle: "picked:demo".into(),
            files: BundleUrls {
                base: String::new(),
                each: BTreeMap::from([(
                    "manifest.json".into(),
                    "blob:http://127.0.0.1:1/x".into(),
                )]),
            },
            manifest_sha256: None,
            index: false,
            texts: true,
            chunkings: vec![routelens_engine::corpus::code_chunks::Chunker::Window],
            vectors: true,
        },
        CallBody::ChunkSearch {
            bundle: "demo".into(),
            chunker: routelens_engine::corpus::code_chunks::Chunker::Structural,
            query: ISSUE.into(),
            k: 10,
            cap: Some(1),
            retriever: routelens_engine::retrieval::chunk_search::Retriever::Hybrid,
            model: Some("http://127.0.0.1:1/models/all-MiniLM-L6-v2".into()),
            page_weights: false,
        },
        CallBody::Cancel { call: 3 },
    ];
    for (id, body) in calls.into_iter().enumerate() {
        let call = Call {
            id: id as u64,
            body,
        };
        let json = serde_json::to_string(&call).unwrap();
        assert_eq!(serde_json::from_str::<Call>(&json).unwrap(), call);
    }
    let session = loaded();
    let runs = session
        .run_issue("demo", ISSUE, 4, &[], &mut clock())
        .unwrap();
    let answers = vec![
        AnswerBody::Progress {
            text: "loading".into(),
            bytes: None,
        },
        AnswerBody::Progress {
            text: "fetching".into(),
            bytes: Some([10, 90_868_376]),
        },
        AnswerBody::Ran { runs: runs.clone() },
        AnswerBody::Timed {
            arms: vec![ArmTiming {
                arm: LexicalArm::RgFirst500,
                p50_ms: 0.5,
                p95_ms: 1.5,
                mean_ms: 0.75,
                questions: 2,
                calls: 10,
            }],
            cancelled: true,
        },
        AnswerBody::Failed {
            message: "bundles/demo/manifest.json: HTTP 404".into(),
        },
    ];
    for body in answers {
        assert_eq!(
            body.is_final(),
            !matches!(body, AnswerBody::Progress { .. })
        );
        let answer = Answer { id: 9, body };
        let json = serde_json::to_string(&answer).unwrap();
        assert_eq!(serde_json::from_str::<Answer>(&json).unwrap(), answer);
    }
    let failed = WireRun {
        arm: "rg".into(),
        output: Err("arm rg: needs every file's text".into()),
        ms: Some(0.1),
    };
    let back = failed.into_run();
    assert_eq!(
        back.output.unwrap_err().to_string(),
        "arm rg: needs every file's text"
    );
}
