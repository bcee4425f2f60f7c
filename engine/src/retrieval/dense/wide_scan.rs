//! The dense scan in AVX2's eight-lane vectors, four rows at a time, for x86-64 processors that
//! have AVX2 (every one pulp's `V3` accepts); with AVX-512 (pulp's `V4`), two rows to a
//! sixteen-lane register and eight rows at a time, the rows left over in AVX2's.
//!
//! [`super::rank::dot`] sums in eight lanes, then the lanes in order. Compiled from plain Rust,
//! each row's sum was one chain of additions, each waiting for the one before (48 of them for 384
//! numbers), and the compiler split the lanes into four-wide halves besides: the scan ran at a
//! fraction of the speed the memory gives. Here the eight lanes are one AVX2 register, and four
//! rows are summed side by side, so four chains run at once. Each lane's products and sums are the
//! same IEEE steps in the same order as [`super::rank::dot`]'s (no fused multiply-add), and the
//! lanes are then summed by the same code, so every score is bit for bit the portable scan's.
//! In AVX-512's registers each half holds one row's eight lanes, the query's eight numbers
//! repeated beside themselves: the same steps per lane, at half the instructions (the scan of
//! the demo's structural chunking, 2.6 → 2.1 ms).
//!
//! Halves are widened in the registers: a half's bits sign-extended to 32, moved up by 13 and
//! masked give an f32 with the half's sign, exponent and mantissa, and multiplying by `2^112`
//! rebiases the exponent exactly ([`super::halves`]'s note). That holds for finite halves only,
//! so a table with an infinity or a NaN among its halves is scanned by the portable code instead
//! (a bundle refuses such a file when it opens it).

use pulp::bytemuck::cast;
use pulp::x86::{V3, V4};
use pulp::{f32x16, i16x16, u32x16, Simd};

use core::arch::x86_64::{__m128i, __m256};

/// Rows summed side by side: four independent chains of additions.
const ROWS_AT_ONCE: usize = 4;
/// Numbers per register.
const LANES: usize = 8;
/// `2^112`, as in [`super::halves`].
const REBIAS: f32 = f32::from_bits((112 + 127) << 23);
/// After the move up by 13: the sign (bit 31) and the half's exponent and mantissa (bits 27 to
/// 13); bits 28 to 30 are copies of the sign from the extension, and must be cleared.
const SIGN_EXPONENT_MANTISSA: i32 = 0x8fff_e000_u32 as i32;

/// A number a row is stored as, eight of which make one AVX2 register.
trait Number: Copy {
    /// `eight` as f32, exactly.
    fn widened(simd: V3, eight: &[Self; LANES]) -> __m256;
    /// `first` then `second` as f32, exactly, in one AVX-512 register.
    fn widened_pair(simd: V4, first: &[Self; LANES], second: &[Self; LANES]) -> f32x16;
}

impl Number for f32 {
    #[inline(always)]
    fn widened(_: V3, eight: &[f32; LANES]) -> __m256 {
        cast(*eight)
    }

    #[inline(always)]
    fn widened_pair(_: V4, first: &[f32; LANES], second: &[f32; LANES]) -> f32x16 {
        cast([*first, *second])
    }
}

/// Halves, which must be finite (see the module's note).
impl Number for u16 {
    #[inline(always)]
    fn widened(simd: V3, eight: &[u16; LANES]) -> __m256 {
        let bits = simd.avx2._mm256_cvtepi16_epi32(cast::<_, __m128i>(*eight));
        let moved = simd.avx2._mm256_slli_epi32::<13>(bits);
        let kept = simd
            .avx2
            ._mm256_and_si256(moved, simd.avx._mm256_set1_epi32(SIGN_EXPONENT_MANTISSA));
        simd.avx._mm256_mul_ps(
            simd.avx._mm256_castsi256_ps(kept),
            simd.avx._mm256_set1_ps(REBIAS),
        )
    }

    #[inline(always)]
    fn widened_pair(simd: V4, first: &[u16; LANES], second: &[u16; LANES]) -> f32x16 {
        let halves: i16x16 = cast([*first, *second]);
        let bits: u32x16 = cast(simd.convert_i16x16_to_i32x16(halves));
        let moved = simd.shl_const_u32x16::<13>(bits);
        let kept = simd.and_u32s(moved, simd.splat_u32s(SIGN_EXPONENT_MANTISSA as u32));
        simd.mul_f32s(cast(kept), simd.splat_f32s(REBIAS))
    }
}

/// Scores each row of `rows` (rows of `query.len()` numbers) against `query` into `out`:
/// [`super::rank::dot`] of each, bit for bit, with `simd`: [`V3`] scores every row, [`V4`] the
/// first rows in whole groups of eight (and says how many).
struct Scan<'a, T, Token> {
    simd: Token,
    rows: &'a [T],
    query: &'a [f32],
    out: &'a mut [f32],
}

impl<T: Number> pulp::WithSimd for Scan<'_, T, V3> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let Scan {
            simd,
            rows,
            query,
            out,
        } = self;
        let (query, _) = pulp::as_arrays::<LANES, f32>(query);
        let (rows, _) = pulp::as_arrays::<LANES, T>(rows);
        let step = query.len();
        let mut groups = out.chunks_exact_mut(ROWS_AT_ONCE);
        let mut blocks = rows.chunks_exact(step * ROWS_AT_ONCE);
        for (scores, block) in (&mut groups).zip(&mut blocks) {
            let row: [_; ROWS_AT_ONCE] = split_rows(block, step);
            let mut sums = [simd.avx._mm256_setzero_ps(); ROWS_AT_ONCE];
            for (at, eight) in query.iter().enumerate() {
                let q = cast::<_, __m256>(*eight);
                for (sum, row) in sums.iter_mut().zip(row) {
                    let product = simd.avx._mm256_mul_ps(T::widened(simd, &row[at]), q);
                    *sum = simd.avx._mm256_add_ps(*sum, product);
                }
            }
            for (score, sum) in scores.iter_mut().zip(sums) {
                *score = lanes_summed(cast(sum));
            }
        }
        let rest = blocks.remainder().chunks_exact(step);
        for (score, row) in groups.into_remainder().iter_mut().zip(rest) {
            let mut sum = simd.avx._mm256_setzero_ps();
            for (eight, q) in row.iter().zip(query) {
                let product = simd.avx._mm256_mul_ps(T::widened(simd, eight), cast(*q));
                sum = simd.avx._mm256_add_ps(sum, product);
            }
            *score = lanes_summed(cast(sum));
        }
    }
}

/// Pairs of rows summed side by side: four registers of two rows each.
const PAIRS_AT_ONCE: usize = 4;
/// Rows [`Scan`] scores at a time in AVX-512's registers.
const PAIRED_ROWS: usize = 2 * PAIRS_AT_ONCE;

/// In AVX-512's registers: each holds two rows' eight lanes, the query's eight numbers repeated
/// beside themselves, so every lane does the same steps as in AVX2's at half the instructions.
impl<T: Number> pulp::WithSimd for Scan<'_, T, V4> {
    type Output = usize;

    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> usize {
        let Scan {
            simd,
            rows,
            query,
            out,
        } = self;
        let (query, _) = pulp::as_arrays::<LANES, f32>(query);
        let twice: Vec<f32x16> = query.iter().map(|q| cast([*q, *q])).collect();
        let (rows, _) = pulp::as_arrays::<LANES, T>(rows);
        let step = query.len();
        let mut scored = 0;
        for (scores, block) in out
            .chunks_exact_mut(PAIRED_ROWS)
            .zip(rows.chunks_exact(step * PAIRED_ROWS))
        {
            let row: [_; PAIRED_ROWS] = split_rows(block, step);
            let mut sums = [simd.splat_f32s(0.0); PAIRS_AT_ONCE];
            for (at, q) in twice.iter().enumerate() {
                for (pair, sum) in sums.iter_mut().enumerate() {
                    let wide = T::widened_pair(simd, &row[2 * pair][at], &row[2 * pair + 1][at]);
                    *sum = simd.add_f32s(*sum, simd.mul_f32s(wide, *q));
                }
            }
            for (two, sum) in scores.chunks_exact_mut(2).zip(sums) {
                let [first, second]: [[f32; LANES]; 2] = cast(sum);
                (two[0], two[1]) = (lanes_summed(first), lanes_summed(second));
            }
            scored += PAIRED_ROWS;
        }
        scored
    }
}

/// `block`'s first `N` rows of `step` registers each.
#[inline(always)]
fn split_rows<T, const N: usize>(block: &[[T; LANES]], step: usize) -> [&[[T; LANES]]; N] {
    core::array::from_fn(|at| &block[at * step..(at + 1) * step])
}

/// A row's eight lanes summed as [`super::rank::dot`] sums them.
#[inline(always)]
fn lanes_summed(lanes: [f32; LANES]) -> f32 {
    // The same sum as the portable dot's, then its `+ 0.0` (there is no remainder: see `fits`).
    lanes.iter().sum::<f32>() + 0.0
}

/// Whether a query of `dimension` numbers can be scanned here: AVX2 is there, and every row is
/// whole registers (otherwise the portable dot's tail would be summed differently).
fn fits(dimension: usize) -> Option<V3> {
    if dimension == 0 || !dimension.is_multiple_of(LANES) {
        return None;
    }
    V3::try_new()
}

/// Scores f32 `values` (rows of `query.len()` numbers) into `out`, if this processor and
/// dimension allow it; `false` if not, and nothing is written.
pub fn scan_floats(values: &[f32], query: &[f32], out: &mut [f32]) -> bool {
    scan(values, query, out)
}

/// Scores `halves` (rows of `query.len()` finite halves) into `out`, as [`scan_floats`] does.
pub fn scan_halves(halves: &[u16], query: &[f32], out: &mut [f32]) -> bool {
    scan(halves, query, out)
}

fn scan<T: Number>(rows: &[T], query: &[f32], out: &mut [f32]) -> bool {
    let Some(simd) = fits(query.len()) else {
        return false;
    };
    // The first whole groups of eight rows in AVX-512's registers where the processor has them.
    let scored = V4::try_new().map_or(0, |wide| {
        let pairs = Scan {
            simd: wide,
            rows,
            query,
            out: &mut *out,
        };
        Simd::vectorize(wide, pairs)
    });
    Simd::vectorize(
        simd,
        Scan {
            simd,
            rows: &rows[(scored * query.len()).min(rows.len())..],
            query,
            out: &mut out[scored..],
        },
    );
    true
}

#[cfg(test)]
mod tests {
    use super::super::rank::dot;
    use half::f16;

    fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    fn bits(values: &[f32]) -> Vec<u32> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    /// Every finite half, one per lane, scored against each lane's one-hot query: each score is
    /// that half's own value (`half`'s widening), or a zero for a zero, so every half's
    /// widening in the registers is checked exactly.
    #[test]
    fn every_finite_half_widens_as_half_does() {
        let halves: Vec<u16> = (0..=u16::MAX).filter(|h| h & 0x7c00 != 0x7c00).collect();
        let halves = &halves[..halves.len() / 8 * 8];
        let mut scores = vec![0f32; halves.len() / 8];
        for lane in 0..8 {
            let mut query = [0f32; 8];
            query[lane] = 1.0;
            assert_eq!(super::scan_halves(halves, &query, &mut scores), available());
            if !available() {
                return;
            }
            for (row, score) in halves.chunks_exact(8).zip(&scores) {
                let expected = f16::from_bits(row[lane]).to_f32() + 0.0;
                assert_eq!(score.to_bits(), expected.to_bits(), "{:#06x}", row[lane]);
            }
        }
    }

    /// Random finite halves and f32 rows (subnormals and both zeros among them), a row count
    /// that is not a multiple of four: every score is the portable dot's, bit for bit. With
    /// AVX-512, the first 32 rows go through the pair scan and the last 7 through AVX2's.
    #[test]
    fn scores_are_the_portable_dots_bit_for_bit() {
        let mut random = rand_mt::Mt::new(5);
        let dimension = 24;
        let rows = 4 * 9 + 3;
        let halves: Vec<u16> = std::iter::repeat_with(|| random.next_u32() as u16)
            .filter(|h| h & 0x7c00 != 0x7c00)
            .take(rows * dimension)
            .collect();
        let floats: Vec<f32> = std::iter::repeat_with(|| f32::from_bits(random.next_u32()))
            .filter(|x| x.is_finite() && x.abs() < 1e18)
            .take(rows * dimension)
            .collect();
        let query: Vec<f32> = (0..dimension)
            .map(|_| (random.next_u32() >> 8) as f32 / (1u32 << 24) as f32 - 0.5)
            .collect();
        let widened: Vec<f32> = halves.iter().map(|&h| f16::from_bits(h).to_f32()).collect();
        for (table, scanned) in [(&widened, true), (&floats, false)] {
            let expected: Vec<f32> = table
                .chunks_exact(dimension)
                .map(|row| dot(row, &query))
                .collect();
            let mut got = vec![0f32; rows];
            let ran = if scanned {
                super::scan_halves(&halves, &query, &mut got)
            } else {
                super::scan_floats(table, &query, &mut got)
            };
            assert_eq!(ran, available());
            if ran {
                assert_eq!(bits(&got), bits(&expected));
            }
        }
    }

    /// A dimension that is not whole registers is left to the portable scan.
    #[test]
    fn a_dimension_not_a_multiple_of_eight_is_declined() {
        let mut out = [0f32; 2];
        assert!(!super::scan_floats(&[1.0; 26], &[1.0; 13], &mut out));
        assert_eq!(out, [0.0, 0.0]);
    }
}
