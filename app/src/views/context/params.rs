//! The Context view's own settings: the arm it packs, `arm=fts5` (written only when not the
//! default), and the arm beside it, `vs=<arm>` (written when set). The packer's budget, radius
//! and anchors are shared with the line level (`crate::packing::params`); the bundle, question
//! and k with the other bundle views (`crate::params`).

use reactive_stores::Store;

use crate::params::part::{set_some, set_text, Claim, Params};

/// The Context view's part of the settings.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct ContextParams {
    /// The arm packed (default `fts5`).
    pub arm: String,
    /// The second arm, for the side-by-side comparison (default none).
    pub vs: Option<String>,
}

impl Default for ContextParams {
    fn default() -> Self {
        ContextParams {
            arm: "fts5".into(),
            vs: None,
        }
    }
}

impl Params for ContextParams {
    fn keys(&self) -> &'static [&'static str] {
        &["arm", "vs"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if self.arm != ContextParams::default().arm {
            pairs.push(("arm", self.arm.clone()));
        }
        if let Some(vs) = &self.vs {
            pairs.push(("vs", vs.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "arm" => set_text(&mut self.arm, value),
            "vs" => set_some(&mut self.vs, value),
            _ => Claim::Unknown,
        }
    }
}
