//! Every setting a view depends on, as parts that each read and write their own URL keys: the
//! page's (`page`), those several views share (`shared`, `fusion`, `metric_tables`, and the
//! packer's in `crate::packing::params`), and each view's own in its `views/<view>/params.rs`.
//! The permalink ([`crate::permalink`]) loops over [`Settings::parts`]; a view's new setting is a
//! field, a key in its part's `keys`, `write` and `read`, all in the view's `params.rs`.
//!
//! Settings are held in a `reactive_stores::Store`, one nested store per part, so a view that
//! reads one field (say `k`) re-renders only when that field changes, while the permalink reads
//! the whole struct and is rewritten on any change.

pub mod fusion;
pub mod metric_tables;
pub mod page;
pub mod part;
pub mod shared;

use reactive_stores::Store;

use crate::packing::params::PackParams;
use crate::views::chunks::params::ChunksParams;
use crate::views::context::params::ContextParams;
use crate::views::evaluate::params::EvaluateParams;
use crate::views::rerank::params::RerankParams;
use crate::views::route::params::RouteParams;
use crate::views::scores::params::ScoresParams;
use crate::views::search::params::SearchParams;
use crate::views::study::params::StudyViewParams;
use fusion::FusionParams;
use metric_tables::MetricTableParams;
use page::PageParams;
use part::Params;
use shared::SharedParams;

/// Every setting, part by part; all of them are in the permalink. Defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct Settings {
    /// The study and the view shown.
    pub page: PageParams,
    /// The keys several views read: k, bootstrap, bundle, question, chunking, the API's base.
    pub shared: SharedParams,
    /// The reader's fusions, added to the study every view sees.
    pub fusion: FusionParams,
    /// The metric tables' clustering, metrics, relevance and one view metric.
    pub metric_tables: MetricTableParams,
    /// The packer's budget, radius and anchors (the Context view and the line level).
    pub packing: PackParams,
    /// The study views' own: Table 2's k, the paired comparison, chosen arms, the open case.
    pub study_views: StudyViewParams,
    /// A score table's frame, metric and pairs.
    pub scores: ScoresParams,
    /// The Search view's fused arms.
    pub search: SearchParams,
    /// The Context view's arms.
    pub context: ContextParams,
    /// The Route view's strategy, decider, model and caps.
    pub route: RouteParams,
    /// The Chunks view's file and cap.
    pub chunks: ChunksParams,
    /// The Evaluate view's grid.
    pub evaluate: EvaluateParams,
    /// The Rerank view's pool, reranker, planner and judge.
    pub rerank: RerankParams,
}

impl Settings {
    /// Every part, in the order the link shows them.
    pub fn parts(&self) -> [&dyn Params; 13] {
        [
            &self.page,
            &self.shared,
            &self.fusion,
            &self.metric_tables,
            &self.packing,
            &self.study_views,
            &self.scores,
            &self.search,
            &self.context,
            &self.route,
            &self.chunks,
            &self.evaluate,
            &self.rerank,
        ]
    }

    /// [`Settings::parts`], to read into.
    pub fn parts_mut(&mut self) -> [&mut dyn Params; 13] {
        [
            &mut self.page,
            &mut self.shared,
            &mut self.fusion,
            &mut self.metric_tables,
            &mut self.packing,
            &mut self.study_views,
            &mut self.scores,
            &mut self.search,
            &mut self.context,
            &mut self.route,
            &mut self.chunks,
            &mut self.evaluate,
            &mut self.rerank,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use part::Claim;

    /// The permalink hands a key to the part that lists it, so no key may be listed twice; and
    /// each part reads the keys it lists and no other part's (with a value, "x", that no part
    /// ignores as empty).
    #[test]
    fn no_key_is_claimed_twice() {
        let mut settings = Settings::default();
        let listed: Vec<(usize, &str)> = settings
            .parts()
            .iter()
            .enumerate()
            .flat_map(|(index, part)| part.keys().iter().map(move |key| (index, *key)))
            .collect();
        let mut keys: Vec<&str> = listed.iter().map(|(_, key)| *key).collect();
        keys.sort();
        let count = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), count, "a key is listed twice: {keys:?}");
        for (owner, key) in &listed {
            let readers: Vec<usize> = settings
                .parts_mut()
                .into_iter()
                .enumerate()
                .filter_map(|(index, part)| {
                    (part.read(key, "x") != Claim::Unknown).then_some(index)
                })
                .collect();
            assert_eq!(readers, [*owner], "{key}");
        }
    }
}
