//! The BM25 arms over a split index: which packs a query needs, and its ranking from them.

use super::index::{PackFile, SplitIndex};
use super::layout::{key, Posting};
use crate::error::Result;
use crate::retrieval::lexical::fts::fts5_rank::fts5_rank;
use crate::retrieval::lexical::fts::{query_phrases, CONTENT_BOOST, PATH_BOOST};
use crate::retrieval::lexical::{ArmOutput, LexicalArm};
use crate::stable_sort;
use crate::terms::{extract_terms, first_chars, FIRST_CHARS};

/// The path column's letter in a key.
const PATH: u8 = b'p';
/// The content column's letter in a key.
const CONTENT: u8 = b'c';

/// What an arm searches: its query terms and the columns with their weights.
fn query(arm: LexicalArm, issue: &str) -> (Vec<String>, &'static [(u8, f64)]) {
    const BOTH: &[(u8, f64)] = &[(PATH, PATH_BOOST as f64), (CONTENT, CONTENT_BOOST as f64)];
    const PATH_ONLY: &[(u8, f64)] = &[(PATH, 1.0)];
    match arm {
        LexicalArm::Fts5Full => (extract_terms(issue), BOTH),
        LexicalArm::PathFts5 => (extract_terms(first_chars(issue, FIRST_CHARS)), PATH_ONLY),
        _ => (extract_terms(first_chars(issue, FIRST_CHARS)), BOTH),
    }
}

impl SplitIndex {
    /// The files `arm` reads for `issue` as far as the pages added tell, each once, sorted by
    /// name: for a one-token term the postings table's page and pack in each column searched,
    /// for a phrase its tokens' positions pages and packs. Once the pages named are added, the
    /// list is complete. `arm` is one of the BM25 arms (any other is read as `fts5`).
    pub fn files_for(&self, arm: LexicalArm, issue: &str) -> Vec<PackFile> {
        let (terms, columns) = query(arm, issue);
        let mut files = Vec::new();
        for phrase in query_phrases(self.spec, &terms) {
            let positions = phrase.len() > 1;
            for &(column, _) in columns {
                for token in &phrase {
                    self.files_of(positions, &key(column, token), &mut files);
                }
            }
        }
        stable_sort::by(&mut files, |a: &PackFile, b| a.file.cmp(&b.file));
        files.dedup();
        files
    }

    /// The files of [`SplitIndex::files_for`] not added yet: the next round to fetch (pages
    /// first, then the packs they name); empty once the search can run.
    pub fn missing_files(&self, arm: LexicalArm, issue: &str) -> Vec<PackFile> {
        let mut files = self.files_for(arm, issue);
        files.retain(|file| !self.has_file(&file.file));
        files
    }

    /// `fts5`: path and content, terms of the first 500 characters; top `k`.
    pub fn fts5(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        self.search(LexicalArm::Fts5, issue, k)
    }

    /// `fts5-full`: path and content, terms of the whole issue; top `k`.
    pub fn fts5_full(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        self.search(LexicalArm::Fts5Full, issue, k)
    }

    /// `path-fts5`: the path alone, terms of the first 500 characters; top `k`.
    pub fn path_fts5(&self, issue: &str, k: usize) -> Result<ArmOutput> {
        self.search(LexicalArm::PathFts5, issue, k)
    }

    /// FTS5's `bm25()` as the whole index computes it (see [`super::super::Scoring::Fts5`]),
    /// counted from the packs; an error names a needed pack not yet added.
    fn search(&self, arm: LexicalArm, issue: &str, k: usize) -> Result<ArmOutput> {
        let (terms, columns) = query(arm, issue);
        let phrases = query_phrases(self.spec, &terms);
        let width = phrases.len();
        let mut slot = vec![u32::MAX; self.paths.len()];
        let mut matched: Vec<u32> = Vec::new();
        let mut freqs: Vec<f64> = Vec::new();
        for (index, phrase) in phrases.iter().enumerate() {
            for &(column, weight) in columns {
                let mut count = |doc: u32, freq: u32| {
                    let row = &mut slot[doc as usize];
                    if *row == u32::MAX {
                        *row = matched.len() as u32;
                        matched.push(doc);
                        freqs.resize(freqs.len() + width, 0.0);
                    }
                    freqs[*row as usize * width + index] += weight * f64::from(freq);
                };
                if let [token] = phrase.as_slice() {
                    for posting in self.postings.list(&key(column, token))?.unwrap_or_default() {
                        count(posting.doc, posting.tf);
                    }
                    continue;
                }
                let mut lists = Vec::with_capacity(phrase.len());
                for token in phrase {
                    match self.positions.list(&key(column, token))? {
                        Some(list) => lists.push(list),
                        None => break,
                    }
                }
                if lists.len() == phrase.len() {
                    for_each_phrase_match(&lists, &mut count);
                }
            }
        }
        let with_content = columns.iter().any(|&(column, _)| column == CONTENT);
        let files: Vec<(u64, f64)> = matched
            .iter()
            .map(|&doc| {
                let [path, content] = self.lengths[doc as usize];
                let length = if with_content { path + content } else { path };
                (u64::from(doc), length as f64)
            })
            .collect();
        let total = self.totals[0] + if with_content { self.totals[1] } else { 0.0 };
        let ranked = fts5_rank(self.paths.len(), total, &files, &freqs, width, k);
        let results = ranked
            .into_iter()
            .map(|(score, doc)| (self.paths[doc as usize].clone(), score))
            .collect();
        Ok(ArmOutput::new(terms, results))
    }
}

/// Calls `count(doc, n)` for every file where the phrase's tokens (one list each, with
/// positions) occur `n > 0` times one after another, as the whole index counts a phrase.
fn for_each_phrase_match(lists: &[&[Posting]], count: &mut impl FnMut(u32, u32)) {
    let Some((first, rest)) = lists.split_first() else {
        return;
    };
    let mut cursors = vec![0usize; rest.len()];
    'docs: for posting in *first {
        let mut others = Vec::with_capacity(rest.len());
        for (list, cursor) in rest.iter().zip(&mut cursors) {
            *cursor += list[*cursor..].partition_point(|other| other.doc < posting.doc);
            match list.get(*cursor) {
                Some(other) if other.doc == posting.doc => others.push(&other.positions),
                _ => continue 'docs,
            }
        }
        let matches = posting
            .positions
            .iter()
            .filter(|&&start| {
                (1u32..).zip(&others).all(|(offset, positions)| {
                    start
                        .checked_add(offset)
                        .is_some_and(|next| positions.binary_search(&next).is_ok())
                })
            })
            .count();
        if matches > 0 {
            count(posting.doc, matches as u32);
        }
    }
}
