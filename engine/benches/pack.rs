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
use routelens_engine::corpus::tokens::{Cl100k, TokenCache, TokenCounter};
use routelens_engine::delivery::pack::{pack, PackConfig};
use routelens_engine::delivery::select::{select_files, QueryTerms, SelectConfig};
use routelens_engine::delivery::synthetic::{
    pack_bench_corpus as corpus, PACK_BENCH_ISSUE as ISSUE,
};
use routelens_engine::Result;

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
