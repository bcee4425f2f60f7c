//! Token counting for the context packer: the [`TokenCounter`] trait, the cl100k_base counter
//! ([`Cl100k`], on tiktoken-rs) and a memo ([`TokenCache`]) so that re-packing never re-encodes a
//! block it has already counted.
//!
//! ## Loading cl100k_base lazily
//!
//! tiktoken-rs's own `cl100k_base()` compiles its 1.7 MB rank table into the binary, and building
//! the encoder takes a few hundred milliseconds in a browser. The app should not pay either up
//! front, so [`Cl100k::from_rank_table`] builds the encoder from the standard
//! `cl100k_base.tiktoken` file (one `base64-token rank` pair per line) handed over at run time:
//! the app fetches the file on the first pack. Nothing in this module names tiktoken-rs's embedded
//! vocabularies unless the `embedded-cl100k` feature adds [`Cl100k::embedded`], so the linker
//! drops them from a build that does not call it.
//!
//! The rank table is checked against the SHA-256 of the file OpenAI publishes (the same file ships
//! in the tiktoken-rs crate as `assets/cl100k_base.tiktoken`); the regular expression and special
//! tokens are cl100k_base's ([`CL100K_PATTERN`], [`CL100K_SPECIAL_TOKENS`]).
//!
//! ## Special tokens
//!
//! The paper counted with `encode(block, disallowed_special=())`: text such as `<|endoftext|>`
//! inside a source file is encoded as ordinary text, never as the special token. [`Cl100k`] does
//! the same (tiktoken-rs's `encode` with no special token allowed, which returns regex failures
//! as errors instead of panicking as `encode_ordinary` would).

use std::collections::HashSet;
use std::hash::Hasher;

use base64::Engine as _;
use rustc_hash::{FxHashMap, FxHashSet};
use tiktoken_rs::CoreBPE;

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};

/// The rank table's usual file name.
pub const CL100K_RANK_TABLE_FILE: &str = "cl100k_base.tiktoken";

/// SHA-256 of the cl100k_base rank table (tiktoken's published value).
pub const CL100K_RANK_TABLE_SHA256: &str =
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7";

/// The number of ordinary tokens in cl100k_base (ranks 0 to 100,255).
pub const CL100K_RANKS: usize = 100_256;

/// cl100k_base's pre-tokenisation pattern, as tiktoken (and tiktoken-rs) write it.
pub const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|",
    r" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// cl100k_base's special tokens and their ranks. They are registered with the encoder but never
/// produced: the counter treats their text as ordinary text.
pub const CL100K_SPECIAL_TOKENS: &[(&str, u32)] = &[
    ("<|endoftext|>", 100_257),
    ("<|fim_prefix|>", 100_258),
    ("<|fim_middle|>", 100_259),
    ("<|fim_suffix|>", 100_260),
    ("<|endofprompt|>", 100_276),
];

/// Counts the tokens of a text. The packer asks for one count per block.
pub trait TokenCounter {
    /// The number of tokens of `text`. An error is the counter's own failure (not a property of
    /// a valid text); its message says what failed.
    fn count_tokens(&mut self, text: &str) -> Result<usize>;

    /// What the newline between two lines adds to their counts (`code_chunks::Measured` sums
    /// lines): at most one under cl100k_base, whose newline is a token or joins the next line's
    /// indentation; none under a WordPiece tokenizer, where whitespace only separates.
    fn newline_tokens(&self) -> usize {
        1
    }
}

impl<C: TokenCounter + ?Sized> TokenCounter for &mut C {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        (**self).count_tokens(text)
    }

    fn newline_tokens(&self) -> usize {
        (**self).newline_tokens()
    }
}

/// The cl100k_base encoder, counting special-token text as ordinary text.
#[derive(Clone)]
pub struct Cl100k {
    bpe: CoreBPE,
}

impl std::fmt::Debug for Cl100k {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cl100k")
    }
}

impl Cl100k {
    /// Builds the encoder from the bytes of `cl100k_base.tiktoken`. Refuses bytes whose SHA-256
    /// is not [`CL100K_RANK_TABLE_SHA256`] ([`Error::Checksum`]) and, should the hash ever be
    /// updated, a malformed line ([`Error::Line`]).
    pub fn from_rank_table(bytes: &[u8]) -> Result<Self> {
        let actual = sha256_hex(bytes);
        if actual != CL100K_RANK_TABLE_SHA256 {
            return Err(Error::Checksum {
                file: CL100K_RANK_TABLE_FILE.to_string(),
                expected: CL100K_RANK_TABLE_SHA256.to_string(),
                actual,
            });
        }
        Self::from_ranks(parse_rank_table(CL100K_RANK_TABLE_FILE, bytes)?)
    }

    /// The encoder from the rank table tiktoken-rs compiles in (adds 1.7 MB to a binary that calls
    /// it; for native tools and tests, not for the browser app).
    #[cfg(feature = "embedded-cl100k")]
    pub fn embedded() -> Result<Self> {
        let bpe = tiktoken_rs::cl100k_base().map_err(|e| Error::Tokens {
            context: "cl100k_base".to_string(),
            message: e.to_string(),
        })?;
        Ok(Cl100k { bpe })
    }

    fn from_ranks(ranks: FxHashMap<Vec<u8>, u32>) -> Result<Self> {
        let special: FxHashMap<String, u32> = CL100K_SPECIAL_TOKENS
            .iter()
            .map(|&(text, rank)| (text.to_string(), rank))
            .collect();
        let bpe = CoreBPE::new(ranks, special, CL100K_PATTERN).map_err(|e| Error::Tokens {
            context: "cl100k_base".to_string(),
            message: e.to_string(),
        })?;
        Ok(Cl100k { bpe })
    }

    /// The number of cl100k_base tokens of `text`, special-token text counted as ordinary text.
    pub fn count(&self, text: &str) -> Result<usize> {
        let none_allowed = HashSet::new();
        self.bpe
            .encode(text, &none_allowed)
            .map(|(tokens, _)| tokens.len())
            .map_err(|e| Error::Tokens {
                context: "text".to_string(),
                message: e.to_string(),
            })
    }
}

impl TokenCounter for Cl100k {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        self.count(text)
    }
}

/// Parses a tiktoken rank table: lines of `base64-token SPACE rank`, a final newline optional.
/// Refuses a bad line, a token or a rank listed twice (tiktoken-rs would panic on a repeated
/// rank), naming the 1-based line.
pub fn parse_rank_table(file: &str, bytes: &[u8]) -> Result<FxHashMap<Vec<u8>, u32>> {
    let mut ranks = FxHashMap::default();
    ranks.reserve(CL100K_RANKS);
    let mut seen = FxHashSet::default();
    seen.reserve(CL100K_RANKS);
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if body.is_empty() {
        return Err(Error::Parse {
            file: file.to_string(),
            message: "empty rank table".to_string(),
        });
    }
    for (index, line) in body.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        let bad = |message: &str| Error::line(file, number, message);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let space = line
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| bad("expected `base64-token rank`"))?;
        let token = base64::engine::general_purpose::STANDARD
            .decode(&line[..space])
            .map_err(|e| bad(&format!("bad base64 token: {e}")))?;
        let rank: u32 = std::str::from_utf8(&line[space + 1..])
            .ok()
            .and_then(|r| r.parse().ok())
            .ok_or_else(|| bad("the rank is not a number from 0 to 4294967295"))?;
        if !seen.insert(rank) {
            return Err(bad(&format!("rank {rank} is listed twice")));
        }
        if ranks.insert(token, rank).is_some() {
            return Err(bad("token is listed twice"));
        }
    }
    Ok(ranks)
}

/// A memo over a [`TokenCounter`]: each distinct text is counted once. The key is the text's
/// length and its 64-bit hash by std's `DefaultHasher` (SipHash with fixed keys), so the memo
/// holds no text; a collision needs two texts of equal length with equal hashes.
///
/// Re-packing after a budget change renders the same blocks, so every count comes from the memo.
/// The memo grows by one small entry per distinct block; [`TokenCache::clear`] empties it.
#[derive(Debug, Clone)]
pub struct TokenCache<C> {
    counter: C,
    counts: FxHashMap<(usize, u64), usize>,
    hits: u64,
    misses: u64,
}

impl<C: TokenCounter> TokenCache<C> {
    /// An empty memo over `counter`.
    pub fn new(counter: C) -> Self {
        TokenCache {
            counter,
            counts: FxHashMap::default(),
            hits: 0,
            misses: 0,
        }
    }

    /// The wrapped counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// Counts answered from the memo so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Counts passed to the wrapped counter so far.
    pub fn misses(&self) -> u64 {
        self.misses
    }

    /// Distinct texts remembered.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Forgets every count.
    pub fn clear(&mut self) {
        self.counts.clear();
    }
}

fn text_key(text: &str) -> (usize, u64) {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(text.as_bytes());
    (text.len(), hasher.finish())
}

impl<C: TokenCounter> TokenCounter for TokenCache<C> {
    fn count_tokens(&mut self, text: &str) -> Result<usize> {
        let key = text_key(text);
        if let Some(&count) = self.counts.get(&key) {
            self.hits += 1;
            return Ok(count);
        }
        let count = self.counter.count_tokens(text)?;
        self.misses += 1;
        self.counts.insert(key, count);
        Ok(count)
    }

    fn newline_tokens(&self) -> usize {
        self.counter.newline_tokens()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts whitespace-separated words and remembers how often it was asked.
    struct Words {
        calls: usize,
    }

    impl TokenCounter for Words {
        fn count_tokens(&mut self, text: &str) -> Result<usize> {
            self.calls += 1;
            Ok(text.split_whitespace().count())
        }
    }

    #[test]
    fn cache_counts_each_text_once() {
        let mut cache = TokenCache::new(Words { calls: 0 });
        assert_eq!(cache.count_tokens("a b c").unwrap(), 3);
        assert_eq!(cache.count_tokens("a b c").unwrap(), 3);
        assert_eq!(cache.count_tokens("a b").unwrap(), 2);
        assert_eq!(cache.counter().calls, 2);
        assert_eq!((cache.hits(), cache.misses(), cache.len()), (1, 2, 2));
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.count_tokens("a b c").unwrap(), 3);
        assert_eq!(cache.counter().calls, 3);
    }

    #[test]
    fn rank_table_parses_and_refuses_bad_lines() {
        // "IQ==" is "!", "Ig==" is "\"".
        let ranks = parse_rank_table("t", b"IQ== 0\nIg== 1\n").unwrap();
        assert_eq!(ranks.get(&b"!"[..]), Some(&0));
        assert_eq!(ranks.get(&b"\""[..]), Some(&1));
        assert!(parse_rank_table("t", b"IQ== 0\r\nIg== 1").is_ok());
        let error = |bytes: &[u8]| parse_rank_table("t", bytes).unwrap_err().to_string();
        assert_eq!(error(b""), "t: empty rank table");
        assert_eq!(
            error(b"IQ== 0\nIg==\n"),
            "t:2: expected `base64-token rank`"
        );
        assert_eq!(
            error(b"IQ== 0\nIg== x"),
            "t:2: the rank is not a number from 0 to 4294967295"
        );
        assert!(error(b"I!== 0").starts_with("t:1: bad base64 token"));
        assert_eq!(error(b"IQ== 0\nIg== 0"), "t:2: rank 0 is listed twice");
        assert_eq!(error(b"IQ== 0\nIQ== 1"), "t:2: token is listed twice");
    }

    #[test]
    fn wrong_rank_table_is_refused_by_hash() {
        let error = Cl100k::from_rank_table(b"IQ== 0\n").unwrap_err();
        assert!(matches!(error, Error::Checksum { .. }));
        assert!(error
            .to_string()
            .starts_with("cl100k_base.tiktoken: SHA-256 mismatch"));
    }

    #[test]
    fn counts_like_tiktoken_rs_embedded_cl100k() {
        // The embedded encoder, for the unit test only; `tests/tokens.rs` checks the rank-table
        // path against it.
        let embedded = tiktoken_rs::cl100k_base().unwrap();
        let ours = Cl100k {
            bpe: embedded.clone(),
        };
        for text in ["", "hello world", "tiktoken is great!", "<|endoftext|> x"] {
            assert_eq!(
                ours.count(text).unwrap(),
                embedded.encode_ordinary(text).len(),
                "{text:?}"
            );
        }
        assert_eq!(ours.count("tiktoken is great!").unwrap(), 6);
        // Special-token text is ordinary text: several tokens, not the one special token.
        assert!(ours.count("<|endoftext|>").unwrap() > 1);
    }
}
