//! The forest plot of paired comparisons: one row per pair, its mean difference as a dot on its
//! 95% interval, the zero line marked; SVG, downloadable as a file. Score tables' pairs and
//! rankings' pairs draw the same way.

use leptos::prelude::*;
use routelens_engine::{scoring::score_table::ScorePair, PairedComparison};

use crate::api;

/// One row of the plot: what it compares, the difference and its interval, and the sentence
/// shown on hover.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestRow {
    /// `left − right`, and the metric when the plot mixes metrics.
    pub label: String,
    /// Mean difference.
    pub mean: f64,
    /// 2.5th percentile.
    pub ci_low: f64,
    /// 97.5th percentile.
    pub ci_high: f64,
    /// The comparison in words.
    pub sentence: String,
}

impl From<&ScorePair> for ForestRow {
    fn from(pair: &ScorePair) -> Self {
        ForestRow {
            label: format!("{} − {}", pair.left, pair.right),
            mean: pair.mean,
            ci_low: pair.ci_low,
            ci_high: pair.ci_high,
            sentence: pair.sentence.clone(),
        }
    }
}

impl From<&PairedComparison> for ForestRow {
    fn from(pair: &PairedComparison) -> Self {
        ForestRow {
            label: format!("{} − {}", pair.left, pair.right),
            mean: pair.mean,
            ci_low: pair.ci_low,
            ci_high: pair.ci_high,
            sentence: pair.sentence.clone(),
        }
    }
}

/// The plot's geometry, in SVG user units.
const WIDTH: f64 = 760.0;
const LABEL: f64 = 380.0;
const ROW: f64 = 26.0;
const AXIS: f64 = 30.0;

/// The forest plot.
#[component]
pub fn ForestPlot(pairs: Vec<ForestRow>) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    if pairs.is_empty() {
        return ().into_any();
    }
    // The x range covers every interval and zero, with a margin.
    let (low, high) = pairs.iter().fold((0.0_f64, 0.0_f64), |(lo, hi), p| {
        (lo.min(p.ci_low), hi.max(p.ci_high))
    });
    let margin = ((high - low) * 0.05).max(1e-9);
    let (low, high) = (low - margin, high + margin);
    let x = move |value: f64| LABEL + (value - low) / (high - low) * (WIDTH - LABEL - 10.0);
    let height = AXIS + ROW * pairs.len() as f64;
    let rows = pairs
        .iter()
        .enumerate()
        .map(|(at, pair)| {
            let y = AXIS + ROW * at as f64 + ROW / 2.0;
            let (label, title) = (pair.label.clone(), pair.sentence.clone());
            view! {
                <g data-testid="forest-row">
                    <title>{title}</title>
                    <text x="4" y=y + 4.0 font-size="11">{label}</text>
                    <line x1=x(pair.ci_low) x2=x(pair.ci_high) y1=y y2=y stroke="#333" stroke-width="2" />
                    <circle cx=x(pair.mean) cy=y r="4" fill="#06c" />
                </g>
            }
        })
        .collect_view();
    let zero = x(0.0);
    let svg = NodeRef::<leptos::svg::Svg>::new();
    let download = move |_| {
        let text = svg
            .get()
            .map(|element| element.outer_html())
            .unwrap_or_default();
        error.set(
            api::download_text("forest-plot.svg", "image/svg+xml", &text)
                .err()
                .map(|e| e.to_string()),
        );
    };
    view! {
        <div class="forest" data-testid="forest-plot">
            <div class="table-head">
                <h3>"Paired differences with 95% intervals"</h3>
                <button data-testid="forest-download" on:click=download>"Download SVG"</button>
                {move || error.get().map(|e| view! { <span class="error">{e}</span> })}
            </div>
            <svg
                node_ref=svg
                xmlns="http://www.w3.org/2000/svg"
                width=WIDTH
                height=height
                viewBox=format!("0 0 {WIDTH} {height}")
            >
                <line
                    data-testid="forest-zero"
                    x1=zero
                    x2=zero
                    y1=AXIS - 6.0
                    y2=height
                    stroke="#c00"
                    stroke-dasharray="4 3"
                />
                <text x=zero y=AXIS - 10.0 font-size="11" text-anchor="middle">"0"</text>
                <text x=x(low + margin) y="12" font-size="10">{format!("{:+.3}", low + margin)}</text>
                <text x=x(high - margin) y="12" font-size="10" text-anchor="end">
                    {format!("{:+.3}", high - margin)}
                </text>
                {rows}
            </svg>
        </div>
    }
    .into_any()
}
