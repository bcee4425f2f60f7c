//! The reader's fusions: part of the study every view sees (the store adds them to the study as
//! loaded), built in the fusion view. Keys: `fuse=tree+fts5,rg+fts5` (`+` joins a fusion's
//! arms, `,` the fusions; written when there is one), `rrfk=60` and `depth=16` (always written).

use reactive_stores::Store;
use routelens_engine::RrfConfig;

use super::part::{list, set, Claim, Params};

/// The fusions and their reciprocal-rank settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct FusionParams {
    /// Fusions added by the user, each two or more archived arm names (default none).
    pub fusions: Vec<Vec<String>>,
    /// RRF rank constant for the user's fusions (default 60).
    pub rank_constant: f64,
    /// RRF depth per fused arm (default 16).
    pub depth: usize,
}

impl Default for FusionParams {
    fn default() -> Self {
        let rrf = RrfConfig::default();
        FusionParams {
            fusions: Vec::new(),
            rank_constant: rrf.rank_constant,
            depth: rrf.depth,
        }
    }
}

impl Params for FusionParams {
    fn keys(&self) -> &'static [&'static str] {
        &["fuse", "rrfk", "depth"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if !self.fusions.is_empty() {
            let fusions: Vec<String> = self.fusions.iter().map(|p| p.join("+")).collect();
            pairs.push(("fuse", fusions.join(",")));
        }
        pairs.push(("rrfk", self.rank_constant.to_string()));
        pairs.push(("depth", self.depth.to_string()));
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "fuse" => {
                self.fusions = list(value)
                    .iter()
                    .map(|fusion| fusion.split('+').map(str::to_string).collect())
                    .collect();
                Claim::Read
            }
            "rrfk" => set(
                &mut self.rank_constant,
                match value.parse::<f64>() {
                    Ok(rank_constant) => RrfConfig {
                        rank_constant,
                        ..RrfConfig::default()
                    }
                    .validated()
                    .map(|_| rank_constant)
                    .map_err(|err| err.to_string()),
                    Err(_) => Err("not a number".into()),
                },
            ),
            "depth" => match value.parse::<usize>() {
                Ok(depth) if depth >= 1 => set(&mut self.depth, Ok(depth)),
                _ => Claim::Refused("expected a whole number of at least 1".into()),
            },
            _ => Claim::Unknown,
        }
    }
}
