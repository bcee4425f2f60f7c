//! numpy's PCG64 bit generator (`np.random.default_rng(seed).bit_generator`) and the bounded
//! integers `Generator.integers(0, high, size)` draws from it.
//!
//! Three facts decide the stream, each taken from numpy's sources (`_pcg64.pyx`,
//! `src/pcg64/pcg64.{c,h}`, `src/distributions/distributions.c`):
//!
//! - **Seeding.** `generate_state(4, np.uint64)` gives four words `w0..w3`; the 128-bit initial
//!   state is `w0:w1` and the stream selector `w2:w3` (first word high). The increment is
//!   `(selector << 1) | 1`; the state starts at 0, steps, adds the initial state, steps again.
//! - **Output.** Each draw steps the 128-bit LCG first, then outputs XSL-RR: the two halves
//!   XOR-ed, rotated right by the top six bits.
//! - **32-bit draws.** A 64-bit output serves two 32-bit draws: the low half now, the high half
//!   at the next 32-bit draw. The spare half lives in the bit generator, so it carries over from
//!   one `integers` call to the next: with 25 draws a call, every other call starts on a spare.
//!
//! The `rand_pcg` crate's `Lcg128Xsl64` (its `Pcg64`) has the same multiplier, steps and outputs
//! the same way, and `Lcg128Xsl64::new(state, stream)` seeds as numpy does (state plus increment,
//! one step, which is numpy's step from zero, add, step). It is not used: its `next_u32` takes the
//! low half and throws the high half away, so the bounded draws would still be hand-written here,
//! leaving only the few lines of 128-bit arithmetic below for a new dependency of the engine to
//! replace.

use super::seed_sequence::SeedSequence;
use crate::error::{Error, Result};

/// PCG's default 128-bit multiplier (numpy's `PCG_DEFAULT_MULTIPLIER_128`).
const MULTIPLIER: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// The largest `high` of [`Pcg64::integers`]: numpy draws ranges up to 2^32 from 32-bit halves.
pub const MAX_INTEGERS_HIGH: u64 = 1 << 32;

/// numpy's PCG64 with its spare 32-bit half.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pcg64 {
    state: u128,
    increment: u128,
    /// The high half of the last 64-bit output, when only its low half has been drawn.
    spare_half: Option<u32>,
}

impl Pcg64 {
    /// `np.random.default_rng(seed)`'s bit generator, fresh: `PCG64(SeedSequence(seed))`.
    pub fn from_seed(seed: u64) -> Self {
        Self::from_seed_sequence(&SeedSequence::new(seed))
    }

    /// `PCG64(seed_sequence)`.
    pub fn from_seed_sequence(seed_sequence: &SeedSequence) -> Self {
        let words = seed_sequence.generate_state_u64(4);
        let join = |high: u64, low: u64| (u128::from(high) << 64) | u128::from(low);
        Self::new(join(words[0], words[1]), join(words[2], words[3]))
    }

    /// PCG's `pcg_setseq_128_srandom_r(initial_state, stream)`.
    pub fn new(initial_state: u128, stream: u128) -> Self {
        let mut generator = Pcg64 {
            state: 0,
            increment: (stream << 1) | 1,
            spare_half: None,
        };
        generator.step();
        generator.state = generator.state.wrapping_add(initial_state);
        generator.step();
        generator
    }

    /// The 128-bit LCG state (numpy's `bit_generator.state["state"]["state"]`).
    pub fn state(&self) -> u128 {
        self.state
    }

    /// The odd LCG increment (numpy's `bit_generator.state["state"]["inc"]`).
    pub fn increment(&self) -> u128 {
        self.increment
    }

    fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(MULTIPLIER)
            .wrapping_add(self.increment);
    }

    /// One raw output (numpy's `random_raw()`); leaves any spare 32-bit half alone, as numpy does.
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let folded = ((self.state >> 64) as u64) ^ (self.state as u64);
        folded.rotate_right((self.state >> 122) as u32)
    }

    /// One 32-bit draw: the spare high half if there is one, else the low half of a new output.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(high) = self.spare_half.take() {
            return high;
        }
        let output = self.next_u64();
        self.spare_half = Some((output >> 32) as u32);
        output as u32
    }

    /// One value of `integers` in `0..=max`: Lemire's multiply-and-reject on a 32-bit draw
    /// (numpy's `buffered_bounded_lemire_uint32`), with numpy's two shortcuts: `max` 0 draws
    /// nothing, and `u32::MAX` is a plain 32-bit draw.
    pub fn bounded_u32(&mut self, max: u32) -> u32 {
        if max == 0 {
            return 0;
        }
        if max == u32::MAX {
            return self.next_u32();
        }
        let span = max + 1;
        let mut product = u64::from(self.next_u32()) * u64::from(span);
        // `span` bounds the rejection threshold, so most draws skip computing it.
        if (product as u32) < span {
            let threshold = (u32::MAX - max) % span;
            while (product as u32) < threshold {
                product = u64::from(self.next_u32()) * u64::from(span);
            }
        }
        (product >> 32) as u32
    }

    /// `Generator.integers(0, high, count)` with numpy's default `int64` type, for `high` from 1
    /// to [`MAX_INTEGERS_HIGH`] (numpy's 32-bit path; larger ranges take 64-bit draws, not
    /// ported).
    pub fn integers(&mut self, high: u64, count: usize) -> Result<Vec<u64>> {
        let max = high
            .checked_sub(1)
            .and_then(|max| u32::try_from(max).ok())
            .ok_or_else(|| Error::setting("high", high, "1 to 2^32"))?;
        Ok((0..count)
            .map(|_| u64::from(self.bounded_u32(max)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // numpy 2.4.6: np.random.default_rng(20260923).bit_generator.random_raw(3).
    #[test]
    fn codenib_seed_gives_numpys_first_outputs() {
        let mut generator = Pcg64::from_seed(20_260_923);
        let raw: Vec<u64> = (0..3).map(|_| generator.next_u64()).collect();
        assert_eq!(
            raw,
            [
                18258387372669036532,
                9576244938930042663,
                15725412426484926537
            ]
        );
    }

    #[test]
    fn a_64_bit_output_serves_two_32_bit_draws_low_half_first() {
        let mut whole = Pcg64::from_seed(7);
        let mut halves = whole.clone();
        let output = whole.next_u64();
        assert_eq!(halves.next_u32(), output as u32);
        assert_eq!(halves.next_u32(), (output >> 32) as u32);
        assert_eq!(halves.next_u64(), whole.next_u64());
    }

    #[test]
    fn a_single_value_range_draws_nothing() {
        let mut generator = Pcg64::from_seed(7);
        let untouched = generator.clone();
        assert_eq!(generator.integers(1, 5).unwrap(), [0; 5]);
        assert_eq!(generator, untouched);
    }

    #[test]
    fn draws_stay_in_range_and_reject_the_biased_low_products() {
        let mut generator = Pcg64::from_seed(1);
        // With span 2^31 + 1 almost half of all 32-bit draws are rejected.
        let values = generator.integers((1 << 31) + 1, 1000).unwrap();
        assert!(values.iter().all(|&v| v <= 1 << 31));
        assert!(generator
            .integers(25, 1000)
            .unwrap()
            .iter()
            .all(|&v| v < 25));
    }

    #[test]
    fn out_of_range_bounds_are_errors() {
        let mut generator = Pcg64::from_seed(1);
        assert!(generator.integers(0, 1).is_err());
        assert!(generator.integers(MAX_INTEGERS_HIGH + 1, 1).is_err());
        assert!(generator.integers(MAX_INTEGERS_HIGH, 1).is_ok());
    }
}
