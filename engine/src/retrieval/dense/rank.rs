//! The `dense` retriever's ranking: exact cosine between a question's vector and every chunk's,
//! highest first, ties by position in the chunk table. A shallow search is therefore a prefix of
//! a deep one, as chunk BM25's is. Vectors are unit length (the embedder normalises), so the
//! cosine is the dot product.

use super::halves;
use crate::corpus::bundle::VectorRows;
use crate::error::{Error, Result};
use std::ops::Range;

/// A chunking's vectors, one row of `dimension` numbers per chunk, in chunk-table order.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorTable {
    /// Numbers per vector.
    pub dimension: usize,
    /// All rows, one after another.
    rows: VectorRows,
    /// Whether every number is finite (a bundle's are: it refuses others when it opens the
    /// file), which the scan in AVX2's registers needs of halves.
    finite: bool,
}

impl VectorTable {
    /// The table of `rows`, each `dimension` long; a row of another length is refused.
    pub fn new(dimension: usize, rows: &[Vec<f32>]) -> Result<VectorTable> {
        let mut values = Vec::with_capacity(rows.len() * dimension);
        for (at, row) in rows.iter().enumerate() {
            if row.len() != dimension {
                return Err(Error::setting(
                    "vector",
                    format!("{at} ({} numbers)", row.len()),
                    &format!("{dimension} numbers, the table's dimension"),
                ));
            }
            values.extend_from_slice(row);
        }
        Ok(VectorTable {
            dimension,
            rows: VectorRows::F32(values),
            finite: true,
        })
    }

    /// The table of a bundle's opened `rows` (checked against their count and `dimension`
    /// when opened). Natively f16 rows stay halves, which the scan widens as it reads them,
    /// at half the bytes. The worker in wasm32 widens them here, as it did before: it has no
    /// F16C and vectors of four numbers, and widening as it scans was not measured there.
    pub fn of_rows(dimension: usize, rows: VectorRows) -> VectorTable {
        #[cfg(target_arch = "wasm32")]
        let rows = VectorRows::F32(rows.widened());
        // Only halves need it (the f32 scan in registers is the portable one's for any number).
        let finite = matches!(rows, VectorRows::F32(_)) || rows.first_not_finite().is_none();
        VectorTable {
            dimension,
            rows,
            finite,
        }
    }

    /// How many vectors it holds.
    pub fn len(&self) -> usize {
        self.rows.numbers() / self.dimension.max(1)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The numbers of each row in `rows` as f32 (halves widened exactly), in table order, to
    /// `each`.
    pub(super) fn for_each_row_in(&self, rows: Range<usize>, mut each: impl FnMut(&[f32])) {
        let dimension = self.dimension.max(1);
        let numbers = rows.start * dimension..rows.end * dimension;
        match &self.rows {
            VectorRows::F32(values) => values[numbers].chunks_exact(dimension).for_each(each),
            VectorRows::F16(halves) => {
                let mut wide = vec![0f32; dimension];
                for row in halves[numbers].chunks_exact(dimension) {
                    halves::widen_into(row, &mut wide);
                    each(&wide);
                }
            }
        }
    }
}

/// The dot product, summed in eight lanes and then the lanes in order: one fixed order that the
/// compiler vectorises (a single running sum may not be reordered, so it ran one addition at a
/// time: 2.2 ms for the 7,047 chunks of docs/dense.md).
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (mut left, mut right) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut left).zip(&mut right) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    let mut sum = lanes.iter().sum::<f32>();
    for (x, y) in left.remainder().iter().zip(right.remainder()) {
        sum += x * y;
    }
    // A zero is +0.0 however it was reached, so that ties by table position hold among zeros.
    sum + 0.0
}

/// The first `k` chunks by cosine with `query`, with their scores.
pub fn rank(table: &VectorTable, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>> {
    Ok(best(&scores(table, query)?, k))
}

/// Every chunk's cosine with `query`, in table order: the scan that is nearly all of a
/// ranking's cost, which [`best`] then reads at any depth.
pub fn scores(table: &VectorTable, query: &[f32]) -> Result<Vec<f32>> {
    check_dimension(table, query)?;
    let mut out = vec![0f32; table.len()];
    match &table.rows {
        VectorRows::F32(values) => split(values, query, &mut out, score_floats_here),
        VectorRows::F16(halves) if table.finite => {
            split(halves, query, &mut out, score_finite_halves_here)
        }
        VectorRows::F16(halves) => split(halves, query, &mut out, score_halves_here),
    }
    Ok(out)
}

/// Rows each thread of a split scan takes at least: a smaller table stays on the calling thread,
/// where starting threads would cost more than it saves.
#[cfg(not(target_arch = "wasm32"))]
const ROWS_PER_THREAD: usize = 8192;

/// Scores each row of `values` (rows of `query.len()` numbers) against `query` into `out` with
/// `here`. Natively the rows are split between the cores, on rayon's threads where the embedder
/// is built in (the threads its products just ran on, already awake: starting two threads of
/// our own cost about 1.5 ms of a 5.5 ms scan). Each row's score is the same [`dot`] wherever
/// it runs, so the scores are bit for bit the one-thread scan's. The worker in wasm32 has one
/// thread.
pub(super) fn split<T: Sync, Q: Sync, O: Send>(
    values: &[T],
    query: &[Q],
    out: &mut [O],
    here: fn(&[T], &[Q], &mut [O]),
) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let dimension = query.len().max(1);
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let cores =
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let parts = cores.min(out.len() / ROWS_PER_THREAD);
        if parts > 1 {
            let rows_each = out.len().div_ceil(parts);
            let parts = values
                .chunks(rows_each * dimension)
                .zip(out.chunks_mut(rows_each));
            #[cfg(feature = "dense")]
            rayon::scope(|scope| {
                parts.for_each(|(rows, out)| scope.spawn(move |_| here(rows, query, out)));
            });
            #[cfg(not(feature = "dense"))]
            std::thread::scope(|scope| {
                parts.for_each(|(rows, out)| {
                    scope.spawn(move || here(rows, query, out));
                });
            });
            return;
        }
    }
    here(values, query, out);
}

/// The scan of f32 rows on this thread: in AVX2's registers where the processor has them
/// (`wide_scan`), the same scores bit for bit.
fn score_floats_here(values: &[f32], query: &[f32], out: &mut [f32]) {
    #[cfg(all(feature = "dense", target_arch = "x86_64"))]
    if super::wide_scan::scan_floats(values, query, out) {
        return;
    }
    score_rows_here(values, query, out)
}

/// The scan of rows of finite halves on this thread, as [`score_floats_here`] scans f32 rows.
fn score_finite_halves_here(halves: &[u16], query: &[f32], out: &mut [f32]) {
    #[cfg(all(feature = "dense", target_arch = "x86_64"))]
    if super::wide_scan::scan_halves(halves, query, out) {
        return;
    }
    score_halves_here(halves, query, out)
}

/// The portable scan of f32 rows on this thread.
#[inline(always)]
fn score_rows_here(values: &[f32], query: &[f32], out: &mut [f32]) {
    for (row, score) in values.chunks_exact(query.len().max(1)).zip(out) {
        *score = dot(row, query);
    }
}

/// The scan of rows of halves on this thread, compiled for the processor's widest vectors.
fn score_halves_here(halves: &[u16], query: &[f32], out: &mut [f32]) {
    halves::at_widest(HalvesScan { halves, query, out })
}

/// Rows of halves widened at a time: 8 rows of 384 numbers are 12 KB of f32, which stay in the
/// core's first-level cache until they are scored.
const WIDENED_ROWS: usize = 8;

/// [`score_halves_here`]'s work: each block of rows widened exactly into a buffer that stays in
/// the core's cache, then scored as f32 rows are, so every score is bit for bit the one of the
/// widened table.
struct HalvesScan<'a> {
    halves: &'a [u16],
    query: &'a [f32],
    out: &'a mut [f32],
}

impl halves::Work for HalvesScan<'_> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let block = self.query.len().max(1) * WIDENED_ROWS;
        let mut wide = vec![0f32; block];
        for (halves, scores) in self
            .halves
            .chunks(block)
            .zip(self.out.chunks_mut(WIDENED_ROWS))
        {
            let wide = &mut wide[..halves.len()];
            halves::widen_into(halves, wide);
            score_rows_here(wide, self.query, scores);
        }
    }
}

/// The cosines of the chunks at `rows` (positions in the table) with `query`, in that order:
/// each bit for bit its score in [`scores`], by the same scan of the same numbers.
pub fn scores_of(table: &VectorTable, rows: &[usize], query: &[f32]) -> Result<Vec<f32>> {
    check_dimension(table, query)?;
    let dimension = table.dimension.max(1);
    let mut out = vec![0f32; rows.len()];
    if let Some(&past) = rows.iter().find(|&&at| at >= table.len()) {
        return Err(Error::setting(
            "chunk position",
            past.to_string(),
            &format!("below {}, the number of vectors", table.len()),
        ));
    }
    match &table.rows {
        VectorRows::F32(values) => {
            score_floats_here(&gathered(values, rows, dimension), query, &mut out)
        }
        VectorRows::F16(halves) if table.finite => {
            score_finite_halves_here(&gathered(halves, rows, dimension), query, &mut out)
        }
        VectorRows::F16(halves) => {
            score_halves_here(&gathered(halves, rows, dimension), query, &mut out)
        }
    }
    Ok(out)
}

/// The rows of `numbers` (rows of `dimension`) at `rows`, one after another.
fn gathered<T: Copy>(numbers: &[T], rows: &[usize], dimension: usize) -> Vec<T> {
    rows.iter()
        .flat_map(|&at| &numbers[at * dimension..(at + 1) * dimension])
        .copied()
        .collect()
}

fn check_dimension(table: &VectorTable, query: &[f32]) -> Result<()> {
    if query.len() != table.dimension {
        return Err(Error::setting(
            "query vector",
            format!("{} numbers", query.len()),
            &format!("{} numbers, the table's dimension", table.dimension),
        ));
    }
    Ok(())
}

/// Rows of the table read at a time by [`scores_many`]: 64 rows of 384 numbers are 98 KB, which
/// stay in the core's cache while every query of a batch is dotted with them.
const TILE_ROWS: usize = 64;

/// Every chunk's cosine with each of `queries`: per query, the list [`scores`] gives, bit for
/// bit (each pair's [`dot`] is the same). One query's scan is bound by memory, since it reads
/// the whole table once (82 MB for the demo's structural chunking, about 3.7 ms in Chromium's
/// worker); a batch reads it once in tiles for every query (about 2.4 ms a query for eight).
pub fn scores_many(table: &VectorTable, queries: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
    for query in queries {
        check_dimension(table, query)?;
    }
    let dimension = table.dimension.max(1);
    let mut out = vec![Vec::with_capacity(table.len()); queries.len()];
    let numbers = table.rows.numbers();
    let mut wide = Vec::new();
    for start in (0..numbers).step_by(TILE_ROWS * dimension) {
        let end = numbers.min(start + TILE_ROWS * dimension);
        let tile: &[f32] = match &table.rows {
            VectorRows::F32(values) => &values[start..end],
            VectorRows::F16(halves) => {
                wide.resize(end - start, 0.0);
                halves::widen_into(&halves[start..end], &mut wide);
                &wide
            }
        };
        for (query, scores) in queries.iter().zip(&mut out) {
            scores.extend(tile.chunks_exact(dimension).map(|row| dot(row, query)));
        }
    }
    Ok(out)
}

/// The first `k` positions of `scores`, highest first, with their scores.
pub fn best(scores: &[f32], k: usize) -> Vec<(usize, f32)> {
    // Highest score first, equal scores in table order: a total order, so selecting the best k
    // and sorting only them gives exactly the head of the whole sorted list (a full sort of the
    // demo's 36,309 scores took most of a query's time).
    let better = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
    let mut order: Vec<usize> = (0..scores.len()).collect();
    if k < order.len() {
        order.select_nth_unstable_by(k, better);
        order.truncate(k);
    }
    order.sort_unstable_by(better);
    order.into_iter().map(|at| (at, scores[at])).collect()
}

#[cfg(test)]
mod tests {
    use super::{dot, rank, VectorTable};
    use proptest::prelude::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.into_iter().map(|x| x / norm).collect()
    }

    proptest! {
        /// Against brute force, exactly; and a shallow search is a prefix of a deep one.
        #[test]
        fn ranks_as_brute_force_and_shallow_is_a_prefix_of_deep(
            rows in prop::collection::vec(prop::collection::vec(-3i8..3, 4), 1..40),
            query in prop::collection::vec(-3i8..3, 4),
            k in 1usize..50,
        ) {
            let rows: Vec<Vec<f32>> = rows.into_iter().map(|r| unit(r.into_iter().map(f32::from).collect())).collect();
            let query = unit(query.into_iter().map(f32::from).collect());
            let table = VectorTable::new(4, &rows).unwrap();
            // Each pair's dot product computed alone (the vectors are unit length, so it is the
            // cosine), then every pair compared: higher first, the lower position on a tie.
            let brute: Vec<(usize, f32)> = {
                let mut all: Vec<(usize, f32)> = rows
                    .iter()
                    .enumerate()
                    .map(|(at, row)| (at, dot(row, &query)))
                    .collect();
                all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                all
            };
            let deep = rank(&table, &query, rows.len()).unwrap();
            prop_assert_eq!(&deep, &brute);
            let shallow = rank(&table, &query, k).unwrap();
            prop_assert_eq!(&deep[..shallow.len()], &shallow[..]);
        }
    }

    proptest! {
        /// A batch's scores are each query's own scan, bit for bit, across tile boundaries.
        #[test]
        fn a_batch_scores_as_each_query_alone(
            rows in prop::collection::vec(prop::collection::vec(-1.0f32..1.0, 12), 0..200),
            queries in prop::collection::vec(prop::collection::vec(-1.0f32..1.0, 12), 0..5),
        ) {
            let table = VectorTable::new(12, &rows).unwrap();
            let borrowed: Vec<&[f32]> = queries.iter().map(Vec::as_slice).collect();
            let batch = super::scores_many(&table, &borrowed).unwrap();
            prop_assert_eq!(batch.len(), queries.len());
            for (query, got) in queries.iter().zip(&batch) {
                let alone = super::scores(&table, query).unwrap();
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(got), bits(&alone));
            }
        }
    }

    proptest! {
        /// The eight-lane sum is the plain sum up to rounding.
        #[test]
        fn dot_is_the_plain_sum_up_to_rounding(
            pairs in prop::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..400),
        ) {
            let (a, b): (Vec<f32>, Vec<f32>) = pairs.into_iter().unzip();
            let plain: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            prop_assert!((f64::from(dot(&a, &b)) - plain).abs() <= 1e-4);
        }
    }

    /// A table large enough to be split between threads scores as one thread does, bit for bit.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_split_scan_scores_as_one_thread() {
        let mut random = rand_mt::Mt::new(7);
        let mut next = || (random.next_u32() >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
        let rows: Vec<Vec<f32>> = (0..3 * super::ROWS_PER_THREAD + 5)
            .map(|_| (0..12).map(|_| next()).collect())
            .collect();
        let query: Vec<f32> = (0..12).map(|_| next()).collect();
        let table = VectorTable::new(12, &rows).unwrap();
        let split = super::scores(&table, &query).unwrap();
        let mut alone = vec![0f32; rows.len()];
        super::score_rows_here(&rows.concat(), &query, &mut alone);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&split), bits(&alone));
        assert_eq!(
            split[rows.len() - 1].to_bits(),
            dot(&rows[rows.len() - 1], &query).to_bits()
        );
    }

    /// A table kept as halves scores every row bit for bit as the same table widened: split
    /// between threads, in a batch, with rows whose length is not a multiple of the lanes and
    /// with rows that are.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn halves_score_as_their_widened_table() {
        // 13 numbers a row are scanned by the portable code, 16 in AVX2's registers where the
        // processor has them.
        for dimension in [13, 16] {
            halves_score_as_widened(dimension);
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn halves_score_as_widened(dimension: usize) {
        use crate::corpus::bundle::VectorRows;
        let mut random = rand_mt::Mt::new(11);
        // Every finite half is as likely: subnormals, zeros of both signs, the largest.
        let halves: Vec<u16> = std::iter::repeat_with(|| random.next_u32() as u16)
            .filter(|h| h & 0x7c00 != 0x7c00)
            .take((2 * super::ROWS_PER_THREAD + 7) * dimension)
            .collect();
        let query: Vec<f32> = (0..dimension)
            .map(|_| (random.next_u32() >> 8) as f32 / (1u32 << 24) as f32 - 0.5)
            .collect();
        let narrow = VectorTable::of_rows(dimension, VectorRows::F16(halves.clone()));
        let wide = VectorTable::of_rows(
            dimension,
            VectorRows::F32(VectorRows::F16(halves).widened()),
        );
        assert!(narrow.len() > 2 * super::ROWS_PER_THREAD && narrow != wide);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let scanned = super::scores(&narrow, &query).unwrap();
        assert_eq!(bits(&scanned), bits(&super::scores(&wide, &query).unwrap()));
        let batch = super::scores_many(&narrow, &[&query, &query[..]]).unwrap();
        assert_eq!(bits(&batch[1]), bits(&scanned));
    }

    #[test]
    fn exact_ties_keep_table_order_and_a_wrong_dimension_is_refused() {
        let rows = vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![0.0, 1.0]];
        let table = VectorTable::new(2, &rows).unwrap();
        let ranked = rank(&table, &[0.0, 1.0], 3).unwrap();
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 2, 1]);
        assert!(rank(&table, &[1.0], 3).is_err());
        assert!(VectorTable::new(2, &[vec![1.0]]).is_err());
    }
}
