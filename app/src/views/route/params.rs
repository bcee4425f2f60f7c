//! The Route view's own settings, each written only when not the default: `strategy=tree|flat`,
//! `decider=offline|http|proxy|replay`, `model=jev-1.13.0`, `max_files=16` and `max_calls=32`.
//! The http decider's base URL (`base`), the bundle, question and k are shared
//! (`crate::params`); the API key is never in the link.

use reactive_stores::Store;
use routelens_engine::remote::route::{RouteSettings, Strategy};

use crate::decisions::DeciderKind;
use crate::params::part::{set, set_text, Claim, Params};

/// The Route view's part of the settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct RouteParams {
    /// Tree walk or flat tournament (default tree).
    pub strategy: Strategy,
    /// Who answers (default offline, which works on a fresh machine).
    pub decider: DeciderKind,
    /// The model asked (default `jev-1.13.0`).
    pub model: String,
    /// Stop after this many files (default 16).
    pub max_files: usize,
    /// Stop before a call beyond this many (default 32).
    pub max_calls: usize,
}

impl Default for RouteParams {
    fn default() -> Self {
        let defaults = RouteSettings::default();
        RouteParams {
            strategy: Strategy::Tree,
            decider: DeciderKind::Offline,
            model: defaults.model,
            max_files: defaults.max_files,
            max_calls: defaults.max_calls,
        }
    }
}

impl Params for RouteParams {
    fn keys(&self) -> &'static [&'static str] {
        &["strategy", "decider", "model", "max_files", "max_calls"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        let defaults = RouteParams::default();
        if self.strategy != defaults.strategy {
            pairs.push(("strategy", self.strategy.name().into()));
        }
        if self.decider != defaults.decider {
            pairs.push(("decider", self.decider.name().into()));
        }
        if self.model != defaults.model {
            pairs.push(("model", self.model.clone()));
        }
        if self.max_files != defaults.max_files {
            pairs.push(("max_files", self.max_files.to_string()));
        }
        if self.max_calls != defaults.max_calls {
            pairs.push(("max_calls", self.max_calls.to_string()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        let cap = || match value.parse::<usize>() {
            Ok(n) if (1..=10_000).contains(&n) => Ok(n),
            _ => Err("expected a whole number from 1 to 10000".to_string()),
        };
        match key {
            "strategy" => match value {
                "tree" => set(&mut self.strategy, Ok(Strategy::Tree)),
                "flat" => set(&mut self.strategy, Ok(Strategy::Flat)),
                _ => Claim::Refused("expected tree or flat".into()),
            },
            "decider" => set(
                &mut self.decider,
                DeciderKind::from_name(value)
                    .ok_or_else(|| "expected offline, http, proxy or replay".into()),
            ),
            "model" => set_text(&mut self.model, value),
            "max_files" => set(&mut self.max_files, cap()),
            "max_calls" => set(&mut self.max_calls, cap()),
            _ => Claim::Unknown,
        }
    }
}
