//! Table 4: paired differences of two arms (left − right) with the repository-cluster bootstrap
//! interval, wins/losses/ties, the exact sign test and the exact sign-flip test; below it, the
//! paper's four prespecified pairs with the same settings, and every comparison as a forest
//! plot. The chosen comparison is also written as a sentence, its claim resting on the interval.
//! Besides the paper's file recall and archived line recall, any metric can be compared, under
//! the chosen relevance and clustering.

use leptos::prelude::*;
use routelens_engine::{
    compare, scoring::report::PRESPECIFIED_PAIRS, scoring::tables::paired_table,
    scoring::unit_metrics::compare_metric_pairs, scoring::unit_metrics::Metric, BootstrapConfig,
    PairedComparison, PairedMetric, Study, Subset,
};

use super::params::StudyViewParamsStoreFields;
use crate::components::{
    ArmSelect, ClusterSelect, ForestPlot, ForestRow, KSelect, NumberInput, RelevanceSelect,
    TableView,
};
use crate::open_cases::open_sorted_by;
use crate::params::metric_tables::MetricTableParamsStoreFields;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use routelens_engine::scoring::case_list::Side;

/// Compares one pair: on the paper's metrics as the paper did (repository clusters), or on a
/// chosen metric under the reader's relevance and clustering.
fn compare_one(
    state: AppState,
    study: &Study,
    (left, right): (&str, &str),
    chosen: Option<Metric>,
    subset: &[usize],
    (k, metric, bootstrap): (usize, PairedMetric, BootstrapConfig),
) -> routelens_engine::Result<PairedComparison> {
    match chosen {
        None => compare(study, left, right, k, metric, subset, bootstrap),
        Some(unit) => {
            let setup = state.metric_setup(study);
            let pair = [(left.to_string(), right.to_string())];
            compare_metric_pairs(
                study,
                &pair,
                unit,
                (setup.clustering, setup.relevance),
                subset,
                bootstrap,
            )
            .map(|mut rows| rows.swap_remove(0))
        }
    }
}

/// The paired-comparison view.
#[component]
pub fn PairedView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let bootstrap = move || BootstrapConfig {
        resamples: s.shared().resamples().get(),
        seed: s.shared().seed().get(),
    };
    // A metric of the metric list, when the reader chose one instead of the paper's.
    let unit_metric = move || {
        s.metric_tables()
            .view_metric()
            .get()
            .and_then(|name| Metric::parse(&name).ok())
    };
    let chosen = Memo::new(move |_| {
        let (left, right, k, metric, subset) = (
            s.study_views().left().get(),
            s.study_views().right().get(),
            s.shared().k().get(),
            s.study_views().metric().get(),
            s.study_views().subset().get(),
        );
        let (bootstrap, unit) = (bootstrap(), unit_metric());
        state.with_study(|study| {
            compare_one(
                state,
                study,
                (&left, &right),
                unit,
                &subset.indices(study),
                (k, metric, bootstrap),
            )
        })
    });
    // The paper's pairs under the reader's k, metric and subset: file recall at 8 over all
    // issues is its File@8 column, archived line recall over the aligned ones its Line@8.
    let prespecified = Memo::new(move |_| {
        let (k, metric, subset) = (
            s.shared().k().get(),
            s.study_views().metric().get(),
            s.study_views().subset().get(),
        );
        let (bootstrap, unit) = (bootstrap(), unit_metric());
        state.with_study(|study| {
            let cases = subset.indices(study);
            let (mut rows, mut errors) = (Vec::new(), Vec::new());
            for (left, right) in PRESPECIFIED_PAIRS {
                let settings = (k, metric, bootstrap);
                match compare_one(state, study, (left, right), unit, &cases, settings) {
                    Ok(row) => rows.push(row),
                    Err(err) => errors.push(format!("{left} vs {right}: {err}")),
                }
            }
            let mut table = paired_table(&rows);
            let over = format!("{}: {} issues", subset.label(), cases.len());
            table.title = match unit {
                None => format!(
                    "Table 4: prespecified pairs at {k} ({}, {over})",
                    metric.name()
                ),
                Some(metric) => format!("Prespecified pairs ({}, {over})", metric.name()),
            };
            (table, rows, errors)
        })
    });
    let forest = move || {
        let mut rows: Vec<ForestRow> = Vec::new();
        if let Some(Ok(row)) = chosen.get() {
            rows.push(ForestRow::from(&row));
        }
        if let Some((_, pairs, _)) = prespecified.get() {
            for pair in &pairs {
                let row = ForestRow::from(pair);
                if !rows.iter().any(|r| r.label == row.label) {
                    rows.push(row);
                }
            }
        }
        view! { <ForestPlot pairs=rows /> }
    };
    let result = move || match chosen.get() {
        Some(Ok(row)) => {
            let sides = [
                (Side::Better, row.wins),
                (Side::Worse, row.losses),
                (Side::Same, row.ties),
            ]
            .into_iter()
            .map(|(side, n)| {
                view! {
                    " · "
                    <a
                        href="#"
                        data-testid=format!("paired-cases-{}", side.name())
                        on:click=move |ev| {
                            ev.prevent_default();
                            open_sorted_by(state.settings, "difference".into());
                            state.settings.study_views().side().set(Some(side));
                        }
                    >
                        {format!("{} on {n}", side.name())}
                    </a>
                }
            })
            .collect_view();
            view! {
                <TableView table=paired_table(std::slice::from_ref(&row)) testid="table-paired" />
                <p data-testid="paired-sentence">{row.sentence}</p>
                <p class="muted" data-testid="paired-cases">"The issues behind it" {sides}</p>
            }
            .into_any()
        }
        Some(Err(err)) => {
            view! { <p class="error" data-testid="paired-error">{err.to_string()}</p> }.into_any()
        }
        None => ().into_any(),
    };
    let prespecified_view = move || {
        prespecified.get().map(|(table, _, errors)| {
            view! {
                <TableView table testid="table-prespecified" />
                {errors
                    .into_iter()
                    .map(|e| view! { <p class="error">{e}</p> })
                    .collect_view()}
            }
        })
    };
    let metric_select = move || {
        let current = match unit_metric() {
            Some(metric) => metric.name(),
            None if s.study_views().metric().get() == PairedMetric::ArchivedLineRecall => {
                "lines".into()
            }
            None => "file".into(),
        };
        let listed: Vec<String> = state
            .with_study(|study| state.metrics(study).iter().map(Metric::name).collect())
            .unwrap_or_default();
        let options = [
            ("file".to_string(), "file recall (the paper's)".to_string()),
            ("lines".into(), "line recall (archived, k = 8 or 16)".into()),
        ]
        .into_iter()
        .chain(listed.into_iter().map(|name| (name.clone(), name)))
        .map(|(value, label)| {
            let selected = value == current;
            view! { <option value=value prop:selected=selected>{label}</option> }
        })
        .collect_view();
        view! {
            <label class="control">
                "metric"
                <select
                    data-testid="paired-metric"
                    on:change=move |ev| {
                        let paper = |metric| {
                            s.metric_tables().view_metric().set(None);
                            s.study_views().metric().set(metric);
                        };
                        match event_target_value(&ev).as_str() {
                            "file" => paper(PairedMetric::FileRecall),
                            "lines" => paper(PairedMetric::ArchivedLineRecall),
                            name => s.metric_tables().view_metric().set(Some(name.to_string())),
                        }
                    }
                >
                    {options}
                </select>
            </label>
        }
    };
    let unit_controls = move || {
        unit_metric().map(|_| {
            view! {
                <RelevanceSelect />
                <ClusterSelect testid="paired-cluster" />
            }
        })
    };
    let subset_select = view! {
        <label class="control">
            "issues"
            <select
                data-testid="paired-subset"
                on:change=move |ev| {
                    s.study_views().subset()
                        .set(match event_target_value(&ev).as_str() {
                            "aligned" => Subset::Aligned,
                            _ => Subset::All,
                        })
                }
            >
                <option value="all" prop:selected=move || s.study_views().subset().get() == Subset::All>
                    "all"
                </option>
                <option value="aligned" prop:selected=move || s.study_views().subset().get() == Subset::Aligned>
                    "aligned gold text only"
                </option>
            </select>
        </label>
    };
    view! {
        <section>
            <div class="controls">
                <ArmSelect value=s.study_views().left() label="left" testid="left-arm" />
                <ArmSelect value=s.study_views().right() label="right" testid="right-arm" />
                <KSelect value=s.shared().k() label="k" testid="k-select" />
                {metric_select}
                {unit_controls}
                {subset_select}
                <NumberInput
                    value=Signal::derive(move || s.shared().resamples().get())
                    set=Callback::new(move |v| s.shared().resamples().set(v))
                    label="resamples"
                    testid="paired-resamples"
                />
                <NumberInput
                    value=Signal::derive(move || s.shared().seed().get())
                    set=Callback::new(move |v| s.shared().seed().set(v))
                    label="seed"
                    testid="paired-seed"
                />
            </div>
            <p class="note">
                "Differences are left − right per issue. The interval resamples the repositories with "
                "replacement and carries all their issues (95%, drawn as the paper's script drew them). "
                "The sign test counts issues that differ; the sign-flip test is exact over the "
                "repository-level mean differences."
            </p>
            {result}
            {prespecified_view}
            {forest}
        </section>
    }
}
