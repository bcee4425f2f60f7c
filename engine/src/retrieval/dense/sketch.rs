//! A first pass of the dense ranking for its best few rows: every row of a chunking's vectors
//! rounded to 8-bit integers (one scale per row), the question to 16-bit ones, and each row's
//! integer dot product with it. The pass reads half the bytes of the f16 rows, and its sums are
//! exact integer sums. From each, a row gets an interval sure to hold its exact score (its
//! [`super::rank::dot`], bit for bit what the full scan gives). A row whose interval lies wholly
//! below the k-th highest lower end cannot be among the best k; only the others are scored
//! exactly, and ranked as the full scan ranks them. The ranking is therefore the full scan's,
//! score for score and tie for tie, whatever the rounding did.
//!
//! Why a typed question needs it: the question's embedding reads the model's 42 MB of layer
//! weights, and on the machines measured that pushed the 41 MB of the demo's structural
//! chunking out of the processor's cache, so the scan after it read them from memory at half
//! the speed (4 ms against 2 ms for a stored question).
//!
//! Why the interval holds. For a row `x = s c + d` (`c` its codes, `d` what rounding left) and
//! a question `q = t p + e` (likewise):
//!
//! ```text
//! x·q = s t (c·p) + s (c·e) + d·q
//! ```
//!
//! `c·p` is summed exactly in integers; `|s (c·e)| ≤ s‖c‖ ‖e‖` and `|d·q| ≤ ‖d‖ ‖q‖` by
//! Cauchy–Schwarz; and the exact scan, summing `n` rounded products in f32 in any order, is at
//! most `γₙ Σ|xᵢ qᵢ| ≤ γₙ ‖x‖ ‖q‖` from `x·q`, with `γₙ = nu / (1 − nu)` and `u = 2⁻²⁴` (Higham,
//! *Accuracy and Stability of Numerical Algorithms*, §3.1), plus at most `2⁻¹⁴⁹` a step where a
//! result is subnormal. The bound is worked out in f64 and widened by a relative margin far
//! above f64's own rounding. Hand-written: no crate offers a quantised pre-pass with a proof of
//! exactness, which the ranking's contract (the full scan's order) needs.

use super::halves::{self, Work};
use super::rank::{best, scores_of, split, VectorTable};
use crate::error::Result;

/// The codes of a row are within `±CODE_RANGE`.
const CODE_RANGE: f64 = 127.0;
/// The question's codes are within ±32,767 (`i16`), or less where `n` products could
/// overflow an `i32` sum.
const QUESTION_RANGE: f64 = 32_767.0;
/// The relative margin every bound is widened by: far above f64's rounding of the bound's few
/// steps (2⁻⁵³ each), far below the bound itself.
const MARGIN: f64 = 1e-9;
/// A larger share of the table than this left for the exact scan, and the full scan is run
/// instead (it would read nearly as much).
const MOST_LEFT: f64 = 0.25;

/// A table's rows as codes, with what each row's bound needs.
#[derive(Debug)]
pub struct Sketch {
    dimension: usize,
    codes: Vec<i8>,
    rows: Vec<RowBound>,
}

/// What a row's interval needs besides its integer sum.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RowBound {
    /// A number of the row is about its code × `scale`.
    scale: f64,
    /// The factor of the question's length: `‖d‖ + γₙ‖x‖`.
    per_length: f64,
    /// The factor of the length of what rounding the question left: `s‖c‖`.
    per_residue: f64,
}

/// Each row's interval for one question: its exact score is in `lower[r]..=upper[r]`.
#[derive(Debug)]
pub struct Estimates {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Sketch {
    /// The sketch of `table`, or none where it has a number that is not finite. Natively its
    /// rows are coded on two cores (the demo's structural chunking: about 20 ms).
    pub fn of(table: &VectorTable) -> Option<Sketch> {
        let rows = table.len();
        #[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
        if rows >= 2 * PART_ROWS {
            let half = rows / 2;
            let (first, second) = rayon::join(
                || Sketch::of_rows(table, 0..half),
                || Sketch::of_rows(table, half..rows),
            );
            let (mut first, second) = (first?, second?);
            first.codes.extend_from_slice(&second.codes);
            first.rows.extend_from_slice(&second.rows);
            return Some(first);
        }
        Sketch::of_rows(table, 0..rows)
    }

    /// The sketch of the rows `range` of `table`.
    fn of_rows(table: &VectorTable, range: std::ops::Range<usize>) -> Option<Sketch> {
        let dimension = table.dimension;
        let mut sketch = Sketch {
            dimension,
            codes: vec![0; range.len() * dimension],
            rows: Vec::with_capacity(range.len()),
        };
        let gamma = gamma(dimension);
        let mut finite = true;
        let mut codes = sketch.codes.chunks_exact_mut(dimension.max(1));
        table.for_each_row_in(range, |row| {
            let coded = codes
                .next()
                .and_then(|codes| halves::at_widest(CodeRow { row, codes, gamma }));
            match coded {
                Some(bound) => sketch.rows.push(bound),
                None => finite = false,
            }
        });
        finite.then_some(sketch)
    }

    /// Every row's interval for `query`, or none where the query is not finite or not of the
    /// table's dimension.
    pub fn estimate(&self, query: &[f32]) -> Option<Estimates> {
        if query.len() != self.dimension || !query.iter().all(|x| x.is_finite()) {
            return None;
        }
        let n = self.dimension as f64;
        let range = QUESTION_RANGE.min((f64::from(i32::MAX) / (CODE_RANGE * n.max(1.0))).floor());
        let top = query.iter().fold(0f64, |m, &x| m.max(f64::from(x).abs()));
        let step = if top > 0.0 { top / range } else { 1.0 };
        let (mut residue, mut length) = (0f64, 0f64);
        let coded: Vec<i16> = query
            .iter()
            .map(|&x| {
                let x = f64::from(x);
                let code = (x / step).round().clamp(-range, range);
                residue += (x - code * step).powi(2);
                length += x * x;
                code as i16
            })
            .collect();
        let (residue, length) = (residue.sqrt(), length.sqrt());
        let mut sums = vec![0i32; self.rows.len()];
        split(&self.codes, &coded, &mut sums, integer_dots_here);
        // A subnormal result rounds by at most 2⁻¹⁴⁹: at most 2n of them in a sum.
        let underflow = 2.0 * n * f64::from(f32::from_bits(1));
        let (mut lower, mut upper) = (Vec::with_capacity(sums.len()), Vec::new());
        upper.reserve(sums.len());
        for (row, &sum) in self.rows.iter().zip(&sums) {
            let estimate = row.scale * step * f64::from(sum);
            let bound = (length * row.per_length + residue * row.per_residue + underflow)
                * (1.0 + MARGIN)
                + estimate.abs() * MARGIN;
            lower.push(estimate - bound);
            upper.push(estimate + bound);
        }
        Some(Estimates { lower, upper })
    }
}

impl Estimates {
    /// The best `depth` rows of `table` for `query` (the question these estimates are of),
    /// with their exact scores: `best(&scores(table, query)?, depth)`, exactly. None where more
    /// than [`MOST_LEFT`] of the table would be left for the exact scan.
    pub fn best(
        &self,
        table: &VectorTable,
        query: &[f32],
        depth: usize,
    ) -> Result<Option<Vec<(usize, f32)>>> {
        let rows = self.lower.len();
        if depth == 0 {
            return Ok(Some(Vec::new()));
        }
        if depth >= rows {
            return Ok(None);
        }
        // The depth-th highest lower end: at least `depth` rows score at least this, so a row
        // whose upper end is below it scores below all of them.
        let mut lows = self.lower.clone();
        let (_, &mut floor, _) = lows.select_nth_unstable_by(depth - 1, |a, b| b.total_cmp(a));
        let left: Vec<usize> = (0..rows).filter(|&r| self.upper[r] >= floor).collect();
        if left.len() as f64 > MOST_LEFT * rows as f64 {
            return Ok(None);
        }
        // `left` is in table order, so ties among them fall as in the whole table.
        let exact = scores_of(table, &left, query)?;
        Ok(Some(
            best(&exact, depth)
                .into_iter()
                .map(|(at, score)| (left[at], score))
                .collect(),
        ))
    }

    /// How many rows the exact scan would be left with at `depth` (for tests and notes).
    #[cfg(test)]
    fn left_at(&self, depth: usize) -> usize {
        let mut lows = self.lower.clone();
        lows.sort_by(|a, b| b.total_cmp(a));
        let floor = lows[depth - 1];
        self.upper.iter().filter(|&&u| u >= floor).count()
    }
}

/// `γₙ = nu / (1 − nu)`, `u = 2⁻²⁴`: the relative error bound of a sum of `n` rounded f32
/// products.
fn gamma(n: usize) -> f64 {
    let nu = n as f64 * f64::from(f32::EPSILON) / 2.0;
    nu / (1.0 - nu)
}

/// Rows a table needs per core before its sketch is made on two.
#[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
const PART_ROWS: usize = 4096;

/// Numbers of a row coded side by side.
const CODE_LANES: usize = 16;

/// One row's codes, and its [`RowBound`]; none where a number is not finite. Any code gives a
/// true bound, since what it leaves is measured from the code chosen; rounding to the nearest
/// keeps the bound tight.
struct CodeRow<'a> {
    row: &'a [f32],
    codes: &'a mut [i8],
    gamma: f64,
}

impl Work for CodeRow<'_> {
    type Output = Option<RowBound>;

    #[inline(always)]
    fn run(self) -> Option<RowBound> {
        // For numbers of one sign, the order of their bits is the order of their values: the
        // largest magnitude, and an infinity or a NaN above every finite one.
        let top = self
            .row
            .iter()
            .fold(0u32, |most, x| most.max(x.to_bits() & 0x7fff_ffff));
        if top >= f32::INFINITY.to_bits() {
            return None;
        }
        let top = f64::from(f32::from_bits(top));
        let scale = top / CODE_RANGE;
        let inverse = if top > 0.0 {
            (CODE_RANGE / top) as f32
        } else {
            0.0
        };
        let mut sums = [[0f64; CODE_LANES]; 3];
        let mut lanes = self
            .row
            .chunks(CODE_LANES)
            .zip(self.codes.chunks_mut(CODE_LANES));
        for (numbers, codes) in &mut lanes {
            for (lane, (&x, code)) in numbers.iter().zip(codes).enumerate() {
                // Half away from zero, then within the range (`x × inverse` may round past it).
                let nearest = (x * inverse + 0.5f32.copysign(x)) as i32;
                let nearest = nearest.clamp(-(CODE_RANGE as i32), CODE_RANGE as i32);
                *code = nearest as i8;
                let (x, nearest) = (f64::from(x), f64::from(nearest));
                let left = x - nearest * scale;
                sums[0][lane] += left * left;
                sums[1][lane] += x * x;
                sums[2][lane] += nearest * nearest;
            }
        }
        let [residue, length, coded] = sums.map(|lanes| lanes.iter().sum::<f64>().sqrt());
        Some(RowBound {
            scale,
            per_length: residue + self.gamma * length,
            per_residue: scale * coded,
        })
    }
}

/// Each row of `codes` (rows of `query.len()`) dotted with `query` in integers, into `out`.
fn integer_dots_here(codes: &[i8], query: &[i16], out: &mut [i32]) {
    halves::at_widest(IntegerDots { codes, query, out })
}

/// [`integer_dots_here`]'s work: exact integer sums, so any order and width gives the same.
struct IntegerDots<'a> {
    codes: &'a [i8],
    query: &'a [i16],
    out: &'a mut [i32],
}

/// Numbers summed side by side in a row's sum: one AVX-512 register of 16-bit products.
const INTEGER_LANES: usize = 32;

impl Work for IntegerDots<'_> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let width = self.query.len().max(1);
        for (row, sum) in self.codes.chunks_exact(width).zip(self.out.iter_mut()) {
            let mut lanes = [0i32; INTEGER_LANES];
            let (mut codes, mut query) = (
                row.chunks_exact(INTEGER_LANES),
                self.query.chunks_exact(INTEGER_LANES),
            );
            for (c, q) in (&mut codes).zip(&mut query) {
                for lane in 0..INTEGER_LANES {
                    lanes[lane] += i32::from(c[lane]) * i32::from(q[lane]);
                }
            }
            let rest: i32 = codes
                .remainder()
                .iter()
                .zip(query.remainder())
                .map(|(&c, &q)| i32::from(c) * i32::from(q))
                .sum();
            *sum = lanes.iter().sum::<i32>() + rest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Estimates, Sketch};
    use crate::corpus::bundle::VectorRows;
    use crate::retrieval::dense::rank::{best, scores, VectorTable};

    fn random(seed: u32) -> impl FnMut() -> f32 {
        let mut twister = rand_mt::Mt::new(seed);
        move || (twister.next_u32() >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    }

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.into_iter().map(|x| x / norm).collect()
    }

    /// Every row's exact score lies in its interval.
    fn holds_every_score(table: &VectorTable, query: &[f32]) -> Estimates {
        let sketch = Sketch::of(table).unwrap();
        let estimates = sketch.estimate(query).unwrap();
        for (at, score) in scores(table, query).unwrap().iter().enumerate() {
            let score = f64::from(*score);
            assert!(
                estimates.lower[at] <= score && score <= estimates.upper[at],
                "row {at}: {score} outside {}..={}",
                estimates.lower[at],
                estimates.upper[at]
            );
        }
        estimates
    }

    /// The ranking at every depth is the full scan's, score for score.
    fn ranks_as_the_full_scan(table: &VectorTable, query: &[f32], depths: &[usize]) -> usize {
        let estimates = holds_every_score(table, query);
        let all = scores(table, query).unwrap();
        let mut taken = 0;
        for &depth in depths {
            if let Some(found) = estimates.best(table, query, depth).unwrap() {
                let bits = |v: &[(usize, f32)]| {
                    v.iter()
                        .map(|(at, s)| (*at, s.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&found), bits(&best(&all, depth)), "depth {depth}");
                taken += 1;
            }
        }
        taken
    }

    /// Unit rows of 384 like the demo's, a unit query: every depth a search asks is answered
    /// from the sketch, as the full scan would, with few rows left for the exact scan.
    #[test]
    fn unit_rows_rank_as_the_full_scan_with_few_rows_left() {
        let mut next = random(3);
        let rows: Vec<Vec<f32>> = (0..3000)
            .map(|_| unit((0..384).map(|_| next()).collect()))
            .collect();
        // A query near row 17, so the head of the ranking stands out as a real one's does.
        let query = unit(rows[17].iter().map(|x| x + 0.05 * next()).collect());
        let table = VectorTable::new(384, &rows).unwrap();
        assert_eq!(ranks_as_the_full_scan(&table, &query, &[1, 10, 60]), 3);
        let left = holds_every_score(&table, &query).left_at(10);
        assert!((10..300).contains(&left), "{left} rows left");
    }

    /// Halves, as a bundle's f16 rows are kept: subnormals, zeros of both signs, duplicate rows
    /// (exact ties, which must fall in table order), a zero row, one large number among small
    /// ones; and a query that is not unit length.
    #[test]
    fn halves_with_ties_and_extremes_rank_as_the_full_scan() {
        let dimension = 40;
        let mut next = random(5);
        let mut halves: Vec<u16> = Vec::new();
        let mut twister = rand_mt::Mt::new(9);
        for row in 0..400 {
            match row % 7 {
                // A copy of the row before: exact ties.
                0 if row > 0 => {
                    let before = halves[halves.len() - dimension..].to_vec();
                    halves.extend(before);
                }
                1 => halves.extend(std::iter::repeat_n(0u16, dimension)),
                2 => halves.extend((0..dimension).map(|at| {
                    if at == 3 {
                        0x7bff // the largest finite half
                    } else {
                        (twister.next_u32() as u16) & 0x83ff // subnormals and zeros
                    }
                })),
                _ => halves.extend(
                    std::iter::repeat_with(|| twister.next_u32() as u16)
                        .filter(|h| h & 0x7c00 != 0x7c00 && h & 0x7c00 < 0x5000)
                        .take(dimension),
                ),
            }
        }
        let table = VectorTable::of_rows(dimension, VectorRows::F16(halves));
        let query: Vec<f32> = (0..dimension).map(|_| 3.0 * next()).collect();
        ranks_as_the_full_scan(&table, &query, &[1, 2, 5, 40, 399, 400]);
        let tiny: Vec<f32> = (0..dimension).map(|_| 1e-30 * next()).collect();
        holds_every_score(&table, &tiny);
    }

    /// Rows and a query their codes hold exactly (multiples of a power of two, the largest code
    /// in each): nothing is lost to the codes, so every interval rests on the scan's own
    /// rounding of its f32 sums alone.
    #[test]
    fn exactly_coded_numbers_rest_on_the_scans_own_rounding() {
        let dimension = 384;
        let mut twister = rand_mt::Mt::new(13);
        let mut code = |range: u32| (twister.next_u32() % (2 * range + 1)) as i32 - range as i32;
        let rows: Vec<Vec<f32>> = (0..300)
            .map(|_| {
                let mut row: Vec<f32> = (0..dimension).map(|_| code(127) as f32 / 1024.0).collect();
                row[0] = 127.0 / 1024.0;
                row
            })
            .collect();
        let mut query: Vec<f32> = (0..dimension)
            .map(|_| code(32_767) as f32 / 32_768.0)
            .collect();
        query[1] = -32_767.0 / 32_768.0;
        let table = VectorTable::new(dimension, &rows).unwrap();
        let estimates = holds_every_score(&table, &query);
        let all = scores(&table, &query).unwrap();
        let real = |row: &[f32]| -> f64 {
            row.iter()
                .zip(&query)
                .map(|(x, q)| f64::from(*x) * f64::from(*q))
                .sum()
        };
        // The scan's f32 sums do round here: without their share of the bound, it would fail.
        assert!(rows
            .iter()
            .zip(&all)
            .any(|(row, score)| f64::from(*score) != real(row)));
        ranks_as_the_full_scan(&table, &query, &[1, 10]);
        // Only that share is left: γₙ‖x‖‖q‖ is about 3.6e-4 here.
        assert!(estimates
            .lower
            .iter()
            .zip(&estimates.upper)
            .all(|(l, u)| u - l < 1e-3));
    }

    /// A sketch made on two cores is the one made on one, code for code.
    #[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
    #[test]
    fn a_sketch_made_in_two_parts_is_made_as_in_one() {
        let dimension = 8;
        let mut next = random(17);
        let rows: Vec<Vec<f32>> = (0..2 * super::PART_ROWS + 3)
            .map(|_| (0..dimension).map(|_| next()).collect())
            .collect();
        let table = VectorTable::new(dimension, &rows).unwrap();
        let (parts, whole) = (
            Sketch::of(&table).unwrap(),
            Sketch::of_rows(&table, 0..rows.len()).unwrap(),
        );
        assert_eq!(parts.codes, whole.codes);
        assert_eq!(parts.rows, whole.rows);
        let mut poisoned = rows;
        poisoned[2 * super::PART_ROWS][3] = f32::NAN;
        assert!(Sketch::of(&VectorTable::new(dimension, &poisoned).unwrap()).is_none());
    }

    /// A row or a query with a number that is not finite has no sketch or no estimate, and a
    /// ranking as deep as the table is left to the full scan.
    #[test]
    fn what_it_cannot_bound_is_left_to_the_full_scan() {
        let table = VectorTable::new(2, &[vec![1.0, f32::NAN], vec![0.0, 1.0]]).unwrap();
        assert!(Sketch::of(&table).is_none());
        // Eight one-hot rows: a query along the first leaves one row for the exact scan at
        // depth 1, and every row at depth 3 (more than a quarter of the table).
        let rows: Vec<Vec<f32>> = (0..8)
            .map(|at| (0..8).map(|x| f32::from(u8::from(x == at))).collect())
            .collect();
        let table = VectorTable::new(8, &rows).unwrap();
        let sketch = Sketch::of(&table).unwrap();
        let mut query = vec![0f32; 8];
        query[0] = 1.0;
        query[1] = 0.5;
        assert!(sketch.estimate(&[f32::INFINITY; 8]).is_none());
        assert!(sketch.estimate(&[1.0]).is_none());
        let estimates = sketch.estimate(&query).unwrap();
        assert_eq!(
            estimates.best(&table, &query, 1).unwrap(),
            Some(vec![(0, 1.0)])
        );
        assert!(estimates.best(&table, &query, 3).unwrap().is_none());
        assert!(estimates.best(&table, &query, 8).unwrap().is_none());
    }
}
