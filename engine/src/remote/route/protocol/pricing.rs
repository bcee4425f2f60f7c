//! The price estimate of a run from its reported token usage.

use serde::{Deserialize, Serialize};

/// The price estimate: dollars per million tokens. It is an estimate from reported usage, not a
/// bill.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pricing {
    /// Dollars per million input tokens (default 0.042, Jev 1.13's rate the paper used).
    pub usd_per_million_input: f64,
    /// Dollars per million output tokens (default 0: output is free).
    pub usd_per_million_output: f64,
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing {
            usd_per_million_input: 0.042,
            usd_per_million_output: 0.0,
        }
    }
}

impl Pricing {
    /// The estimated cost in dollars of these token counts.
    pub fn cost_usd(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.usd_per_million_input
            + output_tokens as f64 * self.usd_per_million_output)
            / 1_000_000.0
    }
}
