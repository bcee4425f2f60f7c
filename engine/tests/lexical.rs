//! A five-file corpus, bundled and indexed in memory, round-tripped through bytes, and searched
//! by every lexical arm. The expected rankings and scores below were worked out by hand from the
//! token counts written next to them (the paper's formulas; BM25 with k1 = 1.2, b = 0.75, both as
//! SQLite FTS5 computes it and as tantivy does).

use routelens_engine::corpus::bundle::{
    decode_listed_manifest, encode_bundle, file_list_of, BundleInput, BundleOptions,
};
use routelens_engine::retrieval::lexical::{run_arm, ArmOutput, LexicalArm, Sources, TextCorpus};
use routelens_engine::{Error, SourceFile};

/// The corpus. Tokens (as `unicode61` splits them) are counted in the comments.
const FILES: &[(&str, &str)] = &[
    // path: src router rs (3); content: fn route request dispatch request (5)
    ("src/router.rs", "fn route(request) { dispatch(request) }"),
    // path: src cache rs (3); content: struct cache impl cache fn evict (6)
    ("src/cache.rs", "struct Cache; impl Cache { fn evict() {} }"),
    // path: docs routing md (3); content: 12 tokens, request router cache handler once each
    (
        "docs/routing.md",
        "Routing sends each request to a handler. The router uses the cache.",
    ),
    // path: tests router test rs (4); content: test router dispatch (3)
    ("tests/router_test.rs", "test router dispatch"),
    // path: readme md (2); content: a tiny demo of request routing (6)
    ("README.md", "A tiny demo of request routing."),
];

/// The first 500 characters hold `cache drops request router`; the tail adds
/// `dispatch evict handler maybe tiny` for the full-issue arms.
fn issue() -> String {
    format!(
        "The router drops the request cache.{}Maybe evict dispatch handler tiny.",
        " ".repeat(470)
    )
}

struct Loaded {
    paths: Vec<String>,
    texts: TextCorpus,
    #[cfg(feature = "lexical")]
    index: routelens_engine::retrieval::lexical::LexicalIndex,
}

/// Bundles the corpus (with an index when the feature is on), then loads it back from bytes
/// alone, as the app does.
fn load() -> Loaded {
    #[cfg(feature = "lexical")]
    let index_blob = Some((
        routelens_engine::retrieval::lexical::fts::build_index_blob(FILES).unwrap(),
        routelens_engine::retrieval::lexical::fts::INDEX_FORMAT.to_string(),
    ));
    #[cfg(not(feature = "lexical"))]
    let index_blob = None;
    let input = BundleInput {
        source: "synthetic".into(),
        tool_version: "routelens test".into(),
        files: FILES
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        index: index_blob,
        ..BundleInput::default()
    };
    let options = BundleOptions {
        chunk_target_bytes: 64,
        ..BundleOptions::default()
    };
    let encoded = encode_bundle(input, options).unwrap();
    // From here on only the bytes of the bundle's files are used.
    let folder: std::collections::BTreeMap<String, Vec<u8>> = encoded
        .files
        .into_iter()
        .map(|file| (file.name, file.bytes))
        .collect();
    let list = file_list_of(&folder["manifest.json"])
        .unwrap()
        .map(|list| &folder[&list][..]);
    let manifest = decode_listed_manifest(&folder["manifest.json"], list).unwrap();
    assert!(manifest.chunks.len() > 1, "the test wants several chunks");
    let chunks: Vec<&[u8]> = manifest
        .chunks
        .iter()
        .map(|chunk| &folder[&chunk.file][..])
        .collect();
    let texts = TextCorpus::new(manifest.read_all(&chunks).unwrap());
    Loaded {
        paths: manifest.paths(),
        texts,
        #[cfg(feature = "lexical")]
        index: {
            let entry = manifest.index.as_ref().unwrap();
            routelens_engine::retrieval::lexical::LexicalIndex::from_bundle(
                &manifest,
                &folder[&entry.file],
            )
            .unwrap()
        },
    }
}

fn sources(loaded: &Loaded) -> Sources<'_> {
    let sources = Sources::new(&loaded.paths).with_texts(&loaded.texts);
    #[cfg(feature = "lexical")]
    let sources = sources.with_index(&loaded.index);
    sources
}

fn run(loaded: &Loaded, arm: LexicalArm) -> ArmOutput {
    run_arm(arm, &sources(loaded), &issue(), 16).unwrap()
}

/// Checks the ranking exactly and each score to `tolerance`.
fn assert_ranking(output: &ArmOutput, expected: &[(&str, f64)], tolerance: f64) {
    let paths: Vec<&str> = output
        .results
        .iter()
        .map(|(path, _)| path.as_str())
        .collect();
    let want: Vec<&str> = expected.iter().map(|(path, _)| *path).collect();
    assert_eq!(paths, want);
    for ((path, score), (_, want)) in output.results.iter().zip(expected) {
        assert!(
            (score - want).abs() <= tolerance,
            "{path}: score {score}, expected {want}"
        );
    }
}

// Term weights of the rg ranking with N = 5: 1 + ln(6 / (df + 1)).
fn w(df: f64) -> f64 {
    1.0 + (6.0 / (df + 1.0)).ln()
}

#[test]
fn rg_full_issue() {
    let output = run(&load(), LexicalArm::Rg);
    assert_eq!(
        output.terms,
        ["cache", "dispatch", "drops", "evict", "handler", "maybe", "request", "router", "tiny"]
    );
    // df: cache 2, dispatch 2, evict 1, handler 1, request 3, router 2, tiny 1 (drops, maybe 0).
    // `route(` in router.rs is not "router"; "routing" is not "router" either.
    assert_ranking(
        &output,
        &[
            // cache + handler + request + router; no term in "docs/routing.md"
            ("docs/routing.md", w(2.0) + w(1.0) + w(3.0) + w(2.0)),
            // cache + evict, and "cache" is in the path
            ("src/cache.rs", w(2.0) + w(1.0) + 2.0),
            // dispatch + router, and "router" is in the path
            ("tests/router_test.rs", w(2.0) + w(2.0) + 2.0),
            // request + tiny
            ("README.md", w(3.0) + w(1.0)),
            // dispatch + request
            ("src/router.rs", w(2.0) + w(3.0)),
        ],
        1e-12,
    );
}

#[test]
fn rg_first500_breaks_ties_by_path() {
    let output = run(&load(), LexicalArm::RgFirst500);
    assert_eq!(output.terms, ["cache", "drops", "request", "router"]);
    assert_ranking(
        &output,
        &[
            ("docs/routing.md", w(2.0) + w(3.0) + w(2.0)),
            // Exact tie (one df-2 term plus its path match): path order decides.
            ("src/cache.rs", w(2.0) + 2.0),
            ("tests/router_test.rs", w(2.0) + 2.0),
            // Another exact tie: request alone.
            ("README.md", w(3.0)),
            ("src/router.rs", w(3.0)),
        ],
        1e-12,
    );
}

#[test]
fn rg_feedback_fuses_the_rare_term_search() {
    let output = run(&load(), LexicalArm::RgFeedback);
    // (df, term): evict 1, handler 1, tiny 1, cache 2, dispatch 2 | router 2, request 3.
    assert_eq!(
        output.feedback_terms,
        ["cache", "dispatch", "evict", "handler", "tiny"]
    );
    // First search: routing.md, cache.rs, router_test.rs, README.md, router.rs (see rg).
    // Second search: cache.rs (cache + evict + path 2), routing.md (cache + handler),
    // README.md (tiny), then router.rs and router_test.rs tie on dispatch alone.
    let rrf = |a: f64, b: f64| 1.0 / (60.0 + a) + 1.0 / (60.0 + b);
    assert_ranking(
        &output,
        &[
            ("docs/routing.md", rrf(1.0, 2.0)),
            ("src/cache.rs", rrf(2.0, 1.0)),
            ("README.md", rrf(4.0, 3.0)),
            ("tests/router_test.rs", rrf(3.0, 5.0)),
            ("src/router.rs", rrf(5.0, 4.0)),
        ],
        1e-12,
    );
}

#[test]
fn basename_overlap() {
    let output = run(&load(), LexicalArm::Basename);
    assert_eq!(output.terms, ["cache", "drops", "request", "router"]);
    // Stems: router, cache (2 each) plus the path token (1). `router_test` is one token, and
    // routing.md and README.md share no token with the issue: left out.
    assert_ranking(
        &output,
        &[("src/cache.rs", 3.0), ("src/router.rs", 3.0)],
        0.0,
    );
}

#[test]
fn k_truncates_every_arm() {
    let loaded = load();
    for arm in LexicalArm::ALL {
        if !sources(&loaded).can_run(arm) {
            continue;
        }
        let output = run_arm(arm, &sources(&loaded), &issue(), 1).unwrap();
        assert_eq!(output.results.len(), 1, "{arm}");
        let full = run(&loaded, arm);
        assert_eq!(output.results[0], full.results[0], "{arm}");
    }
}

#[test]
fn issue_without_terms_finds_nothing() {
    let loaded = load();
    for arm in LexicalArm::ALL {
        if let Ok(output) = run_arm(arm, &sources(&loaded), "the and of", 16) {
            assert!(
                output.terms.is_empty() && output.results.is_empty(),
                "{arm}"
            );
        }
    }
}

#[cfg(not(feature = "lexical"))]
#[test]
fn bm25_arms_need_the_feature() {
    let loaded = load();
    let error = run_arm(LexicalArm::Fts5, &sources(&loaded), &issue(), 16).unwrap_err();
    assert!(matches!(error, Error::Unavailable { .. }));
    assert!(
        error.to_string().contains("no `lexical` feature"),
        "{error}"
    );
}

#[cfg(feature = "lexical")]
mod bm25 {
    use super::*;
    use routelens_engine::retrieval::lexical::fts::{
        build_index_blob, build_index_blob_with, FtsIndex, IndexSpec, Scoring, Tokenizer,
        INDEX_FORMAT,
    };
    use routelens_engine::retrieval::lexical::LexicalIndex;

    /// Runs a BM25 arm with tantivy's own scoring.
    fn run_tantivy(loaded: &Loaded, arm: LexicalArm) -> ArmOutput {
        let LexicalIndex::Whole(index) = &loaded.index else {
            panic!("the test bundle's index is whole");
        };
        let index = LexicalIndex::Whole(index.clone().with_scoring(Scoring::Tantivy));
        let sources = Sources::new(&loaded.paths).with_index(&index);
        run_arm(arm, &sources, &issue(), 16).unwrap()
    }

    /// SQLite FTS5's `bm25()` term: N = 5 rows, `n` of them holding the token in any column,
    /// weighted frequency `f`, row length `d` (path + content tokens, or path alone).
    fn fts5(n: f64, f: f64, d: f64, avgdl: f64) -> f64 {
        let idf = ((5.0 - n + 0.5) / (n + 0.5)).ln();
        let idf = if idf <= 0.0 { 1e-6 } else { idf };
        idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * d / avgdl))
    }

    // Row lengths (path + content): router.rs 8, cache.rs 9, routing.md 15, router_test.rs 7,
    // README.md 8; average 47 / 5 = 9.4. Path alone: average 3.0.
    const ROW: f64 = 9.4;

    #[test]
    fn fts5_scores_like_sqlite() {
        let output = run(&load(), LexicalArm::Fts5);
        assert_eq!(output.terms, ["cache", "drops", "request", "router"]);
        // Rows holding: cache 2 (cache.rs, routing.md), request 3, router 3 (router.rs by its
        // path). Terms in more than half the rows get FTS5's floor idf of 1e-6.
        // Weighted f: cache.rs cache 2×1 (path) + 2 (content) = 4; router.rs request 2 and
        // router 2×1; router_test.rs router 2×1 + 1 = 3; README.md request 1.
        assert_ranking(
            &output,
            &[
                ("src/cache.rs", fts5(2.0, 4.0, 9.0, ROW)),
                (
                    "docs/routing.md",
                    fts5(2.0, 1.0, 15.0, ROW) + 2.0 * fts5(3.0, 1.0, 15.0, ROW),
                ),
                ("src/router.rs", 2.0 * fts5(3.0, 2.0, 8.0, ROW)),
                ("tests/router_test.rs", fts5(3.0, 3.0, 7.0, ROW)),
                ("README.md", fts5(3.0, 1.0, 8.0, ROW)),
            ],
            1e-12,
        );
        // The hand values: 0.57364, 0.27054, 2.87e-6, 1.66e-6, 1.06e-6.
        assert!((output.results[0].1 - 0.573_639_394).abs() < 1e-9);
    }

    #[test]
    fn fts5_full_scores_like_sqlite() {
        let output = run(&load(), LexicalArm::Fts5Full);
        // dispatch in 2 rows; evict, handler, tiny in 1 each.
        assert_ranking(
            &output,
            &[
                (
                    "src/cache.rs",
                    fts5(2.0, 4.0, 9.0, ROW) + fts5(1.0, 1.0, 9.0, ROW),
                ),
                (
                    "README.md",
                    fts5(3.0, 1.0, 8.0, ROW) + fts5(1.0, 1.0, 8.0, ROW),
                ),
                (
                    "docs/routing.md",
                    fts5(2.0, 1.0, 15.0, ROW)
                        + 2.0 * fts5(3.0, 1.0, 15.0, ROW)
                        + fts5(1.0, 1.0, 15.0, ROW),
                ),
                (
                    "tests/router_test.rs",
                    fts5(3.0, 3.0, 7.0, ROW) + fts5(2.0, 1.0, 7.0, ROW),
                ),
                (
                    "src/router.rs",
                    2.0 * fts5(3.0, 2.0, 8.0, ROW) + fts5(2.0, 1.0, 8.0, ROW),
                ),
            ],
            1e-12,
        );
    }

    #[test]
    fn path_fts5_scores_like_sqlite() {
        let output = run(&load(), LexicalArm::PathFts5);
        // Path-only rows: cache in 1, router in 2; lengths 3, 3, 4 over an average of 3.
        assert_ranking(
            &output,
            &[
                ("src/cache.rs", fts5(1.0, 1.0, 3.0, 3.0)),
                ("src/router.rs", fts5(2.0, 1.0, 3.0, 3.0)),
                ("tests/router_test.rs", fts5(2.0, 1.0, 4.0, 3.0)),
            ],
            1e-12,
        );
    }

    /// tantivy's BM25 for one term in one field: N = 5 documents, `n` containing the term.
    fn bm25(n: f64, tf: f64, dl: f64, avgdl: f64) -> f64 {
        let idf = (1.0 + (5.0 - n + 0.5) / (n + 0.5)).ln();
        idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))
    }

    // Average field lengths: path (3+3+3+4+2)/5 = 3.0, content (5+6+12+3+6)/5 = 6.4.
    const PATH: f64 = 3.0;
    const CONTENT: f64 = 6.4;

    /// tantivy scores in f32.
    const TOLERANCE: f64 = 1e-4;

    #[test]
    fn tantivy_fts5_first_500_characters() {
        let output = run_tantivy(&load(), LexicalArm::Fts5);
        assert_eq!(output.terms, ["cache", "drops", "request", "router"]);
        // path: router in router.rs and router_test.rs (n 2), cache in cache.rs (n 1).
        // content: request in router.rs ×2, routing.md, README.md (n 3); cache in cache.rs ×2
        // and routing.md (n 2); router in routing.md and router_test.rs (n 2).
        assert_ranking(
            &output,
            &[
                (
                    "src/cache.rs",
                    2.0 * bm25(1.0, 1.0, 3.0, PATH) + bm25(2.0, 2.0, 6.0, CONTENT),
                ),
                (
                    "tests/router_test.rs",
                    2.0 * bm25(2.0, 1.0, 4.0, PATH) + bm25(2.0, 1.0, 3.0, CONTENT),
                ),
                (
                    "src/router.rs",
                    2.0 * bm25(2.0, 1.0, 3.0, PATH) + bm25(3.0, 2.0, 5.0, CONTENT),
                ),
                (
                    "docs/routing.md",
                    bm25(3.0, 1.0, 12.0, CONTENT) + 2.0 * bm25(2.0, 1.0, 12.0, CONTENT),
                ),
                ("README.md", bm25(3.0, 1.0, 6.0, CONTENT)),
            ],
            TOLERANCE,
        );
        // The hand values, rounded: 3.9979, 2.6594, 2.5406, 1.6863, 0.5531.
        assert!((output.results[0].1 - 3.997897).abs() < TOLERANCE);
    }

    #[test]
    fn tantivy_fts5_full_issue_adds_the_tail_terms() {
        let output = run_tantivy(&load(), LexicalArm::Fts5Full);
        assert_eq!(output.terms.len(), 9);
        // Added content terms: dispatch (router.rs, router_test.rs; n 2), evict (cache.rs),
        // handler (routing.md), tiny (README.md), each n 1; "maybe" and "drops" match nothing.
        assert_ranking(
            &output,
            &[
                (
                    "src/cache.rs",
                    2.0 * bm25(1.0, 1.0, 3.0, PATH)
                        + bm25(2.0, 2.0, 6.0, CONTENT)
                        + bm25(1.0, 1.0, 6.0, CONTENT),
                ),
                (
                    "tests/router_test.rs",
                    2.0 * bm25(2.0, 1.0, 4.0, PATH) + 2.0 * bm25(2.0, 1.0, 3.0, CONTENT),
                ),
                (
                    "src/router.rs",
                    2.0 * bm25(2.0, 1.0, 3.0, PATH)
                        + bm25(3.0, 2.0, 5.0, CONTENT)
                        + bm25(2.0, 1.0, 5.0, CONTENT),
                ),
                (
                    "docs/routing.md",
                    bm25(3.0, 1.0, 12.0, CONTENT)
                        + 2.0 * bm25(2.0, 1.0, 12.0, CONTENT)
                        + bm25(1.0, 1.0, 12.0, CONTENT),
                ),
                (
                    "README.md",
                    bm25(3.0, 1.0, 6.0, CONTENT) + bm25(1.0, 1.0, 6.0, CONTENT),
                ),
            ],
            TOLERANCE,
        );
    }

    #[test]
    fn tantivy_path_fts5_searches_paths_only() {
        let output = run_tantivy(&load(), LexicalArm::PathFts5);
        assert_ranking(
            &output,
            &[
                ("src/cache.rs", bm25(1.0, 1.0, 3.0, PATH)),
                ("src/router.rs", bm25(2.0, 1.0, 3.0, PATH)),
                ("tests/router_test.rs", bm25(2.0, 1.0, 4.0, PATH)),
            ],
            TOLERANCE,
        );
    }

    /// Six files, each path two tokens (`a txt`). `empty` and `set` are in a, b, c and d, but
    /// only a (once) and d (twice) hold them adjacent and in that order.
    const PHRASE_FILES: &[(&str, &str)] = &[
        ("a.txt", "empty set here"),
        ("b.txt", "set empty"),
        ("c.txt", "empty other set"),
        ("d.txt", "the empty set and empty set"),
        ("e.txt", "nothing"),
        ("f.txt", "nothing"),
    ];

    fn phrase_index(positions: bool) -> FtsIndex {
        let spec = IndexSpec::of(Tokenizer::Unicode61, positions);
        let blob = build_index_blob_with(PHRASE_FILES, spec).unwrap();
        let paths = PHRASE_FILES
            .iter()
            .map(|(path, _)| path.to_string())
            .collect();
        FtsIndex::open("i", &blob, paths).unwrap()
    }

    #[test]
    fn a_term_of_several_tokens_is_an_fts5_phrase() {
        let index = phrase_index(true);
        assert!(index.has_positions());
        // FTS5: `"empty_set"` is the phrase `empty set`: 2 of 6 rows hold it, so its idf is
        // ln(4.5 / 2.5); row lengths 5, 8 over an average of 28 / 6 (all rows, path + content).
        let bm25 = |f: f64, d: f64| {
            let idf = (4.5f64 / 2.5).ln();
            idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * d / (28.0 / 6.0)))
        };
        assert_ranking(
            &index.fts5("empty_set", 16).unwrap(),
            &[("d.txt", bm25(2.0, 8.0)), ("a.txt", bm25(1.0, 5.0))],
            1e-12,
        );
        // Two terms that make the same phrase are two phrases of the query: each scores.
        let once = index.fts5("empty", 16).unwrap();
        let twice = index.fts5("empty empty_", 16).unwrap();
        assert_eq!(twice.terms, ["empty", "empty_"]);
        assert_eq!(once.paths(), twice.paths());
        for ((_, one), (_, two)) in once.results.iter().zip(&twice.results) {
            assert!((two - 2.0 * one).abs() < 1e-12, "{one} {two}");
        }
        // In the path column as in the content: `a txt` is a.txt's path; `txt a` is no one's.
        assert_eq!(index.path_fts5("a_txt", 16).unwrap().paths(), ["a.txt"]);
        assert!(index.path_fts5("txt_a", 16).unwrap().results.is_empty());
    }

    #[test]
    fn without_positions_a_phrase_is_its_tokens() {
        let index = phrase_index(false);
        assert!(!index.has_positions());
        let found = index.fts5("empty_set", 16).unwrap();
        // Every file with both tokens anywhere, as FTS5 would not.
        // b's row is the shortest of the three with one of each (4 tokens against 5).
        assert_eq!(found.paths(), ["d.txt", "b.txt", "a.txt", "c.txt"]);
        assert_eq!(
            IndexSpec::default().index_format(),
            INDEX_FORMAT,
            "the default index keeps positions"
        );
        assert!(INDEX_FORMAT.contains("+positions"));
    }

    #[test]
    fn equal_scores_rank_by_path() {
        // Four identical documents under different paths: all tie; path order decides, also
        // at the cut-off.
        let files: Vec<(String, &str)> = ["d/x", "b/x", "c/x", "a/x"]
            .iter()
            .map(|dir| (dir.to_string(), "needle hay"))
            .collect();
        let blob = build_index_blob(&files).unwrap();
        let mut paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
        paths.sort();
        let index = FtsIndex::open("i", &blob, paths).unwrap();
        let output = index.fts5("needle", 2).unwrap();
        assert_eq!(output.paths(), ["a/x", "b/x"]);
        let tantivy = index.clone().with_scoring(Scoring::Tantivy);
        assert_eq!(
            tantivy.fts5("needle", 3).unwrap().paths(),
            ["a/x", "b/x", "c/x"]
        );
        assert_eq!(output.results[0].1, output.results[1].1);
    }

    #[test]
    fn many_documents_merge_into_one_segment_and_reopen() {
        let files: Vec<(String, String)> = (0..3000)
            .map(|i| {
                (
                    format!("f/{i:05}.txt"),
                    format!("word{} common text {i}", i % 7),
                )
            })
            .collect();
        let blob = build_index_blob(&files).unwrap();
        let paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
        let index = FtsIndex::open("i", &blob, paths).unwrap();
        assert_eq!(index.len(), 3000);
        let output = index.fts5_full("word3", 16).unwrap();
        assert_eq!(output.results.len(), 16);
        assert_eq!(output.results[0].0, "f/00003.txt");
    }

    #[test]
    fn refuses_a_blob_for_other_paths_or_a_damaged_blob() {
        let blob = build_index_blob(FILES).unwrap();
        let mut paths: Vec<String> = FILES.iter().map(|(path, _)| path.to_string()).collect();
        paths.sort();
        assert!(FtsIndex::open("i", &blob, paths.clone()).is_ok());
        let mut other = paths.clone();
        other[0] = "README.txt".into();
        let error = FtsIndex::open("index/x.tantivy", &blob, other).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("index/x.tantivy: search index:"),
            "{error}"
        );
        // Flip a byte inside a segment file: tantivy's footer checks or the decoder refuse it,
        // without a panic.
        let mut damaged = blob.clone();
        let at = damaged.len() - 20;
        damaged[at] ^= 0xff;
        let _ = FtsIndex::open("i", &damaged, paths.clone());
        let truncated = &blob[..blob.len() / 2];
        assert!(FtsIndex::open("i", truncated, paths).is_err());
        assert!(INDEX_FORMAT.starts_with("tantivy-0.27/"));
    }

    #[test]
    fn bundle_refuses_a_tampered_index() {
        let blob = build_index_blob(FILES).unwrap();
        let input = BundleInput {
            files: FILES
                .iter()
                .map(|(path, text)| SourceFile {
                    path: path.to_string(),
                    bytes: text.as_bytes().to_vec(),
                })
                .collect(),
            index: Some((blob.clone(), INDEX_FORMAT.to_string())),
            ..BundleInput::default()
        };
        let encoded = encode_bundle(input, BundleOptions::default()).unwrap();
        let mut tampered = blob;
        tampered[0] ^= 1;
        let error = FtsIndex::from_bundle(&encoded.manifest, &tampered).unwrap_err();
        let entry = encoded.manifest.index.as_ref().unwrap();
        assert!(matches!(&error, Error::ManifestHash { file, .. } if file == &entry.file));
    }
}
