//! Query terms: the one term extraction every lexical arm shares.
//!
//! The paper's code fixes it: lower-case the text, take the tokens matching `[a-z0-9_]+`, keep
//! each once, drop the stop words below and every token of two characters or fewer, and sort.
//! Issue text goes in, a sorted list of unique terms comes out.
//!
//! The paper matched `[a-z0-9_]+` case-insensitively on the original text and lower-cased each
//! token; here the text is lower-cased first (Unicode lower-casing, as Python's `str.lower`) and
//! the ASCII class is matched after. The two agree on every ASCII text; they can differ only on
//! rare non-ASCII letters whose lower-case form is ASCII (the Kelvin sign `K` becomes `k` here
//! and is a separator there).
//!
//! The paper cut "the first 500 characters" with Python's `query[:500]`, which counts Unicode
//! scalar values; [`first_chars`] does the same, never splitting a character.

use crate::stable_sort::Sorted;

/// The paper's stop list, sorted. A token in this list is never a query term.
pub const STOP_WORDS: &[&str] = &[
    "about",
    "after",
    "also",
    "and",
    "are",
    "been",
    "before",
    "being",
    "between",
    "could",
    "does",
    "each",
    "for",
    "framework",
    "from",
    "given",
    "have",
    "how",
    "into",
    "its",
    "more",
    "once",
    "only",
    "particular",
    "should",
    "specified",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "under",
    "use",
    "used",
    "what",
    "when",
    "where",
    "which",
    "why",
    "with",
    "would",
];

/// The paper's issue prefix for the `fts5`, `rg-first500` and `basename` arms, in characters.
pub const FIRST_CHARS: usize = 500;

/// Tokens shorter than this many bytes (all tokens are ASCII) are never query terms.
const MIN_TERM_LEN: usize = 3;

/// Whether `token` is in the paper's stop list.
pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.binary_search(&token).is_ok()
}

/// Whether `byte` belongs to a token: `[a-z0-9_]` (the text is lower-cased before).
pub fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_'
}

/// Every token of `text` in order, duplicates kept: the maximal runs of `[a-z0-9_]` in the
/// lower-cased text.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    token_runs(&lower).map(str::to_string).collect()
}

/// The maximal `[a-z0-9_]` runs of an already lower-cased text, borrowed from it.
pub fn token_runs(lower: &str) -> impl Iterator<Item = &str> {
    lower
        .split(|c: char| !(c.is_ascii() && is_token_byte(c as u8)))
        .filter(|run| !run.is_empty())
}

/// The query terms of `text`: unique tokens that are not stop words and are longer than two
/// characters, sorted (byte order, which is Python's order for ASCII).
///
/// ```
/// use routelens_engine::terms::extract_terms;
/// assert_eq!(
///     extract_terms("Why does the Parser drop `max_depth` when the parser is nested? id 42"),
///     ["drop", "max_depth", "nested", "parser"]
/// );
/// ```
pub fn extract_terms(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    token_runs(&lower)
        .filter(|token| token.len() >= MIN_TERM_LEN && !is_stop_word(token))
        .sorted_set()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The first `count` characters (Unicode scalar values) of `text`, or all of it when shorter.
pub fn first_chars(text: &str, count: usize) -> &str {
    match text.char_indices().nth(count) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_list_is_sorted_unique_and_complete() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        // The list as the issue gives it, in its order.
        let issue = "what which when where why how does that this the and from with into are for \
             its use used there between about would could should their these those through \
             under after before being have been once more than then each such they them also \
             only given specified particular framework";
        let mut words: Vec<&str> = issue.split_whitespace().collect();
        words.sort_unstable();
        assert_eq!(words, STOP_WORDS);
    }

    #[test]
    fn extracts_unique_sorted_terms() {
        let terms = extract_terms(
            "Why does the Parser drop `max_depth` when the PARSER is nested?\n\
             See src/parse_tree.rs line 42, id 7 and x86_64 (it's ok).",
        );
        assert_eq!(
            terms,
            [
                "drop",
                "line",
                "max_depth",
                "nested",
                "parse_tree",
                "parser",
                "see",
                "src",
                "x86_64"
            ]
        );
    }

    #[test]
    fn keeps_three_character_tokens_and_drops_shorter() {
        assert_eq!(
            extract_terms("ab abc ABCD a_ a_b a_bc"),
            ["a_b", "a_bc", "abc", "abcd"]
        );
    }

    #[test]
    fn non_ascii_letters_separate_tokens() {
        // `é` is not in [a-z0-9_], so it splits "caféteria" in two; "naïve" leaves only
        // two-letter pieces.
        assert_eq!(extract_terms("caféteria naïve"), ["caf", "teria"]);
        // The Kelvin sign lower-cases to an ASCII `k`.
        assert_eq!(extract_terms("\u{212A}ernel"), ["kernel"]);
    }

    #[test]
    fn tokenize_keeps_order_and_duplicates() {
        assert_eq!(tokenize("A-b_c a-B_C x"), ["a", "b_c", "a", "b_c", "x"]);
    }

    #[test]
    fn empty_and_stop_only_texts_have_no_terms() {
        assert!(extract_terms("").is_empty());
        assert!(extract_terms("what which the framework ok").is_empty());
    }

    #[test]
    fn first_chars_counts_characters_not_bytes() {
        assert_eq!(first_chars("héllo", 2), "hé");
        assert_eq!(first_chars("héllo", 5), "héllo");
        assert_eq!(first_chars("héllo", 50), "héllo");
        assert_eq!(first_chars("", 3), "");
        let long: String = "é".repeat(600);
        assert_eq!(first_chars(&long, FIRST_CHARS).chars().count(), 500);
        assert_eq!(first_chars(&long, FIRST_CHARS).len(), 1000);
    }
}

/// Byte ranges `(start, end)` of `text` where any of `terms` occurs, ASCII case-insensitively
/// (terms are lower-case `[a-z0-9_]`, so byte offsets of the lower-cased text are the text's),
/// sorted and merged; for highlighting the matched terms in a file view.
pub fn term_spans(text: &str, terms: &[String]) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for term in terms.iter().filter(|term| !term.is_empty()) {
        let mut from = 0;
        while let Some(at) = lower.get(from..).and_then(|rest| rest.find(term.as_str())) {
            spans.push((from + at, from + at + term.len()));
            from += at + term.len();
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

#[cfg(test)]
mod span_tests {
    use super::term_spans;

    #[test]
    fn spans_are_case_insensitive_and_merged() {
        let terms = vec!["route".to_string(), "outer".to_string()];
        assert_eq!(term_spans("A Router; route", &terms), [(2, 8), (10, 15)]);
        assert!(term_spans("", &terms).is_empty());
    }
}
