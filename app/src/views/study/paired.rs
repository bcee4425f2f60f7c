//! Table 4: paired differences of two arms (left − right) with the repository-cluster bootstrap
//! interval, wins/losses/ties, the exact sign test and the exact sign-flip test; below it, the
//! paper's four prespecified pairs with the same settings. The chosen comparison is also written
//! as a sentence, its claim resting on the interval.

use leptos::prelude::*;
use routelens_engine::{
    compare, report::PRESPECIFIED_PAIRS, tables::paired_table, BootstrapConfig, PairedMetric,
    Subset,
};

use crate::components::{ArmSelect, KSelect, NumberInput, TableView};
use crate::state::{AppState, SettingsStoreFields};

/// The paired-comparison view.
#[component]
pub fn PairedView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let bootstrap = move || BootstrapConfig {
        resamples: s.resamples().get(),
        seed: s.seed().get(),
    };
    let chosen = Memo::new(move |_| {
        let (left, right, k, metric, subset) = (
            s.left().get(),
            s.right().get(),
            s.k().get(),
            s.metric().get(),
            s.subset().get(),
        );
        let bootstrap = bootstrap();
        state.with_study(|study| {
            compare(
                study,
                &left,
                &right,
                k,
                metric,
                &subset.indices(study),
                bootstrap,
            )
            .map(|row| (paired_table(std::slice::from_ref(&row)), row.sentence))
        })
    });
    let prespecified = Memo::new(move |_| {
        let (k, bootstrap) = (s.k().get(), bootstrap());
        state.with_study(|study| {
            let all = Subset::All.indices(study);
            let (mut rows, mut errors) = (Vec::new(), Vec::new());
            for (left, right) in PRESPECIFIED_PAIRS {
                match compare(
                    study,
                    left,
                    right,
                    k,
                    PairedMetric::FileRecall,
                    &all,
                    bootstrap,
                ) {
                    Ok(row) => rows.push(row),
                    Err(err) => errors.push(format!("{left} vs {right}: {err}")),
                }
            }
            let mut table = paired_table(&rows);
            table.title = format!("Table 4: prespecified pairs at {k} (file recall, all issues)");
            (table, errors)
        })
    });
    let result = move || match chosen.get() {
        Some(Ok((table, sentence))) => view! {
            <TableView table testid="table-paired" />
            <p data-testid="paired-sentence">{sentence}</p>
        }
        .into_any(),
        Some(Err(err)) => {
            view! { <p class="error" data-testid="paired-error">{err.to_string()}</p> }.into_any()
        }
        None => ().into_any(),
    };
    let prespecified_view = move || {
        prespecified.get().map(|(table, errors)| {
            view! {
                <TableView table testid="table-prespecified" />
                {errors
                    .into_iter()
                    .map(|e| view! { <p class="error">{e}</p> })
                    .collect_view()}
            }
        })
    };
    let metric_select = view! {
        <label class="control">
            "metric"
            <select
                data-testid="paired-metric"
                on:change=move |ev| {
                    s.metric()
                        .set(match event_target_value(&ev).as_str() {
                            "lines" => PairedMetric::ArchivedLineRecall,
                            _ => PairedMetric::FileRecall,
                        })
                }
            >
                <option value="file" prop:selected=move || s.metric().get() == PairedMetric::FileRecall>
                    "file recall"
                </option>
                <option
                    value="lines"
                    prop:selected=move || s.metric().get() == PairedMetric::ArchivedLineRecall
                >
                    "line recall (archived, k = 8 or 16)"
                </option>
            </select>
        </label>
    };
    let subset_select = view! {
        <label class="control">
            "issues"
            <select
                data-testid="paired-subset"
                on:change=move |ev| {
                    s.subset()
                        .set(match event_target_value(&ev).as_str() {
                            "aligned" => Subset::Aligned,
                            _ => Subset::All,
                        })
                }
            >
                <option value="all" prop:selected=move || s.subset().get() == Subset::All>
                    "all"
                </option>
                <option value="aligned" prop:selected=move || s.subset().get() == Subset::Aligned>
                    "aligned gold text only"
                </option>
            </select>
        </label>
    };
    view! {
        <section>
            <div class="controls">
                <ArmSelect value=s.left() label="left" testid="left-arm" />
                <ArmSelect value=s.right() label="right" testid="right-arm" />
                <KSelect value=s.k() label="k" testid="k-select" />
                {metric_select}
                {subset_select}
                <NumberInput
                    value=Signal::derive(move || s.resamples().get())
                    set=Callback::new(move |v| s.resamples().set(v))
                    label="resamples"
                    testid="paired-resamples"
                />
                <NumberInput
                    value=Signal::derive(move || s.seed().get())
                    set=Callback::new(move |v| s.seed().set(v))
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
        </section>
    }
}
