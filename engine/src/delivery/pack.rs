//! The context packer: which selected windows fit the token budget.
//!
//! Files are taken in rank order and each file's windows in the selector's order (score
//! descending, then start; see [`crate::delivery::select`]). Every window becomes a block of text, and the
//! block's cost is its token count ([`crate::corpus::tokens`]: cl100k_base, special-token text counted as
//! ordinary text). A block is included when it fits what is left of the budget; otherwise it is
//! skipped, with the reason recorded, and packing goes on with the next block (a later, smaller
//! block may still fit). Every block is counted, included or not, so a view can show each block's
//! cost.
//!
//! ## Rendering
//!
//! A block is rendered exactly as the paper's `_pack` rendered it:
//!
//! ```text
//! "\n===== " + path + " =====\n"
//! then for each line n of the window: format!("{n:05}: ") + the line, with its own line end
//! ```
//!
//! Each line keeps the line end it has in the file (`\n`, `\r\n`, or any other end
//! [`split_lines`](crate::delivery::select::split_lines) splits at); nothing is added or normalised. A last
//! line without a line end is rendered without one, so the block then ends without a newline.
//! Numbers are zero-padded to at least five digits (`00042: `); from line 100,000 on they simply
//! have more digits (`123456: `), as Python's `{:05d}` writes them. The block's path, header and
//! line numbers all count toward the budget. An empty file's block is the header alone.
//!
//! ```
//! use routelens_engine::delivery::pack::render_block;
//! use routelens_engine::delivery::select::{select_file, QueryTerms, SelectConfig};
//! let terms = QueryTerms::from_issue("parser");
//! let selection = select_file(&terms, "src/a.rs", "fn parser() {}\r\nlast", &SelectConfig::default());
//! assert_eq!(
//!     render_block(&selection, &selection.windows[0]),
//!     "\n===== src/a.rs =====\n00001: fn parser() {}\r\n00002: last"
//! );
//! ```

use std::fmt::Write as _;

use crate::corpus::tokens::TokenCounter;
use crate::delivery::select::{FileSelection, Window};
use crate::error::{Error, Result};

/// The token budget, by default: the paper's 16K.
pub const DEFAULT_BUDGET_TOKENS: usize = 16_000;

/// The packer's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackConfig {
    /// The most tokens the included blocks may cost together (default
    /// [`DEFAULT_BUDGET_TOKENS`], 16,000). Any value is allowed; 0 includes nothing.
    pub budget_tokens: usize,
}

impl Default for PackConfig {
    fn default() -> Self {
        PackConfig {
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

/// Why a block was left out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// The block costs more than the budget had left when it was considered.
    OverBudget {
        /// Tokens still unused when the block was considered.
        remaining_tokens: usize,
    },
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::OverBudget { remaining_tokens } => {
                write!(f, "over budget: {remaining_tokens} tokens left")
            }
        }
    }
}

/// One block the packer considered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PackedBlock {
    /// The file's path.
    pub path: String,
    /// The window's first line, 1-based.
    pub start_line: u32,
    /// The window's last line, inclusive.
    pub end_line: u32,
    /// The rendered block's token count.
    pub tokens: usize,
    /// Whether the block is in the context.
    pub included: bool,
    /// The window's score (0 for a file offered whole).
    pub score: u32,
    /// Why the block was skipped; `None` when included.
    pub skip_reason: Option<SkipReason>,
}

/// The packer's result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pack {
    /// Every block in the order considered: file rank, then the selector's window order.
    pub blocks: Vec<PackedBlock>,
    /// The tokens of the included blocks together; never more than the budget.
    pub tokens_used: usize,
    /// The budget packed against.
    pub budget_tokens: usize,
}

impl Pack {
    /// The included blocks, in order.
    pub fn included(&self) -> impl Iterator<Item = &PackedBlock> {
        self.blocks.iter().filter(|block| block.included)
    }
}

/// Appends a block for `lines` numbered from `start_line` (see the module doc).
pub fn write_block<'l>(
    out: &mut String,
    path: &str,
    start_line: u32,
    lines: impl IntoIterator<Item = &'l str>,
) {
    out.push_str("\n===== ");
    out.push_str(path);
    out.push_str(" =====\n");
    let mut number = start_line;
    for line in lines {
        push_number(out, number);
        out.push_str(line);
        number = number.saturating_add(1);
    }
}

/// `format!("{number:05}: ")`, without the formatting machinery for the usual five digits.
fn push_number(out: &mut String, number: u32) {
    if number < 100_000 {
        let mut digits = [b'0'; 5];
        let mut n = number;
        for digit in digits.iter_mut().rev() {
            *digit = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend(digits.iter().map(|&d| d as char));
        out.push_str(": ");
    } else {
        // Writing to a String cannot fail.
        let _ = write!(out, "{number:05}: ");
    }
}

/// The rendered block of one window of a selected file.
pub fn render_block(selection: &FileSelection<'_>, window: &Window) -> String {
    let mut out = String::new();
    write_block(
        &mut out,
        selection.path,
        window.start_line,
        selection.window_lines(window).map(|(_, line)| line),
    );
    out
}

/// Packs the selected files, in the order given (rank order), under `config`'s budget.
///
/// A counter error (cl100k_base failing on a text) is returned as [`Error::Tokens`] naming the
/// block (`path:start-end`).
pub fn pack<C: TokenCounter + ?Sized>(
    files: &[FileSelection<'_>],
    config: &PackConfig,
    counter: &mut C,
) -> Result<Pack> {
    let budget = config.budget_tokens;
    let mut blocks = Vec::new();
    let mut used = 0usize;
    let mut text = String::new();
    for file in files {
        for window in &file.windows {
            text.clear();
            write_block(
                &mut text,
                file.path,
                window.start_line,
                file.window_lines(window).map(|(_, line)| line),
            );
            let tokens = counter.count_tokens(&text).map_err(|error| match error {
                Error::Tokens { message, .. } => Error::Tokens {
                    context: format!("{}:{}-{}", file.path, window.start_line, window.end_line),
                    message,
                },
                other => other,
            })?;
            let remaining = budget - used;
            let included = tokens <= remaining;
            if included {
                used += tokens;
            }
            blocks.push(PackedBlock {
                path: file.path.to_string(),
                start_line: window.start_line,
                end_line: window.end_line,
                tokens,
                included,
                score: window.score,
                skip_reason: (!included).then_some(SkipReason::OverBudget {
                    remaining_tokens: remaining,
                }),
            });
        }
    }
    Ok(Pack {
        blocks,
        tokens_used: used,
        budget_tokens: budget,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tokens::TokenCache;
    use crate::delivery::select::{select_file, select_files, QueryTerms, SelectConfig};
    use proptest::prelude::*;

    /// One token per line of the block (its header line included), counting calls.
    #[derive(Default)]
    struct PerLine {
        calls: usize,
    }

    impl TokenCounter for PerLine {
        fn count_tokens(&mut self, text: &str) -> Result<usize> {
            self.calls += 1;
            Ok(text.matches('\n').count())
        }
    }

    #[test]
    fn renders_like_the_paper() {
        let terms = QueryTerms::from_issue("parser");
        let text = "a\nparser\r\nc\n";
        let selection = select_file(&terms, "dir/x.py", text, &SelectConfig::default());
        assert_eq!(
            render_block(&selection, &selection.windows[0]),
            "\n===== dir/x.py =====\n00001: a\n00002: parser\r\n00003: c\n"
        );
        let mut out = String::new();
        write_block(&mut out, "p", 99_999, ["a\n", "b\n", "c"]);
        assert_eq!(out, "\n===== p =====\n99999: a\n100000: b\n100001: c");
        let empty = select_file(&terms, "e", "", &SelectConfig::default());
        assert_eq!(render_block(&empty, &empty.windows[0]), "\n===== e =====\n");
    }

    #[test]
    fn skips_what_does_not_fit_and_goes_on() {
        let terms = QueryTerms::from_issue("hit");
        let config = SelectConfig {
            radius_lines: 1,
            ..SelectConfig::default()
        };
        // One token per newline: the header has two. a: windows 1–2 and 9–10 → 4 tokens each;
        // b: whole file, 3 lines → 5 tokens; c: 1 line → 3 tokens.
        let a = "hit\n2\n3\n4\n5\n6\n7\n8\n9\nhit\n";
        let files = select_files(
            &terms,
            [("a", a), ("b", "x\ny\nz\n"), ("c", "hit\n")],
            &config,
        );
        assert_eq!(files[0].windows.len(), 2);
        let result = pack(
            &files,
            &PackConfig { budget_tokens: 11 },
            &mut PerLine::default(),
        )
        .unwrap();
        let summary: Vec<_> = result
            .blocks
            .iter()
            .map(|b| {
                (
                    b.path.as_str(),
                    b.start_line,
                    b.end_line,
                    b.tokens,
                    b.included,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("a", 1, 2, 4, true),
                ("a", 9, 10, 4, true),
                ("b", 1, 3, 5, false),
                ("c", 1, 1, 3, true),
            ]
        );
        assert_eq!(result.tokens_used, 11);
        assert_eq!(
            result.blocks[2].skip_reason,
            Some(SkipReason::OverBudget {
                remaining_tokens: 3
            })
        );
        assert_eq!(
            result.blocks[2].skip_reason.as_ref().unwrap().to_string(),
            "over budget: 3 tokens left"
        );
        assert_eq!(result.included().count(), 3);
        // A budget exactly met includes the block.
        let exact = pack(
            &files,
            &PackConfig { budget_tokens: 16 },
            &mut PerLine::default(),
        )
        .unwrap();
        assert!(exact.blocks.iter().all(|b| b.included));
        assert_eq!(exact.tokens_used, 16);
        let none = pack(
            &files,
            &PackConfig { budget_tokens: 0 },
            &mut PerLine::default(),
        )
        .unwrap();
        assert_eq!((none.tokens_used, none.included().count()), (0, 0));
    }

    #[test]
    fn json_shape() {
        let terms = QueryTerms::from_issue("hit");
        let files = select_files(&terms, [("a", "hit\n")], &SelectConfig::default());
        let result = pack(
            &files,
            &PackConfig { budget_tokens: 1 },
            &mut PerLine::default(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::json!({
                "blocks": [{"path": "a", "start_line": 1, "end_line": 1, "tokens": 3,
                            "included": false, "score": 1,
                            "skip_reason": {"kind": "over_budget", "remaining_tokens": 1}}],
                "tokens_used": 0,
                "budget_tokens": 1
            })
        );
    }

    #[test]
    fn repacking_with_another_budget_counts_nothing_again() {
        let terms = QueryTerms::from_issue("hit other");
        let texts: Vec<String> = (0..6)
            .map(|i| {
                (0..900)
                    .map(|n| {
                        if n % 250 == i {
                            "hit\n".to_string()
                        } else {
                            format!("{n}\n")
                        }
                    })
                    .collect()
            })
            .collect();
        let files = select_files(
            &terms,
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (["a", "b", "c", "d", "e", "f"][i], t.as_str())),
            &SelectConfig::default(),
        );
        let blocks: usize = files.iter().map(|f| f.windows.len()).sum();
        let mut cache = TokenCache::new(PerLine::default());
        let first = pack(
            &files,
            &PackConfig {
                budget_tokens: 16_000,
            },
            &mut cache,
        )
        .unwrap();
        assert_eq!(cache.counter().calls, blocks);
        for budget in [100, 1_000, 2_000, 16_000, 0] {
            let again = pack(
                &files,
                &PackConfig {
                    budget_tokens: budget,
                },
                &mut cache,
            )
            .unwrap();
            assert!(again.tokens_used <= budget);
            let tokens: Vec<usize> = again.blocks.iter().map(|b| b.tokens).collect();
            assert_eq!(
                tokens,
                first.blocks.iter().map(|b| b.tokens).collect::<Vec<_>>()
            );
        }
        assert_eq!(cache.counter().calls, blocks, "no block was counted twice");
        assert_eq!(cache.hits(), 5 * blocks as u64);
    }

    struct Failing;

    impl TokenCounter for Failing {
        fn count_tokens(&mut self, _: &str) -> Result<usize> {
            Err(Error::Tokens {
                context: "text".into(),
                message: "backtrack limit".into(),
            })
        }
    }

    #[test]
    fn counter_errors_name_the_block() {
        let terms = QueryTerms::from_issue("hit");
        let files = select_files(&terms, [("src/a.rs", "x\nhit\n")], &SelectConfig::default());
        assert_eq!(
            pack(&files, &PackConfig::default(), &mut Failing)
                .unwrap_err()
                .to_string(),
            "src/a.rs:1-2: cannot count tokens: backtrack limit"
        );
    }

    proptest! {
        #[test]
        fn never_exceeds_the_budget(
            sizes in proptest::collection::vec(0usize..300, 1..8),
            hits in proptest::collection::vec(0usize..300, 0..12),
            budget in 0usize..600,
            radius in 0usize..40,
        ) {
            let terms = QueryTerms::from_issue("hit");
            let texts: Vec<String> = sizes
                .iter()
                .enumerate()
                .map(|(f, &n)| {
                    (0..n)
                        .map(|i| if hits.contains(&(i + f)) { "hit\n".into() } else { format!("l{i}\n") })
                        .collect()
                })
                .collect();
            let paths: Vec<String> = (0..texts.len()).map(|i| format!("f{i}")).collect();
            let files = select_files(
                &terms,
                paths.iter().map(String::as_str).zip(texts.iter().map(String::as_str)),
                &SelectConfig { radius_lines: radius, ..SelectConfig::default() },
            );
            let result = pack(&files, &PackConfig { budget_tokens: budget }, &mut PerLine::default()).unwrap();
            prop_assert!(result.tokens_used <= budget);
            let included: usize = result.included().map(|b| b.tokens).sum();
            prop_assert_eq!(included, result.tokens_used);
            // A skipped block really did not fit when it was considered.
            let mut used = 0;
            for block in &result.blocks {
                if block.included {
                    used += block.tokens;
                } else {
                    prop_assert!(used + block.tokens > budget);
                    prop_assert_eq!(
                        block.skip_reason.clone(),
                        Some(SkipReason::OverBudget { remaining_tokens: budget - used })
                    );
                }
            }
            let windows: usize = files.iter().map(|f| f.windows.len()).sum();
            prop_assert_eq!(result.blocks.len(), windows);
        }
    }
}
