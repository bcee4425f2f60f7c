//! The issue's query terms, indexed for the selector's per-token look-up: a hash map from term
//! bytes to a term number, fronted by a first-byte/length bit set that turns most tokens away
//! without hashing.

use crate::stable_sort;
use rustc_hash::FxHashMap;

use crate::terms::extract_terms;

/// The issue's query terms, ready for scoring lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerms {
    pub(super) terms: Vec<String>,
    index: FxHashMap<Vec<u8>, u32>,
    /// `lengths[b]` has bit `min(len, 63)` set when a term of that length starts with byte `b`:
    /// most tokens are turned away by one look-up, without hashing.
    lengths: Box<[u64; 256]>,
}

impl QueryTerms {
    /// The terms of the full issue text ([`extract_terms`]).
    pub fn from_issue(issue_text: &str) -> Self {
        Self::from_terms(extract_terms(issue_text))
    }

    /// Terms given directly. A line token matches a term when they are equal, so only lower-case
    /// `[a-z0-9_]+` terms can ever match; duplicates count once.
    pub fn from_terms(mut terms: Vec<String>) -> Self {
        stable_sort::sort(&mut terms);
        terms.dedup();
        let index = terms
            .iter()
            .enumerate()
            .map(|(i, term)| (term.as_bytes().to_vec(), i as u32))
            .collect();
        let mut lengths = Box::new([0u64; 256]);
        for term in &terms {
            if let Some(&first) = term.as_bytes().first() {
                lengths[usize::from(first)] |= length_bit(term.len());
            }
        }
        QueryTerms {
            terms,
            index,
            lengths,
        }
    }

    /// The terms, sorted.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether there are no terms (every file is then offered whole).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether some term starts with `first` and is `len` bytes long (or both are at least 63).
    pub(super) fn may_match(&self, first: u8, len: usize) -> bool {
        self.lengths[usize::from(first)] & length_bit(len) != 0
    }

    pub(super) fn lookup(&self, token: &[u8]) -> Option<u32> {
        let &first = token.first()?;
        if !self.may_match(first, token.len()) {
            return None;
        }
        self.index.get(token).copied()
    }
}

fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}
