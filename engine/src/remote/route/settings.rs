//! The router's settings. Every default is the paper's; every one can be changed, and a run
//! file records the settings it ran with.

use serde::{Deserialize, Serialize};

use super::protocol::{Pricing, DEFAULT_MODEL};

/// The tree instruction, verbatim from the paper.
pub const TREE_INSTRUCTIONS: &str = "Choose the best route toward answer evidence. Directory options summarize descendants, so select a directory when a descendant could answer. Choose none only when the question is unrelated to every option.";

/// The none-of-these criterion, verbatim from the paper.
pub const NONE_OF_THESE: &str = "None contains direct answer evidence";

/// The flat tournament's instruction, verbatim from the `instructions` of the archive's
/// `contextbench-paper-flat-paths.json` config (the paper itself does not print it; the
/// reproduction test holds the two equal).
pub const FLAT_INSTRUCTIONS: &str = "Choose the source file path most likely to contain direct evidence for the issue. Judge paths only; no file contents or directory summaries are available. Choose none only if no listed path could contain relevant evidence.";

/// How the router walks, talks and stops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RouteSettings {
    /// The model asked (default `jev-1.13.0`).
    pub model: String,
    /// Put before the issue in the state (default `User question: `).
    pub state_prefix: String,
    /// How many characters of the issue the state holds (default 500).
    pub state_chars: usize,
    /// The tree walk's instruction (default [`TREE_INSTRUCTIONS`]).
    pub instructions: String,
    /// The flat tournament's instruction (default [`FLAT_INSTRUCTIONS`]).
    pub flat_instructions: String,
    /// The none-of-these criterion (default [`NONE_OF_THESE`]).
    pub none_of_these: String,
    /// Each option is cut to this many characters (default 800).
    pub max_option_chars: usize,
    /// A menu with more options is split into several calls (default 254).
    pub max_menu_options: usize,
    /// A menu whose state plus option characters would pass this is split (default 48,000).
    pub max_menu_chars: usize,
    /// Descendant names a directory option lists (default 12).
    pub subtopic_names: usize,
    /// How many levels below a directory its names are collected from (default 3).
    pub subtopic_depth: usize,
    /// A child is kept when its probability is at least this (default 0.01) ...
    pub min_probability: f64,
    /// ... and at least this times the best child's probability (default 0.01).
    pub relative_probability: f64,
    /// Stop after nominating this many files (default 16).
    pub max_files: usize,
    /// Stop before a call beyond this many (default 32).
    pub max_calls: usize,
    /// Stop once this much time has passed (default 180,000 ms), as the driver measures it.
    pub max_elapsed_ms: u64,
    /// Retries of a call answered 429 or 529 (default 3).
    pub max_retries: u32,
    /// The shortest wait before a retry (default 1,000 ms).
    pub retry_min_ms: u64,
    /// The longest wait before a retry (default 15,000 ms).
    pub retry_max_ms: u64,
    /// How many paths each flat menu advances, and how few end the tournament (default 16, the
    /// archive's `top_k`).
    pub flat_advance: usize,
    /// Put before the issue in the flat tournament's state (default `User issue: `).
    pub flat_state_prefix: String,
    /// Put before the path in a flat option (default `Source file: `; options are not cut).
    pub flat_option_prefix: String,
    /// A flat menu holds at most this many paths (default 200, the archive's `menu_limit`).
    pub flat_menu_options: usize,
    /// A flat menu's size starts at this many characters (default 600) ...
    pub flat_menu_base_chars: usize,
    /// ... and each path adds its length plus this (default 20); the menu closes before the
    /// size would pass `max_menu_chars`.
    pub flat_option_overhead_chars: usize,
    /// Retries of a flat call that timed out or failed in transport (default 3), after 1, 2,
    /// 4 s (doubling from `flat_transport_retry_ms`); 429 and 529 retry as for the tree.
    pub flat_transport_retries: u32,
    /// The first transport retry's wait (default 1,000 ms).
    pub flat_transport_retry_ms: u64,
    /// The flat tournament's call cap (default none: the paper's ran up to 231 calls).
    pub flat_max_calls: Option<usize>,
    /// The flat tournament's time cap (default none: the paper's ran up to 302 s).
    pub flat_max_elapsed_ms: Option<u64>,
    /// The price estimate (default $0.042 per million input tokens, output free).
    pub pricing: Pricing,
}

impl Default for RouteSettings {
    fn default() -> Self {
        RouteSettings {
            model: DEFAULT_MODEL.into(),
            state_prefix: "User question: ".into(),
            state_chars: 500,
            instructions: TREE_INSTRUCTIONS.into(),
            flat_instructions: FLAT_INSTRUCTIONS.into(),
            none_of_these: NONE_OF_THESE.into(),
            max_option_chars: 800,
            max_menu_options: 254,
            max_menu_chars: 48_000,
            subtopic_names: 12,
            subtopic_depth: 3,
            min_probability: 0.01,
            relative_probability: 0.01,
            max_files: 16,
            max_calls: 32,
            max_elapsed_ms: 180_000,
            max_retries: 3,
            retry_min_ms: 1_000,
            retry_max_ms: 15_000,
            flat_advance: 16,
            flat_state_prefix: "User issue: ".into(),
            flat_option_prefix: "Source file: ".into(),
            flat_menu_options: 200,
            flat_menu_base_chars: 600,
            flat_option_overhead_chars: 20,
            flat_transport_retries: 3,
            flat_transport_retry_ms: 1_000,
            flat_max_calls: None,
            flat_max_elapsed_ms: None,
            pricing: Pricing::default(),
        }
    }
}

impl RouteSettings {
    /// The request state for an issue: the prefix and the issue's first `state_chars`
    /// characters.
    pub fn state(&self, issue: &str) -> String {
        self.prefixed_state(&self.state_prefix, issue)
    }

    /// The flat tournament's state: its prefix and the issue's first `state_chars` characters.
    pub fn flat_state(&self, issue: &str) -> String {
        self.prefixed_state(&self.flat_state_prefix, issue)
    }

    fn prefixed_state(&self, prefix: &str, issue: &str) -> String {
        format!(
            "{prefix}{}",
            crate::terms::first_chars(issue, self.state_chars)
        )
    }

    /// Refuses settings that cannot route: no menu room, no files, a flat round that cannot
    /// shrink.
    pub fn check(&self) -> crate::Result<()> {
        use crate::Error;
        if self.max_menu_options < 2 {
            return Err(Error::setting(
                "max_menu_options",
                self.max_menu_options,
                "2 or more",
            ));
        }
        if self.max_files == 0 {
            return Err(Error::setting("max_files", 0, "1 or more"));
        }
        if self.flat_advance == 0 || self.flat_advance >= self.flat_menu_options {
            return Err(Error::setting(
                "flat_advance",
                self.flat_advance,
                "1 to flat_menu_options - 1",
            ));
        }
        if self.max_option_chars == 0 {
            return Err(Error::setting("max_option_chars", 0, "1 or more"));
        }
        for (name, value) in [
            ("min_probability", self.min_probability),
            ("relative_probability", self.relative_probability),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(Error::setting(name, value, "0 to 1"));
            }
        }
        if self.retry_min_ms > self.retry_max_ms {
            return Err(Error::setting(
                "retry_min_ms",
                self.retry_min_ms,
                "at most retry_max_ms",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers_and_check() {
        let settings = RouteSettings::default();
        settings.check().unwrap();
        assert_eq!(settings.model, "jev-1.13.0");
        assert_eq!(
            (
                settings.max_files,
                settings.max_calls,
                settings.max_elapsed_ms
            ),
            (16, 32, 180_000)
        );
        let issue = "é".repeat(600);
        let state = settings.state(&issue);
        assert_eq!(state.chars().count(), "User question: ".len() + 500);
        let parsed: RouteSettings = serde_json::from_str(r#"{"max_files": 8}"#).unwrap();
        assert_eq!(parsed.max_files, 8);
        assert_eq!(parsed.max_calls, 32);
        let err = serde_json::from_str::<RouteSettings>(r#"{"max_file": 8}"#).unwrap_err();
        assert!(err.to_string().contains("max_file"), "{err}");
        assert_eq!(
            settings.flat_state(&issue).chars().count(),
            "User issue: ".len() + 500
        );
        assert_eq!(
            (settings.flat_menu_options, settings.flat_advance),
            (200, 16)
        );
        let bad = RouteSettings {
            flat_advance: 200,
            ..RouteSettings::default()
        };
        assert!(bad
            .check()
            .unwrap_err()
            .to_string()
            .contains("flat_advance"));
    }
}
