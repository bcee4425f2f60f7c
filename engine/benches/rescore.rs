//! Criterion benchmark of re-scoring the paper's whole study: every arm × 82 issues × k = 1..16,
//! plus the four prespecified paired 10,000-resample cluster bootstraps. Needs the archive at
//! `../shared/data/fastindex` (or `$ROUTELENS_FASTINDEX`); compare with `bench/rescore.py`.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use routelens_engine::{
    load_archive, scoring::report::rescore_everything, ArchiveBytes, BootstrapConfig, ARCHIVE_FILES,
};

fn archive() -> ArchiveBytes {
    let dir = std::env::var_os("ROUTELENS_FASTINDEX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/fastindex")
        });
    ARCHIVE_FILES
        .iter()
        .filter_map(|f| Some((f.path.to_string(), std::fs::read(dir.join(f.path)).ok()?)))
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = archive();
    let study = load_archive(&files).expect("the archive at ../shared/data/fastindex loads");
    c.bench_function("load_archive (checksums + parse)", |b| {
        b.iter(|| load_archive(&files).unwrap())
    });
    c.bench_function(
        "rescore_everything (arms x 82 x k=1..16 + 4 bootstraps)",
        |b| b.iter(|| rescore_everything(&study, BootstrapConfig::default()).unwrap()),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
