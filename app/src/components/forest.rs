//! The forest plot of paired comparisons: one row per pair, its mean difference as a dot on its
//! 95% interval, the zero line marked; SVG, downloadable as a file. Score tables' pairs and
//! rankings' pairs draw the same way.

use leptos::prelude::*;
use routelens_engine::{scoring::score_table::ScorePair, PairedComparison};

use std::fmt::Write;

use super::plot::{escape, nice_ticks};
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
    let (markup, height) = markup(&pairs);
    let document = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">{markup}</svg>"#
    );
    let download = move |_| {
        error.set(
            api::download_text("forest-plot.svg", "image/svg+xml", &document)
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
                xmlns="http://www.w3.org/2000/svg"
                width=WIDTH
                height=height
                viewBox=format!("0 0 {WIDTH} {height}")
                role="img"
                aria-label="Paired differences: each comparison's mean difference on its 95% interval, zero marked"
                inner_html=markup
            ></svg>
        </div>
    }
    .into_any()
}

/// The plot's content and its height. Written as a string with its text escaped, as the dot
/// chart is, to keep the first load within its budget (`dot_chart`).
fn markup(pairs: &[ForestRow]) -> (String, f64) {
    // The x range covers every interval and zero, with a margin.
    let (low, high) = pairs.iter().fold((0.0_f64, 0.0_f64), |(lo, hi), p| {
        (lo.min(p.ci_low), hi.max(p.ci_high))
    });
    let margin = ((high - low) * 0.05).max(1e-9);
    let x = |value: f64| {
        LABEL + (value - low + margin) / (high - low + 2.0 * margin) * (WIDTH - LABEL - 10.0)
    };
    let height = AXIS + ROW * pairs.len() as f64;
    let zero = x(0.0);
    let mut out = format!(
        r##"<line data-testid="forest-zero" x1="{zero}" x2="{zero}" y1="{}" y2="{height}" stroke="#c00" stroke-dasharray="4 3"/>"##,
        AXIS - 6.0
    );
    // Round values a label's width apart: the range's own ends, printed at either edge, overlapped
    // the "0" whenever an interval ended near zero.
    for tick in nice_ticks(low, high, 5) {
        let text = if tick == 0.0 {
            "0".to_string()
        } else {
            format!("{tick:+.2}")
        };
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{text}</text>"#,
            x(tick),
            AXIS - 10.0
        );
    }
    for (at, pair) in pairs.iter().enumerate() {
        let y = AXIS + ROW * at as f64 + ROW / 2.0;
        let _ = write!(
            out,
            r##"<g data-testid="forest-row"><title>{}</title><text x="4" y="{}" font-size="11">{}</text><line x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="#333" stroke-width="2"/><circle cx="{}" cy="{y}" r="4" fill="#06c"/></g>"##,
            escape(&pair.sentence),
            y + 4.0,
            escape(&pair.label),
            x(pair.ci_low),
            x(pair.ci_high),
            x(pair.mean)
        );
    }
    (out, height)
}

#[cfg(test)]
mod tests {
    use super::ForestRow;

    #[test]
    fn draws_a_row_per_pair_a_zero_line_and_a_zero_tick_with_text_escaped() {
        let row = |label: &str, mean: f64| ForestRow {
            label: label.into(),
            mean,
            ci_low: mean - 0.05,
            ci_high: mean + 0.05,
            sentence: "a < b".into(),
        };
        let (markup, height) =
            super::markup(&[row("tree − fts5", 0.113), row("fusion − tree", -0.02)]);
        assert_eq!(markup.matches(r#"data-testid="forest-row""#).count(), 2);
        assert_eq!(markup.matches(r#"data-testid="forest-zero""#).count(), 1);
        assert!(markup.contains(">0</text>"));
        assert!(markup.contains("<title>a &lt; b</title>"));
        assert_eq!(height, 30.0 + 2.0 * 26.0);
    }
}
