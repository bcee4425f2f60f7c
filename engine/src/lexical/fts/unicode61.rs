//! The `unicode61` analyzer, and the token count the builder stores.
//!
//! The analyzer is tantivy's `SimpleTokenizer` → `RemoveLongFilter` → `LowerCaser` →
//! `AsciiFoldingFilter`: maximal runs of alphanumeric characters, runs of more than
//! [`MAX_TOKEN_BYTES`] bytes dropped, lower-cased and folded to ASCII (the parent module says
//! how that matches SQLite's `unicode61`).

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer,
};

/// Tokens longer than this many bytes are not indexed.
pub const MAX_TOKEN_BYTES: usize = 255;

/// The `unicode61` analyzer chain.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES + 1))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The number of tokens [`analyzer`] makes of `text`, without making them.
///
/// The builder stores every file's exact token count (FTS5's row length). Running the analyzer a
/// second time for it cost a quarter of the index build, and even a loop that branches at every
/// token boundary cost a fifth of it (the boundaries are unpredictable), so this counts without
/// branching: a run's length in bytes grows on alphanumeric characters and drops to zero on the
/// others, a run starts where the length equals the character's own width, and a run is too
/// long where the length first passes [`MAX_TOKEN_BYTES`]. Lower-casing and folding never
/// change the count. The property test below holds it to the analyzer.
pub fn count_index_tokens(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut runs = Runs::default();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte.is_ascii() {
            runs.step(ASCII_ALPHANUMERIC[usize::from(byte)], 1);
            at += 1;
        } else {
            let ch = text[at..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            runs.step(ch.is_alphanumeric(), ch.len_utf8());
            at += ch.len_utf8();
        }
    }
    runs.starts - runs.too_long
}

/// Whether each ASCII byte is alphanumeric (a lookup, where the range tests would branch).
const ASCII_ALPHANUMERIC: [bool; 128] = {
    let mut table = [false; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = (byte as u8).is_ascii_alphanumeric();
        byte += 1;
    }
    table
};

/// The branch-free run counter behind [`count_index_tokens`].
#[derive(Default)]
struct Runs {
    /// Bytes of the current run of alphanumeric characters (0 outside one).
    length: usize,
    starts: u64,
    too_long: u64,
}

impl Runs {
    #[inline(always)]
    fn step(&mut self, alphanumeric: bool, width: usize) {
        let before = self.length;
        // All ones on an alphanumeric character, zero otherwise: a mask, not a branch.
        let keep = usize::from(alphanumeric).wrapping_neg();
        self.length = (before + width) & keep;
        self.starts += u64::from(alphanumeric & (before == 0));
        self.too_long += u64::from((before <= MAX_TOKEN_BYTES) & (self.length > MAX_TOKEN_BYTES));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut tokens = Vec::new();
        while let Some(token) = stream.next() {
            tokens.push(token.text.clone());
        }
        tokens
    }

    #[test]
    fn cuts_lower_cases_folds_and_drops_long_runs() {
        let text = "src/foo_bar.rs: Parse_JSON(x86_64) Café";
        let expected = [
            "src", "foo", "bar", "rs", "parse", "json", "x86", "64", "cafe",
        ];
        assert_eq!(tokens(text), expected);
        assert_eq!(count_index_tokens(text), expected.len() as u64);
        let long = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert!(tokens(&long).is_empty());
        assert_eq!(count_index_tokens(&long), 0);
        assert_eq!(tokens(&"b".repeat(MAX_TOKEN_BYTES)).len(), 1);
        assert_eq!(count_index_tokens(&format!("{long} b {long}é")), 1);
    }

    proptest::proptest! {
        #[test]
        fn the_fast_count_is_the_analyzer_count(
            text in "([a-zA-Z0-9_ .:/(){}\\-]|é|ß|日本|\u{0301}|\u{0663}|\n){0,80}",
            long in 250usize..260,
        ) {
            let padded = format!("{text} {} {text}{}", "x".repeat(long), "é".repeat(long / 2));
            for sample in [text.as_str(), padded.as_str()] {
                proptest::prop_assert_eq!(
                    count_index_tokens(sample),
                    tokens(sample).len() as u64,
                    "{:?}", sample
                );
            }
        }
    }
}
