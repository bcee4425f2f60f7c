//! The code chunkers on small committed files, one per language (`tests/chunk_samples/`), each
//! chunking checked by hand against the rules in `code_chunks`; and their properties on
//! generated files: structural chunks cover every line once, windows repeat a quarter, every
//! chunk fits its budget.
#![cfg(all(feature = "chunkers", feature = "embedded-cl100k"))]

use std::sync::{Mutex, OnceLock};

use proptest::prelude::*;
use routelens_engine::corpus::code_chunks::{
    chunk_file, ChunkConfig, Chunker, CodeChunk, FileChunks,
};
use routelens_engine::corpus::tokens::Cl100k;

/// One counter for every test: building cl100k_base takes a while.
fn counter() -> &'static Mutex<Cl100k> {
    static COUNTER: OnceLock<Mutex<Cl100k>> = OnceLock::new();
    COUNTER.get_or_init(|| Mutex::new(Cl100k::embedded().unwrap()))
}

fn sample(name: &str) -> String {
    let path = format!("{}/tests/chunk_samples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cut(path: &str, text: &str, chunker: Chunker, budget: usize) -> FileChunks {
    let mut counter = counter().lock().unwrap();
    chunk_file(
        path,
        text,
        chunker,
        ChunkConfig {
            budget,
            ..ChunkConfig::default()
        },
        &mut *counter,
    )
    .unwrap()
}

fn chunks(name: &str, chunker: Chunker, budget: usize) -> Vec<CodeChunk> {
    let text = sample(name);
    let file = cut(name, &text, chunker, budget);
    assert_eq!(file.note, None, "{name}");
    for chunk in &file.chunks {
        assert!(exact(chunk, &text) <= chunk.tokens as usize, "{chunk:?}");
    }
    file.chunks
}

/// The cl100k_base count of a chunk's prefix and joined lines, encoded whole: never more than
/// the line-by-line count the chunk records.
fn exact(chunk: &CodeChunk, text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let body = lines[chunk.start_line as usize - 1..chunk.end_line as usize].join("\n");
    let counter = counter().lock().unwrap();
    counter.count(&format!("{}{body}", chunk.prefix())).unwrap()
}

/// `(start, end, kind, name)` of each chunk.
fn shape(chunks: &[CodeChunk]) -> Vec<(u32, u32, &str, &str)> {
    chunks
        .iter()
        .map(|c| (c.start_line, c.end_line, c.kind.as_str(), c.name.as_str()))
        .collect()
}

fn unmerged(name: &str) -> Vec<CodeChunk> {
    chunks(name, Chunker::StructuralUnmerged, 254)
}

#[test]
fn python_classes_are_a_header_and_a_chunk_per_method() {
    let got = unmerged("limiter.py");
    assert_eq!(
        shape(&got),
        [
            (1, 1, "module", ""),
            (2, 5, "imports", ""),
            // The class line, its docstring and its class attribute.
            (6, 10, "class", "RateLimitFilter"),
            (11, 15, "method", "RateLimitFilter.__init__"),
            // The decorator starts the method.
            (16, 19, "method", "RateLimitFilter.remaining"),
            (20, 29, "method", "RateLimitFilter.allow"),
            (30, 33, "function", "make_filter"),
            (34, 35, "module", ""),
        ]
    );
    assert_eq!(got[5].prefix(), "limiter.py :: RateLimitFilter.allow\n");
}

/// A comment trailing code on its row belongs to that code, not to the definition below: the
/// two defects found on Python's standard library (asyncio's `open_connection` swallowed into
/// the module code above it; minidom's `prefix = EMPTY_PREFIX  # …` field pulled into the
/// method below it, where CodeAtlas puts a class's fields in its header).
#[test]
fn a_trailing_comment_stays_with_its_code() {
    let module = "LIMIT = 2 ** 16  # bytes\n\n\nasync def connect(host, *,\n                  limit=LIMIT):\n    return host\n";
    let got = cut("streams.py", module, Chunker::StructuralUnmerged, 254).chunks;
    assert_eq!(
        shape(&got),
        [(1, 3, "module", ""), (4, 6, "function", "connect")]
    );
    let class = "class Node:\n    parent = None\n\n    prefix = NONE  # only for elements\n\n    def __bool__(self):\n        return True\n";
    let got = cut("dom.py", class, Chunker::StructuralUnmerged, 254).chunks;
    assert_eq!(
        shape(&got),
        [(1, 5, "class", "Node"), (6, 7, "method", "Node.__bool__")]
    );
    // A comment on a row of its own still opens the definition below it.
    let held = "x = 1\n# connects\ndef connect():\n    return 1\n";
    let got = cut("held.py", held, Chunker::StructuralUnmerged, 254).chunks;
    assert_eq!(
        shape(&got),
        [(1, 1, "module", ""), (2, 4, "function", "connect")]
    );
}

#[test]
fn java_fields_between_methods_and_nested_types() {
    assert_eq!(
        shape(&unmerged("RateLimitFilter.java")),
        [
            (1, 5, "imports", ""),
            // The Javadoc above the class belongs to it; so do its two fields.
            (6, 10, "class", "RateLimitFilter"),
            (11, 14, "method", "RateLimitFilter.RateLimitFilter"),
            (15, 22, "method", "RateLimitFilter.allow"),
            // A field after a method starts a unit of the class's own.
            (23, 24, "class", "RateLimitFilter"),
            (25, 25, "interface", "RateLimitFilter.Clock"),
            (26, 28, "method", "RateLimitFilter.Clock.now"),
        ]
    );
}

#[test]
fn rust_structs_impls_and_module_code() {
    assert_eq!(
        shape(&unmerged("limiter.rs")),
        [
            (1, 4, "imports", ""),
            // Doc comment and attribute go with the struct.
            (5, 11, "struct", "RateLimitFilter"),
            (12, 12, "impl", "RateLimitFilter"),
            (13, 17, "method", "RateLimitFilter.new"),
            (18, 26, "method", "RateLimitFilter.allow"),
            (27, 28, "module", ""),
            (29, 31, "function", "make_filter"),
        ]
    );
}

#[test]
fn go_methods_are_named_by_their_receiver() {
    assert_eq!(
        shape(&unmerged("limiter.go")),
        [
            (1, 8, "imports", ""),
            (9, 15, "struct", "RateLimitFilter"),
            (16, 22, "method", "RateLimitFilter.Allow"),
            (23, 24, "module", ""),
            (25, 27, "function", "NewFilter"),
        ]
    );
}

#[test]
fn javascript_and_typescript_exports_classes_and_bound_functions() {
    assert_eq!(
        shape(&unmerged("limiter.js")),
        [
            (1, 2, "imports", ""),
            (3, 4, "class", "RateLimitFilter"),
            (5, 9, "method", "RateLimitFilter.constructor"),
            (10, 15, "method", "RateLimitFilter.allow"),
            // `export const makeFilter = (…) => …` is a function.
            (16, 17, "function", "makeFilter"),
            (18, 21, "function", "describe"),
            (22, 22, "module", ""),
        ]
    );
    assert_eq!(
        shape(&unmerged("limiter.ts")),
        [
            (1, 2, "imports", ""),
            (3, 3, "interface", "Clock"),
            (4, 6, "method", "Clock.now"),
            (7, 9, "class", "RateLimitFilter"),
            (10, 11, "method", "RateLimitFilter.constructor"),
            (12, 17, "method", "RateLimitFilter.allow"),
            (18, 19, "type", "Limit"),
            (20, 22, "function", "makeFilter"),
        ]
    );
    assert_eq!(
        shape(&unmerged("Badge.tsx")),
        [
            (1, 2, "imports", ""),
            (3, 4, "type", "Props"),
            (5, 8, "function", "Badge"),
            (9, 9, "function", "Empty"),
        ]
    );
}

#[test]
fn c_and_cpp_functions_structs_classes_and_namespaces() {
    assert_eq!(
        shape(&unmerged("limiter.c")),
        [
            (1, 3, "imports", ""),
            (4, 5, "module", ""),
            (6, 10, "struct", "limiter"),
            (11, 19, "function", "limiter_allow"),
            (20, 21, "module", ""),
            (22, 22, "function", "limiter_reset"),
        ]
    );
    assert_eq!(
        shape(&unmerged("limiter.cpp")),
        [
            (1, 2, "imports", ""),
            (3, 4, "namespace", "gateway"),
            (5, 7, "class", "gateway.RateLimitFilter"),
            (8, 9, "method", "gateway.RateLimitFilter.RateLimitFilter"),
            (10, 14, "method", "gateway.RateLimitFilter.allow"),
            // `private:` and the fields after the methods.
            (15, 19, "class", "gateway.RateLimitFilter"),
            (20, 22, "function", "gateway.make_limit"),
        ]
    );
}

#[test]
fn markdown_splits_at_headings_and_names_the_heading_path() {
    let got = unmerged("guide.md");
    assert_eq!(
        shape(&got),
        [
            (1, 2, "section", ""),
            (3, 6, "section", "Guide"),
            // The `# not a heading` line inside the fence is code.
            (7, 15, "section", "Guide > Install"),
            (16, 19, "section", "Guide > Configure"),
            (20, 22, "section", "Reference"),
        ]
    );
    assert_eq!(got[2].prefix(), "guide.md :: Guide > Install\n");
}

#[test]
fn merged_siblings_fill_the_budget_and_a_small_class_is_one_chunk() {
    // At 254 tokens every sample file is one chunk; at 70 the units group (each unit's count,
    // prefix included, is 11 to 40 tokens but allow's, over 70).
    assert_eq!(chunks("limiter.py", Chunker::Structural, 254).len(), 1);
    assert_eq!(
        shape(&chunks("limiter.py", Chunker::Structural, 70)),
        [
            // File-level siblings up to the class header; __init__ would pass 70.
            (1, 10, "merged", "RateLimitFilter"),
            // Two methods of the class (a chunk begun inside the class stays inside it).
            (
                11,
                19,
                "method",
                "RateLimitFilter.__init__, RateLimitFilter.remaining"
            ),
            // allow alone is over the budget: two parts, never merged.
            (20, 24, "method", "RateLimitFilter.allow"),
            (25, 29, "method", "RateLimitFilter.allow"),
            (30, 35, "merged", "make_filter"),
        ]
    );
    assert_eq!(
        shape(&chunks("RateLimitFilter.java", Chunker::Structural, 100)),
        [
            // Imports, header and constructor: the constructor's name is the class's.
            (1, 14, "merged", "RateLimitFilter"),
            // allow and the field after it are siblings; the nested interface would pass 100.
            (15, 24, "merged", "RateLimitFilter.allow, RateLimitFilter"),
            // The whole interface, header and method: named by the interface.
            (25, 28, "interface", "RateLimitFilter.Clock"),
        ]
    );
}

#[test]
fn a_unit_over_the_budget_is_split_into_parts_with_its_name() {
    let got = chunks("limiter.py", Chunker::StructuralUnmerged, 40);
    let allow: Vec<&CodeChunk> = got
        .iter()
        .filter(|c| c.name == "RateLimitFilter.allow")
        .collect();
    assert!(allow.len() >= 2, "{got:?}");
    assert_eq!(allow[0].start_line, 20);
    assert_eq!(allow.last().unwrap().end_line, 29);
    for pair in allow.windows(2) {
        assert_eq!(pair[0].end_line + 1, pair[1].start_line);
    }
    assert!(got.iter().all(|c| c.tokens <= 40), "{got:?}");
}

#[test]
fn windows_repeat_a_quarter_of_the_previous_window() {
    let got = chunks("limiter.py", Chunker::Window, 60);
    assert!(got.len() >= 3, "{got:?}");
    for pair in got.windows(2) {
        let lines = pair[0].end_line - pair[0].start_line + 1;
        assert_eq!(
            pair[1].start_line,
            pair[0].end_line + 1 - lines / 4,
            "{pair:?}"
        );
    }
    assert_eq!(got.last().unwrap().end_line, 35);
    assert!(got
        .iter()
        .all(|c| c.kind == "window" && c.name.is_empty() && c.tokens <= 60));
}

#[test]
fn a_file_without_a_grammar_or_with_syntax_errors_is_cut_into_windows() {
    let yaml = cut(
        "ci.yml",
        "on: push\njobs:\n  test:\n    runs-on: x\n",
        Chunker::Structural,
        254,
    );
    assert_eq!(
        (yaml.note, shape(&yaml.chunks)),
        (None, vec![(1, 4, "window", "")])
    );
    let broken = cut(
        "bad.py",
        "def ok():\n    return 1\n\ndef broken(:\n",
        Chunker::Structural,
        254,
    );
    assert_eq!(
        broken.note.as_deref(),
        Some("bad.py: syntax error at line 4; cut into windows instead")
    );
    assert!(broken.chunks.iter().all(|c| c.kind == "window"));
}

/// A generated Python file of `blocks`: 0 imports, 1 a function, 2 a class with methods,
/// 3 a comment line, 4 module code; sizes from `sizes`.
fn python_file(blocks: &[(u8, u8)]) -> String {
    let mut text = String::new();
    for (at, &(block, size)) in blocks.iter().enumerate() {
        let body: String = (0..size)
            .map(|i| format!("    value_{i} = compute_{at}(value_{i}, {i}) + offset\n"))
            .collect();
        match block % 5 {
            0 => text += &format!("import module_{at}\n"),
            1 => text += &format!("def function_{at}(value):\n{body}    return value\n\n"),
            2 => {
                text += &format!("class Class{at}:\n    \"\"\"Doc.\"\"\"\n    field = {at}\n\n");
                for m in 0..(size % 4 + 1) {
                    text += &format!("    def method_{m}(self):\n    {body}        return {m}\n\n");
                }
            }
            3 => text += &format!("# comment {at}\n"),
            _ => text += &format!("TOTAL_{at} = {size}\n"),
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn structural_chunks_cover_every_line_once_and_fit(
        blocks in prop::collection::vec((0u8..5, 0u8..12), 1..12),
        budget in 40usize..300,
    ) {
        let text = python_file(&blocks);
        let lines = text.lines().count() as u32;
        for chunker in [Chunker::Structural, Chunker::StructuralUnmerged] {
            let file = cut("gen.py", &text, chunker, budget);
            prop_assert_eq!(file.note, None);
            let mut next = 1;
            for chunk in &file.chunks {
                prop_assert!(exact(chunk, &text) <= chunk.tokens as usize, "{:?}", chunk);
                prop_assert_eq!(chunk.start_line, next, "{:?}", chunk);
                prop_assert!(chunk.end_line >= chunk.start_line);
                prop_assert!(chunk.tokens as usize <= budget || chunk.start_line == chunk.end_line, "{:?}", chunk);
                next = chunk.end_line + 1;
            }
            prop_assert_eq!(next, lines + 1);
        }
    }

    #[test]
    fn windows_cover_the_file_overlap_by_a_quarter_and_fit(
        blocks in prop::collection::vec((0u8..5, 0u8..12), 1..12),
        budget in 40usize..300,
    ) {
        let text = python_file(&blocks);
        let file = cut("gen.py", &text, Chunker::Window, budget);
        let first = &file.chunks[0];
        prop_assert_eq!(first.start_line, 1);
        prop_assert_eq!(file.chunks.last().unwrap().end_line as usize, text.lines().count());
        for pair in file.chunks.windows(2) {
            let lines = pair[0].end_line - pair[0].start_line + 1;
            prop_assert_eq!(pair[1].start_line, (pair[0].end_line + 1 - lines / 4).max(pair[0].start_line + 1));
        }
        prop_assert!(file.chunks.iter().all(|c| c.tokens as usize <= budget || c.start_line == c.end_line));
    }
}
