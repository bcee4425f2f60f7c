//! The controls of the metric tables: what intervals resample, when a unit is relevant, the
//! metric list beside Table 2 and the one metric of the single-metric views. Every choice is a
//! setting (`crate::params::metric_tables`), so it is in the permalink; the views read the
//! choices through the store's readers here, beside the controls that set them.

use leptos::prelude::*;
use routelens_engine::scoring::metric_tables::{self, MetricSetup};
use routelens_engine::scoring::unit_metrics::{Clustering, Metric, Relevance};
use routelens_engine::{BootstrapConfig, Study};

use crate::params::metric_tables::{ClusterBy, MetricTableParamsStoreFields};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

impl AppState {
    /// The metrics of the metric table (tracked): the reader's, else the study's defaults. The
    /// names in the settings were checked when they were set.
    pub fn metrics(&self, study: &Study) -> Vec<Metric> {
        let names = self.settings.metric_tables().metrics().get();
        if names.is_empty() {
            return metric_tables::default_metrics(study);
        }
        names.iter().filter_map(|n| Metric::parse(n).ok()).collect()
    }

    /// The metric of the single-metric views (tracked): the reader's, else file recall at k.
    pub fn view_metric(&self) -> Metric {
        self.settings
            .metric_tables()
            .view_metric()
            .get()
            .and_then(|name| Metric::parse(&name).ok())
            .unwrap_or_else(|| Metric::FileRecall(self.settings.shared().k().get()))
    }

    /// Relevance, clustering and bootstrap of the metric tables (tracked).
    pub fn metric_setup(&self, study: &Study) -> MetricSetup {
        let (tables, shared) = (self.settings.metric_tables(), self.settings.shared());
        MetricSetup {
            relevance: tables
                .relevance()
                .get()
                .unwrap_or_else(|| metric_tables::default_relevance(study)),
            clustering: match tables.cluster().get() {
                ClusterBy::Repo => Clustering::Repo,
                ClusterBy::Case => Clustering::Case,
            },
            bootstrap: BootstrapConfig {
                resamples: shared.resamples().get(),
                seed: shared.seed().get(),
            },
        }
    }
}

/// What every interval resamples: whole repositories or single cases.
#[component]
pub fn ClusterSelect(
    /// The select's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    let cluster = AppState::get().settings.metric_tables().cluster();
    view! {
        <label class="control">
            "resample "
            <select
                data-testid=testid
                on:change=move |ev| {
                    cluster
                        .set(if event_target_value(&ev) == "case" { ClusterBy::Case } else { ClusterBy::Repo })
                }
            >
                <option value="repo" prop:selected=move || cluster.get() == ClusterBy::Repo>
                    "repositories (clusters)"
                </option>
                <option value="case" prop:selected=move || cluster.get() == ClusterBy::Case>
                    "single cases"
                </option>
            </select>
        </label>
    }
}

/// When a ranked unit counts as relevant; the study's default is marked.
#[component]
pub fn RelevanceSelect() -> impl IntoView {
    let state = AppState::get();
    let relevance = state.settings.metric_tables().relevance();
    let chosen = move || {
        state
            .with_study(|study| state.metric_setup(study).relevance)
            .unwrap_or_default()
    };
    view! {
        <label class="control">
            "relevant unit "
            <select
                data-testid="metric-relevance"
                on:change=move |ev| {
                    relevance
                        .set(Some(if event_target_value(&ev) == "span" { Relevance::Span } else { Relevance::File }))
                }
            >
                <option value="file" prop:selected=move || chosen() == Relevance::File>
                    "its file is gold"
                </option>
                <option value="span" prop:selected=move || chosen() == Relevance::Span>
                    "it overlaps a gold span"
                </option>
            </select>
        </label>
    }
}

/// The metric table's metrics as a comma-separated list; a name the engine does not know is
/// named in place and the list is kept as it was.
#[component]
pub fn MetricListInput() -> impl IntoView {
    let state = AppState::get();
    let problem = RwSignal::new(None::<String>);
    let shown = move || {
        state
            .with_study(|study| {
                state
                    .metrics(study)
                    .iter()
                    .map(Metric::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    let commit = move |text: String| {
        let parsed: Result<Vec<String>, _> = text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| Metric::parse(name).map(|m| m.name()))
            .collect();
        match parsed {
            Ok(names) => {
                problem.set(None);
                state.settings.metric_tables().metrics().set(names);
            }
            Err(err) => problem.set(Some(err.to_string())),
        }
    };
    view! {
        <label class="control wide">
            "metrics "
            <input
                type="text"
                size="60"
                data-testid="metric-list"
                prop:value=shown
                on:change=move |ev| commit(event_target_value(&ev))
            />
        </label>
        {move || problem.get().map(|p| view! { <span class="error" data-testid="metric-list-error">{p}</span> })}
    }
}

/// The one metric of the per-repository, subgroup, paired and per-case views: file recall at
/// k (the paper's) or any metric of the metric list.
#[component]
pub fn ViewMetricSelect(
    /// The select's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    let state = AppState::get();
    let options = move || {
        let current = state.view_metric().name();
        let mut names: Vec<String> = state
            .with_study(|study| state.metrics(study).iter().map(Metric::name).collect())
            .unwrap_or_default();
        let paper = Metric::FileRecall(state.settings.shared().k().get()).name();
        for name in [paper, current.clone()] {
            if !names.contains(&name) {
                names.insert(0, name);
            }
        }
        names
            .into_iter()
            .map(|name| {
                let (selected, value) = (name == current, name.clone());
                view! {
                    <option value=value prop:selected=selected>
                        {name}
                    </option>
                }
            })
            .collect_view()
    };
    view! {
        <label class="control">
            "metric "
            <select
                data-testid=testid
                on:change=move |ev| state.settings.metric_tables().view_metric().set(Some(event_target_value(&ev)))
            >
                {options}
            </select>
        </label>
    }
}
