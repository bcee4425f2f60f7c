//! The `unicode61` analyzer.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::fts::index_tokens;

    #[test]
    fn cuts_lower_cases_folds_and_drops_long_runs() {
        let text = "src/foo_bar.rs: Parse_JSON(x86_64) Café";
        let expected = [
            "src", "foo", "bar", "rs", "parse", "json", "x86", "64", "cafe",
        ];
        assert_eq!(index_tokens(text), expected);
        let long = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert!(index_tokens(&long).is_empty());
        assert_eq!(index_tokens(&"b".repeat(MAX_TOKEN_BYTES)).len(), 1);
    }
}
