//! The packer's settings, shared by the Context view and the line level recomputed over a bundle
//! (the Lines view and the Context view's own): `budget=16000` (tokens), `radius=200` (lines
//! around each anchor) and `anchors=4` (anchor lines per file), each written only when not the
//! default. Their k is the shared `k`.

use reactive_stores::Store;
use routelens_engine::delivery::pack::DEFAULT_BUDGET_TOKENS;
use routelens_engine::delivery::select::{DEFAULT_ANCHORS_PER_FILE, DEFAULT_RADIUS_LINES};

use crate::params::part::{set, Claim, Params};

/// The packer's part of the settings. Defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct PackParams {
    /// The token budget (default 16,000).
    pub budget: usize,
    /// Lines around each anchor (default 200).
    pub radius: usize,
    /// Anchor lines per file (default 4).
    pub anchors: usize,
}

impl Default for PackParams {
    fn default() -> Self {
        PackParams {
            budget: DEFAULT_BUDGET_TOKENS,
            radius: DEFAULT_RADIUS_LINES,
            anchors: DEFAULT_ANCHORS_PER_FILE,
        }
    }
}

impl Params for PackParams {
    fn keys(&self) -> &'static [&'static str] {
        &["budget", "radius", "anchors"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        let defaults = PackParams::default();
        for (key, value, default) in [
            ("budget", self.budget, defaults.budget),
            ("radius", self.radius, defaults.radius),
            ("anchors", self.anchors, defaults.anchors),
        ] {
            if value != default {
                pairs.push((key, value.to_string()));
            }
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        let number = value.parse::<usize>();
        match key {
            "budget" => set(
                &mut self.budget,
                number.map_err(|_| "expected a whole number of tokens".into()),
            ),
            "radius" => set(
                &mut self.radius,
                number.map_err(|_| "expected a whole number of lines".into()),
            ),
            "anchors" => match number {
                Ok(anchors) if anchors >= 1 => set(&mut self.anchors, Ok(anchors)),
                _ => Claim::Refused("expected a whole number of at least 1".into()),
            },
            _ => Claim::Unknown,
        }
    }
}
