//! What the hand-written SVG plots share: the element their content (written as an escaped
//! string) is set into, and, so that their text never overlaps, axis ticks at round values a
//! label's width apart and point labels moved apart when they would touch. The geometry is in
//! SVG user units, tested natively; the browser test (`tests/e2e/layout.test.mjs`) checks the
//! drawn text boxes of every plot for intersection.

use leptos::prelude::*;
use routelens_engine::stable_sort;

/// A plot's `<svg>`, `width` × `height` user units, named for screen readers, with `markup` as
/// its content.
pub fn plot_svg(
    testid: &'static str,
    (width, height): (f64, f64),
    aria_label: String,
    markup: String,
) -> impl IntoView {
    view! {
        <svg
            data-testid=testid
            class="plot"
            viewBox=format!("0 0 {width} {height}")
            width=width
            height=height
            role="img"
            aria-label=aria_label
            inner_html=markup
        ></svg>
    }
}

/// The width a label of `text` takes at `font_px`, a little over the widest average glyph of the
/// page's sans-serif fonts (digits and lower case run at about 0.55 em), so that an estimate
/// never places two labels closer than their drawn boxes.
pub fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * font_px * 0.62
}

/// Round tick values covering `low..=high`, at steps of 1, 2 or 5 times a power of ten, at most
/// `most` of them (at least two: the ends when the range is empty).
pub fn nice_ticks(low: f64, high: f64, most: usize) -> Vec<f64> {
    let span = high - low;
    if !span.is_finite() || span <= 0.0 || most < 2 {
        return vec![low, high];
    }
    // The smallest of 1, 2, 5 × 10^n that fits `most` ticks (a loop rather than `log10` and
    // `powf`, which would bring libm's 3 kB into the page).
    let mut power = 1e-9;
    let step = loop {
        if let Some(step) = [1.0, 2.0, 5.0]
            .into_iter()
            .map(|m| m * power)
            .find(|step| ((span / step).floor() as usize) < most)
        {
            break step;
        }
        power *= 10.0;
    };
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    // Snapping to the step's multiples keeps 0 exactly 0 (no "-0.00" from 3 × 0.1 − 0.3).
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A point label: where its text would start (left edge, baseline) and how wide it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub width: f64,
}

/// Baselines for `labels` such that none of their boxes (`height` tall, above the baseline)
/// overlaps another or a `fixed` one (an axis's tick labels): labels are taken from the top down
/// and each moves down just below any box it would touch. Labels that never collide keep their
/// place.
pub fn spread(labels: &[Label], fixed: &[Label], height: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    stable_sort::by(&mut order, |&a, &b| labels[a].y.total_cmp(&labels[b].y));
    let mut placed: Vec<(Label, f64)> = fixed.iter().map(|label| (*label, label.y)).collect();
    let mut baselines = vec![0.0; labels.len()];
    for at in order {
        let label = labels[at];
        let mut y = label.y;
        // Each move goes below a placed box, so the loop ends after at most one move per box.
        while let Some(&(_, below)) = placed.iter().find(|(other, other_y)| {
            other.x < label.x + label.width
                && label.x < other.x + other.width
                && (y - *other_y).abs() < height
        }) {
            y = below + height;
        }
        placed.push((label, y));
        baselines[at] = y;
    }
    baselines
}

/// `text` with the five characters XML gives meaning escaped, for markup built as a string.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_within_the_range() {
        let ticks = nice_ticks(0.0, 1.0, 6);
        let expected = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        assert_eq!(ticks.len(), expected.len());
        assert!(ticks
            .iter()
            .zip(expected)
            .all(|(t, e)| (t - e).abs() < 1e-12));
        let ticks = nice_ticks(-0.056, 0.252, 6);
        assert!(ticks.contains(&0.0));
        assert!(ticks.len() <= 6 && ticks.len() >= 3, "{ticks:?}");
        assert!(ticks.iter().all(|t| (-0.056..=0.252).contains(t)));
        assert_eq!(nice_ticks(0.5, 0.5, 5), vec![0.5, 0.5]);
    }

    #[test]
    fn labels_that_would_touch_move_apart_and_others_stay() {
        let labels = [
            Label {
                x: 10.0,
                y: 100.0,
                width: 40.0,
            },
            Label {
                x: 20.0,
                y: 104.0,
                width: 40.0,
            },
            Label {
                x: 200.0,
                y: 101.0,
                width: 40.0,
            },
        ];
        let ys = spread(&labels, &[], 13.0);
        assert_eq!(ys[0], 100.0);
        assert_eq!(ys[1], 113.0);
        assert_eq!(ys[2], 101.0);
        let tick = Label {
            x: 190.0,
            y: 105.0,
            width: 20.0,
        };
        assert_eq!(spread(&labels[2..], &[tick], 13.0), vec![118.0]);
    }
}
