//! The offline planner: a grep plan from the issue alone, deterministic, so that a pool forms
//! with no model and no key. Its actions, in priority order: the issue's code identifiers
//! (`RateLimitFilter`, `parse_config`, `cache.evict` — a capital after a small letter, an
//! underscore or a dot inside), matched case-sensitively as whole words, at most three; then
//! its rarest other query terms in the corpus (fewest files with the term as a token, at least
//! one; ties by where they first appear in the issue, then by spelling), case-insensitively as
//! whole words — up to six actions in all.

use crate::stable_sort;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::plan::{GrepAction, Plan, MAX_ACTIONS};
use crate::terms::extract_terms;

/// Identifiers taken before the rare terms.
const MAX_IDENTIFIERS: usize = 3;

/// The offline plan for `issue`; `files_holding(term)` counts the corpus files that hold a
/// (lower-case) term as a token. `None` when the issue has neither identifiers nor terms found anywhere.
pub fn offline_plan(issue: &str, files_holding: &dyn Fn(&str) -> usize) -> Option<Plan> {
    let mut actions = Vec::new();
    let mut taken = BTreeSet::new();
    for ident in identifiers(issue).into_iter().take(MAX_IDENTIFIERS) {
        taken.extend(extract_terms(&ident));
        actions.push(GrepAction {
            pattern: format!(r"\b{}\b", regex::escape(&ident)),
            glob: "**/*".into(),
            case_sensitive: true,
        });
    }
    let lower = issue.to_lowercase();
    let mut terms: Vec<(usize, usize, String)> = extract_terms(issue)
        .into_iter()
        .filter(|t| !taken.contains(t))
        .map(|t| (files_holding(&t), first_at(&lower, &t), t))
        .filter(|(held, _, _)| *held > 0)
        .collect();
    stable_sort::sort(&mut terms);
    for (_, _, term) in terms.into_iter().take(MAX_ACTIONS - actions.len()) {
        actions.push(GrepAction {
            pattern: format!(r"\b{}\b", regex::escape(&term)),
            glob: "**/*".into(),
            case_sensitive: false,
        });
    }
    (!actions.is_empty()).then_some(Plan { actions })
}

/// Where `term` first appears in the lower-cased issue, for ties.
fn first_at(lower: &str, term: &str) -> usize {
    lower.find(term).unwrap_or(usize::MAX)
}

/// A word, or words joined by dots: where identifiers are looked for. Compiled once, not once a
/// question: in the browser its compilation cost about a tenth of a grep pool.
static WORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*").ok());

/// The issue's code identifiers, each once, in order of appearance.
fn identifiers(issue: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for found in WORD.iter().flat_map(|w| w.find_iter(issue)) {
        let text = found.as_str();
        let bytes = text.as_bytes();
        let camel = bytes
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        let snake = text.trim_matches('_').contains('_');
        let dotted = text.contains('.');
        if (camel || snake || dotted) && text.len() > 3 && seen.insert(text.to_string()) {
            out.push(text.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_first_then_the_rarest_terms() {
        let issue = "RateLimitFilter.allow lets bursts through; parse_config ignores the \
                     burst limit window and the cache";
        let held = |term: &str| match term {
            "bursts" | "burst" => 2,
            "limit" => 40,
            "window" => 9,
            "cache" => 120,
            "ignores" => 0,
            _ => 5,
        };
        let plan = offline_plan(issue, &held).unwrap();
        let patterns: Vec<&str> = plan.actions.iter().map(|a| a.pattern.as_str()).collect();
        assert_eq!(
            patterns,
            [
                r"\bRateLimitFilter\.allow\b",
                r"\bparse_config\b",
                r"\bburst\b",
                r"\bbursts\b",
                r"\blets\b",
                r"\bwindow\b",
            ]
        );
        assert!(plan.actions[0].case_sensitive && !plan.actions[2].case_sensitive);
        assert_eq!(offline_plan(issue, &held), Some(plan), "deterministic");
        assert_eq!(offline_plan("the and of", &|_| 1), None);
    }
}
