//! A score table's own settings and their keys, each written only when set: `frame=<name>`,
//! `smetric=<metric>` and `spairs=<left>:<right>;…` (its comparisons). What its intervals
//! resample (`cluster`) and its bootstrap are shared with the study views (`crate::params`).

use reactive_stores::Store;

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
}

impl Params for ScoresParams {
    fn keys(&self) -> &'static [&'static str] {
        &["frame", "smetric", "spairs"]
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
            _ => Claim::Unknown,
        }
    }
}
