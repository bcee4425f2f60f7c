//! Floor 4: scoring. Numbers from a study: ranking metrics ([`metrics`], [`unit_metrics`]),
//! reciprocal-rank fusion ([`fusion`]), the bootstrap and exact tests ([`stats`]), paired
//! comparisons ([`paired`]), the command line's report ([`report`]), the paper's tables
//! ([`tables`]), any metric with intervals ([`metric_tables`]), per-case score tables
//! ([`score_table`]) and two labellers' agreement ([`agreement`]) with its text
//! ([`agreement_text`]).

pub mod agreement;
pub mod agreement_text;
pub mod case_list;
pub mod fusion;
pub mod metric_tables;
pub mod metrics;
pub mod numpy_bootstrap;
pub mod paired;
pub mod report;
pub mod score_table;
pub mod stats;
pub mod tables;
pub mod unit_metrics;
