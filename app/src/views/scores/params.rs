//! A score table's own settings and their keys, each written only when set: `frame=<name>`,
//! `smetric=<metric>`, `spairs=<left>:<right>;…` (its comparisons), and its bootstrap,
//! `sresamples=` and `sseed=` (default the source's own where its mapping records them, as
//! CodeNib's 5,000 resamples and seed 20260923, else the shared `resamples` and `seed`). What its
//! intervals resample (`cluster`) is shared with the study views (`crate::params`).

use reactive_stores::Store;
use routelens_engine::BootstrapConfig;

use crate::params::part::{set, set_some, Claim, Params};

/// A score table's part of the settings.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct ScoresParams {
    /// The frame (default its mapping's headline frame).
    pub frame: Option<String>,
    /// The metric (default its mapping's headline metric, else its first).
    pub metric: Option<String>,
    /// The comparisons, left − right (default empty, meaning its mapping's).
    pub pairs: Vec<(String, String)>,
    /// Bootstrap resamples (default the source's, else the shared setting).
    pub resamples: Option<usize>,
    /// Bootstrap seed (default the source's, else the shared setting).
    pub seed: Option<u64>,
}

impl Params for ScoresParams {
    fn keys(&self) -> &'static [&'static str] {
        &["frame", "smetric", "spairs", "sresamples", "sseed"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if let Some(frame) = &self.frame {
            pairs.push(("frame", frame.clone()));
        }
        if let Some(metric) = &self.metric {
            pairs.push(("smetric", metric.clone()));
        }
        if !self.pairs.is_empty() {
            let written: Vec<String> = self
                .pairs
                .iter()
                .map(|(left, right)| format!("{left}:{right}"))
                .collect();
            pairs.push(("spairs", written.join(";")));
        }
        if let Some(resamples) = self.resamples {
            pairs.push(("sresamples", resamples.to_string()));
        }
        if let Some(seed) = self.seed {
            pairs.push(("sseed", seed.to_string()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "frame" => set_some(&mut self.frame, value),
            "smetric" => set_some(&mut self.metric, value),
            "spairs" => set(
                &mut self.pairs,
                value
                    .split(';')
                    .map(|pair| {
                        let (left, right) = pair.split_once(':')?;
                        (!left.is_empty() && !right.is_empty())
                            .then(|| (left.to_string(), right.to_string()))
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| "expected LEFT:RIGHT pairs separated by ;".into()),
            ),
            "sresamples" => set(
                &mut self.resamples,
                match value.parse::<usize>() {
                    Ok(resamples) => BootstrapConfig { resamples, seed: 0 }
                        .validated()
                        .map(|_| Some(resamples))
                        .map_err(|err| err.to_string()),
                    Err(_) => Err("not a whole number".into()),
                },
            ),
            "sseed" => set(
                &mut self.seed,
                value
                    .parse()
                    .map(Some)
                    .map_err(|_| "expected a whole number ≥ 0".into()),
            ),
            _ => Claim::Unknown,
        }
    }
}
