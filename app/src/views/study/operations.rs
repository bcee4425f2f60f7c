//! Operating points (the paper's Figure 3 and section 4.3): recall at k beside each arm's mean
//! archived model calls, tokens, latency and cost; and a scatter of model calls per issue against
//! recall for the arms that record calls, and at zero calls the lexical arms whose runs timed
//! themselves without a model (the engine's `model_calls_per_issue`).

use leptos::prelude::*;
use routelens_engine::scoring::tables::{model_calls_per_issue, operations_table};
use routelens_engine::{summarize, Subset};

use crate::components::{KSelect, TableView};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// One arm's point: name, mean model calls per issue, recall at k.
type Point = (String, f64, f64);

/// The operating-points view.
#[component]
pub fn OperationsView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let table = move || {
        let k = s.shared().k().get();
        state
            .with_study(|study| operations_table(study, k))
            .map(|table| view! { <TableView table testid="table-operations" /> })
    };
    let points = move || {
        let k = s.shared().k().get();
        state
            .with_study(|study| {
                let all = Subset::All.indices(study);
                study
                    .arms
                    .iter()
                    .enumerate()
                    .filter_map(|(index, arm)| {
                        let calls = model_calls_per_issue(arm)?;
                        let recall = summarize(study, index, k, &all).file_recall;
                        Some((arm.name.clone(), calls, recall))
                    })
                    .collect::<Vec<Point>>()
            })
            .map(|points| scatter(points, k))
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=s.shared().k() label="k" testid="k-select" />
            </div>
            {table}
            <h3>"Model calls per issue against recall"</h3>
            {points}
        </section>
    }
}

/// The scatter, hand-written SVG: a handful of labelled points and two axes need no charting
/// crate.
fn scatter(points: Vec<Point>, k: usize) -> impl IntoView {
    const WIDTH: f64 = 560.0;
    const HEIGHT: f64 = 320.0;
    const LEFT: f64 = 50.0;
    const BOTTOM: f64 = 40.0;
    // Round the axis up to a multiple of 4 so the four tick steps are whole numbers.
    let max_calls = (points.iter().fold(1.0_f64, |m, p| m.max(p.1)) / 4.0).ceil() * 4.0;
    let x = move |calls: f64| LEFT + calls / max_calls * (WIDTH - LEFT - 90.0);
    let y = move |recall: f64| HEIGHT - BOTTOM - recall * (HEIGHT - BOTTOM - 34.0);
    let x_ticks = (0..=4)
        .map(|i| max_calls * f64::from(i) / 4.0)
        .map(|t| {
            view! {
                <text x=x(t) y=HEIGHT - BOTTOM + 16.0 text-anchor="middle" class="tick">
                    {format!("{t:.0}")}
                </text>
            }
        })
        .collect_view();
    let y_ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|t| {
            view! {
                <text x=LEFT - 6.0 y=y(t) + 4.0 text-anchor="end" class="tick">
                    {format!("{t:.2}")}
                </text>
            }
        })
        .collect_view();
    let dots = points
        .into_iter()
        .map(|(name, calls, recall)| {
            let tip = format!("{name}: {calls:.2} calls/issue, recall@{k} {recall:.3}");
            let data_arm = name.clone();
            view! {
                <g data-arm=data_arm>
                    <circle cx=x(calls) cy=y(recall) r="6" class="mean-dot">
                        <title>{tip}</title>
                    </circle>
                    <text x=x(calls) + 9.0 y=y(recall) + 4.0 class="label">
                        {name}
                    </text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg
            data-testid="plot-operations"
            class="plot"
            viewBox=format!("0 0 {WIDTH} {HEIGHT}")
            width=WIDTH
            height=HEIGHT
            role="img"
            aria-label="Operating points: each arm's mean model calls per issue against its file recall"
        >
            <line x1=LEFT x2=WIDTH - 20.0 y1=HEIGHT - BOTTOM y2=HEIGHT - BOTTOM class="axis" />
            <line x1=LEFT x2=LEFT y1="24" y2=HEIGHT - BOTTOM class="axis" />
            <text x=(WIDTH + LEFT) / 2.0 y=HEIGHT - 6.0 text-anchor="middle" class="label">
                "mean model calls per issue"
            </text>
            <text x="12" y="14" class="label">
                {format!("recall@{k}")}
            </text>
            {x_ticks}
            {y_ticks}
            {dots}
        </svg>
    }
}
