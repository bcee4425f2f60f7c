//! Criterion benchmark of the code chunkers and chunk BM25 on the engine's own sources (every
//! `.rs` file under `engine/src`): cutting every file with all three chunkers at 254 tokens
//! (one parse and one count of each line for the three), building the structural chunking's
//! chunk index, and one chunk query. The demo corpus's whole-bundle numbers are in docs/benchmarks.md.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::corpus::code_chunks::{chunk_file_all, ChunkConfig, Chunker, CodeChunk};
use routelens_engine::corpus::tokens::{Cl100k, TokenCache};
use routelens_engine::retrieval::lexical::chunk_index::{
    build_chunk_index, chunk_texts, ChunkIndex,
};

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
}

fn chunk_all(files: &[(String, String)], counter: &mut TokenCache<Cl100k>) -> Vec<Vec<CodeChunk>> {
    let mut lists = vec![Vec::new(); Chunker::ALL.len()];
    for (path, text) in files {
        let cut =
            chunk_file_all(path, text, &Chunker::ALL, ChunkConfig::default(), counter).unwrap();
        for (list, file) in lists.iter_mut().zip(cut) {
            list.extend(file.chunks);
        }
    }
    lists
}

fn bench(c: &mut Criterion) {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut counter = TokenCache::new(Cl100k::embedded().unwrap());
    let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    c.bench_function(
        &format!(
            "chunk {} files ({lines} lines), three chunkers",
            files.len()
        ),
        |b| {
            b.iter(|| {
                // An empty memo each time: the bundler's counts start empty too.
                counter.clear();
                chunk_all(&files, &mut counter)
            })
        },
    );
    let chunks = chunk_all(&files, &mut counter).remove(0);
    let text_of = |path: &str| -> &str {
        files
            .iter()
            .find(|(p, _)| p == path)
            .map_or("", |(_, t)| t.as_str())
    };
    let texts = chunk_texts(&chunks, text_of);
    c.bench_function(
        &format!("chunk index over {} structural chunks", chunks.len()),
        |b| b.iter(|| build_chunk_index(&chunks, &texts).unwrap()),
    );
    let blob = build_chunk_index(&chunks, &texts).unwrap();
    let index = ChunkIndex::open("bench", &blob, &chunks).unwrap();
    c.bench_function("chunk query (top 10)", |b| {
        b.iter(|| {
            index
                .search("parse the manifest and verify every chunk hash", 10)
                .unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
