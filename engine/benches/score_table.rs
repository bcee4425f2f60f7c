//! Criterion benchmark of scoring CodeNib's whole per-issue table (`ScoreTable::score_all`):
//! 57 columns' means with intervals and 156 paired comparisons, 5,000 repository-cluster
//! resamples as the article drew. Needs `../shared/data/codenib/jev_candidates_cases.csv` (or
//! `$ROUTELENS_CODENIB`); compare with `bench/score_table.py`, which computes the same numbers.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::scoring::score_table::{load_score_table, Mapping};
use routelens_engine::BootstrapConfig;

fn bench(c: &mut Criterion) {
    let dir = std::env::var_os("ROUTELENS_CODENIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/codenib")
        });
    let text = std::fs::read_to_string(dir.join("jev_candidates_cases.csv"))
        .expect("CodeNib's jev_candidates_cases.csv is at ../shared/data/codenib");
    let table = load_score_table("jev_candidates_cases.csv", &text, &Mapping::codenib()).unwrap();
    let bootstrap = BootstrapConfig {
        resamples: 5_000,
        seed: 0,
    };
    c.bench_function("load_score_table (CodeNib, 100 x 60)", |b| {
        b.iter(|| load_score_table("jev_candidates_cases.csv", &text, &Mapping::codenib()).unwrap())
    });
    c.bench_function("score_all (57 columns + 156 pairs, 5,000 resamples)", |b| {
        b.iter(|| table.score_all(bootstrap).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
