//! Criterion benchmark of CodeNib's grep pool (the offline planner's plan, both stages, no
//! reranker) over a demo bundle's questions, as `routelens rerank --route grep --reranker none`
//! runs them: once back to back, and once with the machine left idle for 50 ms before each
//! question, as the page is between a reader's clicks. The pause is not timed; the difference
//! is what idling costs the next question natively (caches and clock speed), the peer of the
//! browser benchmark's two ways of running the pool (`bench/chunks-browser.mjs`,
//! docs/benchmarks.md step 17). Needs a demo bundle: `routelens demo --out target/bundles/demo`,
//! or `$ROUTELENS_DEMO_BUNDLE`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::corpus::bundle::{decode_listed_manifest, file_list_of, MANIFEST_FILE};
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::corpus::file_texts::FileTexts;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::run::{
    rerank_question, PreparedTexts, RerankSettings, RerankerChoice,
};
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;

/// What every question needs: the chunking, the texts, what is made once over them, the set.
struct Demo {
    chunkings: OpenChunkings,
    texts: FileTexts,
    prepared: PreparedTexts,
    questions: Vec<String>,
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bundle at `dir`, opened as the live worker opens it (every file verified).
fn open(dir: &Path) -> Demo {
    let bytes = read(dir, MANIFEST_FILE);
    let list = file_list_of(&bytes)
        .expect("a manifest")
        .map(|list| read(dir, &list));
    let manifest = decode_listed_manifest(&bytes, list.as_deref()).expect("a manifest");
    let chunker = Chunker::Codenib;
    let stored = |entry: &str| read(dir, &manifest.located(entry));
    let table = stored(
        &manifest
            .chunking_or_error(chunker)
            .expect("CodeNib's chunking")
            .file,
    );
    let index = stored(&manifest.chunk_index_entry(chunker).expect("its index").file);
    let mut chunkings = OpenChunkings::new();
    chunkings
        .open_stored(&manifest, chunker, &table, &index)
        .expect("CodeNib's chunking and its index");
    let chunks: Vec<Vec<u8>> = manifest.chunks.iter().map(|c| stored(&c.file)).collect();
    let texts: FileTexts = manifest
        .read_all(&chunks)
        .expect("every file's text")
        .into_iter()
        .collect();
    let questions = String::from_utf8(read(dir, "questions.jsonl"))
        .expect("UTF-8 questions")
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|q| q["question"].as_str().map(str::to_string))
        .collect();
    Demo {
        chunkings,
        prepared: PreparedTexts::new(&texts),
        texts,
        questions,
    }
}

fn bench(c: &mut Criterion) {
    let dir = std::env::var_os("ROUTELENS_DEMO_BUNDLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bundles/demo")
        });
    let demo = open(&dir);
    assert!(
        !demo.questions.is_empty(),
        "{}: no questions",
        dir.display()
    );
    let settings = RerankSettings {
        routes: vec![Route::Grep],
        rerankers: vec![RerankerChoice::None],
        ..RerankSettings::default()
    };
    let mut group = c.benchmark_group("grep pool, one question of the demo's set");
    for (name, pause) in [
        ("back to back", Duration::ZERO),
        ("after 50 ms idle", Duration::from_millis(50)),
    ] {
        group.bench_function(name, |b| {
            let mut next = demo.questions.iter().cycle();
            b.iter_custom(|iterations| {
                let mut timed = Duration::ZERO;
                for _ in 0..iterations {
                    let question = next.next().expect("a question");
                    std::thread::sleep(pause);
                    let started = Instant::now();
                    let run = rerank_question(
                        question,
                        &demo.chunkings,
                        &demo.texts,
                        &demo.prepared,
                        (&settings, None),
                    )
                    .expect("a pool");
                    timed += started.elapsed();
                    std::hint::black_box(run);
                }
                timed
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Ten samples over 20 s: back to back that is thousands of questions, but the idle run
    // sleeps 50 ms before each one, so its ten samples hold about 400 in all (ten passes over
    // the demo's 36), from 7 to 70 a sample.
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(20));
    targets = bench
}
criterion_main!(benches);
