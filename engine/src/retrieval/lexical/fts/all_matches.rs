//! The collector behind [`Scoring::Tantivy`](super::Scoring::Tantivy): every match, not a top k.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// Collects every matching document's file id (read from the fast field it names) and score, so
/// ties at the cut-off are broken by path, not by tantivy's document order.
pub(super) struct AllMatches {
    /// The fast field holding each document's file id.
    pub file_id_field: &'static str,
}

/// One segment's matches, as `(file id, score)`.
pub(super) struct SegmentMatches {
    file_ids: Column<u64>,
    hits: Vec<(u64, Score)>,
}

impl Collector for AllMatches {
    type Fruit = Vec<(u64, Score)>;
    type Child = SegmentMatches;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentMatches> {
        Ok(SegmentMatches {
            file_ids: reader.fast_fields().u64(self.file_id_field)?,
            hits: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(u64, Score)>>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.concat())
    }
}

impl SegmentCollector for SegmentMatches {
    type Fruit = Vec<(u64, Score)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(file_id) = self.file_ids.first(doc) {
            self.hits.push((file_id, score));
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.hits
    }
}
