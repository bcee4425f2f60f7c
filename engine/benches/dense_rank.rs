//! The dense ranking's cost on a chunking the size of the demo's structural one: exact cosine of
//! one question against 36,309 vectors of 384 numbers, the best 100 kept (the grid's depth).
//! Vectors are seeded pseudo-random unit vectors (rand_mt), as the ranking does not look at
//! what they mean. The question's embedding is measured apart (docs/dense.md).

use criterion::{criterion_group, criterion_main, Criterion};
use rand_mt::Mt64;
use routelens_engine::retrieval::dense::rank::{rank, VectorTable};

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
    let query = unit(&mut random);
    c.bench_function("dense rank 36,309 x 384, top 100", |b| {
        b.iter(|| rank(&table, &query, 100).unwrap())
    });
}

criterion_group!(benches, dense_rank);
criterion_main!(benches);
