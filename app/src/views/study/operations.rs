//! Operating points (the paper's Figure 3 and section 4.3): recall at k beside each arm's mean
//! archived model calls, tokens, latency and cost; and a scatter of model calls per issue against
//! recall for the arms that record calls, and at zero calls the lexical arms whose runs timed
//! themselves without a model (the engine's `model_calls_per_issue`).

use leptos::prelude::*;
use routelens_engine::scoring::tables::{model_calls_per_issue, operations_table};
use routelens_engine::{summarize, Subset};

use std::fmt::Write;

use crate::components::plot::{escape, plot_svg, spread, text_width, Label};
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
/// crate. Its content is written as a string, as every plot's (`components::dot_chart`).
fn scatter(points: Vec<Point>, k: usize) -> impl IntoView {
    let markup = scatter_markup(&points, k);
    plot_svg(
        "plot-operations",
        (WIDTH, HEIGHT),
        "Operating points: each arm's mean model calls per issue against its file recall".into(),
        markup,
    )
}

const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 320.0;
const LEFT: f64 = 50.0;
const BOTTOM: f64 = 40.0;

fn scatter_markup(points: &[Point], k: usize) -> String {
    // Round the axis up to a multiple of 4 so the four tick steps are whole numbers.
    let max_calls = (points.iter().fold(1.0_f64, |m, p| m.max(p.1)) / 4.0).ceil() * 4.0;
    let x = |calls: f64| LEFT + calls / max_calls * (WIDTH - LEFT - 90.0);
    let y = |recall: f64| HEIGHT - BOTTOM - recall * (HEIGHT - BOTTOM - 34.0);
    let mut out = format!(
        r#"<line x1="{LEFT}" x2="{0}" y1="{2}" y2="{2}" class="axis"/><line x1="{LEFT}" x2="{LEFT}" y1="24" y2="{2}" class="axis"/><text x="{1}" y="{3}" text-anchor="middle" class="label">mean model calls per issue</text><text x="12" y="14" class="label">recall@{k}</text>"#,
        WIDTH - 20.0,
        (WIDTH + LEFT) / 2.0,
        HEIGHT - BOTTOM,
        HEIGHT - 6.0
    );
    let mut ticks_fixed = Vec::new();
    for t in (0..=4).map(|i| max_calls * f64::from(i) / 4.0) {
        let text = format!("{t:.0}");
        let width = text_width(&text, 11.0);
        let baseline = HEIGHT - BOTTOM + 16.0;
        ticks_fixed.push(Label {
            x: x(t) - width / 2.0,
            y: baseline,
            width,
        });
        let _ = write!(
            out,
            r#"<text x="{}" y="{baseline}" text-anchor="middle" class="tick">{text}</text>"#,
            x(t)
        );
    }
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end" class="tick">{t:.2}</text>"#,
            LEFT - 6.0,
            y(t) + 4.0
        );
    }
    // Arms with close recall and the same calls (the lexical arms at zero) would print their
    // names over each other: each name moves below the ones it would touch.
    let labels: Vec<Label> = points
        .iter()
        .map(|(name, calls, recall)| Label {
            x: x(*calls) + 9.0,
            y: y(*recall) + 4.0,
            width: text_width(name, 12.0),
        })
        .collect();
    let baselines = spread(&labels, &ticks_fixed, 14.0);
    for ((name, calls, recall), baseline) in points.iter().zip(baselines) {
        let name = escape(name);
        let _ = write!(
            out,
            r#"<g data-arm="{name}"><circle cx="{}" cy="{}" r="6" class="mean-dot"><title>{name}: {calls:.2} calls/issue, recall@{k} {recall:.3}</title></circle><text x="{}" y="{baseline}" class="label">{name}</text></g>"#,
            x(*calls),
            y(*recall),
            x(*calls) + 9.0
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn close_points_get_their_names_apart() {
        let points = vec![
            ("fts5".to_string(), 0.0, 0.352),
            ("rg".to_string(), 0.0, 0.345),
        ];
        let markup = super::scatter_markup(&points, 8);
        let ys: Vec<f64> = markup
            .match_indices(r#"<text x="59" y=""#)
            .map(|(at, m)| {
                markup[at + m.len()..]
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(ys.len(), 2, "{markup}");
        assert!((ys[0] - ys[1]).abs() >= 14.0, "{ys:?}");
    }
}
