//! The dense ranking's cost on a chunking the size of the demo's structural one: exact cosine of
//! one question against 36,309 vectors of 384 numbers, the best 100 kept (the grid's depth), by
//! the full scan and from the table's 8-bit sketch (`dense::sketch`, the same ranking). Vectors
//! are seeded pseudo-random unit vectors (rand_mt); the question is one of them moved a little,
//! as a real question has a head of near chunks. The question's embedding is measured apart
//! (docs/dense.md).

use criterion::{criterion_group, criterion_main, Criterion};
use rand_mt::Mt64;
use routelens_engine::retrieval::dense::rank::{rank, VectorTable};
use routelens_engine::retrieval::dense::sketch::Sketch;

const CHUNKS: usize = 36_309;
const DIMENSION: usize = 384;

fn unit(random: &mut Mt64) -> Vec<f32> {
    let row: Vec<f32> = (0..DIMENSION)
        .map(|_| (random.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
        .collect();
    let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
    row.into_iter().map(|x| x / norm).collect()
}

fn dense_rank(c: &mut Criterion) {
    let mut random = Mt64::new(7);
    let rows: Vec<Vec<f32>> = (0..CHUNKS).map(|_| unit(&mut random)).collect();
    let table = VectorTable::new(DIMENSION, &rows).unwrap();
    let noise = unit(&mut random);
    let query: Vec<f32> = rows[17]
        .iter()
        .zip(&noise)
        .map(|(x, n)| x + 0.3 * n)
        .collect();
    c.bench_function("dense rank 36,309 x 384, top 100", |b| {
        b.iter(|| rank(&table, &query, 100).unwrap())
    });
    let sketch = Sketch::of(&table).unwrap();
    let full = rank(&table, &query, 100).unwrap();
    let sketched = |query: &[f32]| {
        let estimates = sketch.estimate(query).unwrap();
        estimates.best(&table, query, 100).unwrap().unwrap()
    };
    assert_eq!(sketched(&query), full);
    c.bench_function("dense rank 36,309 x 384, top 100, from the sketch", |b| {
        b.iter(|| sketched(&query))
    });
    c.bench_function("dense sketch of 36,309 x 384", |b| {
        b.iter(|| Sketch::of(&table).unwrap())
    });
}

criterion_group!(benches, dense_rank);
criterion_main!(benches);
