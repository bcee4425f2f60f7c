//! The chunk budget counted in the embedder's own word pieces: all-MiniLM-L6-v2's WordPiece
//! tokenizer (`tokenizer.json`, handed over as bytes), as CodeAtlas sized its chunks ("254 word
//! pieces" for the `path :: name` prefix plus the text, so `[CLS]` and `[SEP]` make the model's
//! 256).
//!
//! Counting a file line by line is exact here, not a bound: BERT's pre-tokenizer splits at every
//! whitespace character before WordPiece runs, so no piece reaches across a newline and a
//! newline itself is no piece ([`TokenCounter::newline_tokens`] is 0). A chunk's count is then
//! the sum of its prefix's and its lines' counts, which is what the embedder sees of its
//! `embed_text` (checked in `bundler/tests/wordpiece_budget.rs` against the tokenizer run on the
//! whole text).

use tokenizers::Tokenizer;

use super::tokens::TokenCounter;
use crate::error::{Error, Result};

/// Counts word pieces with a BERT tokenizer, without `[CLS]`/`[SEP]`, truncation or padding.
#[derive(Clone)]
pub struct WordPieces {
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for WordPieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WordPieces")
    }
}

impl WordPieces {
    /// The counter of the tokenizer in `tokenizer.json`'s bytes (the caller checks them against
    /// the model's pin first).
    pub fn from_tokenizer_json(bytes: &[u8]) -> Result<WordPieces> {
        let failed = |e: &dyn std::fmt::Display| Error::Model {
            file: "tokenizer.json".into(),
            message: e.to_string(),
        };
        let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(|e| failed(&e))?;
        tokenizer.with_truncation(None).map_err(|e| failed(&e))?;
        tokenizer.with_padding(None);
        Ok(WordPieces { tokenizer })
    }
}

impl TokenCounter for WordPieces {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        self.tokenizer
            .encode(text, false)
            .map(|encoding| encoding.get_ids().len())
            .map_err(|e| Error::Tokens {
                context: "word pieces".to_string(),
                message: e.to_string(),
            })
    }

    fn newline_tokens(&self) -> usize {
        0
    }
}
