//! The literal every match of a grep action must contain, so that the grep stage looks for it
//! with memchr's substring search and tests only the lines that hold it.
//!
//! Hand-written because of the browser: a case-insensitive literal (`(?i)\bexponent\b`, nearly
//! every action of the offline planner) is a set of case variants to the regex crate, and its
//! prefilter for a set (Teddy) has no wasm32 path, so the worker scanned the texts about seven
//! times slower than the CLI. memchr's substring search has a SIMD path on every target the
//! app runs on (wasm32's `simd128` included).
//!
//! A needle from case-insensitive classes is searched in the text with its ASCII letters
//! lower-cased ([`fold_ascii`]: the same length, so offsets carry over); any other needle in the
//! text itself. Finding a needle only says a line may match: the line is then tested with the
//! regex, so the needle may find more than the regex, never less. Two non-ASCII letters fold to
//! ASCII ones under the regex crate's simple case folding, KELVIN SIGN to `k` and LATIN SMALL
//! LETTER LONG S to `s`: in a text holding either, a needle holding a `k` or an `s` that either
//! could stand for ([`Needle::exotic`]) may miss a match, so there the lines holding a
//! look-alike ([`next_look_alike`]) are tested with the regex as well.
//!
//! When the pattern is the needle and nothing else, or the needle between Unicode word
//! boundaries (the offline planner's `\bterm\b`), a line matches exactly when it holds the needle
//! with those boundaries ([`Needle::bounds`], [`Needle::in_line`]): the regex is neither
//! compiled nor run for it.

use memchr::memmem::Finder;
use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The non-ASCII letters that simple case folding maps to an ASCII one, with the letter.
const FOLDS_TO_ASCII: [(char, u8); 2] = [('\u{212A}', b'k'), ('\u{17F}', b's')];

/// A literal every match of a pattern contains, ready to search for.
pub struct Needle {
    finder: Finder<'static>,
    /// When the pattern is exactly the needle: whether a Unicode word boundary comes before it
    /// and after it.
    bounds: Option<(bool, bool)>,
    folded: bool,
    exotic: bool,
}

/// One byte of a match, as far as a needle can tell.
#[derive(Clone, Copy)]
enum Unit {
    /// Exactly this byte.
    Byte(u8),
    /// This ASCII letter in either case (lower-cased here); `exotic` when a non-ASCII letter
    /// (see [`FOLDS_TO_ASCII`]) matches it too.
    Letter { lower: u8, exotic: bool },
}

impl Needle {
    /// The longest run of single bytes or single letters (either case) that every match of
    /// `pattern` holds, parsed with the flags the grep stage compiles it with; `None` when there
    /// is none (an alternation at the top, a pattern that does not parse, …).
    pub fn of(pattern: &str, case_sensitive: bool) -> Option<Needle> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(!case_sensitive)
            .multi_line(true)
            .crlf(true)
            .build()
            .parse(pattern)
            .ok()?;
        let mut steps = Vec::new();
        flatten(&hir, &mut steps);
        let units = longest_run(&steps);
        if units.is_empty() {
            return None;
        }
        let folded = units.iter().any(|u| matches!(u, Unit::Letter { .. }));
        let bytes: Vec<u8> = units
            .iter()
            .map(|u| match *u {
                Unit::Byte(b) if folded => b.to_ascii_lowercase(),
                Unit::Byte(b) => b,
                Unit::Letter { lower, .. } => lower,
            })
            .collect();
        Some(Needle {
            bounds: exact_bounds(&hir, folded).filter(|_| bytes.len() <= MAX_EXACT_BYTES),
            finder: Finder::new(&bytes).into_owned(),
            folded,
            exotic: units
                .iter()
                .any(|u| matches!(u, Unit::Letter { exotic: true, .. })),
        })
    }

    /// Whether the needle is searched in the ASCII-lower-cased text ([`fold_ascii`]).
    pub fn folded(&self) -> bool {
        self.folded
    }

    /// Whether the needle holds a `k` or an `s` that a KELVIN SIGN or a LONG S could stand for:
    /// then, in a text holding either ([`holds_look_alikes`]), the lines holding one are
    /// candidates too.
    pub fn exotic(&self) -> bool {
        self.exotic
    }

    /// The needle's bytes, as searched for.
    pub fn bytes(&self) -> &[u8] {
        self.finder.needle()
    }

    /// Where the needle first occurs in `haystack` (the text, or its fold when [`folded`]).
    ///
    /// [`folded`]: Needle::folded
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        self.finder.find(haystack)
    }

    /// When the pattern is exactly this needle, whether a Unicode word boundary is required
    /// before it and after it; `None` when a found line must be tested with the regex.
    pub fn bounds(&self) -> Option<(bool, bool)> {
        self.bounds
    }

    /// For a needle that is the whole pattern ([`Needle::bounds`]): whether `line` matches, given
    /// `searched`, the same line as the needle is searched in (folded or not, the same length).
    /// Any occurrence with the boundaries will do, as for the regex.
    pub fn in_line(&self, bounds: (bool, bool), line: &str, searched: &[u8]) -> bool {
        self.finder
            .find_iter(searched)
            .any(|at| self.bounded_at(bounds, line, at))
    }

    /// For a needle that is the whole pattern: whether its occurrence at byte `at` of `text` (or
    /// of `text` folded, which has the same offsets) has the word boundaries `(start, end)` it
    /// needs. `at` is a char boundary of `text`: the needle's ends are, as its bytes are a
    /// literal's. A line's neighbours of the occurrence are the text's, or none where the text
    /// has a line break (or the `\r` before one), which is no word character either: the answer
    /// is the same in a line and in the whole text.
    pub fn bounded_at(&self, (start, end): (bool, bool), text: &str, at: usize) -> bool {
        (!start || word_boundary(text, at))
            && (!end || word_boundary(text, at + self.finder.needle().len()))
    }
}

/// Whether a Unicode word boundary is at byte `at` of `text`, as the regex crate's `\b`.
fn word_boundary(text: &str, at: usize) -> bool {
    // Two ASCII bytes on either side (or an end of the text): answered from the bytes, with
    // neither char decoded (a pool asks this at each of its needles' thousand-odd occurrences).
    let bytes = text.as_bytes();
    let ascii_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let before = at.checked_sub(1).and_then(|i| bytes.get(i).copied());
    let after = bytes.get(at).copied();
    if at <= bytes.len()
        && before.is_none_or(|b| b.is_ascii())
        && after.is_none_or(|b| b.is_ascii())
    {
        return before.is_some_and(ascii_word) != after.is_some_and(ascii_word);
    }
    // The ASCII answer without the Unicode table's search.
    let word = |c: Option<char>| match c {
        Some(c) if c.is_ascii() => ascii_word(c as u8),
        Some(c) => regex_syntax::is_word_character(c),
        None => false,
    };
    text.is_char_boundary(at)
        && word(text[..at].chars().next_back()) != word(text[at..].chars().next())
}

/// Whether `text` holds a non-ASCII letter that folds to an ASCII one (see [`FOLDS_TO_ASCII`]).
pub fn holds_look_alikes(text: &str) -> bool {
    !text.is_ascii() && (0..LOOK_ALIKES).any(|at| next_look_alike(text, at, 0).is_some())
}

/// Where the `nth` look-alike of [`FOLDS_TO_ASCII`] first occurs in `text` at or after byte
/// `from`.
pub fn next_look_alike(text: &str, nth: usize, from: usize) -> Option<usize> {
    // memchr's search, not `str::find`: a multi-byte char is searched for as a string, and the
    // standard library's string search has no SIMD path in wasm32 (it was a tenth of the
    // browser's grep time).
    let (c, _) = FOLDS_TO_ASCII[nth];
    memchr::memmem::find(
        &text.as_bytes()[from..],
        c.encode_utf8(&mut [0; 4]).as_bytes(),
    )
    .map(|at| from + at)
}

/// How many look-alikes [`next_look_alike`] knows.
pub const LOOK_ALIKES: usize = FOLDS_TO_ASCII.len();

/// `line` with its ASCII letters lower-cased and each look-alike (see [`FOLDS_TO_ASCII`])
/// replaced by its ASCII letter: an ASCII needle is in it, with its word boundaries, exactly
/// where the case-insensitive pattern matches `line` (both letters are word characters, so every
/// boundary stays where it was).
pub fn fold_look_alikes(line: &str) -> String {
    line.chars()
        .map(
            |c| match FOLDS_TO_ASCII.iter().find(|(alike, _)| *alike == c) {
                Some(&(_, letter)) => char::from(letter),
                None => c.to_ascii_lowercase(),
            },
        )
        .collect()
}

/// `text`'s bytes with the ASCII letters lower-cased, into `out` (cleared first).
pub fn fold_ascii(text: &str, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(text.as_bytes());
    out.make_ascii_lowercase();
}

/// The pattern as a sequence of steps: `Some(units)` for what matches a fixed run of bytes
/// (empty for a zero-width assertion), `None` for anything else, which ends a run.
/// The longest needle trusted to stand for its whole pattern: a longer literal is left to the
/// regex, whose compilation then reports any size limit as before.
const MAX_EXACT_BYTES: usize = 256;

/// Whether `hir` is a literal alone (bytes and single letters, what a needle holds), or one
/// with a Unicode word boundary before and/or after: the boundaries it needs. A needle searched
/// folded stands for its pattern only if no literal part keeps a letter's case (`(?-i:K)`).
fn exact_bounds(hir: &Hir, folded: bool) -> Option<(bool, bool)> {
    let parts = match hir.kind() {
        HirKind::Concat(parts) => parts.as_slice(),
        _ => std::slice::from_ref(hir),
    };
    let bound = |part: &Hir| matches!(part.kind(), HirKind::Look(Look::WordUnicode));
    let start = parts.first().is_some_and(bound);
    let end = parts.len() > usize::from(start) && parts.last().is_some_and(bound);
    let middle = &parts[usize::from(start)..parts.len() - usize::from(end)];
    let literal = !middle.is_empty()
        && middle.iter().all(|part| match part.kind() {
            HirKind::Literal(literal) => !folded || !literal.0.iter().any(u8::is_ascii_alphabetic),
            HirKind::Class(class) => letter(class).is_some(),
            _ => false,
        });
    literal.then_some((start, end))
}

fn flatten(hir: &Hir, steps: &mut Vec<Option<Vec<Unit>>>) {
    match hir.kind() {
        HirKind::Concat(parts) => parts.iter().for_each(|p| flatten(p, steps)),
        HirKind::Capture(capture) => flatten(&capture.sub, steps),
        HirKind::Literal(literal) => {
            steps.push(Some(literal.0.iter().map(|&b| Unit::Byte(b)).collect()))
        }
        HirKind::Look(_) => steps.push(Some(Vec::new())),
        HirKind::Class(class) => steps.push(letter(class).map(|u| vec![u])),
        _ => steps.push(None),
    }
}

/// The longest run of units between the steps that end one (the first of the longest).
fn longest_run(steps: &[Option<Vec<Unit>>]) -> Vec<Unit> {
    let (mut best, mut run) = (Vec::new(), Vec::new());
    for step in steps {
        match step {
            Some(units) => run.extend_from_slice(units),
            None => run.clear(),
        }
        if run.len() > best.len() {
            best.clone_from(&run);
        }
    }
    best
}

/// A class that holds one ASCII letter in one or both cases (and at most the non-ASCII letter
/// that folds to it), or one ASCII byte.
fn letter(class: &Class) -> Option<Unit> {
    let chars: Vec<char> = match class {
        Class::Unicode(set) => {
            let mut chars = Vec::new();
            for range in set.ranges() {
                for c in range.start()..=range.end() {
                    chars.push(c);
                    if chars.len() > 3 {
                        return None;
                    }
                }
            }
            chars
        }
        Class::Bytes(set) => {
            let mut chars = Vec::new();
            for range in set.ranges() {
                for b in range.start()..=range.end() {
                    chars.push(char::from(b));
                    if chars.len() > 3 || !b.is_ascii() {
                        return None;
                    }
                }
            }
            chars
        }
    };
    let first = *chars.iter().find(|c| c.is_ascii())?;
    let lower = (first as u8).to_ascii_lowercase();
    let mut exotic = false;
    for &c in &chars {
        if c.is_ascii() {
            if (c as u8).to_ascii_lowercase() != lower {
                return None;
            }
        } else if FOLDS_TO_ASCII.contains(&(c, lower)) {
            exotic = true;
        } else {
            return None;
        }
    }
    Some(if chars.len() == 1 {
        Unit::Byte(first as u8)
    } else {
        Unit::Letter { lower, exotic }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The needle's bytes, whether folded, whether exotic.
    fn needle(pattern: &str, case_sensitive: bool) -> Option<(String, bool, bool)> {
        Needle::of(pattern, case_sensitive).map(|n| {
            let bytes = String::from_utf8(n.finder.needle().to_vec()).unwrap();
            (bytes, n.folded, n.exotic)
        })
    }

    #[test]
    fn the_offline_planners_patterns_give_their_word() {
        assert_eq!(
            needle(r"\bexponent\b", false),
            Some(("exponent".into(), true, false))
        );
        assert_eq!(
            needle(r"\bserde_json\b", true),
            Some(("serde_json".into(), false, false))
        );
        assert_eq!(
            needle(r"\bRateLimit\b", false),
            Some(("ratelimit".into(), true, false))
        );
    }

    #[test]
    fn a_k_or_an_s_folded_is_exotic_and_trusted_only_without_their_look_alikes() {
        assert!(Needle::of(r"\bkey\b", false).unwrap().exotic());
        assert!(!Needle::of(r"\bkey\b", true).unwrap().exotic());
        assert!(!Needle::of(r"\bfoo\b", false).unwrap().exotic());
        assert!(!holds_look_alikes("the key"));
        assert!(!holds_look_alikes("the clé"));
        assert!(holds_look_alikes("the \u{212A}ey"));
        assert!(holds_look_alikes("the \u{17F}ey"));
    }

    #[test]
    fn the_longest_fixed_run_is_taken_and_an_alternation_gives_none() {
        assert_eq!(
            needle(r"ab+cdef", true),
            Some(("cdef".into(), false, false))
        );
        assert_eq!(needle(r"(xy)z\w", true), Some(("xyz".into(), false, false)));
        assert_eq!(
            needle(r"fo(?-i:O)x", false),
            Some(("foox".into(), true, false))
        );
        assert_eq!(needle(r"ab|cd", true), None);
        assert_eq!(needle(r"[ab]c", true), Some(("c".into(), false, false)));
        assert_eq!(needle(r"\w+", true), None);
        assert_eq!(needle(r"(unclosed", true), None);
    }

    proptest::proptest! {
        /// At every byte of texts mixing ASCII words, punctuation and non-ASCII letters and
        /// marks, the answer is the regex crate's `\b` (false inside a char).
        #[test]
        fn a_word_boundary_is_where_the_regex_crates_is(
            text in "[a-z_0-9 .\n\u{e9}\u{212A}\u{301}\u{3b1}\u{4e2d}-]{0,24}"
        ) {
            let regex = regex::Regex::new(r"\b").unwrap();
            let at_regex: Vec<usize> = regex.find_iter(&text).map(|m| m.start()).collect();
            let at_ours: Vec<usize> =
                (0..=text.len()).filter(|&at| word_boundary(&text, at)).collect();
            proptest::prop_assert_eq!(at_ours, at_regex);
        }
    }

    #[test]
    fn folding_lower_cases_ascii_letters_only() {
        let mut out = vec![1, 2, 3];
        fold_ascii("AbC_é\u{212A}Z", &mut out);
        assert_eq!(out, "abc_é\u{212A}z".as_bytes());
    }
}
