//! The paper's literal-search arms: `rg`, `rg-first500` and the two-search `rg-feedback`.
//!
//! The paper ran `rg -i -F` with the query terms over the searchable files and ranked the files
//! it matched. Here the same matches come from [`TextCorpus`] (a term is found in a file when it
//! is a substring of the file's lower-cased text, which is what the paper's per-line check
//! amounts to, since a term never spans a line break). The ranking is the paper's:
//!
//! ```text
//! score(file) = Σ over found terms t of (1 + ln((N + 1) / (df(t) + 1)))
//!             + 2 × |{found terms that occur in the lower-cased path}|
//! ```
//!
//! where `N` is the number of files in the corpus and `df(t)` the number of files containing
//! `t`. Files that contain no term are not ranked. Ties go to the path that sorts first (byte
//! order). The terms are summed in sorted order; the paper summed a Python set in hash order,
//! which can change the last bits of a score, never an order other than between exact ties.

use crate::stable_sort;
use std::collections::BTreeMap;

use super::corpus::TextCorpus;
use super::{sort_and_truncate, ArmOutput};
use crate::scoring::fusion::{rrf_scored, RrfConfig};
use crate::terms::{extract_terms, first_chars, FIRST_CHARS};

/// The weight of each found term that also occurs in the path.
pub const PATH_BOOST: f64 = 2.0;

/// How many rare terms `rg-feedback` searches for the second time.
pub const FEEDBACK_TERMS: usize = 5;

/// `rg`: the whole issue's terms, literal search, the paper's file ranking; top `k`.
pub fn rg(corpus: &TextCorpus, issue: &str, k: usize) -> ArmOutput {
    literal_arm(corpus, extract_terms(issue), k)
}

/// `rg-first500`: as [`rg`] with the terms of the issue's first 500 characters.
pub fn rg_first500(corpus: &TextCorpus, issue: &str, k: usize) -> ArmOutput {
    literal_arm(corpus, extract_terms(first_chars(issue, FIRST_CHARS)), k)
}

fn literal_arm(corpus: &TextCorpus, terms: Vec<String>, k: usize) -> ArmOutput {
    let matches = corpus.matches(&terms);
    let mut results = rank_matches(corpus, &terms, &matches);
    results.truncate(k);
    ArmOutput::new(terms, results)
}

/// The paper's file ranking of literal matches, every matched file, best first.
pub fn rank_matches(
    corpus: &TextCorpus,
    terms: &[String],
    matches: &[(usize, Vec<usize>)],
) -> Vec<(String, f64)> {
    let n = corpus.len() as f64;
    let mut df = vec![0usize; terms.len()];
    for (_, found) in matches {
        for &term in found {
            df[term] += 1;
        }
    }
    let scored = matches
        .iter()
        .map(|(file, found)| {
            let lower_path = corpus.lower_path(*file);
            let rarity: f64 = found
                .iter()
                .map(|&term| 1.0 + ((n + 1.0) / (df[term] as f64 + 1.0)).ln())
                .sum();
            let in_path = found
                .iter()
                .filter(|&&term| lower_path.contains(terms[term].as_str()))
                .count();
            (
                corpus.paths()[*file].clone(),
                rarity + PATH_BOOST * in_path as f64,
            )
        })
        .collect();
    sort_and_truncate(scored, usize::MAX)
}

/// `rg-feedback`: the paper's scripted two-search control.
///
/// The exact rule:
///
/// 1. Search the whole issue's terms as [`rg`] does; rank every matched file.
/// 2. Count, for each term found, the files of the first search that contain it (its `df`;
///    every file containing a term is a matched file, so this is the corpus `df`). The feedback
///    terms are the [`FEEDBACK_TERMS`] (five) terms with the lowest `df`, ties broken by the term
///    (byte order); fewer when fewer were found.
/// 3. Search the feedback terms alone and rank the matched files the same way (`N` is still the
///    corpus size).
/// 4. Fuse the two rankings with the engine's [`rrf_scored`] at rank constant 60 and depth 16 (each
///    list's first 16 files take part), ties by path; keep the first `k`. A file's score is its
///    RRF sum, `Σ 1 / (60 + rank)` over the lists whose first 16 hold it.
///
/// The paper's script took the rare terms from all files the first search matched, as here
/// (not only its top files), and fused at rank constant 60 ("RRF@16"). The output's `terms` are
/// the first search's; `feedback_terms` are the second's.
pub fn rg_feedback(corpus: &TextCorpus, issue: &str, k: usize) -> ArmOutput {
    let terms = extract_terms(issue);
    let first_matches = corpus.matches(&terms);
    let first = rank_matches(corpus, &terms, &first_matches);
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, found) in &first_matches {
        for &term in found {
            *df.entry(terms[term].as_str()).or_default() += 1;
        }
    }
    let mut by_rarity: Vec<(&str, usize)> = df.into_iter().collect();
    // The map iterates in term order and the sort is stable: equal counts stay term-ascending.
    stable_sort::by_key(&mut by_rarity, |&(_, count)| count);
    let mut feedback_terms: Vec<String> = by_rarity
        .iter()
        .take(FEEDBACK_TERMS)
        .map(|(term, _)| term.to_string())
        .collect();
    stable_sort::sort(&mut feedback_terms);
    let second_matches = corpus.matches(&feedback_terms);
    let second = rank_matches(corpus, &feedback_terms, &second_matches);
    // The paper fuses the two whole rankings (`evals/hybrid.py`'s `_rrf` over every matched
    // file), then keeps the top 16: "RRF@16" in the archived config is the cut after fusion.
    let config = RrfConfig {
        depth: first.len().max(second.len()).max(1),
        ..RrfConfig::default()
    };
    let first_paths: Vec<&str> = first.iter().map(|(path, _)| path.as_str()).collect();
    let second_paths: Vec<&str> = second.iter().map(|(path, _)| path.as_str()).collect();
    let fused = rrf_scored(&[&first_paths[..], &second_paths[..]], config);
    let results = fused.into_iter().take(k).collect();
    let mut output = ArmOutput::new(terms, results);
    output.feedback_terms = feedback_terms;
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> TextCorpus {
        TextCorpus::new([
            ("src/parser.rs", "fn parse() { let depth = 0; }"),
            ("src/lexer.rs", "fn lex() { // feeds the parser\n}"),
            (
                "docs/guide.md",
                "The Parser has a max depth.\nSee parser.rs.",
            ),
            ("README.md", "nothing relevant"),
        ])
    }

    #[test]
    fn ranks_by_rarity_and_path_matches() {
        // Terms: depth, parser. N = 4. "parser" is in 2 files (lexer, guide; "parse(" in
        // parser.rs is not "parser"), "depth" in 2 (parser.rs, guide).
        // Each found term is worth 1 + ln(5/3).
        let output = rg(&corpus(), "The parser depth", 16);
        assert_eq!(output.terms, ["depth", "parser"]);
        let unit = 1.0 + (5.0f64 / 3.0).ln();
        let expected = [
            // guide: both terms.
            ("docs/guide.md", 2.0 * unit),
            // parser.rs: depth in text, and "parser" is not in its text, so the path does not
            // count either: path matches only count for found terms.
            ("src/lexer.rs", unit),
            ("src/parser.rs", unit),
        ];
        assert_eq!(output.results.len(), 3);
        for ((path, score), (want_path, want_score)) in output.results.iter().zip(expected) {
            assert_eq!(path, want_path);
            assert!((score - want_score).abs() < 1e-12, "{path}: {score}");
        }
    }

    #[test]
    fn path_matches_add_two_per_found_term() {
        let corpus = TextCorpus::new([("lib/cache.rs", "cache"), ("lib/other.rs", "cache")]);
        let output = rg(&corpus, "cache", 16);
        let unit = 1.0 + (3.0f64 / 3.0).ln();
        assert_eq!(output.results[0], ("lib/cache.rs".to_string(), unit + 2.0));
        assert_eq!(output.results[1], ("lib/other.rs".to_string(), unit));
    }

    #[test]
    fn first500_uses_only_the_prefix() {
        let issue = format!("{} tail_term", "x ".repeat(250));
        let corpus = TextCorpus::new([("a", "tail_term")]);
        assert_eq!(rg(&corpus, &issue, 16).results.len(), 1);
        let short = rg_first500(&corpus, &issue, 16);
        assert!(short.terms.is_empty() && short.results.is_empty());
    }

    #[test]
    fn feedback_picks_rarest_terms_and_fuses() {
        // df: common 3, mid 2, rare 1 → feedback terms are all three, sorted.
        let corpus = TextCorpus::new([
            ("a", "common"),
            ("b", "common mid"),
            ("c", "common mid rare"),
            ("d", "unrelated"),
        ]);
        let output = rg_feedback(&corpus, "common mid rare", 16);
        assert_eq!(output.terms, ["common", "mid", "rare"]);
        assert_eq!(output.feedback_terms, ["common", "mid", "rare"]);
        // Both searches rank c, b, a: fused scores 2/61, 2/62, 2/63.
        let paths: Vec<&str> = output.results.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["c", "b", "a"]);
        assert!((output.results[0].1 - 2.0 / 61.0).abs() < 1e-12);
        assert!((output.results[2].1 - 2.0 / 63.0).abs() < 1e-12);
    }

    #[test]
    fn feedback_keeps_five_rarest_with_ties_by_term() {
        let corpus = TextCorpus::new([
            ("1", "aaa bbb ccc ddd eee fff ggg"),
            ("2", "aaa bbb"),
            ("3", "aaa"),
        ]);
        let output = rg_feedback(&corpus, "aaa bbb ccc ddd eee fff ggg", 16);
        // df: ccc..ggg 1 (ties by term: ccc, ddd, eee, fff, ggg), bbb 2, aaa 3.
        assert_eq!(output.feedback_terms, ["ccc", "ddd", "eee", "fff", "ggg"]);
        assert!(rg_feedback(&corpus, "zzz", 16).results.is_empty());
    }

    /// The paper fuses the two searches' whole rankings (every matched file), not their top 16:
    /// on a corpus where some file ranks past 16 in a search, the result is the whole-list fusion
    /// and differs from fusing the top 16s.
    #[test]
    fn feedback_fuses_the_whole_rankings() {
        // A fixed pseudo-random corpus: 80 files of 4 to 12 words from a vocabulary of 40.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let words: Vec<String> = (0..40).map(|i| format!("word{i:02}x")).collect();
        let files: Vec<(String, String)> = (0..80)
            .map(|i| {
                let count = 4 + next(9) as usize;
                let text: Vec<&str> = (0..count)
                    .map(|_| words[next(40) as usize].as_str())
                    .collect();
                (format!("src/f{i:02}.rs"), text.join(" "))
            })
            .collect();
        let corpus = TextCorpus::new(files.iter().map(|(p, t)| (p.clone(), t.as_str())));
        let issue = words[..14].join(" ");
        let output = rg_feedback(&corpus, &issue, 16);
        let terms = extract_terms(&issue);
        let first = rank_matches(&corpus, &terms, &corpus.matches(&terms));
        let feedback = output.feedback_terms.clone();
        let second = rank_matches(&corpus, &feedback, &corpus.matches(&feedback));
        assert!(
            first.len() > 16 && second.len() > 16,
            "{} {}",
            first.len(),
            second.len()
        );
        let paths = |list: &[(String, f64)]| -> Vec<String> {
            list.iter().map(|(path, _)| path.clone()).collect()
        };
        let (first, second) = (paths(&first), paths(&second));
        let fused = |depth| -> Vec<String> {
            let config = RrfConfig {
                depth,
                ..RrfConfig::default()
            };
            let lists: [&[String]; 2] = [&first, &second];
            paths(&rrf_scored(&lists, config)[..16])
        };
        assert_eq!(paths(&output.results), fused(usize::MAX));
        assert_ne!(
            fused(usize::MAX),
            fused(16),
            "the corpus tells the two apart"
        );
    }
}
