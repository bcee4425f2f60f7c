//! The identifier-splitting tokenizer behind the `code` analyzer (the option beside the
//! paper's `unicode61`).
//!
//! tantivy ships no tokenizer that cuts `parseJsonConfig` into `parse`, `Json`, `Config`, and its
//! `SplitCompoundWords` filter needs a dictionary, so this one is hand-written. It cuts text where
//! `unicode61` does (every character that is not alphanumeric) and then cuts each run at the case
//! changes of an identifier:
//!
//! - lower-case or digit → upper-case: `parseJson` → `parse`, `Json`; `utf8Decode` → `utf8`,
//!   `Decode`;
//! - upper-case → upper-case followed by lower-case: `HTTPServer` → `HTTP`, `Server`.
//!
//! Letters and digits stay together (`sha256`, `x86`), as an identifier's digits usually belong
//! to its word. Lower-casing, folding and stemming come after, as filters ([`super::analyzer`]).

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Splits on non-alphanumeric characters and at identifier case boundaries.
#[derive(Clone, Default)]
pub struct CodeTokenizer;

/// The tokens of one text, cut up front (identifier splitting needs look-ahead).
pub struct CodeTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        let mut tokens = Vec::new();
        for (start, end) in identifier_parts(text) {
            tokens.push(Token {
                offset_from: start,
                offset_to: end,
                position: tokens.len(),
                text: text[start..end].to_string(),
                position_length: 1,
            });
        }
        CodeTokenStream { tokens, next: 0 }
    }
}

impl TokenStream for CodeTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

/// The byte ranges of the identifier parts of `text`, in order.
pub fn identifier_parts(text: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
    let mut start: Option<usize> = None;
    for i in 0..chars.len() {
        let (_, ch) = chars[i];
        if !ch.is_alphanumeric() {
            if let Some(from) = start.take() {
                parts.push((end_of(from), end_of(i)));
            }
            continue;
        }
        match start {
            None => start = Some(i),
            Some(from) if i > from && is_boundary(&chars, i) => {
                parts.push((end_of(from), end_of(i)));
                start = Some(i);
            }
            Some(_) => {}
        }
    }
    if let Some(from) = start {
        parts.push((end_of(from), text.len()));
    }
    parts
}

/// Whether an identifier part starts at `chars[i]` (its predecessor is alphanumeric).
fn is_boundary(chars: &[(usize, char)], i: usize) -> bool {
    let previous = chars[i - 1].1;
    let current = chars[i].1;
    if !current.is_uppercase() {
        return false;
    }
    if previous.is_lowercase() || previous.is_numeric() {
        return true;
    }
    previous.is_uppercase()
        && chars
            .get(i + 1)
            .is_some_and(|&(_, next)| next.is_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<&str> {
        identifier_parts(text)
            .into_iter()
            .map(|(start, end)| &text[start..end])
            .collect()
    }

    #[test]
    fn cuts_identifiers_at_case_changes() {
        assert_eq!(
            parts("parseJsonConfig HTTPServer utf8Decode x86_64 sha256 IO"),
            [
                "parse", "Json", "Config", "HTTP", "Server", "utf8", "Decode", "x86", "64",
                "sha256", "IO"
            ]
        );
        assert_eq!(
            parts("snake_case::Path<'a>"),
            ["snake", "case", "Path", "a"]
        );
        assert_eq!(parts("ÉtéÀVenir"), ["Été", "À", "Venir"]);
        assert!(parts(" .,;").is_empty());
        assert_eq!(parts("a"), ["a"]);
    }

    #[test]
    fn streams_the_parts_with_offsets_and_positions() {
        let mut tokenizer = CodeTokenizer;
        let mut stream = tokenizer.token_stream("getHTTPResponse now");
        let mut seen = Vec::new();
        while stream.advance() {
            let token = stream.token();
            seen.push((token.text.clone(), token.offset_from, token.position));
        }
        assert_eq!(
            seen,
            [
                ("get".to_string(), 0, 0),
                ("HTTP".to_string(), 3, 1),
                ("Response".to_string(), 7, 2),
                ("now".to_string(), 16, 3)
            ]
        );
    }
}
