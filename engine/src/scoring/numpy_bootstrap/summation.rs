//! numpy's float64 sum and mean, in numpy's order of additions. Floating-point addition is not
//! associative, so a plain left-to-right sum differs from `np.mean` in the last bits, and a
//! bootstrap interval taken from such means is then not the one numpy printed.
//!
//! `np.add.reduce` over a contiguous float64 array starts from the reduction's initial value
//! `+0.0` and adds numpy's pairwise sum (`DOUBLE_pairwise_sum`, `loops_utils.h.src`) of the
//! whole array: fewer than 8 values are added in order from `-0.0`; up to 128 values go to 8
//! interleaved accumulators that are combined as a tree, with the leftover (fewer than 8) values
//! added after; longer arrays split at half the length rounded down to a multiple of 8 and sum
//! each side the same way. A contiguous array is one inner loop however long it is (numpy
//! 2.4.6 chunks nothing up to at least 30,000 values). `np.mean` divides that sum by the count.

/// numpy's `PW_BLOCKSIZE`: the longest run summed without splitting.
const BLOCK_VALUES: usize = 128;
/// The unrolling of the block loop: the number of interleaved accumulators.
const LANES: usize = 8;
/// The initial value of `np.add.reduce` for float64 (so a sum of only `-0.0` is `+0.0`).
const REDUCTION_START: f64 = 0.0;

/// `np.sum(values)` for a contiguous float64 array, bit for bit.
pub fn pairwise_sum(values: &[f64]) -> f64 {
    REDUCTION_START + pairwise(values)
}

/// `np.mean(values)` bit for bit; `None` for no values (numpy warns and returns NaN).
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| pairwise_sum(values) / values.len() as f64)
}

fn pairwise(values: &[f64]) -> f64 {
    let count = values.len();
    if count < LANES {
        values.iter().fold(-0.0, |sum, value| sum + value)
    } else if count <= BLOCK_VALUES {
        let whole_rows = count - count % LANES;
        let mut lanes = [0.0; LANES];
        lanes.copy_from_slice(&values[..LANES]);
        for row in values[LANES..whole_rows].chunks_exact(LANES) {
            for (lane, value) in lanes.iter_mut().zip(row) {
                *lane += value;
            }
        }
        let mut sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
            + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        for value in &values[whole_rows..] {
            sum += value;
        }
        sum
    } else {
        let half = count / 2;
        let split = half - half % LANES;
        pairwise(&values[..split]) + pairwise(&values[split..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_runs_add_in_order() {
        assert_eq!(pairwise_sum(&[1e16, 1.0, -1e16]), 0.0);
        assert_eq!(mean(&[1.0, 2.0, 4.0]), Some(7.0 / 3.0));
        assert_eq!(mean(&[]), None);
    }

    #[test]
    fn a_sum_of_negative_zeros_is_positive_zero() {
        assert!(pairwise_sum(&[-0.0]).is_sign_positive());
        assert!(pairwise_sum(&[]).is_sign_positive());
    }

    #[test]
    fn eight_lanes_combine_as_a_tree() {
        // Lane 0 cancels 1e16 against -1e16 and lanes 1 to 7 keep their 1.0s: 14. In order,
        // the seven 1.0s after 1e16 are lost to rounding (its spacing is 2): 7.
        let mut values = vec![1.0; 16];
        values[0] = 1e16;
        values[8] = -1e16;
        assert_eq!(pairwise_sum(&values), 14.0);
        let in_order = values.iter().fold(0.0, |sum, value| sum + value);
        assert_ne!(pairwise_sum(&values), in_order);
    }

    #[test]
    fn long_runs_split_at_a_multiple_of_eight() {
        // 300 values split 144 + 156, then 72 + 72 and 72 + 84: each side summed exactly.
        let values: Vec<f64> = (0..300).map(f64::from).collect();
        assert_eq!(pairwise_sum(&values), 44850.0);
    }
}
