//! numpy's `SeedSequence`: how `np.random.default_rng(seed)` turns an integer seed into the 256
//! bits that seed PCG64. The seed is not used as a state: it is hashed into a pool of four 32-bit
//! words, and the seeding words are hashed out of that pool again, so a port that skips either
//! hash gives a plausible stream that is not numpy's.
//!
//! Only what `default_rng(seed)` needs is here: an entropy of one or two 32-bit words (any `u64`),
//! no spawn key, the default pool of four words.

/// numpy's default pool size, in 32-bit words.
const POOL_WORDS: usize = 4;
/// The constants of numpy's `bit_generator.pyx` (from O'Neill's `seed_seq` replacement).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;

/// `np.random.SeedSequence(entropy)` for a non-negative integer entropy below 2^64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedSequence {
    pool: [u32; POOL_WORDS],
}

impl SeedSequence {
    /// Mixes the entropy into the pool as numpy does. numpy splits an integer into 32-bit words,
    /// least significant first, with no leading zero words but at least one word (0 is `[0]`).
    pub fn new(entropy: u64) -> Self {
        let low = entropy as u32;
        let high = (entropy >> 32) as u32;
        if high == 0 {
            Self::from_words(&[low])
        } else {
            Self::from_words(&[low, high])
        }
    }

    fn from_words(entropy: &[u32]) -> Self {
        let mut hash_const = INIT_A;
        let mut pool = [0; POOL_WORDS];
        // Words past the entropy hash a zero: numpy keeps running the hash out.
        for (index, word) in pool.iter_mut().enumerate() {
            *word = hashmix(entropy.get(index).copied().unwrap_or(0), &mut hash_const);
        }
        // Every word into every other, so that late words reach the early ones (each `hashmix`
        // sees the pool as the loop has left it so far, and advances the hash constant).
        for source in 0..POOL_WORDS {
            for target in 0..POOL_WORDS {
                if source != target {
                    let hashed = hashmix(pool[source], &mut hash_const);
                    pool[target] = mix(pool[target], hashed);
                }
            }
        }
        // Entropy longer than the pool (never from a `u64`, kept for the algorithm's sake).
        for &extra in entropy.iter().skip(POOL_WORDS) {
            for word in pool.iter_mut() {
                *word = mix(*word, hashmix(extra, &mut hash_const));
            }
        }
        SeedSequence { pool }
    }

    /// The mixed pool (numpy's `SeedSequence.pool`).
    pub fn pool(&self) -> [u32; POOL_WORDS] {
        self.pool
    }

    /// `generate_state(words, np.uint32)`: the pool cycled through a second hash.
    pub fn generate_state_u32(&self, words: usize) -> Vec<u32> {
        let mut hash_const = INIT_B;
        self.pool
            .iter()
            .cycle()
            .take(words)
            .map(|&word| {
                let mut value = word ^ hash_const;
                hash_const = hash_const.wrapping_mul(MULT_B);
                value = value.wrapping_mul(hash_const);
                value ^ (value >> XSHIFT)
            })
            .collect()
    }

    /// `generate_state(words, np.uint64)`: twice as many 32-bit words, each pair read as one
    /// little-endian `u64` (low word first) on every platform.
    pub fn generate_state_u64(&self, words: usize) -> Vec<u64> {
        self.generate_state_u32(2 * words)
            .chunks_exact(2)
            .map(|pair| u64::from(pair[0]) | (u64::from(pair[1]) << 32))
            .collect()
    }
}

/// numpy's `hashmix`: the multiplier moves on at every call, so call order matters.
fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut value = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    value = value.wrapping_mul(*hash_const);
    value ^ (value >> XSHIFT)
}

/// numpy's `mix` of two words.
fn mix(x: u32, y: u32) -> u32 {
    let result = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    result ^ (result >> XSHIFT)
}

#[cfg(test)]
mod tests {
    use super::*;

    // numpy 2.4.6: SeedSequence(20260923).pool and .generate_state(4, np.uint64).
    #[test]
    fn codenib_seed_gives_numpys_pool_and_words() {
        let sequence = SeedSequence::new(20_260_923);
        assert_eq!(
            sequence.pool(),
            [1729082649, 1604082876, 4110946949, 3624796985]
        );
        assert_eq!(
            sequence.generate_state_u64(4),
            [
                16109857765589202215,
                16023055155071496359,
                7700777439217888056,
                9510205705143163779
            ]
        );
    }

    #[test]
    fn u64_words_are_pairs_of_u32_words_low_first() {
        let sequence = SeedSequence::new(1 << 40);
        let narrow = sequence.generate_state_u32(4);
        let wide = sequence.generate_state_u64(2);
        assert_eq!(wide[0], u64::from(narrow[0]) | (u64::from(narrow[1]) << 32));
        assert_eq!(wide[1], u64::from(narrow[2]) | (u64::from(narrow[3]) << 32));
    }

    #[test]
    fn a_high_word_changes_the_pool() {
        assert_ne!(
            SeedSequence::new(5).pool(),
            SeedSequence::new(5 | 1 << 32).pool()
        );
    }
}
