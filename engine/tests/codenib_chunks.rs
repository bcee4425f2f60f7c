//! CodeNib's chunker, rule by rule: per language which definitions become chunks and how they
//! are named, containers left out, the balanced line split, header and epilogue chunks when
//! asked for, and the files it skips.
#![cfg(feature = "chunkers")]

use routelens_engine::corpus::code_chunks::{chunk_file, ChunkConfig, Chunker, FileChunks};
use routelens_engine::corpus::tokens::TokenCounter;

/// A stand-in counter: these tests are about lines and names, not tokens.
struct Chars;

impl TokenCounter for Chars {
    fn count_tokens(&mut self, text: &str) -> routelens_engine::Result<usize> {
        Ok(text.len().div_ceil(4))
    }
}

fn cut_with(path: &str, text: &str, config: ChunkConfig) -> FileChunks {
    chunk_file(path, text, Chunker::Codenib, config, &mut Chars).unwrap()
}

/// `(kind, name, start, end)` of each chunk.
fn chunks(path: &str, text: &str) -> Vec<(String, String, u32, u32)> {
    let file = cut_with(path, text, ChunkConfig::default());
    assert_eq!(file.note, None, "{path}");
    file.chunks
        .into_iter()
        .map(|c| (c.kind, c.name, c.start_line, c.end_line))
        .collect()
}

fn row(kind: &str, name: &str, start: u32, end: u32) -> (String, String, u32, u32) {
    (kind.into(), name.into(), start, end)
}

#[test]
fn python_functions_with_decorators_and_the_methods_of_classes() {
    let text = "import os\n\n@cached\ndef top(a):\n    return a\n\nclass Limiter:\n    rate = 3\n\n    def allow(self):\n        return True\n\n    @staticmethod\n    def build():\n        pass\n\nx = 1\n";
    assert_eq!(
        chunks("src/limit.py", text),
        [
            row("function", "top", 3, 5),
            row("method", "Limiter.allow", 10, 11),
            row("method", "Limiter.build", 13, 15),
        ]
    );
}

#[test]
fn rust_items_and_impl_functions_named_by_the_implementing_type() {
    let text = "use std::fmt;\n\nconst LIMIT: u32 = 3;\nstatic NAME: &str = \"x\";\ntype Id = u64;\n\npub struct Cache { n: u32 }\n\nimpl<T> Cache<T> {\n    pub fn new() -> Self { todo!() }\n    fn evict(&mut self) {}\n}\n\nimpl fmt::Display for Cache {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}\n\nfn main() {}\n";
    assert_eq!(
        chunks("src/cache.rs", text),
        [
            row("const", "LIMIT", 3, 3),
            row("static", "NAME", 4, 4),
            row("type", "Id", 5, 5),
            row("method", "Cache.new", 10, 10),
            row("method", "Cache.evict", 11, 11),
            row("method", "Cache.fmt", 15, 15),
            row("function", "main", 18, 18),
        ]
    );
}

#[test]
fn go_functions_receiver_methods_vars_and_consts() {
    let text = "package x\n\nvar Debug = false\n\nconst (\n\tA = 1\n\tB = 2\n)\n\ntype Server struct{}\n\nfunc (s *Server) Start() error { return nil }\n\nfunc New() *Server { return nil }\n";
    assert_eq!(
        chunks("server.go", text),
        [
            row("var", "Debug", 3, 3),
            row("const", "A, B", 5, 8),
            row("method", "Server.Start", 12, 12),
            row("function", "New", 14, 14),
        ]
    );
}

#[test]
fn javascript_through_the_typescript_grammar() {
    let text = "const helper = (a) => a + 1;\nlet config = { port: 8 };\nvar count = 3;\nexport function route(req) {\n  return req;\n}\nclass Router {\n  dispatch(r) { return r; }\n}\nexports.handle = function (x) { return x; };\nmodule.exports.other = () => 1;\nlet empty;\n";
    assert_eq!(
        chunks("lib/router.js", text),
        [
            row("function", "helper", 1, 1),
            row("object", "config", 2, 2),
            row("variable", "count", 3, 3),
            row("function", "route", 4, 6),
            row("method", "Router.dispatch", 8, 8),
            row("function", "exports.handle", 10, 10),
            row("function", "module.exports.other", 11, 11),
        ]
    );
}

#[test]
fn java_methods_and_constructors_with_nested_types_recursed() {
    let text = "public class Outer {\n    private int x;\n    public Outer() {}\n    void run() {}\n    static class Inner {\n        int get() { return 1; }\n    }\n}\n";
    assert_eq!(
        chunks("Outer.java", text),
        [
            row("method", "Outer.Outer", 3, 3),
            row("method", "Outer.run", 4, 4),
            row("method", "Outer.Inner.get", 6, 6),
        ]
    );
}

#[test]
fn c_family_definitions_methods_declarations_and_defines_but_no_prototypes() {
    let text = "#define MAX 10\n#include <x.h>\nint counter = 0;\nint add(int a, int b);\nint add(int a, int b) { return a + b; }\nclass Box {\npublic:\n    int size() const { return 1; }\n    void grow();\n};\nvoid Box::grow() {}\nnamespace ns {\nint helper() { return 2; }\n}\n";
    assert_eq!(
        chunks("box.cpp", text),
        [
            row("define", "MAX", 1, 1),
            row("declaration", "counter", 3, 3),
            row("function", "add", 5, 5),
            row("method", "Box.size", 8, 8),
            row("method", "Box.grow", 11, 11),
            row("function", "helper", 13, 13),
        ]
    );
}

#[test]
fn a_long_definition_splits_into_balanced_pieces_with_its_name() {
    let body: String = (0..249).map(|i| format!("    x{i} = {i}\n")).collect();
    let text = format!("def long():\n{body}");
    let got = chunks("a.py", &text);
    assert_eq!(
        got,
        [
            row("function", "long", 1, 84),
            row("function", "long", 85, 167),
            row("function", "long", 168, 250),
        ]
    );
    // CodeNib's production preset: 300 lines, one piece.
    let file = cut_with(
        "a.py",
        &text,
        ChunkConfig {
            max_lines: 300,
            ..ChunkConfig::default()
        },
    );
    assert_eq!(file.chunks.len(), 1);
}

#[test]
fn header_and_epilogue_only_when_asked_and_never_code_between() {
    let text = "import os\nimport sys\n\ndef a():\n    pass\n\nLIMIT = 3\n\ndef b():\n    pass\n\nif __name__ == '__main__':\n    a()\n";
    let plain = chunks("m.py", text);
    assert_eq!(
        plain.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    let file = cut_with(
        "m.py",
        text,
        ChunkConfig {
            header_epilogue: true,
            ..ChunkConfig::default()
        },
    );
    let got: Vec<_> = file
        .chunks
        .iter()
        .map(|c| (c.kind.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(
        got,
        [
            ("header", 1, 3),
            ("function", 4, 5),
            ("function", 9, 10),
            ("epilogue", 11, 13)
        ]
    );
}

#[test]
fn tests_minified_and_non_code_files_get_no_chunks() {
    let skipped = cut_with(
        "tests/test_limit.py",
        "def a():\n    pass\n",
        ChunkConfig::default(),
    );
    assert!(skipped.chunks.is_empty());
    assert!(skipped.note.unwrap().contains("test file"));
    let minified = format!("function a(){{{}}}\n", "x;".repeat(6_000));
    let file = cut_with("dist/app.js", &minified, ChunkConfig::default());
    assert!(file.chunks.is_empty() && file.note.unwrap().contains("minified"));
    assert!(chunks("README.md", "# Title\n\ntext\n").is_empty());
    assert!(chunks("config.yaml", "a: 1\n").is_empty());
}
