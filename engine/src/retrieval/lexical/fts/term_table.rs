//! Every term of a segment's text fields in a hash table, read once when the index is opened.
//!
//! The index's term dictionary is tantivy's sstable, chosen because it is written in half the
//! time of its FST. But an sstable lookup decodes a block of keys up to the one sought, and an
//! `fts5` query looks up every issue token in two fields: on the demo corpus a query's median
//! rose from 0.11 ms (FST) to 0.43 ms, nearly all of it in those block scans. Reading the
//! dictionary once, in order, into a hash table makes each lookup one probe again.

use std::io;

use rustc_hash::FxHashMap;
use tantivy::postings::{SegmentPostings, TermInfo};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{InvertedIndexReader, SegmentReader, Term};

/// One field's terms (their bytes as the dictionary keys them) and where their postings are.
type FieldTerms = FxHashMap<Box<[u8]>, TermInfo>;

/// One segment's terms, per text field.
pub(super) struct TermTable {
    fields: Vec<(Field, FieldTerms)>,
}

impl TermTable {
    /// Reads the terms of `fields` in `segment`.
    pub(super) fn read(segment: &SegmentReader, fields: &[Field]) -> tantivy::Result<TermTable> {
        let mut tables = Vec::with_capacity(fields.len());
        for &field in fields {
            let inverted = segment.inverted_index(field)?;
            let dictionary = inverted.terms();
            let mut terms = FxHashMap::default();
            terms.reserve(dictionary.num_terms());
            let mut stream = dictionary.stream()?;
            while stream.advance() {
                terms.insert(Box::from(stream.key()), stream.value().clone());
            }
            tables.push((field, terms));
        }
        Ok(TermTable { fields: tables })
    }

    /// The postings of `token` in `field` (read from `inverted`, that field's index in this
    /// segment), or `None` if no file holds it there.
    pub(super) fn postings(
        &self,
        inverted: &InvertedIndexReader,
        field: Field,
        token: &str,
        option: IndexRecordOption,
    ) -> io::Result<Option<SegmentPostings>> {
        let term = Term::from_field_text(field, token);
        let info = self
            .fields
            .iter()
            .find(|(table_field, _)| *table_field == field)
            .and_then(|(_, terms)| terms.get(term.serialized_value_bytes()));
        info.map(|info| inverted.read_postings_from_terminfo(info, option))
            .transpose()
    }
}
