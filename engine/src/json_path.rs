//! JSON read into a type, with the path of the field that failed (`results[2].file_recall`).
//!
//! serde_json reports where a value failed (line and column) but not which field that was. The
//! usual fix, serde_path_to_error, wraps the deserializer, which instantiates every type's
//! `Deserialize` a second time: 38 KB of the page's 1 MB gzip first-load budget (docs/first-load.md).
//! Instead the path is recovered only when reading fails, by scanning the text up to the
//! failing position. No crate maps a JSON position to a path, so this is hand-written; a test
//! checks it against serde_path_to_error over the engine's own file types
//! (`engine/tests/json_path.rs`).
//!
//! Paths are written as serde_path_to_error writes them: `.` for the document itself, keys
//! joined by `.`, array indices as `[i]`. One difference: a value serde reads whole before
//! deciding what it is (an internally tagged or untagged enum) fails after serde_json has moved
//! past it, so its failures are placed at the record that holds it — a shorter path, never a
//! wrong one.

use serde::de::DeserializeOwned;

/// Why a JSON text could not be read into a type.
#[derive(Debug)]
pub struct JsonFailure {
    /// The failing field's path; `.` for the document itself.
    pub path: String,
    /// serde_json's error (its message, line and column).
    pub error: serde_json::Error,
    /// Whether the error's line and column are the reader's (false when read from a value,
    /// whose text is the value's own printing).
    positioned: bool,
}

impl JsonFailure {
    /// Whether the text is not JSON at all (bad syntax or cut short), rather than JSON of the
    /// wrong shape.
    pub fn is_syntax(&self) -> bool {
        self.error.is_syntax() || self.error.is_eof()
    }

    /// serde_json's message, with its line and column only when they are the reader's.
    pub fn message(&self) -> String {
        let message = self.error.to_string();
        if self.positioned {
            return message;
        }
        let position = format!(
            " at line {} column {}",
            self.error.line(),
            self.error.column()
        );
        message
            .strip_suffix(&position)
            .map_or(message.clone(), str::to_string)
    }
}

impl std::fmt::Display for JsonFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Reads `T` from JSON text.
pub fn from_slice<T: DeserializeOwned>(text: &[u8]) -> Result<T, JsonFailure> {
    serde_json::from_slice(text).map_err(|error| {
        let path = match error.line() {
            0 => ".".to_string(),
            // A syntax error is placed just past the byte serde_json peeked at and refused.
            line => {
                let offset = offset_of(text, line, error.column());
                let offset = offset - usize::from(error.is_syntax() && offset > 0);
                // An enum's unknown variant is the enum's fault, an unknown field the field's.
                let variant = error.to_string().starts_with("unknown variant");
                path_at(text, offset, variant)
            }
        };
        JsonFailure {
            path,
            error,
            positioned: true,
        }
    })
}

/// Reads `T` from an already parsed value. It goes through the value's text so that a failure
/// has a position to name a path from (one code path per type instead of two).
pub fn from_value<T: DeserializeOwned>(value: &serde_json::Value) -> Result<T, JsonFailure> {
    from_slice(value.to_string().as_bytes()).map_err(|failure| JsonFailure {
        positioned: false,
        ..failure
    })
}

/// The byte offset of serde_json's 1-based line and 0-based byte column.
fn offset_of(text: &[u8], line: usize, column: usize) -> usize {
    let line_start = match line {
        0 | 1 => 0,
        _ => text
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(at, _)| at + 1),
    };
    (line_start + column).min(text.len())
}

/// Where the scan is inside one open container.
enum Frame {
    /// In an array: the index of the element at or after the position, and whether that
    /// element has begun.
    Array { index: usize, begun: bool },
    /// In an object: the last key read (its value is at or before the position), none before
    /// the first key and after a comma; and whether the colon after it is read.
    Object { key: Option<String>, colon: bool },
}

/// The path of the value that serde_json was reading when it stopped at `offset`: the open
/// containers' keys and indices. A key counts once it is read, as serde_path_to_error counts it
/// (an unknown field's path ends with the field), except a last key that is an enum's variant
/// (`variant`: the key read, its colon not yet).
fn path_at(text: &[u8], offset: usize, variant: bool) -> String {
    let mut frames: Vec<Frame> = Vec::new();
    let mut at = 0;
    let end = offset.min(text.len());
    while at < end {
        if let Some(Frame::Array { begun, .. }) = frames.last_mut() {
            *begun |= !matches!(text[at], b' ' | b'\t' | b'\n' | b'\r' | b',' | b']');
        }
        match text[at] {
            b'"' => {
                let close = string_end(text, at);
                if let Some(Frame::Object {
                    key: key @ None, ..
                }) = frames.last_mut()
                {
                    *key = Some(unescape(&text[at..close]));
                }
                at = close;
                continue;
            }
            b'{' => frames.push(Frame::Object {
                key: None,
                colon: false,
            }),
            b':' => {
                if let Some(Frame::Object { colon, .. }) = frames.last_mut() {
                    *colon = true;
                }
            }
            b'[' => frames.push(Frame::Array {
                index: 0,
                begun: false,
            }),
            b'}' | b']' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Array { index, begun }) => {
                    *index += 1;
                    *begun = false;
                }
                Some(Frame::Object { key, colon }) => {
                    *key = None;
                    *colon = false;
                }
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    // An element not begun counts when the reader stopped at its start (a list or object where
    // a scalar belongs is refused before it is read), not when the list is empty.
    let next = text[end..].iter().find(|b| !b.is_ascii_whitespace());
    match frames.last_mut() {
        Some(Frame::Array { begun, .. }) => *begun |= next.is_some_and(|&b| b != b']'),
        Some(Frame::Object { key, colon: false }) if variant => *key = None,
        _ => {}
    }
    let mut path = String::new();
    for frame in &frames {
        match frame {
            Frame::Array { index, begun } => {
                if !begun {
                    break;
                }
                path.push_str(&format!("[{index}]"));
            }
            Frame::Object { key: Some(key), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object { key: None, .. } => break,
        }
    }
    if path.is_empty() {
        ".".to_string()
    } else {
        path
    }
}

/// The offset just past the string starting at `start` (its closing quote), or the text's end.
fn string_end(text: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    text.len()
}

/// A key's text: the quoted string decoded, or its raw bytes when it is cut short.
fn unescape(quoted: &[u8]) -> String {
    serde_json::from_slice::<String>(quoted).unwrap_or_else(|_| {
        let inner = quoted.strip_prefix(b"\"").unwrap_or(quoted);
        let inner = inner.strip_suffix(b"\"").unwrap_or(inner);
        String::from_utf8_lossy(inner).into_owned()
    })
}
