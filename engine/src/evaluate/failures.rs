//! The failure analysis of one configuration at k: what fills the top k of the questions it
//! misses, against those it hits (see the module above).

use crate::error::Result;
use crate::scoring::stats::{python_bounds, BootstrapConfig, PyRandom};
use crate::scoring::unit_metrics::{case_value, Metric, Relevance};
use crate::study::Study;

/// One share compared between the missed and the hit questions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShareDifference {
    /// `documentation share` or `wrong-project share`.
    pub share: String,
    /// Its mean over the missed questions.
    pub misses_mean: f64,
    /// Its mean over the hit questions.
    pub hits_mean: f64,
    /// misses − hits.
    pub difference: f64,
    /// 2.5th percentile of the resampled differences (none when a group is empty).
    pub ci_low: Option<f64>,
    /// 97.5th percentile.
    pub ci_high: Option<f64>,
    /// The comparison in words.
    pub sentence: String,
}

/// What fills the top k of a configuration's misses, against its hits.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FailureAnalysis {
    /// The configuration (arm).
    pub arm: String,
    /// The cut-off.
    pub k: usize,
    /// Questions with no relevant chunk in the top k.
    pub misses: usize,
    /// Questions with one.
    pub hits: usize,
    /// The documentation share and the wrong-project share.
    pub shares: Vec<ShareDifference>,
}

/// Whether a path is documentation: Markdown or reStructuredText, or under a `docs`/`doc`
/// directory.
pub fn is_documentation(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".rst"]
        .iter()
        .any(|ext| lower.ends_with(ext))
        || lower
            .split('/')
            .rev()
            .skip(1)
            .any(|dir| dir == "docs" || dir == "doc")
}

/// The failure analysis of `arm` at `k` (see the module docs); the bootstrap draws with
/// `bootstrap`'s seed, the misses' questions first, then the hits', in each resample.
pub fn failure_analysis(
    study: &Study,
    arm: &str,
    k: usize,
    relevance: Relevance,
    project_of: &dyn Fn(&str) -> String,
    bootstrap: BootstrapConfig,
) -> Result<FailureAnalysis> {
    let settings = (k, relevance, bootstrap);
    failure_analysis_drawn(study, arm, settings, project_of, &mut None)
}

/// As [`failure_analysis`], drawing from `draws` when they fit (as many misses and hits, the
/// same bootstrap) and leaving there the draws it used, for the next arm of a grid.
pub fn failure_analysis_drawn(
    study: &Study,
    arm: &str,
    (k, relevance, bootstrap): (usize, Relevance, BootstrapConfig),
    project_of: &dyn Fn(&str) -> String,
    draws: &mut Option<TwoSampleDraws>,
) -> Result<FailureAnalysis> {
    let bootstrap = bootstrap.validated()?;
    let index = study.arm_index(arm)?;
    let arm_ref = &study.arms[index];
    let (mut misses, mut hits): (Vec<[f64; 2]>, Vec<[f64; 2]>) = (Vec::new(), Vec::new());
    for (at, case) in study.cases.iter().enumerate() {
        let hit = case_value(arm_ref, at, case, Metric::Hit(k), relevance)? > 0.0;
        let units = arm_ref.units.get(at).map(Vec::as_slice).unwrap_or_default();
        let top = &units[..k.min(units.len())];
        let shares = if top.is_empty() {
            [0.0, 0.0]
        } else {
            let docs = top.iter().filter(|u| is_documentation(&u.path)).count();
            let elsewhere = top
                .iter()
                .filter(|u| project_of(&u.path) != case.repo)
                .count();
            [
                docs as f64 / top.len() as f64,
                elsewhere as f64 / top.len() as f64,
            ]
        };
        if hit {
            hits.push(shares);
        } else {
            misses.push(shares);
        }
    }
    let mut shares = Vec::new();
    for (which, share) in ["documentation share", "wrong-project share"]
        .iter()
        .enumerate()
    {
        let m: Vec<f64> = misses.iter().map(|s| s[which]).collect();
        let h: Vec<f64> = hits.iter().map(|s| s[which]).collect();
        let drawn = TwoSampleDraws::shared(draws, (m.len(), h.len()), bootstrap);
        shares.push(difference(share, &m, &h, drawn));
    }
    Ok(FailureAnalysis {
        arm: arm.to_string(),
        k,
        misses: misses.len(),
        hits: hits.len(),
        shares,
    })
}

/// `1 miss`, `2 misses`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The indices a two-sample bootstrap draws: per resample, `misses` indices below the number of
/// misses, then `hits` below the number of hits, in the order Python's `random` draws them
/// from the seed. Both shares of an arm, and arms with as many misses and hits, draw the same.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoSampleDraws {
    groups: (usize, usize),
    bootstrap: BootstrapConfig,
    /// `resamples × (misses + hits)` indices, resample-major.
    indices: Vec<u32>,
}

impl TwoSampleDraws {
    /// The draws in `slot` when they fit `groups` (misses, hits) and `bootstrap`, else new ones
    /// left there.
    fn shared(
        slot: &mut Option<TwoSampleDraws>,
        groups: (usize, usize),
        bootstrap: BootstrapConfig,
    ) -> &TwoSampleDraws {
        let fits = slot
            .as_ref()
            .is_some_and(|d| d.groups == groups && d.bootstrap == bootstrap);
        if !fits {
            let (m, h) = groups;
            let mut rng = PyRandom::new(bootstrap.seed);
            let mut indices = Vec::with_capacity(bootstrap.resamples * (m + h));
            if m > 0 && h > 0 {
                for _ in 0..bootstrap.resamples {
                    indices.extend((0..m).map(|_| rng.choice_index(m) as u32));
                    indices.extend((0..h).map(|_| rng.choice_index(h) as u32));
                }
            }
            *slot = Some(TwoSampleDraws {
                groups,
                bootstrap,
                indices,
            });
        }
        slot.as_ref().expect("drawn above")
    }
}

/// misses − hits with the two-sample percentile bootstrap (each group resampled within itself).
fn difference(
    share: &str,
    misses: &[f64],
    hits: &[f64],
    drawn: &TwoSampleDraws,
) -> ShareDifference {
    let (misses_mean, hits_mean) = (mean(misses), mean(hits));
    let observed = misses_mean - hits_mean;
    let (ci_low, ci_high, sentence) = if misses.is_empty() || hits.is_empty() {
        (
            None,
            None,
            format!(
                "{share}: no interval, with {} and {}",
                counted(misses.len(), "miss", "misses"),
                counted(hits.len(), "hit", "hits")
            ),
        )
    } else {
        let width = misses.len() + hits.len();
        let mut draws: Vec<f64> = drawn
            .indices
            .chunks_exact(width)
            .map(|resample| {
                let (m, h) = resample.split_at(misses.len());
                let m = m.iter().map(|&at| misses[at as usize]).sum::<f64>() / misses.len() as f64;
                let h = h.iter().map(|&at| hits[at as usize]).sum::<f64>() / hits.len() as f64;
                m - h
            })
            .collect();
        let (low, high) = python_bounds(&mut draws);
        let verdict = if low > 0.0 || high < 0.0 {
            "the interval excludes zero"
        } else {
            "the interval includes zero, so this is within noise at this sample size"
        };
        (
            Some(low),
            Some(high),
            format!(
                "{share} {observed:+.2} among misses against hits ({misses_mean:.2} over {}, \
                 {hits_mean:.2} over {}; 95% interval {low:+.2} to {high:+.2}); {verdict}.",
                counted(misses.len(), "miss", "misses"),
                counted(hits.len(), "hit", "hits")
            ),
        )
    };
    ShareDifference {
        share: share.to_string(),
        misses_mean,
        hits_mean,
        difference: observed,
        ci_low,
        ci_high,
        sentence,
    }
}
