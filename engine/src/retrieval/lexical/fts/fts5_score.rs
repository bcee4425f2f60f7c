//! FTS5's `bm25()` computed from the index's postings and exact token counts: the default
//! [`Scoring::Fts5`](super::Scoring::Fts5).

use tantivy::postings::{Postings, SegmentPostings};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, TERMINATED};

use super::fts5_rank::fts5_rank;
use super::{index_error, FtsIndex, CONTENT_TOKENS, FILE_ID, INDEX_NAME, PATH_TOKENS};
use crate::error::Result;

impl FtsIndex {
    /// The `k` best files by FTS5's `bm25()` (see [`Scoring::Fts5`]) over the query's phrases
    /// (each a list of tokens, matched adjacent within one column), every file holding at least
    /// one phrase scored, ties by path.
    ///
    /// This loop is the query's cost, so it allocates per query, not per matching file: the
    /// frequencies sit in one flat vector, a row per matching file, found through a per-document
    /// slot; scores are ranked as `(score, file id)` and only the `k` kept get their path. A file's
    /// id is its position in the path-sorted list the index was built over ([`FtsIndex::open`]
    /// checks the list), so ordering ties by id orders them by path.
    pub(super) fn fts5_top(
        &self,
        phrases: &[Vec<String>],
        columns: &[(Field, Score)],
        k: usize,
    ) -> Result<Vec<(String, f64)>> {
        let err = |error: tantivy::TantivyError| index_error(INDEX_NAME, error);
        let io_err = |error: std::io::Error| index_error(INDEX_NAME, error);
        let with_content = columns
            .iter()
            .any(|&(field, _)| field == self.fields.content);
        let width = phrases.len();
        // Per matching file: its id and row length D; and `width` weighted frequencies each.
        let mut files: Vec<(u64, f64)> = Vec::new();
        let mut freqs: Vec<f64> = Vec::new();
        for (segment, terms) in self
            .searcher
            .segment_readers()
            .iter()
            .zip(self.term_tables.iter())
        {
            let first_row = files.len();
            let mut slot = vec![u32::MAX; segment.max_doc() as usize];
            let mut matched: Vec<DocId> = Vec::new();
            for (index, phrase) in phrases.iter().enumerate() {
                for &(field, weight) in columns {
                    let inverted = segment.inverted_index(field).map_err(err)?;
                    let mut count = |doc: DocId, freq: u32| {
                        let row = &mut slot[doc as usize];
                        if *row == u32::MAX {
                            *row = (first_row + matched.len()) as u32;
                            matched.push(doc);
                            freqs.resize(freqs.len() + width, 0.0);
                        }
                        freqs[*row as usize * width + index] += f64::from(weight) * f64::from(freq);
                    };
                    if let [token] = phrase.as_slice() {
                        let Some(mut postings) = terms
                            .postings(&inverted, field, token, IndexRecordOption::WithFreqs)
                            .map_err(io_err)?
                        else {
                            continue;
                        };
                        let mut doc = postings.doc();
                        while doc != TERMINATED {
                            count(doc, postings.term_freq());
                            doc = postings.advance();
                        }
                        continue;
                    }
                    let mut postings = Vec::with_capacity(phrase.len());
                    for token in phrase {
                        match terms
                            .postings(
                                &inverted,
                                field,
                                token,
                                IndexRecordOption::WithFreqsAndPositions,
                            )
                            .map_err(io_err)?
                        {
                            Some(found) => postings.push(found),
                            None => break,
                        }
                    }
                    if postings.len() == phrase.len() {
                        for_each_phrase_match(&mut postings, &mut count);
                    }
                }
            }
            let fast = segment.fast_fields();
            let file_ids = fast.u64(FILE_ID).map_err(err)?;
            let path_tokens = fast.u64(PATH_TOKENS).map_err(err)?;
            let content_tokens = fast.u64(CONTENT_TOKENS).map_err(err)?;
            for &doc in &matched {
                let mut length = path_tokens.first(doc).unwrap_or(0);
                if with_content {
                    length += content_tokens.first(doc).unwrap_or(0);
                }
                // A document without an id cannot be named; its row stays and scores nothing.
                files.push((file_ids.first(doc).unwrap_or(u64::MAX), length as f64));
            }
        }
        let total = self.path_tokens_total
            + if with_content {
                self.content_tokens_total
            } else {
                0.0
            };
        let ranked = fts5_rank(self.paths.len(), total, &files, &freqs, width, k);
        Ok(ranked
            .into_iter()
            .map(|(score, file_id)| (self.paths[file_id as usize].clone(), score))
            .collect())
    }
}

/// Calls `count(doc, n)` for every document where the tokens of `postings` (one per token of a
/// phrase, each with positions) occur `n > 0` times one after another: a position `p` of the
/// first token with the second at `p + 1`, and so on. Hand-written because tantivy's
/// `PhraseQuery` scores with its own BM25 and does not hand out the phrase counts FTS5's
/// formula needs.
fn for_each_phrase_match(postings: &mut [SegmentPostings], count: &mut impl FnMut(DocId, u32)) {
    let Some((first, rest)) = postings.split_first_mut() else {
        return;
    };
    let mut starts: Vec<u32> = Vec::new();
    let mut others: Vec<u32> = Vec::new();
    let mut doc = first.doc();
    'docs: while doc != TERMINATED {
        for other in rest.iter_mut() {
            // A posting list may already stand past `doc` (a seek for an earlier one overshot).
            let found = if other.doc() >= doc {
                other.doc()
            } else {
                other.seek(doc)
            };
            if found != doc {
                doc = first.seek(found);
                continue 'docs;
            }
        }
        first.positions(&mut starts);
        for (offset, other) in (1u32..).zip(rest.iter_mut()) {
            other.positions(&mut others);
            starts.retain(|&start| {
                start
                    .checked_add(offset)
                    .is_some_and(|next| others.binary_search(&next).is_ok())
            });
            if starts.is_empty() {
                break;
            }
        }
        if !starts.is_empty() {
            count(doc, starts.len() as u32);
        }
        doc = first.advance();
    }
}
