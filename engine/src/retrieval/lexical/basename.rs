//! `basename`: the paper's post-study path-name control (amendment 002, control 2).
//!
//! "Rank eligible paths by issue-token overlap, counting each basename match twice plus each
//! full-path match once. Return only positive-score paths, breaking ties by path." In the paper's
//! code, which this follows:
//!
//! - the issue terms are those of its first 500 characters ([`crate::terms`]);
//! - the basename is the file name's *stem* (Python's `PurePosixPath.stem`: the name without its
//!   last `.suffix`; a leading dot or a trailing dot is not a suffix), tokenized;
//! - the full path is tokenized whole (`src/foo_bar.rs` → `src`, `foo_bar`, `rs`);
//! - score = 2 × |terms ∩ stem tokens| + |terms ∩ path tokens|, so a term in the stem counts three
//!   times in all (the stem is part of the path). Matches are whole tokens, not substrings.

use crate::stable_sort::Sorted;
use std::collections::BTreeSet;

use super::{sort_and_truncate, ArmOutput};
use crate::terms::{extract_terms, first_chars, tokenize, FIRST_CHARS};

/// The stem of a path's file name, as Python's `PurePosixPath(path).stem` gives it.
pub fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 && dot + 1 < name.len() => &name[..dot],
        _ => name,
    }
}

/// `basename` over these paths; top `k`.
pub fn basename<S: AsRef<str>>(paths: &[S], issue: &str, k: usize) -> ArmOutput {
    let terms = extract_terms(first_chars(issue, FIRST_CHARS));
    let wanted: BTreeSet<&str> = terms.iter().map(String::as_str).sorted_set();
    let overlap = |text: &str| -> usize {
        tokenize(text)
            .into_iter()
            .sorted_set()
            .iter()
            .filter(|token| wanted.contains(token.as_str()))
            .count()
    };
    let scored: Vec<(String, f64)> = if wanted.is_empty() {
        Vec::new()
    } else {
        paths
            .iter()
            .map(AsRef::as_ref)
            .sorted_set()
            .into_iter()
            .filter_map(|path| {
                let score = 2 * overlap(stem(path)) + overlap(path);
                (score > 0).then(|| (path.to_string(), score as f64))
            })
            .collect()
    };
    ArmOutput::new(terms, sort_and_truncate(scored, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_like_python() {
        assert_eq!(stem("src/foo_bar.rs"), "foo_bar");
        assert_eq!(stem("a/archive.tar.gz"), "archive.tar");
        assert_eq!(stem("Makefile"), "Makefile");
        assert_eq!(stem("x/.bashrc"), ".bashrc");
        assert_eq!(stem("x/trailing."), "trailing.");
        assert_eq!(stem("dir.d/file"), "file");
    }

    #[test]
    fn scores_basename_matches_twice_plus_path_matches() {
        let paths = [
            "src/router/router.rs",
            "src/router/mod.rs",
            "docs/router.md",
            "src/cache.rs",
            "tests/cache_router.rs",
        ];
        let output = basename(&paths, "The router drops the cache", 16);
        assert_eq!(output.terms, ["cache", "drops", "router"]);
        let got: Vec<(&str, f64)> = output
            .results
            .iter()
            .map(|(path, score)| (path.as_str(), *score))
            .collect();
        // router.rs: stem {router} → 2, path {src, router, rs} → 1: 3.
        // router.md: 2 + 1 = 3. cache.rs: 2 + 1 = 3. mod.rs: path only: 1.
        // cache_router.rs: stem token is "cache_router" (underscores join), no match; path
        // tokens {tests, cache_router, rs}: 0 → left out.
        assert_eq!(
            got,
            [
                ("docs/router.md", 3.0),
                ("src/cache.rs", 3.0),
                ("src/router/router.rs", 3.0),
                ("src/router/mod.rs", 1.0),
            ]
        );
    }

    #[test]
    fn uses_first_500_characters_and_k() {
        let issue = format!("{}router", "x ".repeat(250));
        assert!(basename(&["router.rs"], &issue, 16).results.is_empty());
        let output = basename(&["a/router.rs", "b/router.rs"], "router", 1);
        assert_eq!(output.results, [("a/router.rs".to_string(), 3.0)]);
    }
}
