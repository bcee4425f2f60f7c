//! A dot chart of a table's estimates: one row per arm, a dot per column at its mean on its 95%
//! interval, on a 0–1 axis. Table 2 draws its two k this way beside the table.
//!
//! The markup is written as a string (its text escaped) and set as the SVG's content: a `view!`
//! tree of the same elements compiled to 11 kB gzip of the first load, which has no room for it
//! (docs/first-load.md). The text layout is the other plots' (`plot`).

use std::fmt::Write;

use leptos::prelude::*;
use routelens_engine::table::Table;

use super::plot::{escape, nice_ticks, plot_svg, spread, text_width, Label};

const WIDTH: f64 = 560.0;
const LABEL: f64 = 170.0;
const ROW: f64 = 30.0;
const TOP: f64 = 46.0;
const RIGHT: f64 = 16.0;

/// The chart of `table`'s columns from `first_value` on, each a series; rows are labelled by the
/// cell in column `label_column` (or the first column where that one is empty). Cells without a
/// value or interval are left out.
/// With `download`, a button saves the chart as an SVG file of that name.
#[component]
pub fn DotChart(
    table: Table,
    label_column: usize,
    first_value: usize,
    testid: &'static str,
    aria_label: String,
    #[prop(optional)] download: Option<&'static str>,
) -> impl IntoView {
    let (markup, height) = markup(&table, label_column, first_value);
    let button = download.map(|file| {
        let document = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">{markup}</svg>"#
        );
        let error = RwSignal::new(None::<String>);
        let save = move |_| {
            let saved = crate::api::download_text(file, "image/svg+xml", &document);
            error.set(saved.err().map(|e| e.to_string()));
        };
        view! {
            <button data-testid=format!("{testid}-download") on:click=save>"Download SVG"</button>
            {move || error.get().map(|e| view! { <span class="error">{e}</span> })}
        }
    });
    view! {
        {button}
        {plot_svg(testid, (WIDTH, height), aria_label, markup)}
    }
}

/// The SVG's content and its height.
fn markup(table: &Table, label_column: usize, first_value: usize) -> (String, f64) {
    let series: Vec<&str> = table
        .headers
        .iter()
        .skip(first_value)
        .map(String::as_str)
        .collect();
    let height = TOP + ROW * table.rows.len() as f64 + 8.0;
    let x = |value: f64| LABEL + value.clamp(0.0, 1.0) * (WIDTH - LABEL - RIGHT);
    let mut out = String::new();
    // The legend's entries side by side from the label column, each as wide as its text.
    let mut at = LABEL;
    for (index, name) in series.iter().enumerate() {
        let _ = write!(
            out,
            r#"<circle cx="{}" cy="14" r="5" class="series-{index}"/><text x="{}" y="18" class="label">{}</text>"#,
            at + 6.0,
            at + 16.0,
            escape(name)
        );
        at += 34.0 + text_width(name, 12.0);
    }
    for tick in nice_ticks(0.0, 1.0, 6) {
        let _ = write!(
            out,
            r#"<text x="{0}" y="{1}" text-anchor="middle" class="tick">{tick:.1}</text><line x1="{0}" x2="{0}" y1="{2}" y2="{3}" class="grid"/>"#,
            x(tick),
            TOP - 8.0,
            TOP - 4.0,
            height - 8.0
        );
    }
    let labels: Vec<String> = table
        .rows
        .iter()
        .map(|row| {
            row.get(label_column)
                .filter(|cell| !cell.text.is_empty())
                .or(row.first())
                .map(|cell| cell.text.clone())
                .unwrap_or_default()
        })
        .collect();
    // A label wider than its column is cut with an ellipsis; the dots' tips carry it whole.
    let shown: Vec<String> = labels
        .iter()
        .map(|label| fit(label, LABEL - 12.0, 12.0))
        .collect();
    let boxes: Vec<Label> = shown
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let width = text_width(label, 12.0);
            let y = TOP + ROW * i as f64 + ROW / 2.0 + 4.0;
            Label {
                x: LABEL - 8.0 - width,
                y,
                width,
            }
        })
        .collect();
    let baselines = spread(&boxes, &[], 14.0);
    let offset = |series_at: usize| (series_at as f64 - (series.len() as f64 - 1.0) / 2.0) * 7.0;
    for ((i, row), ((label, shown), baseline)) in table
        .rows
        .iter()
        .enumerate()
        .zip(labels.iter().zip(&shown).zip(baselines))
    {
        let label = escape(label);
        let _ = write!(
            out,
            r#"<g data-testid="dot-row" data-row="{label}"><text x="{}" y="{baseline}" text-anchor="end" class="label">{}</text>"#,
            LABEL - 8.0,
            escape(shown)
        );
        let middle = TOP + ROW * i as f64 + ROW / 2.0;
        for (at, cell) in row.iter().skip(first_value).enumerate() {
            let (Some(mean), Some((low, high))) = (cell.value, cell.interval) else {
                continue;
            };
            let y = middle + offset(at);
            let name = escape(series[at]);
            let _ = write!(
                out,
                r#"<g data-series="{at}" data-mean="{mean:.6}"><title>{label}, {name}: {mean:.3} [{low:.3}, {high:.3}]</title><line x1="{}" x2="{}" y1="{y}" y2="{y}" class="series-{at} ci"/><circle cx="{}" cy="{y}" r="4" class="series-{at}"/></g>"#,
                x(low),
                x(high),
                x(mean)
            );
        }
        out.push_str("</g>");
    }
    (out, height)
}

/// `text`, cut to fit `width` at `font_px` with an ellipsis when it is wider.
fn fit(text: &str, width: f64, font_px: f64) -> String {
    if text_width(text, font_px) <= width {
        return text.to_string();
    }
    let keep = (width / text_width("m", font_px)) as usize;
    let mut cut: String = text.chars().take(keep.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use routelens_engine::table::{Cell, Table};

    #[test]
    fn draws_a_row_per_arm_and_a_dot_per_estimate_with_text_escaped() {
        let mut table = Table::new("t", &["arm", "label", "file_recall@8", "file_recall@16"]);
        let estimate = |mean: f64| Cell {
            interval: Some((mean - 0.1, mean + 0.1)),
            ..Cell::number(mean, 3)
        };
        table.rows.push(vec![
            Cell::text("tree"),
            Cell::text("a <b>"),
            estimate(0.465),
            estimate(0.591),
        ]);
        table.rows.push(vec![
            Cell::text("rg"),
            Cell::text(""),
            estimate(0.245),
            Cell::text("–"),
        ]);
        let (markup, height) = super::markup(&table, 1, 2);
        assert_eq!(markup.matches(r#"data-testid="dot-row""#).count(), 2);
        assert_eq!(
            markup.matches("<circle cx=").count(),
            2 + 3,
            "two legend marks, three dots"
        );
        assert!(markup.contains(r#"data-row="a &lt;b&gt;""#) && !markup.contains("<b>"));
        assert!(
            markup.contains(r#"data-row="rg""#),
            "an empty label falls back to the arm"
        );
        assert!(markup.contains(r#"data-mean="0.591000""#));
        assert_eq!(height, 46.0 + 2.0 * 30.0 + 8.0);
        let long = "RRF: Name-only tree + FTS5, first 500 chars";
        let cut = super::fit(long, 158.0, 12.0);
        assert!(
            cut.ends_with('…') && super::text_width(&cut, 12.0) <= 158.0,
            "{cut}"
        );
    }
}
