//! The run record: what a routing run nominated, what it cost, and every menu it saw.
//!
//! The first fields are the JSON (`paths`, `calls`, `input_tokens`, `output_tokens`,
//! `cost_usd`, `truncated`, `elapsed_ms`, `menus`); the rest say how the run was made (strategy,
//! decider, model) and how it ended (retries, the cap that stopped it, the error that failed it).
//! A failed or truncated run keeps everything it did before it stopped.

use serde::{Deserialize, Serialize};

/// Which procedure produced a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The paper's tree router: a walk over directory menus.
    #[default]
    Tree,
    /// The paper's flat tournament: every path in bounded menus, the top of each advancing.
    Flat,
}

impl Strategy {
    /// The name used on the command line and in run files.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Tree => "tree",
            Strategy::Flat => "flat",
        }
    }
}

/// The cap that stopped a truncated run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cap {
    /// `max_files` files were nominated with work left.
    Files,
    /// `max_calls` calls were made with work left.
    Calls,
    /// `max_elapsed_ms` passed.
    Time,
}

/// One menu as the run saw it. For a split menu, the parts' options and probabilities are
/// concatenated in order (probabilities are never renormalised across parts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MenuRecord {
    /// The directory routed (`""` is the root); for the flat tournament, `round R menu M`.
    pub directory: String,
    /// The option texts, in menu order.
    pub options: Vec<String>,
    /// Each option's probability; empty when the menu needed no call (a single child, or a flat
    /// menu small enough to advance whole) or the run stopped before its answers came.
    pub probabilities: Vec<f64>,
    /// The paths kept (tree) or advanced (flat), best first.
    pub kept: Vec<String>,
    /// The options' paths, in menu order.
    pub paths: Vec<String>,
    /// Each part's none-of-these probability.
    pub none_of_these: Vec<f64>,
    /// The calls this menu took (parts answered).
    pub calls: usize,
}

impl MenuRecord {
    /// The tree walk's keep threshold for this menu, `max(min_probability, relative_probability
    /// × best child)` (the best over all parts), or `None` when the menu had no answers.
    pub fn keep_threshold(&self, settings: &super::RouteSettings) -> Option<f64> {
        if self.probabilities.is_empty() {
            return None;
        }
        let best = self.probabilities.iter().copied().fold(0.0_f64, f64::max);
        Some(
            settings
                .min_probability
                .max(settings.relative_probability * best),
        )
    }

    /// Each option's path with whether it was kept, its probability (when asked) and its rank
    /// among the kept (0 is visited first), in menu order.
    pub fn rows(&self) -> Vec<(String, bool, Option<f64>, Option<usize>)> {
        self.paths
            .iter()
            .enumerate()
            .map(|(i, path)| {
                let rank = self.kept.iter().position(|k| k == path);
                (
                    path.clone(),
                    rank.is_some(),
                    self.probabilities.get(i).copied(),
                    rank,
                )
            })
            .collect()
    }
}

/// Why a run failed: the call's status (when it had one) and the error's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunError {
    /// The HTTP status, when the error came with one.
    pub status: Option<u16>,
    /// The error's message.
    pub message: String,
}

/// A routing run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Nominated paths, rank order.
    pub paths: Vec<String>,
    /// Calls answered successfully (retries not counted; see `retries`).
    pub calls: usize,
    /// Input tokens the decider reported.
    pub input_tokens: u64,
    /// Output tokens the decider reported.
    pub output_tokens: u64,
    /// The estimated cost from the settings' pricing.
    pub cost_usd: f64,
    /// Whether a cap stopped the run with work left.
    pub truncated: bool,
    /// Time from the start to the last answer, as the driver measured it.
    pub elapsed_ms: u64,
    /// Every menu, in the order it was finished.
    pub menus: Vec<MenuRecord>,
    /// Tree or flat.
    pub strategy: Strategy,
    /// The decider that answered: `offline`, `http`, `replay` (the driver sets it).
    pub decider: String,
    /// The model asked.
    pub model: String,
    /// Requests sent again after a 429 or 529.
    pub retries: usize,
    /// The cap that stopped a truncated run.
    pub stopped_by: Option<Cap>,
    /// Why the run failed, when it did; the fields above hold what it did before.
    pub error: Option<RunError>,
    /// Time spent waiting for the decider (server and network), when the driver measured it.
    pub decider_ms: u64,
}
