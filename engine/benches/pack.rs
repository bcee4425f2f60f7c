//! Criterion benchmark of the context stage: select and pack 16 ranked files of 2,000–4,000
//! lines each at the 16,000-token budget.
//!
//! - `select 16 files`: terms, line scores, anchors and windows.
//! - `select + pack, warm cache`: what a budget change costs in the app: the blocks are rendered
//!   and hashed, every count comes from the [`TokenCache`].
//! - `select + pack, cold cl100k`: the first pack of an issue: every block encoded with
//!   cl100k_base.
//! - `cl100k from rank table`: building the encoder (hash check, parse, `CoreBPE::new`), which
//!   the app does once, on the first pack.
//!
//! The cl100k benches need the rank table from the cargo registry's tiktoken-rs sources (or
//! `$ROUTELENS_CL100K_TIKTOKEN`) and are left out, with a note, without it.

#![allow(clippy::print_stderr)]

#[path = "../tests/rank_table/mod.rs"]
mod rank_table;

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::pack::{pack, PackConfig};
use routelens_engine::select::{select_files, QueryTerms, SelectConfig};
use routelens_engine::tokens::{Cl100k, TokenCache, TokenCounter};
use routelens_engine::Result;

const ISSUE: &str = "TypeError in the session middleware when the cache backend returns None\n\n\
    After upgrading, `SessionMiddleware.process_response` raises TypeError because \
    `cache.get(session_key)` returns None for expired keys and `decode_payload` assumes bytes. \
    The signing module and the serializer both call into get_session_store; see \
    sessions/backends/cache.py and middleware.py. Steps: set SESSION_ENGINE to the cache \
    backend, expire a key, reload the page.";

const VOCABULARY: &[&str] = &[
    "self",
    "session",
    "cache",
    "key",
    "value",
    "return",
    "None",
    "if",
    "else",
    "def",
    "class",
    "import",
    "from",
    "request",
    "response",
    "payload",
    "decode",
    "encode",
    "bytes",
    "str",
    "raise",
    "TypeError",
    "ValueError",
    "settings",
    "backend",
    "store",
    "get",
    "set",
    "delete",
    "expire",
    "timeout",
    "data",
    "items",
    "for",
    "in",
    "not",
    "and",
    "or",
    "is",
    "True",
    "False",
    "middleware",
    "process",
    "signing",
    "serializer",
    "loads",
    "dumps",
    "max_age",
    "salt",
    "modified",
    "accessed",
    "cookie",
    "path",
    "domain",
    "secure",
    "httponly",
];

/// 16 files of 2,000–4,000 lines of Python-like text.
fn corpus() -> Vec<(String, String)> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    (0..16)
        .map(|f| {
            let lines = 2_000 + next(2_001);
            let mut text = String::new();
            for _ in 0..lines {
                text.push_str(&"    ".repeat(next(4) as usize));
                let words = next(10);
                for w in 0..words {
                    text.push_str(VOCABULARY[next(VOCABULARY.len() as u64) as usize]);
                    text.push_str(match next(6) {
                        0 => "(",
                        1 => ", ",
                        2 => ".",
                        3 if w + 1 < words => " = ",
                        _ => " ",
                    });
                }
                text.push('\n');
            }
            (format!("django/contrib/sessions/file_{f}.py"), text)
        })
        .collect()
}

fn select_and_pack<C: TokenCounter>(
    terms: &QueryTerms,
    files: &[(String, String)],
    counter: &mut C,
) -> Result<usize> {
    let selections = select_files(
        terms,
        files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        &SelectConfig::default(),
    );
    Ok(pack(&selections, &PackConfig::default(), counter)?.tokens_used)
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let terms = QueryTerms::from_issue(ISSUE);
    let selections = select_files(
        &terms,
        files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        &SelectConfig::default(),
    );
    let lines: usize = selections.iter().map(|s| s.line_count() as usize).sum();
    let windows: usize = selections.iter().map(|s| s.windows.len()).sum();
    let window_lines: u32 = selections
        .iter()
        .flat_map(|s| &s.windows)
        .map(|w| w.line_count())
        .sum();
    eprintln!(
        "corpus: 16 files, {lines} lines, {} bytes; {windows} windows, {window_lines} lines",
        files.iter().map(|(_, t)| t.len()).sum::<usize>()
    );
    c.bench_function("select 16 files", |b| {
        b.iter(|| {
            select_files(
                &terms,
                files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
                &SelectConfig::default(),
            )
        })
    });
    let Some(bytes) = rank_table::read_rank_table() else {
        eprintln!("cl100k benches left out");
        return;
    };
    c.bench_function("cl100k from rank table", |b| {
        b.iter(|| Cl100k::from_rank_table(&bytes).unwrap())
    });
    let cl100k = Cl100k::from_rank_table(&bytes).unwrap();
    let mut cache = TokenCache::new(cl100k.clone());
    let used = select_and_pack(&terms, &files, &mut cache).unwrap();
    eprintln!("16,000-token pack uses {used} tokens");
    c.bench_function("select + pack 16 files, warm cache (budget change)", |b| {
        b.iter(|| select_and_pack(&terms, &files, &mut cache).unwrap())
    });
    let mut group = c.benchmark_group("cold");
    group.sample_size(10);
    // No memo: every block is encoded, as on the first pack of an issue.
    let mut uncached = cl100k;
    group.bench_function("select + pack 16 files, cold cl100k", |b| {
        b.iter(|| select_and_pack(&terms, &files, &mut uncached).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
