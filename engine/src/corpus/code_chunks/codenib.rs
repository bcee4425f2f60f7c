//! CodeNib's chunker (`../shared/seeds/003_*.txt`, `sysevol-ai/CodeNib`'s `code_chunker`): one
//! chunk per definition at depth 2 with containers left out (`codenib_rules`), a chunk longer
//! than the line limit (100 for the reranking experiment, 300 in CodeNib's production BM25
//! index) split into ⌈n / limit⌉ balanced pieces with the same name (the first pieces a line
//! longer), and code between definitions not chunked unless header and epilogue chunks are asked
//! for (the lines before the first definition, the lines after the last, when not blank).
//!
//! Files CodeNib skips get no chunks, with the reason as the file's note: over 10 MiB, minified
//! (a line over 10,000 characters, its newline counted, as CodeNib counts), and test files by its
//! rule over the repository-relative path — a directory `test`, `tests`, `__tests__`, `spec` or
//! `specs`; a name starting `test`; ending `_test.py`, `_test.js`, `_test.ts`, `_spec.py`,
//! `_spec.js` or `_spec.ts`; or holding `.test.` or `.spec.` (case-insensitive). Only the code
//! languages have definitions; any other file gets none.

use super::chunk::{prefix, ChunkConfig, FileChunks};
use super::codenib_rules::definitions;
use super::language::SourceLanguage;
use super::sizing::{chunk, Measured};
use crate::corpus::tokens::TokenCounter;
use crate::error::Result;

/// CodeNib's file size limit: 10 MiB.
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;
/// CodeNib's minified-line threshold: a line longer than this, its newline counted, is minified.
pub const MINIFIED_LINE_CHARS: usize = 10_000;

/// Why CodeNib's chunker skips a file, if it does.
pub fn skipped(path: &str, text: &str) -> Option<String> {
    if text.len() > MAX_FILE_BYTES {
        return Some(format!(
            "{path}: over 10 MiB; not chunked (CodeNib skips it)"
        ));
    }
    if text
        .split_inclusive('\n')
        .any(|line| line.chars().count() > MINIFIED_LINE_CHARS)
    {
        return Some(format!(
            "{path}: a line over {MINIFIED_LINE_CHARS} characters with its newline (minified); \
             not chunked"
        ));
    }
    if is_test_file(path) {
        return Some(format!(
            "{path}: a test file; not chunked (CodeNib skips tests)"
        ));
    }
    None
}

/// CodeNib's test-file rule (see the module docs).
pub fn is_test_file(path: &str) -> bool {
    let lower = path.replace('\\', "/").to_lowercase();
    let (dirs, name) = lower.rsplit_once('/').unwrap_or(("", &lower));
    dirs.split('/')
        .any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec" | "specs"))
        || name.starts_with("test")
        || [
            "_test.py", "_test.js", "_test.ts", "_spec.py", "_spec.js", "_spec.ts",
        ]
        .iter()
        .any(|end| name.ends_with(end))
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The balanced pieces of rows `start..=end` under `limit` lines: ⌈n / limit⌉ of them, the
/// first `n mod pieces` one line longer. Each piece is `(start, end)`, inclusive.
pub fn balanced_pieces(start: usize, end: usize, limit: usize) -> Vec<(usize, usize)> {
    let total = end - start + 1;
    if limit == 0 || total <= limit {
        return vec![(start, end)];
    }
    let pieces = total.div_ceil(limit);
    let (base, extra) = (total / pieces, total % pieces);
    let mut at = start;
    (0..pieces)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let piece = (at, at + len - 1);
            at += len;
            piece
        })
        .collect()
}

/// `path` cut by CodeNib's rules (see the module docs); `measured` holds its lines.
pub(super) fn codenib_chunks(
    path: &str,
    text: &str,
    measured: &mut Measured,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<FileChunks> {
    if let Some(why) = skipped(path, text) {
        return Ok(FileChunks {
            chunks: Vec::new(),
            note: Some(why),
        });
    }
    let lines = measured.lines.len();
    let found = match SourceLanguage::of_path(path) {
        Some(language) if lines > 0 => {
            definitions(language, text).map_err(|why| crate::error::Error::Relayed {
                message: format!("{path}: {why}"),
            })?
        }
        _ => Vec::new(),
    };
    let mut units: Vec<(usize, usize, &str, String)> = found
        .into_iter()
        .filter(|d| d.start < lines)
        .map(|d| (d.start, d.end.min(lines - 1), d.kind, d.name))
        .collect();
    if config.header_epilogue && lines > 0 {
        let blank = |from: usize, to: usize| {
            measured.lines[from..=to]
                .iter()
                .all(|l| l.trim().is_empty())
        };
        match (units.first().map(|u| u.0), units.last().map(|u| u.1)) {
            (Some(first), Some(last)) => {
                if first > 0 && !blank(0, first - 1) {
                    units.insert(0, (0, first - 1, "header", "header".into()));
                }
                if last + 1 < lines && !blank(last + 1, lines - 1) {
                    units.push((last + 1, lines - 1, "epilogue", "epilogue".into()));
                }
            }
            _ if !blank(0, lines - 1) => units.push((0, lines - 1, "epilogue", "epilogue".into())),
            _ => {}
        }
    }
    let mut chunks = Vec::new();
    for (start, end, kind, name) in units {
        let head = prefix(path, &name);
        for (from, to) in balanced_pieces(start, end, config.max_lines) {
            let tokens = measured.tokens(counter, &head, (from, to + 1))?;
            chunks.push(chunk(path, (from, to + 1), kind, &name, tokens));
        }
    }
    Ok(FileChunks { chunks, note: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_balanced_the_first_ones_a_line_longer() {
        assert_eq!(balanced_pieces(0, 99, 100), [(0, 99)]);
        // 250 lines under 100: 3 pieces of 84, 83, 83.
        assert_eq!(
            balanced_pieces(10, 259, 100),
            [(10, 93), (94, 176), (177, 259)]
        );
        // 201 under 100: 3 pieces of 67.
        assert_eq!(
            balanced_pieces(0, 200, 100),
            [(0, 66), (67, 133), (134, 200)]
        );
    }

    #[test]
    fn codenibs_test_rule_and_skips() {
        for path in [
            "tests/a.py",
            "src/__tests__/x.ts",
            "pkg/spec/y.rb",
            "src/test_utils.py",
            "src/testing.py",
            "src/app_test.py",
            "web/app.spec.ts",
            "web/App.Test.JS",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in [
            "src/contest.py",
            "src/attest/a.rs",
            "src/app_test.go",
            "src/latest.rs",
        ] {
            assert!(!is_test_file(path), "{path}");
        }
        assert!(skipped("a.js", &"x".repeat(10_000)).is_none());
        assert!(skipped("a.js", &format!("{}\n", "x".repeat(9_999))).is_none());
        let minified = format!("{}\n", "x".repeat(10_000));
        assert!(skipped("a.js", &minified).unwrap().contains("minified"));
        assert!(skipped("tests/a.py", "x = 1")
            .unwrap()
            .contains("test file"));
    }
}
