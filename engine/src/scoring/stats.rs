//! Paired statistics: the repository-cluster bootstrap, the exact sign test and the exact
//! sign-flip (randomisation) test over cluster-level contrasts.
//!
//! The bootstrap draws its clusters with Python's `random.Random(seed).choices`, reproduced here on
//! the Mersenne Twister of the `rand_mt` crate: Python seeds MT19937 with `init_by_array` over the
//! seed's 32-bit words, and draws `floor(random() * n)` where `random()` joins two outputs into a
//! 53-bit float. With the same seed the engine therefore picks the same clusters as the paper's
//! analysis script, and the published intervals are reproduced, on every platform (only `u32` and
//! `f64` arithmetic is involved, so native and wasm32 agree bit for bit).

use rand_mt::Mt;

use crate::error::{Error, Result};
use crate::scoring::numpy_bootstrap;

/// The paper's number of bootstrap resamples.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// The paper's bootstrap seed.
pub const DEFAULT_SEED: u64 = 0;
/// The most clusters the exact sign-flip test enumerates (2^24 sign vectors).
pub const MAX_SIGN_FLIP_CLUSTERS: usize = 24;

/// Python's `random.Random(seed)`: MT19937 seeded the way CPython seeds it from an integer.
pub struct PyRandom {
    mt: Mt,
}

impl PyRandom {
    /// Seeds the generator as `random.Random(seed)` does for a non-negative integer seed.
    pub fn new(seed: u64) -> Self {
        // CPython splits abs(seed) into 32-bit words, least significant first; zero is one word.
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        let mt = if high == 0 {
            Mt::new_with_key([low])
        } else {
            Mt::new_with_key([low, high])
        };
        PyRandom { mt }
    }

    /// `random.random()`: a float in [0, 1) with 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.mt.next_u32() >> 5);
        let b = f64::from(self.mt.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// One index of `random.choices(range(n))`: `floor(random() * n)`.
    pub fn choice_index(&mut self, n: usize) -> usize {
        // random() is non-negative, so truncation is the floor Python takes.
        (self.random() * n as f64) as usize
    }
}

/// Bootstrap settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    /// Number of resamples (default 10,000).
    pub resamples: usize,
    /// Generator seed (default 0).
    pub seed: u64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
        }
    }
}

impl BootstrapConfig {
    /// Checks the number of resamples: at least 2 (for a two-sided interval), at most 1,000,000.
    pub fn validated(self) -> Result<Self> {
        if !(2..=1_000_000).contains(&self.resamples) {
            return Err(Error::setting(
                "resamples",
                self.resamples,
                "2 to 1,000,000",
            ));
        }
        Ok(self)
    }
}

/// A mean difference with its 95% bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Interval {
    /// The mean over all cases.
    pub mean: f64,
    /// The 2.5th percentile of the resampled means.
    pub low: f64,
    /// The 97.5th percentile of the resampled means.
    pub high: f64,
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The cluster indices a bootstrap draws. They depend only on the seed, the number of clusters
/// and the number of resamples, so comparisons over the same clusters share one set of draws
/// (drawing is most of a bootstrap's cost).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterDraws {
    clusters: usize,
    config: BootstrapConfig,
    /// `resamples × clusters` indices, resample-major, in the order the generator draws them.
    indices: Vec<u32>,
    /// Whose generator and arithmetic the bootstrap follows.
    rule: BootstrapRule,
}

/// Whose bootstrap a set of draws reproduces: the generator, how a resample's mean is summed and
/// how the interval is read off the resample means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BootstrapRule {
    /// The fastindex paper's script: Python's `random` (MT19937), sums in order, the interval at
    /// order statistics ⌊0.025·R⌋ and ⌊0.975·R⌋ − 1.
    Python,
    /// The CodeNib article's: numpy's `default_rng(seed)` (PCG64) drawing
    /// `integers(0, n, n)`, numpy's pairwise summation, `np.percentile` with linear
    /// interpolation ([`crate::scoring::numpy_bootstrap`]).
    Numpy,
}

impl ClusterDraws {
    /// Draws `config.resamples` resamples of `clusters` cluster indices each.
    pub fn new(clusters: usize, config: BootstrapConfig) -> Result<Self> {
        let config = config.validated()?;
        if clusters == 0 || u32::try_from(clusters).is_err() {
            return Err(Error::setting(
                "bootstrap",
                "no clusters",
                "at least one repository",
            ));
        }
        let mut rng = PyRandom::new(config.seed);
        let indices = (0..config.resamples * clusters)
            .map(|_| rng.choice_index(clusters) as u32)
            .collect();
        Ok(ClusterDraws {
            clusters,
            config,
            indices,
            rule: BootstrapRule::Python,
        })
    }

    /// The draws in `slot` when they are [`ClusterDraws::new`]'s for `clusters` clusters
    /// under `config`, else new ones left there: summaries and comparisons over the same
    /// clusters share one set (they would draw the same indices again).
    pub fn shared(
        slot: &mut Option<ClusterDraws>,
        clusters: usize,
        config: BootstrapConfig,
    ) -> Result<&ClusterDraws> {
        let config = config.validated()?;
        let fits = slot.as_ref().is_some_and(|d| {
            d.clusters == clusters && d.config == config && d.rule == BootstrapRule::Python
        });
        if !fits {
            *slot = Some(ClusterDraws::new(clusters, config)?);
        }
        Ok(slot.as_ref().expect("drawn above"))
    }

    /// Draws as the CodeNib article drew them ([`BootstrapRule::Numpy`]): numpy's generator
    /// seeded with `config.seed`, the same draws for every comparison over `clusters` clusters.
    pub fn numpy(clusters: usize, config: BootstrapConfig) -> Result<Self> {
        let config = config.validated()?;
        let indices = numpy_bootstrap::cluster_indices(clusters, config.resamples, config.seed)?;
        Ok(ClusterDraws {
            clusters,
            config,
            indices,
            rule: BootstrapRule::Numpy,
        })
    }

    /// Whose bootstrap these draws follow.
    pub fn rule(&self) -> BootstrapRule {
        self.rule
    }

    /// The number of clusters each resample draws.
    pub fn clusters(&self) -> usize {
        self.clusters
    }

    /// The settings the draws were made with.
    pub fn config(&self) -> BootstrapConfig {
        self.config
    }
}

/// The repository-cluster bootstrap of a mean of per-case values (paired differences).
///
/// `clusters` holds each cluster's case values, clusters in sorted-name order (the order the draws
/// index). Each resample draws as many clusters as there are, with replacement, and takes the mean
/// over all cases they carry (equal case weight). The interval is the resample means' order
/// statistics at positions ⌊0.025·R⌋ and ⌊0.975·R⌋ − 1, as in the paper's script.
pub fn cluster_bootstrap(clusters: &[Vec<f64>], config: BootstrapConfig) -> Result<Interval> {
    cluster_bootstrap_with(clusters, &ClusterDraws::new(clusters.len(), config)?)
}

/// [`cluster_bootstrap`] over draws made beforehand for the same number of clusters.
pub fn cluster_bootstrap_with(clusters: &[Vec<f64>], draws: &ClusterDraws) -> Result<Interval> {
    let all: Vec<f64> = clusters.iter().flatten().copied().collect();
    if all.is_empty() {
        return Err(Error::setting(
            "bootstrap",
            "no cases",
            "at least one paired case",
        ));
    }
    if clusters.len() != draws.clusters {
        return Err(Error::setting(
            "bootstrap",
            format!("{} clusters", clusters.len()),
            &format!("the {} clusters the draws were made for", draws.clusters),
        ));
    }
    if draws.rule == BootstrapRule::Numpy {
        return numpy_interval(clusters, draws);
    }
    let sums: Vec<(f64, usize)> = clusters.iter().map(|c| (c.iter().sum(), c.len())).collect();
    let mut samples: Vec<f64> = draws
        .indices
        .chunks_exact(draws.clusters)
        .map(|resample| {
            let (mut total, mut count) = (0.0, 0usize);
            for &index in resample {
                let (sum, n) = sums[index as usize];
                total += sum;
                count += n;
            }
            if count == 0 {
                0.0
            } else {
                total / count as f64
            }
        })
        .collect();
    let (low, high) = python_bounds(&mut samples);
    Ok(Interval {
        mean: mean(&all),
        low,
        high,
    })
}

/// The 95% interval's bounds under [`BootstrapRule::Python`]: the resample means' order
/// statistics ⌊0.025·R⌋ and ⌊0.975·R⌋ − 1 (`samples` is left reordered; it must not be empty).
pub fn python_bounds(samples: &mut [f64]) -> (f64, f64) {
    let r = samples.len() as f64;
    // Only two order statistics are needed: selecting them is linear, a full sort is not.
    let low = *samples
        .select_nth_unstable_by((0.025 * r) as usize, f64::total_cmp)
        .1;
    let high = *samples
        .select_nth_unstable_by((0.975 * r) as usize - 1, f64::total_cmp)
        .1;
    (low, high)
}

/// [`BootstrapRule::Numpy`]: each resample's mean over every case of the drawn clusters,
/// flattened in draw order and summed pairwise, and `np.percentile`'s 2.5th and 97.5th.
fn numpy_interval(clusters: &[Vec<f64>], draws: &ClusterDraws) -> Result<Interval> {
    let samples = numpy_bootstrap::resample_means(clusters, &draws.indices);
    let bounds = numpy_bootstrap::percentiles(&samples, &[2.5, 97.5])?;
    Ok(Interval {
        mean: numpy_bootstrap::mean(&clusters.concat()).unwrap_or(0.0),
        low: bounds[0],
        high: bounds[1],
    })
}

/// The exact two-sided sign test: the probability, under a fair coin, of a split of
/// `wins + losses` at least as uneven as the one observed. Ties are left out beforehand.
pub fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    let tail = wins.min(losses);
    // Sum binomial(n, i) / 2^n for i <= tail, in log space so that large n cannot underflow.
    let mut log_choose = 0.0_f64;
    let mut total = 0.0_f64;
    let log_half_n = n as f64 * std::f64::consts::LN_2;
    for i in 0..=tail {
        if i > 0 {
            log_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        total += (log_choose - log_half_n).exp();
    }
    (2.0 * total).min(1.0)
}

/// The exact sign-flip test over cluster-level contrasts: the share of the 2^m sign assignments
/// whose absolute sum is at least the observed absolute sum (two-sided, exchangeable signs).
pub fn sign_flip(contrasts: &[f64]) -> Result<f64> {
    let m = contrasts.len();
    if m == 0 || m > MAX_SIGN_FLIP_CLUSTERS {
        return Err(Error::setting(
            "sign-flip clusters",
            m,
            "1 to 24 repositories (the test enumerates every sign assignment)",
        ));
    }
    let observed: f64 = contrasts.iter().sum::<f64>().abs();
    // Equal sums computed in another order can differ in the last bits: compare with a tolerance.
    let tolerance = 1e-12 * contrasts.iter().map(|c| c.abs()).sum::<f64>().max(1.0);
    let assignments: u64 = 1 << m;
    let extreme = (0..assignments)
        .filter(|signs| {
            let total: f64 = contrasts
                .iter()
                .enumerate()
                .map(|(i, c)| if signs >> i & 1 == 1 { -c } else { *c })
                .sum();
            total.abs() >= observed - tolerance
        })
        .count();
    Ok(extreme as f64 / assignments as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_random_for_seed_zero() {
        // python3 -c "import random; r=random.Random(0); print(r.random(), r.random())"
        let mut rng = PyRandom::new(0);
        assert_eq!(rng.random(), 0.8444218515250481);
        assert_eq!(rng.random(), 0.7579544029403025);
        // python3 -c "import random; print(random.Random(0).choices(range(11), k=5))"
        let mut rng = PyRandom::new(0);
        let picks: Vec<usize> = (0..5).map(|_| rng.choice_index(11)).collect();
        assert_eq!(picks, [9, 8, 4, 2, 5]);
    }

    #[test]
    fn large_seeds_use_two_words() {
        // python3 -c "import random; print(random.Random(2**40 + 7).random())"
        assert_eq!(PyRandom::new((1 << 40) + 7).random(), 0.6137037779936511);
    }

    #[test]
    fn sign_test_small_cases_by_hand() {
        assert_eq!(sign_test(0, 0), 1.0);
        assert_eq!(sign_test(1, 0), 1.0);
        // 5-0: two-sided 2 * (1/32).
        assert!((sign_test(5, 0) - 0.0625).abs() < 1e-15);
        // 4-1: 2 * (1 + 5) / 32.
        assert!((sign_test(4, 1) - 0.375).abs() < 1e-15);
        // 10-2 (n = 12): 2 * (1 + 12 + 66) / 4096.
        assert!((sign_test(2, 10) - 158.0 / 4096.0).abs() < 1e-15);
    }

    #[test]
    fn sign_flip_small_cases_by_hand() {
        // All three positive: only all-plus and all-minus are as extreme: 2/8.
        assert_eq!(sign_flip(&[1.0, 2.0, 3.0]).unwrap(), 0.25);
        // [3, -1]: sums ±2, ±4; |sum| >= 2 always.
        assert_eq!(sign_flip(&[3.0, -1.0]).unwrap(), 1.0);
        assert!(sign_flip(&[]).is_err());
        assert!(sign_flip(&[1.0; 25]).is_err());
    }

    #[test]
    fn bootstrap_of_a_constant_is_that_constant() {
        let clusters = vec![vec![0.5, 0.5], vec![0.5]];
        let interval = cluster_bootstrap(&clusters, BootstrapConfig::default()).unwrap();
        assert_eq!(
            (interval.mean, interval.low, interval.high),
            (0.5, 0.5, 0.5)
        );
    }

    #[test]
    fn bootstrap_interval_brackets_the_mean_and_is_seeded() {
        let clusters = vec![vec![1.0, 0.0], vec![0.0], vec![1.0, 1.0, 1.0], vec![-1.0]];
        let config = BootstrapConfig {
            resamples: 2_000,
            seed: 7,
        };
        let a = cluster_bootstrap(&clusters, config).unwrap();
        let b = cluster_bootstrap(&clusters, config).unwrap();
        assert_eq!(a, b);
        assert!(a.low <= a.mean && a.mean <= a.high);
        assert!(cluster_bootstrap(
            &clusters,
            BootstrapConfig {
                resamples: 1,
                seed: 0
            }
        )
        .is_err());
    }
}
