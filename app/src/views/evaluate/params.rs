//! The Evaluate view's grid settings, each written only when not the default (CodeAtlas's):
//! `chunkers=structural,window`, `retrievers=bm25,hybrid`, `caps=1,2`, `capped=hybrid`,
//! `rerankers=cross-encoder:text,cross-encoder:prefixed`, `rtop=30`, `eks=1,5,10`,
//! `select=ndcg@10`, `edepth=100`, `ecluster=case|project` and `gold2=URL` (a second question set
//! of the same questions, the adjudicated gold: the grid scored against both, side by side). The cross-encoder itself is the
//! shared `xmodel` and `xname`. Its bootstrap is the shared `resamples` and `seed`, its bundle the
//! shared `bundle` (`crate::params`).

use reactive_stores::Store;
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::evaluate::GridSettings;
use routelens_engine::retrieval::chunk_search::Retriever;
use routelens_engine::retrieval::cross_encoder::{RerankInput, DEFAULT_RERANK_TOP};
use routelens_engine::scoring::unit_metrics::{Clustering, Metric};

use crate::params::part::{list, positive, set, Claim, Params};

/// The Evaluate view's part of the settings: the grid. Defaults are CodeAtlas's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct EvaluateParams {
    /// The chunkings (default empty: every one the bundle has).
    pub chunkers: Vec<Chunker>,
    /// The rankers (default empty: bm25, dense and hybrid when every chunking evaluated stores
    /// vectors, else bm25, as `routelens evaluate`).
    pub retrievers: Vec<Retriever>,
    /// Per-file caps beside each uncapped ranking (default none).
    pub caps: Vec<usize>,
    /// The retrievers the caps apply to (default empty: every one).
    pub capped: Vec<Retriever>,
    /// Cross-encoder rows over hybrid (default none).
    pub rerankers: Vec<RerankInput>,
    /// How many of hybrid's head they reorder (default 30, CodeAtlas's).
    pub rerank_top: usize,
    /// Cut-offs of the default metrics (default 1, 5, 10).
    pub k: Vec<usize>,
    /// The metric the dev half chooses caps by (default ndcg@10).
    pub select_by: String,
    /// Chunks scored per ranking (default 100).
    pub depth: usize,
    /// What intervals resample (default single questions, as CodeAtlas).
    pub cluster: Clustering,
    /// A second gold's question set URL (default none).
    pub gold2: String,
}

impl Default for EvaluateParams {
    fn default() -> Self {
        let engine = GridSettings::default();
        EvaluateParams {
            chunkers: engine.chunkers,
            retrievers: Vec::new(),
            caps: engine.caps,
            capped: engine.capped,
            rerankers: engine.rerankers,
            rerank_top: DEFAULT_RERANK_TOP,
            k: engine.k,
            select_by: engine.select_by,
            depth: engine.depth,
            cluster: engine.clustering,
            gold2: String::new(),
        }
    }
}

impl EvaluateParams {
    /// The engine's settings, with the page's bootstrap (the retrievers as chosen: empty when
    /// the bundle decides).
    pub fn settings(&self, resamples: usize, seed: u64) -> GridSettings {
        GridSettings {
            chunkers: self.chunkers.clone(),
            retrievers: self.retrievers.clone(),
            caps: self.caps.clone(),
            capped: self.capped.clone(),
            rerankers: self.rerankers.clone(),
            rerank_top: self.rerank_top,
            k: self.k.clone(),
            select_by: self.select_by.clone(),
            depth: self.depth,
            clustering: self.cluster,
            resamples,
            seed,
            ..GridSettings::default()
        }
    }
}

/// Whole numbers joined by commas.
fn numbers(values: &[usize]) -> String {
    values
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl Params for EvaluateParams {
    fn keys(&self) -> &'static [&'static str] {
        &[
            "chunkers",
            "retrievers",
            "caps",
            "capped",
            "rerankers",
            "rtop",
            "eks",
            "select",
            "edepth",
            "ecluster",
            "gold2",
        ]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        let defaults = EvaluateParams::default();
        if self.chunkers != defaults.chunkers {
            let names: Vec<&str> = self.chunkers.iter().map(|c| c.name()).collect();
            pairs.push(("chunkers", names.join(",")));
        }
        if self.retrievers != defaults.retrievers {
            let names: Vec<&str> = self.retrievers.iter().map(|r| r.name()).collect();
            pairs.push(("retrievers", names.join(",")));
        }
        if self.caps != defaults.caps {
            pairs.push(("caps", numbers(&self.caps)));
        }
        if self.capped != defaults.capped {
            let names: Vec<&str> = self.capped.iter().map(|r| r.name()).collect();
            pairs.push(("capped", names.join(",")));
        }
        if self.rerankers != defaults.rerankers {
            let names: Vec<&str> = self.rerankers.iter().map(|r| r.name()).collect();
            pairs.push(("rerankers", names.join(",")));
        }
        if self.rerank_top != defaults.rerank_top {
            pairs.push(("rtop", self.rerank_top.to_string()));
        }
        if self.k != defaults.k {
            pairs.push(("eks", numbers(&self.k)));
        }
        if self.select_by != defaults.select_by {
            pairs.push(("select", self.select_by.clone()));
        }
        if self.depth != defaults.depth {
            pairs.push(("edepth", self.depth.to_string()));
        }
        if self.cluster != defaults.cluster {
            pairs.push((
                "ecluster",
                match self.cluster {
                    Clustering::Repo => "project",
                    Clustering::Case => "case",
                }
                .into(),
            ));
        }
        if !self.gold2.is_empty() {
            pairs.push(("gold2", self.gold2.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        let numbers = || {
            list(value)
                .iter()
                .map(|n| positive(n))
                .collect::<Result<Vec<_>, _>>()
        };
        match key {
            "chunkers" => set(
                &mut self.chunkers,
                list(value)
                    .iter()
                    .map(|name| Chunker::from_name(name).ok_or(name))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|name| format!("{name:?} is not a chunker")),
            ),
            "retrievers" => set(
                &mut self.retrievers,
                list(value)
                    .iter()
                    .map(|name| Retriever::from_name(name).ok_or(name))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|name| format!("{name:?} is not a retriever (bm25, dense, hybrid)")),
            ),
            "caps" => set(&mut self.caps, numbers()),
            "capped" => set(
                &mut self.capped,
                list(value)
                    .iter()
                    .map(|name| Retriever::from_name(name).ok_or(name))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|name| format!("{name:?} is not a retriever (bm25, dense, hybrid)")),
            ),
            "rerankers" => set(
                &mut self.rerankers,
                list(value)
                    .iter()
                    .map(|name| RerankInput::from_name(name).ok_or(name))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|name| {
                        format!(
                            "{name:?} is not a reranker (cross-encoder:text, \
                             cross-encoder:prefixed)"
                        )
                    }),
            ),
            "rtop" => set(&mut self.rerank_top, positive(value)),
            "eks" => match numbers() {
                Ok(numbers) if numbers.is_empty() => {
                    Claim::Refused("expected at least one cut-off".into())
                }
                parsed => set(&mut self.k, parsed),
            },
            "select" => set(
                &mut self.select_by,
                Metric::parse(value)
                    .map(|metric| metric.name())
                    .map_err(|err| err.to_string()),
            ),
            "edepth" => set(&mut self.depth, positive(value)),
            "ecluster" => match value {
                "case" => set(&mut self.cluster, Ok(Clustering::Case)),
                "project" => set(&mut self.cluster, Ok(Clustering::Repo)),
                _ => Claim::Refused("expected case or project".into()),
            },
            "gold2" => set(&mut self.gold2, Ok(value.to_string())),
            _ => Claim::Unknown,
        }
    }
}
