//! Line splitting as Python's `str.splitlines(keepends=True)` splits, and the byte tables the
//! selector's one-pass scan shares with it (token bytes lower-cased, byte classes, line ends).

/// `TOKEN_LOWER[b]` is the lower-cased byte when `b` is in `[A-Za-z0-9_]`, else 0.
pub(super) static TOKEN_LOWER: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let lower = (b as u8).to_ascii_lowercase();
        // `terms::is_token_byte`, which is not a `const fn` (a unit test checks they agree).
        if lower.is_ascii_lowercase() || lower.is_ascii_digit() || lower == b'_' {
            table[b] = lower;
        }
        b += 1;
    }
    table
};

/// Byte classes of the one-pass scan: `[A-Za-z0-9_]`, an ASCII byte that may end a line, a
/// non-ASCII byte (which may also begin U+0085, U+2028 or U+2029), anything else.
pub(super) const OTHER: u8 = 0;
pub(super) const TOKEN: u8 = 1;
pub(super) const ASCII_END: u8 = 2;
pub(super) const HIGH: u8 = 3;

pub(super) static CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if b >= 0x80 {
            HIGH
        } else if matches!(b as u8, b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e) {
            ASCII_END
        } else if TOKEN_LOWER[b] != 0 {
            TOKEN
        } else {
            OTHER
        };
        b += 1;
    }
    table
};

/// The length of the line end starting at `bytes[i]`, or 0 when none starts there.
pub(super) fn line_end_len(bytes: &[u8], i: usize) -> usize {
    match bytes[i] {
        b'\n' | 0x0b | 0x0c | 0x1c..=0x1e => 1,
        b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
        b'\r' => 1,
        // U+0085 is C2 85 in UTF-8.
        0xC2 if bytes.get(i + 1) == Some(&0x85) => 2,
        // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
        0xE2 if bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

/// The lines of `text` with their line ends, split where Python's `str.splitlines(keepends=True)`
/// splits (see the module doc). The last line may have no line end; an empty text has no lines.
///
/// ```
/// use routelens_engine::delivery::select::split_lines;
/// let lines: Vec<&str> = split_lines("a\r\nb\rc\n\nd").collect();
/// assert_eq!(lines, ["a\r\n", "b\r", "c\n", "\n", "d"]);
/// ```
pub fn split_lines(text: &str) -> SplitLines<'_> {
    SplitLines { rest: text }
}

/// The number of lines of `text` as [`split_lines`] counts them (Python's
/// `len(text.splitlines())`).
pub fn count_lines(text: &str) -> usize {
    split_lines(text).count()
}

/// The iterator of [`split_lines`].
#[derive(Debug, Clone)]
pub struct SplitLines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for SplitLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = line_end(self.rest.as_bytes()).unwrap_or(self.rest.len());
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(line)
    }
}

/// The byte offset just past the first line end of `bytes`, if it has one.
pub(super) fn line_end(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        if matches!(CLASS[usize::from(bytes[i])], ASCII_END | HIGH) {
            let len = line_end_len(bytes, i);
            if len > 0 {
                return Some(i + len);
            }
        }
        i += 1;
    }
    None
}
