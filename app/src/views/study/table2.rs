//! Table 2: every arm's file recall at two k, side by side (default 8 and 16, any 1–16), exactly
//! as the paper printed it; below it, every arm's mean of any list of metrics, each with its 95%
//! bootstrap interval, under the chosen relevance and clustering.

use leptos::prelude::*;
use routelens_engine::scoring::{
    metric_tables::metric_table, tables::file_recall_table, unit_metrics::Metric,
};

use super::params::StudyViewParamsStoreFields;
use crate::components::{
    ClusterSelect, DotChart, KSelect, MetricListInput, NumberInput, RelevanceSelect, TableView,
};
use crate::open_cases::cases_of_arm_rows;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// Table 2 with its two k selectors, and the metric table with its controls.
#[component]
pub fn Table2View() -> impl IntoView {
    let state = AppState::get();
    let settings = state.settings;
    let table = move || {
        let ks = [
            settings.study_views().k_left().get(),
            settings.study_views().k_right().get(),
        ];
        state
            .with_study(|study| file_recall_table(study, &ks))
            .map(|table| {
                let open_cases = cases_of_arm_rows(settings);
                view! { <TableView table testid="table-file-recall" open_cases /> }
            })
    };
    // The chart: each arm's file recall at the two k with its interval, under the metric
    // table's relevance, clustering and bootstrap.
    let chart = move || {
        let ks = [
            settings.study_views().k_left().get(),
            settings.study_views().k_right().get(),
        ];
        state.with_study(|study| {
            let arms: Vec<usize> = (0..study.arms.len()).collect();
            let metrics = ks.map(Metric::FileRecall);
            metric_table(study, &arms, &metrics, &state.metric_setup(study))
                .ok()
                .map(|table| {
                    let aria_label = format!(
                        "Table 2 as a dot chart: each arm's file recall at {} and at {} with its 95% interval",
                        ks[0], ks[1]
                    );
                    view! {
                        <figure class="chart">
                            <DotChart table label_column=1 first_value=2 testid="plot-table2" aria_label />
                            <figcaption class="note">
                                "Dots: mean file recall over the issues; bars: the 95% bootstrap interval "
                                "under the settings of the metric table below."
                            </figcaption>
                        </figure>
                    }
                })
        })
    };
    let metrics = Memo::new(move |_| {
        state.with_study(|study| {
            let arms: Vec<usize> = (0..study.arms.len()).collect();
            metric_table(
                study,
                &arms,
                &state.metrics(study),
                &state.metric_setup(study),
            )
            .map_err(|e| e.to_string())
        })
    });
    let metric_view = move || match metrics.get() {
        Some(Ok(table)) => {
            let open_cases = cases_of_arm_rows(settings);
            view! { <TableView table testid="table-metrics" open_cases /> }.into_any()
        }
        Some(Err(err)) => {
            view! { <p class="error" data-testid="metrics-error">{err}</p> }.into_any()
        }
        None => ().into_any(),
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=settings.study_views().k_left() label="left k" testid="k-left" />
                <KSelect value=settings.study_views().k_right() label="right k" testid="k-right" />
            </div>
            <p class="note">
                "Every number opens the issues behind it. File@k: mean over issues of the share of gold files in the first k. Full@k: issues with "
                "every gold file in the first k. Ceiling@k: issues whose gold set fits in k at all, the "
                "most Full@k can reach. Micro@k: gold files found over all gold files. P@k: precision."
            </p>
            <div class="beside">{table} {chart}</div>
            <h3>"Every metric, with its 95% interval"</h3>
            <div class="controls">
                <MetricListInput />
                <RelevanceSelect />
                <ClusterSelect testid="metric-cluster" />
                <NumberInput
                    value=Signal::derive(move || settings.shared().resamples().get())
                    set=Callback::new(move |v| settings.shared().resamples().set(v))
                    label="resamples"
                    testid="metric-resamples"
                />
                <NumberInput
                    value=Signal::derive(move || settings.shared().seed().get())
                    set=Callback::new(move |v| settings.shared().seed().set(v))
                    label="seed"
                    testid="metric-seed"
                />
            </div>
            <p class="note">
                "file_recall@k: share of gold files among the files of the first k units. full@k: all "
                "of them there. hit@k: a relevant unit in the first k. precision@k: relevant units "
                "over k. mrr: 1 / rank of the first relevant unit (0 if none). ndcg@k: a gain of 1 for "
                "each gold file at its first unit, over the ideal ordering. span_recall@k and span_mrr "
                "(CodeNib): after dropping units that overlap an earlier unit of their file, the share "
                "of gold spans overlapped by the first k, and 1 / rank of the first that overlaps one. "
                "A dash: the metric needs span units and the arm ranks files. Each interval is the "
                "2.5th–97.5th percentile of the resampled means."
            </p>
            {metric_view}
        </section>
    }
}
