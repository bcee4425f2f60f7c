//! The selector's unit tests: the paper's worked examples, the merge rule, line splitting and
//! scoring, and a property test of windows and anchors against the plain definitions.

use super::lines::{line_end, TOKEN_LOWER};
use super::*;
use crate::terms::{is_token_byte, token_runs};
use proptest::prelude::*;

/// A file of `lines` lines where line `n` (1-based) holds `words[n]` if given, else filler
/// without any term.
fn synthetic(lines: usize, words: &[(usize, &str)]) -> String {
    (1..=lines)
        .map(|n| {
            let body = words
                .iter()
                .find(|(line, _)| *line == n)
                .map_or_else(|| format!("    x = {n}  # filler"), |(_, w)| w.to_string());
            body + "\n"
        })
        .collect()
}

fn w(start_line: u32, end_line: u32, score: u32) -> Window {
    Window {
        start_line,
        end_line,
        score,
    }
}

#[test]
fn worked_example_idefics() {
    // selector-examples.md, issue b01e9113: modeling_idefics.py (1,579 lines), top four lines
    // 1463:2, 1464:2, 2:1, 20:1 → 1263–1579, then 1–220. Lines 600 and 900 also score 1 but
    // lose the tie to the earlier lines 2 and 20.
    let terms = QueryTerms::from_issue("IdeficsAttention mask padding");
    let text = synthetic(
        1579,
        &[
            (2, "import mask"),
            (20, "PADDING = 0"),
            (600, "mask = None"),
            (900, "return padding"),
            (1463, "def mask(padding):"),
            (1464, "    padding = mask"),
        ],
    );
    let selection = select_file(
        &terms,
        "modeling_idefics.py",
        &text,
        &SelectConfig::default(),
    );
    assert_eq!(selection.line_count(), 1579);
    assert_eq!(
        selection.anchors,
        [(1463, 2), (1464, 2), (2, 1), (20, 1)].map(|(line, score)| Anchor { line, score })
    );
    assert_eq!(selection.windows, [w(1263, 1579, 2), w(1, 220, 1)]);
}

#[test]
fn worked_example_no_match_offers_whole_file() {
    // selector-examples.md, issue 37b10945: constants.py (6 lines), no matching line.
    let terms = QueryTerms::from_issue("IdeficsAttention mask padding");
    let text = "A = 1\nB = 2\nC = 3\nD = 4\nE = 5\nF = 6\n";
    let selection = select_file(&terms, "constants.py", text, &SelectConfig::default());
    assert!(selection.is_whole_file());
    assert_eq!(selection.windows, [w(1, 6, 0)]);
}

#[test]
fn touching_windows_merge_and_a_gap_keeps_them_apart() {
    let terms = QueryTerms::from_terms(vec!["hit".into()]);
    let config = SelectConfig::default();
    // Anchors 100 and 501: 1–300 and 301–701 touch (no line between them) → one window.
    let text = synthetic(1000, &[(100, "hit"), (501, "hit")]);
    let selection = select_file(&terms, "a", &text, &config);
    assert_eq!(selection.windows, [w(1, 701, 1)]);
    // Anchors 100 and 502: 1–300 and 302–702 leave line 301 out → two windows.
    let text = synthetic(1000, &[(100, "hit"), (502, "hit")]);
    let selection = select_file(&terms, "a", &text, &config);
    assert_eq!(selection.windows, [w(1, 300, 1), w(302, 702, 1)]);
    // Radius 0: adjacent anchor lines merge.
    let config = SelectConfig {
        radius_lines: 0,
        ..config
    };
    let text = synthetic(10, &[(4, "hit"), (5, "hit"), (7, "hit")]);
    let selection = select_file(&terms, "a", &text, &config);
    assert_eq!(selection.windows, [w(4, 5, 1), w(7, 7, 1)]);
}

#[test]
fn merged_window_keeps_its_best_score_and_windows_sort_by_score_then_start() {
    let terms = QueryTerms::from_terms(vec!["one".into(), "two".into(), "three".into()]);
    let config = SelectConfig {
        radius_lines: 1,
        ..SelectConfig::default()
    };
    let text = synthetic(
        30,
        &[
            (3, "one"),
            (4, "one two three"),
            (10, "one"),
            (20, "two one"),
        ],
    );
    let selection = select_file(&terms, "a", &text, &config);
    assert_eq!(selection.windows, [w(2, 5, 3), w(19, 21, 2), w(9, 11, 1)]);
}

#[test]
fn scores_count_distinct_terms_case_insensitively() {
    let terms = QueryTerms::from_issue("Parser cache_key MAX_DEPTH");
    let scores = score_lines(
        &terms,
        "parser parser PARSER\nCache_Key max_depth; parser\nparse cache key\nÉparser\n",
    );
    // "Éparser": É is not a token character, so "parser" is a token of its own.
    assert_eq!(scores, [1, 3, 0, 1]);
}

#[test]
fn byte_tables_agree_with_the_definitions() {
    for b in 0..=255u8 {
        let lower = b.to_ascii_lowercase();
        let expected = if is_token_byte(lower) { lower } else { 0 };
        assert_eq!(TOKEN_LOWER[usize::from(b)], expected, "{b:#x}");
        let text = [b, b'x'];
        if let Ok(text) = std::str::from_utf8(&text) {
            let ends_early = line_end(text.as_bytes()) == Some(1);
            assert_eq!(
                ends_early,
                b"\n\r\x0b\x0c\x1c\x1d\x1e".contains(&b),
                "{b:#x}"
            );
        }
    }
}

#[test]
fn lines_split_like_python_splitlines() {
    let text = "a\nb\r\nc\rd\x0be\x0cf\x1cg\x1dh\x1ei\u{85}j\u{2028}k\u{2029}l";
    let lines: Vec<&str> = split_lines(text).collect();
    assert_eq!(
        lines,
        [
            "a\n",
            "b\r\n",
            "c\r",
            "d\x0b",
            "e\x0c",
            "f\x1c",
            "g\x1d",
            "h\x1e",
            "i\u{85}",
            "j\u{2028}",
            "k\u{2029}",
            "l"
        ]
    );
    assert_eq!(count_lines(""), 0);
    assert_eq!(count_lines("\n"), 1);
    assert_eq!(count_lines("a\n\n"), 2);
    assert_eq!(count_lines("a\n\nb"), 3);
    // Other non-ASCII characters (including U+2027 and U+2030 beside the separators) are text.
    assert_eq!(count_lines("\u{2027}\u{2030}é\u{a0}"), 1);
}

#[test]
fn empty_file_and_no_terms() {
    let terms = QueryTerms::from_issue("the and of");
    assert!(terms.is_empty());
    let selection = select_file(&terms, "a", "x\ny\n", &SelectConfig::default());
    assert_eq!(selection.windows, [w(1, 2, 0)]);
    let terms = QueryTerms::from_issue("parser");
    let selection = select_file(&terms, "empty", "", &SelectConfig::default());
    assert_eq!(selection.line_count(), 0);
    assert_eq!(selection.windows, [w(1, 0, 0)]);
    assert_eq!(selection.windows[0].line_count(), 0);
    assert_eq!(selection.window_lines(&selection.windows[0]).count(), 0);
}

#[test]
fn line_access() {
    let terms = QueryTerms::from_issue("parser");
    let selection = select_file(&terms, "a", "a\nparser\r\nc", &SelectConfig::default());
    assert_eq!(selection.line(0), None);
    assert_eq!(selection.line(2), Some("parser\r\n"));
    assert_eq!(selection.line(3), Some("c"));
    assert_eq!(selection.line(4), None);
    let lines: Vec<_> = selection.window_lines(&w(2, 9, 0)).collect();
    assert_eq!(lines, [(2, "parser\r\n"), (3, "c")]);
}

#[test]
fn duplicate_paths_are_selected_once() {
    let terms = QueryTerms::from_issue("parser");
    let selections = select_files(
        &terms,
        [("a", "parser"), ("b", "x"), ("a", "other")],
        &SelectConfig::default(),
    );
    let paths: Vec<&str> = selections.iter().map(|s| s.path).collect();
    assert_eq!(paths, ["a", "b"]);
    assert_eq!(selections[0].text(), "parser");
}

#[test]
fn config_check_refuses_zero_anchors() {
    assert!(SelectConfig::default().check().is_ok());
    let zero = SelectConfig {
        anchors_per_file: 0,
        ..SelectConfig::default()
    };
    assert_eq!(
        zero.check().unwrap_err().to_string(),
        "anchors = 0 is out of range (1 or more)"
    );
    // Unchecked, zero anchors offers every file whole and does not panic.
    let terms = QueryTerms::from_issue("parser");
    assert_eq!(
        select_file(&terms, "a", "parser\n", &zero).windows,
        [w(1, 1, 0)]
    );
}

#[test]
fn huge_settings_do_not_overflow() {
    let terms = QueryTerms::from_issue("parser");
    let config = SelectConfig {
        anchors_per_file: usize::MAX,
        radius_lines: usize::MAX,
    };
    let selection = select_file(&terms, "a", "a\nparser\nb\n", &config);
    assert_eq!(selection.windows, [w(1, 3, 1)]);
    let top = w(1, u32::MAX, 0);
    assert_eq!(top.line_count(), u32::MAX);
}

/// A small-alphabet text so that lines often hold terms and line ends of every kind occur.
fn text_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("ab".to_string()),
            Just("abc".to_string()),
            Just("xyz".to_string()),
            Just("Abc_1".to_string()),
            Just(" ".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("\r".to_string()),
            Just("\u{2028}".to_string()),
            Just("é".to_string()),
            Just("\u{212A}yz".to_string()),
            Just("\x0c".to_string()),
            Just("\u{85}".to_string()),
        ],
        0..400,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn windows_are_disjoint_inside_the_file_and_cover_every_anchor(
        text in text_strategy(),
        anchors in 1usize..6,
        radius in 0usize..12,
    ) {
        let terms = QueryTerms::from_terms(vec!["abc".into(), "xyz".into(), "abc_1".into()]);
        let config = SelectConfig { anchors_per_file: anchors, radius_lines: radius };
        let selection = select_file(&terms, "f", &text, &config);
        let n = selection.line_count();
        prop_assert_eq!(n as usize, count_lines(&text));
        prop_assert!(!selection.windows.is_empty());
        prop_assert!(selection.anchors.len() <= anchors);
        let scores = score_lines(&terms, &text);
        // The one-pass scan agrees with the plain definition: split, lower-case, tokenize,
        // count distinct terms.
        let reference: Vec<u32> = split_lines(&text)
            .map(|line| {
                let lower = line.to_lowercase();
                let found: std::collections::BTreeSet<&str> = token_runs(&lower)
                    .filter(|t| terms.terms().iter().any(|term| term == t))
                    .collect();
                found.len() as u32
            })
            .collect();
        prop_assert_eq!(&scores, &reference);
        if selection.anchors.is_empty() {
            prop_assert!(scores.iter().all(|&s| s == 0));
            prop_assert_eq!(&selection.windows, &vec![w(1, n, 0)]);
        } else {
            for window in &selection.windows {
                prop_assert!(1 <= window.start_line && window.start_line <= window.end_line);
                prop_assert!(window.end_line <= n);
            }
            let mut by_start = selection.windows.clone();
            by_start.sort_by_key(|w| w.start_line);
            for pair in by_start.windows(2) {
                // Disjoint and not touching (touching windows merge).
                prop_assert!(pair[0].end_line + 1 < pair[1].start_line);
            }
            for anchor in &selection.anchors {
                prop_assert_eq!(scores[anchor.line as usize - 1], anchor.score);
                prop_assert!(anchor.score > 0);
                let covering: Vec<_> =
                    selection.windows.iter().filter(|w| w.contains(anchor.line)).collect();
                prop_assert_eq!(covering.len(), 1);
                prop_assert!(covering[0].score >= anchor.score);
                let r = radius as u32;
                prop_assert!(covering[0].start_line <= anchor.line.saturating_sub(r).max(1));
                prop_assert!(covering[0].end_line >= (anchor.line.saturating_add(r)).min(n));
            }
            // The anchors are the best lines: no other line beats the weakest anchor, and
            // ties with it are later lines.
            let weakest = selection.anchors.last().unwrap();
            for (i, &score) in scores.iter().enumerate() {
                let line = i as u32 + 1;
                if selection.anchors.iter().any(|a| a.line == line) {
                    continue;
                }
                if selection.anchors.len() < anchors {
                    // Fewer matching lines than anchors: every matching line is an anchor.
                    prop_assert_eq!(score, 0);
                } else {
                    prop_assert!(
                        score < weakest.score
                            || (score == weakest.score && line > weakest.line)
                    );
                }
            }
            for pair in selection.windows.windows(2) {
                prop_assert!(
                    (pair[0].score, std::cmp::Reverse(pair[0].start_line))
                        > (pair[1].score, std::cmp::Reverse(pair[1].start_line))
                );
            }
        }
    }
}
