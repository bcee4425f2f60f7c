//! The two input files of `routelens pack`: a ranking file (one path per line) and a gold file
//! (JSON spans); errors name the file and the line or field.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::study::GoldSpan;

/// Parses a ranking file: one path per line, best first; surrounding whitespace is trimmed and
/// blank lines are skipped. A path listed twice is refused, naming both lines.
pub fn parse_ranking(file: &str, text: &str) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let path = line.trim();
        if path.is_empty() {
            continue;
        }
        if let Some(first) = seen.insert(path, index + 1) {
            return Err(Error::line(
                file,
                index + 1,
                format!("{path:?} is already ranked on line {first}"),
            ));
        }
        paths.push(path.to_string());
    }
    Ok(paths)
}

/// Parses a gold file: JSON `[{"path", "start_line", "end_line"}...]`, lines 1-based and
/// inclusive. Errors name the file and the entry's field (`gold.json: field [2].end_line: …`).
pub fn parse_gold(file: &str, text: &str) -> Result<Vec<GoldSpan>> {
    let spans: Vec<GoldSpan> = crate::json_path::from_slice(text.as_bytes()).map_err(|err| {
        let (field, inner) = (err.path, err.error);
        if field == "." || inner.is_syntax() || inner.is_eof() {
            Error::line(file, inner.line(), inner.to_string())
        } else {
            Error::field(file, field, inner.to_string())
        }
    })?;
    for (index, span) in spans.iter().enumerate() {
        if span.start_line == 0 {
            return Err(Error::field(
                file,
                format!("[{index}].start_line"),
                "line numbers start at 1",
            ));
        }
        if span.end_line < span.start_line {
            return Err(Error::field(
                file,
                format!("[{index}].end_line"),
                format!("{} is before start_line {}", span.end_line, span.start_line),
            ));
        }
    }
    Ok(spans)
}
