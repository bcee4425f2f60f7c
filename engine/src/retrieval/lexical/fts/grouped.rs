//! A text's tokens grouped on one thread and replayed into tantivy's writer on another.
//!
//! The index build's critical path is tantivy's segment writer, on one thread: it tokenizes
//! every text and probes its term table once per token, and that table is far bigger than the
//! cache. tantivy keeps each term's frequencies (and positions) in a recorder of its own, so the
//! order in which different tokens arrive changes no byte of the index as long as each token's
//! own occurrences arrive in order. So the builder's second thread runs the real analyzer over
//! each text and groups equal tokens ([`Grouper`]), and the writer's tokenizer ([`Replay`]) hands
//! each distinct token over as many times as it occurred, in a row, each time at its own position
//! when the index keeps positions: one cold probe per distinct token instead of one per token,
//! and no tokenizing on the critical path. A test holds the index built this way to the bytes of
//! one built with the analyzer itself, with and without positions.
//!
//! Hand-written because tantivy's own route for tokens made elsewhere (`PreTokenizedString`
//! values) allocates every token as a `String` and copies the lot twice per document.

use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, PoisonError};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use tantivy::tokenizer::{BoxTokenStream, TextAnalyzer, Token, TokenStream};

use super::{Tokenizer, MAX_TOKEN_BYTES};

/// One text's tokens, each distinct token once with its count, in order of first occurrence.
#[derive(Debug, Default)]
pub struct GroupedText {
    /// Where the text starts and how long it is: [`Replay`] replays these tokens for this exact
    /// text only (the builder's texts do not move while the writer reads them).
    text: (usize, usize),
    /// The distinct tokens, end to end.
    terms: String,
    /// Each distinct token's end in `terms` and its count.
    groups: Vec<(usize, u32)>,
    /// The number of tokens (the sum of the counts): the text's exact token count.
    tokens: u64,
    /// When positions are kept: each token's group and position, in text order.
    occurrences: Vec<(u32, u32)>,
}

impl GroupedText {
    /// The text's token count.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// Whether these are the tokens of exactly this text (this string, not an equal one).
    pub fn is_of(&self, text: &str) -> bool {
        self.text == (text.as_ptr() as usize, text.len())
    }

    fn term(&self, group: usize) -> &str {
        let start = group
            .checked_sub(1)
            .map_or(0, |before| self.groups[before].0);
        &self.terms[start..self.groups[group].0]
    }

    /// The recorded positions ordered by group, each group's ascending (a counting sort over the
    /// groups' counts), or nothing when positions were not recorded.
    fn positions_by_group(&self) -> Vec<u32> {
        if self.occurrences.is_empty() {
            return Vec::new();
        }
        let mut next: Vec<usize> = Vec::with_capacity(self.groups.len());
        let mut start = 0;
        for &(_, count) in &self.groups {
            next.push(start);
            start += count as usize;
        }
        let mut ordered = vec![0; self.occurrences.len()];
        for &(group, position) in &self.occurrences {
            let slot = &mut next[group as usize];
            ordered[*slot] = position;
            *slot += 1;
        }
        ordered
    }
}

/// Groups texts' tokens, reusing its hash table from text to text.
pub struct Grouper {
    tokenizer: Tokenizer,
    /// Whether each token's position is recorded (for an index that keeps positions).
    positions: bool,
    analyzer: TextAnalyzer,
    /// Group indices, hashed by their token.
    table: HashTable<u32>,
    /// The current token, lower-cased (the `unicode61` fast path's buffer).
    token: String,
}

impl Grouper {
    /// A grouper that cuts texts as `tokenizer` does, recording positions if `positions`.
    pub fn new(tokenizer: Tokenizer, positions: bool) -> Grouper {
        Grouper {
            tokenizer,
            positions,
            analyzer: tokenizer.analyzer(),
            table: HashTable::new(),
            token: String::new(),
        }
    }

    /// The tokens of `text`, grouped.
    pub fn group(&mut self, text: &str) -> GroupedText {
        let mut grouped = Groups {
            grouped: GroupedText {
                text: (text.as_ptr() as usize, text.len()),
                ..GroupedText::default()
            },
            table: &mut self.table,
            positions: self.positions,
        };
        grouped.table.clear();
        match self.tokenizer {
            Tokenizer::Unicode61 => {
                let token = &mut self.token;
                let analyzer = &mut self.analyzer;
                // Every run takes a position, a dropped (too long) one too, as in the analyzer.
                let mut position = 0u32;
                for_each_run(text, token, |run, lowered| {
                    match lowered {
                        Some(lowered) if run.len() <= MAX_TOKEN_BYTES => {
                            grouped.add(lowered, position)
                        }
                        Some(_) => {}
                        None => {
                            // Rare: the analyzer itself lower-cases and folds a run with
                            // non-ASCII characters (one token, or none if it is too long).
                            let mut stream = analyzer.token_stream(run);
                            while let Some(token) = stream.next() {
                                grouped.add(&token.text, position);
                            }
                        }
                    }
                    position = position.wrapping_add(1);
                });
            }
            Tokenizer::Code => {
                let mut stream = self.analyzer.token_stream(text);
                while let Some(token) = stream.next() {
                    let position = u32::try_from(token.position).unwrap_or(u32::MAX);
                    grouped.add(&token.text, position);
                }
            }
        }
        grouped.grouped
    }
}

/// Calls `run` with every maximal run of alphanumeric characters of `text` (the cuts of
/// tantivy's `SimpleTokenizer`) and, if the run is all ASCII, the run lower-cased (made in
/// `lowered`). ASCII bytes are classified and lower-cased by one table lookup; other characters
/// are decoded and asked `char::is_alphanumeric`, as `SimpleTokenizer` asks.
fn for_each_run(text: &str, lowered: &mut String, mut run: impl FnMut(&str, Option<&str>)) {
    let bytes = text.as_bytes();
    let alphanumeric_at = |at: usize| -> (bool, usize) {
        let ch = text[at..]
            .chars()
            .next()
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        (ch.is_alphanumeric(), ch.len_utf8())
    };
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match ASCII_LOWERED[usize::from(byte)] {
            CUT => {
                at += 1;
                continue;
            }
            NOT_ASCII => {
                let (alphanumeric, width) = alphanumeric_at(at);
                if !alphanumeric {
                    at += width;
                    continue;
                }
            }
            _ => {}
        }
        let from = at;
        let mut ascii = true;
        lowered.clear();
        while let Some(&byte) = bytes.get(at) {
            match ASCII_LOWERED[usize::from(byte)] {
                CUT => break,
                NOT_ASCII => {
                    let (alphanumeric, width) = alphanumeric_at(at);
                    if !alphanumeric {
                        break;
                    }
                    ascii = false;
                    at += width;
                }
                lower => {
                    lowered.push(char::from(lower));
                    at += 1;
                }
            }
        }
        run(&text[from..at], ascii.then_some(lowered.as_str()));
    }
}

/// [`ASCII_LOWERED`]'s mark of an ASCII byte that is not alphanumeric.
const CUT: u8 = 0;
/// [`ASCII_LOWERED`]'s mark of a byte of a non-ASCII character.
const NOT_ASCII: u8 = 0x80;

/// For each byte: an ASCII alphanumeric byte lower-cased, [`CUT`] for another ASCII byte,
/// [`NOT_ASCII`] for the rest.
const ASCII_LOWERED: [u8; 256] = {
    let mut table = [NOT_ASCII; 256];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = if (byte as u8).is_ascii_alphanumeric() {
            (byte as u8).to_ascii_lowercase()
        } else {
            CUT
        };
        byte += 1;
    }
    table
};

/// A [`GroupedText`] being filled, with the table that finds its groups.
struct Groups<'t> {
    grouped: GroupedText,
    table: &'t mut HashTable<u32>,
    positions: bool,
}

impl Groups<'_> {
    fn add(&mut self, term: &str, position: u32) {
        let grouped = &mut self.grouped;
        grouped.tokens += 1;
        let hash = hash_of(term);
        let found = self
            .table
            .find(hash, |&group| grouped.term(group as usize) == term)
            .copied();
        let group = match found {
            Some(group) => {
                grouped.groups[group as usize].1 += 1;
                group
            }
            None => {
                // More distinct tokens than u32 counts would need a text of over 4 GB.
                let group = u32::try_from(grouped.groups.len()).unwrap_or(u32::MAX);
                grouped.terms.push_str(term);
                grouped.groups.push((grouped.terms.len(), 1));
                self.table
                    .insert_unique(hash, group, |&group| hash_of(grouped.term(group as usize)));
                group
            }
        };
        if self.positions {
            grouped.occurrences.push((group, position));
        }
    }
}

fn hash_of(term: &str) -> u64 {
    FxBuildHasher.hash_one(term)
}

/// The builder's tokenizer: replays the [`GroupedText`] offered for a text, or, for any text
/// nothing was offered for, runs the analyzer itself.
#[derive(Clone)]
pub struct Replay {
    offered: Arc<Mutex<Vec<GroupedText>>>,
    analyzer: TextAnalyzer,
}

impl Replay {
    /// A replaying tokenizer that falls back on `analyzer`.
    pub fn new(analyzer: TextAnalyzer) -> Replay {
        Replay {
            offered: Arc::default(),
            analyzer,
        }
    }

    /// Offers the grouped tokens of the next document's texts, in place of any offered before.
    pub fn offer(&self, texts: impl IntoIterator<Item = GroupedText>) {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        offered.clear();
        offered.extend(texts);
    }

    fn take(&self, text: &str) -> Option<GroupedText> {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        let at = offered.iter().position(|grouped| grouped.is_of(text))?;
        Some(offered.swap_remove(at))
    }
}

impl tantivy::tokenizer::Tokenizer for Replay {
    type TokenStream<'a> = ReplayStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> ReplayStream<'a> {
        match self.take(text) {
            Some(grouped) => ReplayStream::Grouped(GroupedStream {
                positions: grouped.positions_by_group(),
                emitted: 0,
                grouped,
                next_group: 0,
                left: 0,
                token: Token::default(),
            }),
            None => ReplayStream::Analyzed(self.analyzer.token_stream(text)),
        }
    }
}

/// The tokens [`Replay`] hands to the writer.
pub enum ReplayStream<'a> {
    /// A grouped text's tokens, each distinct one repeated its count times in a row.
    Grouped(GroupedStream),
    /// The analyzer's tokens, for a text nothing was offered for.
    Analyzed(BoxTokenStream<'a>),
}

/// Replays one [`GroupedText`].
pub struct GroupedStream {
    grouped: GroupedText,
    next_group: usize,
    /// How many more times the current token is handed over.
    left: u32,
    /// With positions: every token's, in the order handed over ([`GroupedText::positions_by_group`]).
    positions: Vec<u32>,
    /// How many tokens were handed over.
    emitted: usize,
    token: Token,
}

impl TokenStream for ReplayStream<'_> {
    fn advance(&mut self) -> bool {
        match self {
            ReplayStream::Grouped(stream) => stream.advance(),
            ReplayStream::Analyzed(stream) => stream.advance(),
        }
    }

    fn token(&self) -> &Token {
        match self {
            ReplayStream::Grouped(stream) => &stream.token,
            ReplayStream::Analyzed(stream) => stream.token(),
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match self {
            ReplayStream::Grouped(stream) => &mut stream.token,
            ReplayStream::Analyzed(stream) => stream.token_mut(),
        }
    }
}

impl GroupedStream {
    fn advance(&mut self) -> bool {
        if self.left == 0 {
            let Some(&(_, count)) = self.grouped.groups.get(self.next_group) else {
                return false;
            };
            self.token.text.clear();
            self.token.text.push_str(self.grouped.term(self.next_group));
            self.next_group += 1;
            self.left = count;
        }
        self.left -= 1;
        // Without recorded positions the index keeps none: any count will do.
        self.token.position = match self.positions.get(self.emitted) {
            Some(&position) => position as usize,
            None => self.token.position.wrapping_add(1),
        };
        self.emitted += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::fts::{analyzer, tokens_of};

    fn replayed(replay: &mut Replay, text: &str) -> Vec<String> {
        tokens_of(&mut TextAnalyzer::from(replay.clone()), text)
    }

    #[test]
    fn groups_equal_tokens_in_first_occurrence_order() {
        let text = "Foo bar_foo BAZ foo bar";
        let grouped = Grouper::new(Tokenizer::Unicode61, false).group(text);
        assert_eq!(grouped.tokens(), 6);
        let groups: Vec<(&str, u32)> = (0..grouped.groups.len())
            .map(|group| (grouped.term(group), grouped.groups[group].1))
            .collect();
        assert_eq!(groups, [("foo", 3), ("bar", 2), ("baz", 1)]);
        let mut replay = Replay::new(analyzer());
        replay.offer([grouped]);
        assert_eq!(
            replayed(&mut replay, text),
            ["foo", "foo", "foo", "bar", "bar", "baz"]
        );
    }

    #[test]
    fn a_text_nothing_was_offered_for_is_analyzed() {
        let (text, other) = ("alpha beta", String::from("alpha beta"));
        let mut replay = Replay::new(analyzer());
        replay.offer([Grouper::new(Tokenizer::Unicode61, false).group(text)]);
        // Equal, but another string: its own tokens, not the offered ones.
        assert_eq!(replayed(&mut replay, &other), ["alpha", "beta"]);
        assert_eq!(replayed(&mut replay, text), ["alpha", "beta"]);
        // Taken once: a second pass over the same text analyzes it.
        assert_eq!(replayed(&mut replay, text), ["alpha", "beta"]);
    }

    #[test]
    fn the_byte_table_lower_cases_ascii_alphanumerics_only() {
        for byte in 0u8..=255 {
            let expected = match byte {
                b if b.is_ascii_alphanumeric() => b.to_ascii_lowercase(),
                b if b.is_ascii() => CUT,
                _ => NOT_ASCII,
            };
            assert_eq!(ASCII_LOWERED[usize::from(byte)], expected, "{byte}");
        }
    }

    /// The tokens a grouped text stands for, sorted.
    fn expanded(grouped: &GroupedText) -> Vec<String> {
        let mut tokens: Vec<String> = (0..grouped.groups.len())
            .flat_map(|group| {
                let term = grouped.term(group).to_string();
                std::iter::repeat_n(term, grouped.groups[group].1 as usize)
            })
            .collect();
        tokens.sort();
        tokens
    }

    /// The `(token, position)` pairs `analyzer` makes of `text`, sorted.
    fn positioned(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut tokens = Vec::new();
        while let Some(token) = stream.next() {
            tokens.push((token.text.clone(), token.position));
        }
        tokens.sort();
        tokens
    }

    proptest::proptest! {
        #[test]
        fn grouped_tokens_are_the_analyzers_tokens(
            text in "([a-zA-Z0-9_ .:/(){}\\-]|É|é|ß|İ|ﬁ|日本|\u{0301}|\u{0663}|\n){0,80}",
            long in 250usize..260,
        ) {
            let padded = format!("{text} {}é {text}{}", "X".repeat(long), "é".repeat(long / 2));
            for tokenizer in Tokenizer::ALL {
                let mut grouper = Grouper::new(tokenizer, true);
                for sample in [text.as_str(), padded.as_str()] {
                    let grouped = grouper.group(sample);
                    let mut analyzed = tokens_of(&mut tokenizer.analyzer(), sample);
                    analyzed.sort();
                    proptest::prop_assert_eq!(grouped.tokens(), analyzed.len() as u64);
                    proptest::prop_assert_eq!(expanded(&grouped), analyzed, "{:?}", sample);
                    // Replayed with positions: each token at the analyzer's position.
                    let replay = Replay::new(tokenizer.analyzer());
                    replay.offer([grouper.group(sample)]);
                    let replayed = positioned(&mut TextAnalyzer::from(replay), sample);
                    let analyzed = positioned(&mut tokenizer.analyzer(), sample);
                    proptest::prop_assert_eq!(replayed, analyzed, "{:?}", sample);
                }
            }
        }
    }
}
