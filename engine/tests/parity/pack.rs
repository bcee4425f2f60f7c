//! Native and wasm32 must select, render, count and pack identically. This test runs natively
//! under `cargo test` and in headless Chromium under `wasm-bindgen-test`; both compare one
//! committed fingerprint: the SHA-256 of every anchor, window, block (path, lines, tokens,
//! included, score, skip reason, SHA-256 of its rendered text) and line score the engine produced
//! for a deterministic synthetic corpus.
//!
//! The fake counter part always runs. The real cl100k_base part runs natively with the rank table
//! from the cargo registry (skipped, with the reason printed, if absent) and in wasm with the
//! `embedded-cl100k` feature (tiktoken-rs's compiled-in vocabulary; the file stays out of the
//! repository either way):
//!
//! ```text
//! cd engine && CHROMEDRIVER=/usr/bin/chromedriver \
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --features lexical,embedded-cl100k --test parity
//! ```

#[cfg(not(target_arch = "wasm32"))]
#[path = "../rank_table/mod.rs"]
mod rank_table;

use routelens_engine::checksum::sha256_hex;
use routelens_engine::corpus::tokens::{TokenCache, TokenCounter};
use routelens_engine::delivery::linescore::score_lines;
use routelens_engine::delivery::pack::{pack, render_block, PackConfig};
use routelens_engine::delivery::select::{count_lines, select_files, QueryTerms, SelectConfig};
use routelens_engine::{GoldSpan, Result};

/// The fingerprint with the fake counter, computed natively on x86_64.
const EXPECTED_FAKE: &str = "89a119e75c47c765f610a15313427124fbd5b5f43cdd62a59b1204c35ed82666";
/// The fingerprint with cl100k_base, computed natively on x86_64.
const EXPECTED_CL100K: &str = "8e0c256d8bdce0644c505de87d1e5193cd9d11f4438a213609431328e20e824c";

const ISSUE: &str = "Cache invalidation in the request router drops headers\n\n\
    When `RequestRouter.dispatch` retries after a timeout, the response cache keeps the stale \
    `headers` map and `retry_count` is never reset. Seen with router.py and cache_backend.py; \
    the parser_state flag looks wrong too. Résumé: naïve fix is to clear the cache on retry.";

const WORDS: &[&str] = &[
    "def",
    "return",
    "self",
    "cache",
    "router",
    "request",
    "headers",
    "retry_count",
    "timeout",
    "parser_state",
    "value",
    "items",
    "None",
    "True",
    "for",
    "in",
    "if",
    "else",
    "import",
    "dispatch",
    "response",
    "stale",
    "map",
    "reset",
    "flag",
    "x",
    "y",
    "i",
    "résumé",
    "naïve",
    "日本",
    "<|endoftext|>",
    "0x1F",
    "42",
    "3.14",
    "(",
    ")",
    ":",
    ",",
    "[",
    "]",
    "{",
    "}",
    "=",
    "==",
    "+",
    "#",
    "\"text\"",
    "'s",
    "it's",
];

/// A deterministic corpus: 18 ranked paths (one repeated), files of 0 to ~2,600 lines of
/// code-like text with `\n`, `\r\n` and the odd U+2028 line end, one file without any issue term.
fn corpus() -> Vec<(String, String)> {
    let mut state: u32 = 0x2545_F491;
    let mut next = move |n: u32| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % n
    };
    let mut files = Vec::new();
    for f in 0..17u32 {
        let path = format!("pkg/mod{f}/file_{f}.py");
        let lines = match f {
            3 => 0,
            5 => 7,
            _ => 200 + next(2400),
        };
        let mut text = String::new();
        for n in 0..lines {
            text.push_str(&"    ".repeat(next(4) as usize));
            for _ in 0..1 + next(9) {
                let word = if f == 5 {
                    "zzz"
                } else {
                    WORDS[next(WORDS.len() as u32) as usize]
                };
                text.push_str(word);
                text.push(' ');
            }
            if next(50) == 0 {
                text.push_str("   ");
            }
            let last = n + 1 == lines;
            if !(last && f % 4 == 1) {
                text.push_str(match next(40) {
                    0 => "\r\n",
                    1 if f != 7 => "\u{2028}",
                    _ => "\n",
                });
            }
        }
        files.push((path, text));
    }
    let repeat = files[2].clone();
    files.insert(9, repeat);
    files
}

/// A fake counter: word runs plus punctuation characters plus newlines.
struct Fake;

impl TokenCounter for Fake {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        let words = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count();
        let other = text
            .chars()
            .filter(|c| c.is_ascii_punctuation() || *c == '\n')
            .count();
        Ok(words + other)
    }
}

/// Every number and string the selector, packer and line scorer produced, one per line.
fn fingerprint(counter: &mut dyn TokenCounter) -> (String, String) {
    let files = corpus();
    let terms = QueryTerms::from_issue(ISSUE);
    let mut out = vec![terms.terms().join(" ")];
    let gold = vec![
        GoldSpan {
            path: "pkg/mod0/file_0.py".into(),
            start_line: 100,
            end_line: 180,
        },
        GoldSpan {
            path: "pkg/mod2/file_2.py".into(),
            start_line: 1,
            end_line: 5000,
        },
        GoldSpan {
            path: "pkg/mod16/file_16.py".into(),
            start_line: 30,
            end_line: 60,
        },
    ];
    let line_count = |path: &str| {
        files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, text)| count_lines(text) as u32)
    };
    let mut cache = TokenCache::new(counter);
    for config in [
        SelectConfig::default(),
        SelectConfig {
            anchors_per_file: 2,
            radius_lines: 50,
        },
        SelectConfig {
            anchors_per_file: 8,
            radius_lines: 0,
        },
    ] {
        let selections = select_files(
            &terms,
            files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
            &config,
        );
        for selection in &selections {
            out.push(format!(
                "{} {} {:?} {:?}",
                selection.path,
                selection.line_count(),
                selection.anchors,
                selection.windows
            ));
            for window in &selection.windows {
                out.push(sha256_hex(render_block(selection, window).as_bytes()));
            }
        }
        for budget in [16_000, 4_000, 500, 0] {
            let result = pack(
                &selections,
                &PackConfig {
                    budget_tokens: budget,
                },
                &mut cache,
            )
            .unwrap();
            assert!(result.tokens_used <= budget);
            out.extend(result.blocks.iter().map(|b| format!("{b:?}")));
            let score = score_lines(&result, &gold, line_count).unwrap();
            out.push(format!("{score:?}"));
        }
    }
    let text = out.join("\n");
    (sha256_hex(text.as_bytes()), text)
}

fn check(name: &str, expected: &str, counter: &mut dyn TokenCounter) {
    let (hash, text) = fingerprint(counter);
    assert_eq!(
        hash,
        expected,
        "{name} fingerprint of: {}",
        text.chars().take(2000).collect::<String>()
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn selection_and_packing_are_identical_natively_and_in_wasm() {
    check("fake counter", EXPECTED_FAKE, &mut Fake);
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn cl100k_packing_matches_the_committed_fingerprint() {
    let Some(bytes) = rank_table::read_rank_table() else {
        return;
    };
    let mut counter = routelens_engine::Cl100k::from_rank_table(&bytes).unwrap();
    check("cl100k_base", EXPECTED_CL100K, &mut counter);
}

#[cfg(all(target_arch = "wasm32", feature = "embedded-cl100k"))]
#[wasm_bindgen_test::wasm_bindgen_test]
fn cl100k_packing_matches_the_committed_fingerprint() {
    let mut counter = routelens_engine::Cl100k::embedded().unwrap();
    check("cl100k_base", EXPECTED_CL100K, &mut counter);
}
