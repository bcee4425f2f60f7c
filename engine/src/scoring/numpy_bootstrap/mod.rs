//! CodeNib's paired repository-bootstrap intervals, exactly as its article computed them
//! (`paired_bootstrap` in CodeNib's `scripts/benchmark_jev_base.py`), so that the engine prints
//! the article's own bounds rather than bounds like them. [`stats`](super::stats) bootstraps
//! with Python's `random` (the fastindex paper's generator); CodeNib drew with numpy, whose
//! stream, summation order and interpolation all differ.
//!
//! The rule, for one comparison of a left and a right arm:
//!
//! 1. Per issue, the difference left − right, grouped by repository in the order repositories
//!    first appear among the cases ([`group_by_repository`]). CodeNib's cases are sorted by
//!    repository and issue, so that is sorted order, issues in case order.
//! 2. A fresh generator for every comparison: `np.random.default_rng(20260923)`
//!    ([`SeedSequence`] → [`Pcg64`]).
//! 3. 5,000 draws, each `integers(0, G, G)`: G repository indices with replacement
//!    ([`Pcg64::integers`]).
//! 4. Each draw's statistic is `np.mean` over every issue of the drawn repositories, flattened in
//!    draw order ([`mean`]): the mean over issues, not over repository means.
//! 5. The interval is `np.percentile(draws, [2.5, 97.5])` ([`percentiles`]); the reported
//!    difference is `np.mean` over all issues.
//!
//! [`paired_interval`] does all five. Every step uses only `u32`/`u64`/`u128` and `f64`
//! arithmetic in numpy's order, so native and wasm32 builds give numpy's bits.

mod pcg64;
mod percentile;
mod seed_sequence;
mod summation;

pub use pcg64::{Pcg64, MAX_INTEGERS_HIGH};
pub use percentile::percentiles;
pub use seed_sequence::SeedSequence;
pub use summation::{mean, pairwise_sum};

use std::collections::HashMap;

use crate::error::{Error, Result};

/// CodeNib's generator seed, the same for every comparison.
pub const CODENIB_SEED: u64 = 20_260_923;
/// CodeNib's number of bootstrap draws.
pub const CODENIB_RESAMPLES: usize = 5_000;
/// The percentiles of CodeNib's 95 % interval.
const INTERVAL_PERCENTS: [f64; 2] = [2.5, 97.5];

/// One comparison as CodeNib's results JSON records it (`difference`, `ci95`, `repositories`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedInterval {
    /// The mean difference over every issue (`np.mean` of all differences).
    pub difference: f64,
    /// The 2.5th percentile of the bootstrap means.
    pub low: f64,
    /// The 97.5th percentile of the bootstrap means.
    pub high: f64,
    /// The number of repositories resampled.
    pub repositories: usize,
}

/// Groups per-issue differences by repository, repositories in the order they first appear and
/// issues in the order given: the grouping CodeNib's `defaultdict` makes.
pub fn group_by_repository<'a>(
    differences: impl IntoIterator<Item = (&'a str, f64)>,
) -> Vec<Vec<f64>> {
    let mut slots: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<Vec<f64>> = Vec::new();
    for (repository, difference) in differences {
        let slot = *slots.entry(repository).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[slot].push(difference);
    }
    groups
}

/// CodeNib's paired repository-bootstrap interval over `groups` (one list of per-issue
/// differences per repository, see [`group_by_repository`]), with `resamples` draws from
/// `default_rng(seed)`; [`CODENIB_RESAMPLES`] and [`CODENIB_SEED`] give the article's.
pub fn paired_interval(groups: &[Vec<f64>], resamples: usize, seed: u64) -> Result<PairedInterval> {
    let draws = bootstrap_means(groups, resamples, seed)?;
    let bounds = percentiles(&draws, &INTERVAL_PERCENTS)?;
    let all = groups.concat();
    Ok(PairedInterval {
        // `bootstrap_means` has checked that there is at least one difference.
        difference: mean(&all).unwrap_or(f64::NAN),
        low: bounds[0],
        high: bounds[1],
        repositories: groups.len(),
    })
}

/// The bootstrap statistic of each of `resamples` draws, in draw order: what CodeNib hands to
/// `np.percentile`. Every repository needs at least one issue and every difference must be
/// finite.
pub fn bootstrap_means(groups: &[Vec<f64>], resamples: usize, seed: u64) -> Result<Vec<f64>> {
    check_groups(groups)?;
    if resamples == 0 {
        return Err(Error::setting("resamples", 0, "at least 1"));
    }
    let indices = cluster_indices(groups.len(), resamples, seed)?;
    Ok(resample_means(groups, &indices))
}

/// Each resample's mean (`indices` resample-major, `groups.len()` a resample): the values of the
/// drawn groups flattened in draw order, summed pairwise as numpy does. An empty draw is NaN.
pub fn resample_means(groups: &[Vec<f64>], indices: &[u32]) -> Vec<f64> {
    let mut drawn = Vec::new();
    indices
        .chunks_exact(groups.len().max(1))
        .map(|resample| {
            drawn.clear();
            for &index in resample {
                drawn.extend_from_slice(&groups[index as usize]);
            }
            mean(&drawn).unwrap_or(f64::NAN)
        })
        .collect()
}

/// The repository indices numpy draws: `resamples` calls of `integers(0, clusters, clusters)`
/// on `default_rng(seed)`, resample-major.
pub fn cluster_indices(clusters: usize, resamples: usize, seed: u64) -> Result<Vec<u32>> {
    if clusters == 0 {
        return Err(Error::setting("repositories", 0, "at least 1"));
    }
    let max_index = u32::try_from(clusters - 1)
        .map_err(|_| Error::setting("repositories", clusters, "at most 2^32"))?;
    let mut generator = Pcg64::from_seed(seed);
    Ok((0..resamples * clusters)
        .map(|_| generator.bounded_u32(max_index))
        .collect())
}

fn check_groups(groups: &[Vec<f64>]) -> Result<()> {
    if groups.is_empty() {
        return Err(Error::setting("repositories", 0, "at least 1"));
    }
    for (index, group) in groups.iter().enumerate() {
        if group.is_empty() {
            return Err(Error::setting(
                &format!("repositories[{index}]"),
                "no issues",
                "at least one issue",
            ));
        }
        if let Some((issue, value)) = group.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::setting(
                &format!("repositories[{index}][{issue}]"),
                value,
                "a finite difference",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_first_appearance_and_case_order() {
        let groups = group_by_repository([("b", 1.0), ("a", 2.0), ("b", 3.0), ("c", 4.0)]);
        assert_eq!(groups, [vec![1.0, 3.0], vec![2.0], vec![4.0]]);
    }

    #[test]
    fn one_repository_draws_itself_every_time() {
        let interval = paired_interval(&[vec![0.25, 0.5]], 10, CODENIB_SEED).unwrap();
        assert_eq!(
            interval,
            PairedInterval {
                difference: 0.375,
                low: 0.375,
                high: 0.375,
                repositories: 1
            }
        );
    }

    #[test]
    fn the_statistic_is_the_mean_over_issues_not_over_repositories() {
        // Two draws of the same data: every draw's mean lies between the issue values, and a
        // draw of both repositories weighs the three-issue one three times.
        let groups = [vec![1.0, 1.0, 1.0], vec![0.0]];
        let means = bootstrap_means(&groups, 200, 3).unwrap();
        assert!(means.iter().all(|m| [0.0, 0.75, 1.0].contains(m)));
        assert!(means.contains(&0.75));
    }

    #[test]
    fn the_same_seed_gives_the_same_draws() {
        let groups = [vec![0.1, -0.2], vec![0.3], vec![0.0, 0.5, -0.5]];
        assert_eq!(
            bootstrap_means(&groups, 50, 9).unwrap(),
            bootstrap_means(&groups, 50, 9).unwrap()
        );
        assert_ne!(
            bootstrap_means(&groups, 50, 9).unwrap(),
            bootstrap_means(&groups, 50, 10).unwrap()
        );
    }

    #[test]
    fn bad_groups_and_settings_are_errors() {
        assert!(paired_interval(&[], 10, 1).is_err());
        assert!(paired_interval(&[vec![1.0], vec![]], 10, 1).is_err());
        assert!(paired_interval(&[vec![1.0, f64::NAN]], 10, 1).is_err());
        assert!(paired_interval(&[vec![1.0]], 0, 1).is_err());
    }
}
