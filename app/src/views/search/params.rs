//! The Search view's own setting: the lexical arms it fuses, `sfuse=fts5+rg` (written only when
//! not the default; `sfuse=` for none). Its bundle, question and k are shared
//! (`crate::params`).

use reactive_stores::Store;

use crate::params::part::{set, Claim, Params};

/// The Search view's part of the settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct SearchParams {
    /// The lexical arms the view fuses, in the engine's arm order (default `fts5`, `rg`).
    pub fused: Vec<String>,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            fused: vec!["fts5".into(), "rg".into()],
        }
    }
}

impl Params for SearchParams {
    fn keys(&self) -> &'static [&'static str] {
        &["sfuse"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if *self != SearchParams::default() {
            pairs.push(("sfuse", self.fused.join("+")));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "sfuse" => set(
                &mut self.fused,
                Ok(value
                    .split('+')
                    .filter(|arm| !arm.is_empty())
                    .map(str::to_string)
                    .collect()),
            ),
            _ => Claim::Unknown,
        }
    }
}
