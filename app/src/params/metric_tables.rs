//! The metric tables' settings, shared by the study views (through the metric controls) and a
//! score table's view. Keys, each written only when set: `cluster=repo|case` (what intervals
//! resample), `metrics=<name>,…` (the metric table beside Table 2), `relevance=file|span` and
//! `vmetric=<name>` (the one metric of the single-metric views).

use reactive_stores::Store;
use routelens_engine::scoring::metric_tables::relevance_name;
use routelens_engine::scoring::unit_metrics::{Metric, Relevance};

use super::part::{list, set, Claim, Params};

/// What a bootstrap resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClusterBy {
    /// Whole clusters (the table's cluster column: repositories).
    #[default]
    Repo,
    /// Single cases.
    Case,
}

/// The metric tables' part of the settings.
#[derive(Debug, Clone, PartialEq, Default, Store)]
pub struct MetricTableParams {
    /// What every interval resamples, in a score table and in a study of rankings (default
    /// whole clusters: repositories).
    pub cluster: ClusterBy,
    /// The metrics of the metric table beside Table 2, by name (default empty: the engine's
    /// `metric_tables::default_metrics` for the study).
    pub metrics: Vec<String>,
    /// When a ranked unit is relevant (default none: by span for a span study, else by file).
    pub relevance: Option<Relevance>,
    /// The one metric of the per-repository, subgroup, paired and per-case views' interval
    /// tables (default none: file recall at k, the paper's).
    pub view_metric: Option<String>,
}

impl Params for MetricTableParams {
    fn keys(&self) -> &'static [&'static str] {
        &["cluster", "metrics", "relevance", "vmetric"]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        if self.cluster == ClusterBy::Case {
            pairs.push(("cluster", "case".into()));
        }
        if !self.metrics.is_empty() {
            pairs.push(("metrics", self.metrics.join(",")));
        }
        if let Some(relevance) = self.relevance {
            pairs.push(("relevance", relevance_name(relevance).into()));
        }
        if let Some(metric) = &self.view_metric {
            pairs.push(("vmetric", metric.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "cluster" => match value {
                "repo" => set(&mut self.cluster, Ok(ClusterBy::Repo)),
                "case" => set(&mut self.cluster, Ok(ClusterBy::Case)),
                _ => Claim::Refused("expected repo or case".into()),
            },
            "metrics" => set(
                &mut self.metrics,
                list(value)
                    .iter()
                    .map(|name| Metric::parse(name).map(|m| m.name()))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|err| err.to_string()),
            ),
            "relevance" => match value {
                "file" => set(&mut self.relevance, Ok(Some(Relevance::File))),
                "span" => set(&mut self.relevance, Ok(Some(Relevance::Span))),
                _ => Claim::Refused("expected file or span".into()),
            },
            "vmetric" => set(
                &mut self.view_metric,
                Metric::parse(value)
                    .map(|metric| Some(metric.name()))
                    .map_err(|err| err.to_string()),
            ),
            _ => Claim::Unknown,
        }
    }
}
