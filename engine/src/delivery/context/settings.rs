//! The settings of one delivered context (k, anchors, radius, budget), with the paper's defaults,
//! and their selector and packer parts.

use crate::delivery::pack::{PackConfig, DEFAULT_BUDGET_TOKENS};
use crate::delivery::select::{SelectConfig, DEFAULT_ANCHORS_PER_FILE, DEFAULT_RADIUS_LINES};
use crate::error::{Error, Result};

/// The ranked files packed by default: the paper's k = 8.
pub const DEFAULT_CONTEXT_K: usize = 8;

/// Every setting of one delivered context; the defaults are the paper's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextSettings {
    /// How many ranked paths are packed, from the top (default [`DEFAULT_CONTEXT_K`], 8).
    pub k: usize,
    /// Anchor lines per file (default 4).
    pub anchors_per_file: usize,
    /// Lines around each anchor (default 200).
    pub radius_lines: usize,
    /// The token budget (default 16,000).
    pub budget_tokens: usize,
}

impl Default for ContextSettings {
    fn default() -> Self {
        ContextSettings {
            k: DEFAULT_CONTEXT_K,
            anchors_per_file: DEFAULT_ANCHORS_PER_FILE,
            radius_lines: DEFAULT_RADIUS_LINES,
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

impl ContextSettings {
    /// Checks the settings: k and anchors at least 1 ([`Error::Setting`] names the setting).
    pub fn check(self) -> Result<Self> {
        if self.k == 0 {
            return Err(Error::setting("k", 0, "1 or more"));
        }
        self.select_config().check()?;
        Ok(self)
    }

    /// The selector's part.
    pub fn select_config(&self) -> SelectConfig {
        SelectConfig {
            anchors_per_file: self.anchors_per_file,
            radius_lines: self.radius_lines,
        }
    }

    /// The packer's part.
    pub fn pack_config(&self) -> PackConfig {
        PackConfig {
            budget_tokens: self.budget_tokens,
        }
    }
}
