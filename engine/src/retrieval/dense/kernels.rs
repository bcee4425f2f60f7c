//! The encoder's element-wise steps, written so that the compiler vectorises them: GELU and a
//! masked softmax over a row of attention scores.
//!
//! Hand-written because candle computes both one number at a time: GELU through libm's `erff`
//! and the softmax through `expf`, whose branches keep the compiler from vectorising the loops.
//! The two were a fifth of an embedding batch's time (`perf`, 2026-12-05).
//!
//! - `exp` of a number at most 0 (all the two steps need): Cody and Waite's reduction to
//!   `n ln 2 + r` with `|r| ≤ ln 2 / 2`, then `e^r` by its Taylor polynomial of degree 7
//!   (truncation below 6e-9 relative), scaled by `2^n` through the exponent bits.
//! - `erf`: formula 7.1.26 of Abramowitz and Stegun's *Handbook of Mathematical Functions*,
//!   absolute error at most 1.5e-7 in exact arithmetic, under 4e-7 in f32's.
//!
//! Both are held to f64 references by the tests below, and the whole model to
//! sentence-transformers' vectors by `engine/tests/minilm.rs`.

/// Below this, `e^y` is under f32's smallest normal number: the argument is clamped to it.
const EXP_FLOOR: f32 = -87.0;
/// `ln 2` split in two: the first part has so few bits that `n × LN2_HIGH` is exact for every
/// `n` the reduction meets.
const LN2_HIGH: f32 = 0.693_359_4;
const LN2_LOW: f32 = -2.121_944_4e-4;
/// 1.5 × 2^23: adding it rounds an f32 of magnitude below 2^22 to an integer, held in the low
/// bits of the sum.
const ROUNDER: f32 = 12_582_912.0;

/// `e^y` for `y ≤ 0`, to about 2e-7 relative (f32's own rounding).
#[inline(always)]
fn exp_non_positive(y: f32) -> f32 {
    let y = y.max(EXP_FLOOR);
    let shifted = y * std::f32::consts::LOG2_E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (y - n * LN2_HIGH) - n * LN2_LOW;
    let taylor = 1.0
        + r * (1.0
            + r * (1.0 / 2.0
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r / 5040.0))))));
    // `n` is in the sum's low bits; `n + 127` (at least 1 after the clamp) is 2^n's exponent.
    let n_bits = shifted.to_bits() as i32 - ROUNDER.to_bits() as i32;
    taylor * f32::from_bits(((n_bits + 127) << 23) as u32)
}

/// `erf(x)`, to 4e-7 absolute.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp_non_positive(-a * a)).copysign(x)
}

/// GELU as BERT defines it, `x Φ(x) = x (1 + erf(x / √2)) / 2`, on every value in place.
pub fn gelu_in_place(values: &mut [f32]) {
    // Compiled for each vector width pulp knows, the widest the processor has run.
    pulp::Arch::new().dispatch(|| {
        for v in values {
            *v = (erf(*v * std::f32::consts::FRAC_1_SQRT_2) + 1.0) * 0.5 * *v;
        }
    })
}

/// The attention's softmax in place over `scores`, one block of rows per input row: each row of
/// `width` scores multiplied by `scale`, then a softmax over its first `lengths[block]` (at least
/// 1); the rest (a padded batch's padding, masked out of attention) becomes 0, as `e^` of BERT's
/// mask (the least f32, added) gives.
pub fn masked_softmax_in_place(scores: &mut [f32], width: usize, lengths: &[usize], scale: f32) {
    let per_block = scores.len() / lengths.len().max(1);
    pulp::Arch::new().dispatch(|| {
        for (block, &kept) in scores.chunks_mut(per_block.max(1)).zip(lengths) {
            for row in block.chunks_mut(width.max(1)) {
                masked_softmax(row, kept.max(1), scale);
            }
        }
    })
}

/// `addend` added to each run of its length in `values` (a bias to every row, or a residual of
/// the same shape), in place.
pub fn add_repeated(values: &mut [f32], addend: &[f32]) {
    pulp::Arch::new().dispatch(|| {
        for run in values.chunks_mut(addend.len().max(1)) {
            for (v, a) in run.iter_mut().zip(addend) {
                *v += a;
            }
        }
    })
}

/// One row's softmax (see [`masked_softmax_in_place`]).
#[inline(always)]
fn masked_softmax(row: &mut [f32], kept: usize, scale: f32) {
    let (live, padding) = row.split_at_mut(kept.min(row.len()));
    padding.fill(0.0);
    let max = live
        .iter()
        .fold(f32::NEG_INFINITY, |m, &v| m.max(v * scale));
    for v in live.iter_mut() {
        *v = exp_non_positive(*v * scale - max);
    }
    // Eight running sums: one would chain every addition to the last.
    let mut sums = [0.0f32; 8];
    let mut blocks = live.chunks_exact(8);
    for block in &mut blocks {
        for (sum, v) in sums.iter_mut().zip(block) {
            *sum += v;
        }
    }
    let total = sums.iter().sum::<f32>() + blocks.remainder().iter().sum::<f32>();
    for v in live.iter_mut() {
        *v /= total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evenly spaced points of `[from, to]`.
    fn grid(from: f32, to: f32, points: usize) -> impl Iterator<Item = f32> {
        (0..=points).map(move |i| from + (to - from) * i as f32 / points as f32)
    }

    #[test]
    fn exp_is_within_three_ten_millionths_relative() {
        for y in grid(-87.0, 0.0, 200_000) {
            let exact = (y as f64).exp();
            let relative = ((exp_non_positive(y) as f64 - exact) / exact).abs();
            assert!(relative < 3e-7, "exp({y}): {relative}");
        }
        assert_eq!(exp_non_positive(0.0), 1.0);
        // Clamped below, never 0, NaN or a subnormal.
        assert!(exp_non_positive(-1e30).is_normal());
    }

    #[test]
    fn gelu_is_within_the_formulas_error_of_the_f64_one() {
        let mut values: Vec<f32> = grid(-12.0, 12.0, 240_000).collect();
        let inputs = values.clone();
        gelu_in_place(&mut values);
        for (x, got) in inputs.into_iter().zip(values) {
            let exact = 0.5 * x as f64 * (1.0 + libm::erf(x as f64 / std::f64::consts::SQRT_2));
            let error = (got as f64 - exact).abs();
            // 4e-7 of erf's, times |x| / 2, plus f32's rounding of the result.
            let bound = 2e-7 * (x.abs() as f64) + 2.4e-7 * exact.abs() + 1e-12;
            assert!(
                error <= bound,
                "gelu({x}) = {got}, not {exact}: {error} > {bound}"
            );
        }
    }

    #[test]
    fn softmax_matches_the_f64_one_and_zeroes_the_padding() {
        let row: Vec<f32> = (0..37)
            .map(|i| ((i * 7919) % 23) as f32 * 1.7 - 20.0)
            .collect();
        let scale = 0.176_776_7;
        let expected = |kept: usize| -> Vec<f64> {
            let scaled: Vec<f64> = row[..kept].iter().map(|&v| (v * scale) as f64).collect();
            let max = scaled.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let total: f64 = scaled.iter().map(|v| (v - max).exp()).sum();
            scaled.iter().map(|v| (v - max).exp() / total).collect()
        };
        for kept in [1, 5, 8, 16, 30, 37] {
            // Two blocks of two rows each: the first block masked to `kept`, the second not.
            let mut got = [row.clone(), row.clone(), row.clone(), row.clone()].concat();
            masked_softmax_in_place(&mut got, row.len(), &[kept, row.len()], scale);
            for (at, got) in got.chunks(row.len()).enumerate() {
                let live = if at < 2 { kept } else { row.len() };
                for (got, exact) in got.iter().zip(expected(live)) {
                    assert!(
                        (*got as f64 - exact).abs() <= 1e-6 * exact + 1e-9,
                        "{kept} {at}"
                    );
                }
                assert!(got[live..].iter().all(|&v| v == 0.0));
            }
        }
    }

    #[test]
    fn an_addend_is_added_to_every_run_of_its_length() {
        let mut values = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        add_repeated(&mut values, &[10.0, 20.0, 30.0]);
        assert_eq!(values, [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
        add_repeated(&mut values, &[1.0; 6]);
        assert_eq!(values, [12.0, 23.0, 34.0, 15.0, 26.0, 37.0]);
    }
}
