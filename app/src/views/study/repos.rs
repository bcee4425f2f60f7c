//! Per repository: recall at k of the chosen arms in each repository (the paper's Table 7), the
//! chosen metric per repository with 95% intervals over each repository's cases, and the
//! per-repository difference between two arms as a dot plot (the paper's Figure 2).

use std::fmt::Write;

use leptos::prelude::*;
use routelens_engine::{
    scoring::metric_tables::repo_metric_table, scoring::paired::repo_differences,
    scoring::tables::repo_table, PairedMetric, Subset,
};

use super::params::{chosen_arms, StudyViewParamsStoreFields};
use crate::components::plot::{escape, plot_svg};
use crate::components::{
    shown_errors, ArmSelect, ArmToggles, KSelect, RelevanceSelect, TableView, ViewMetricSelect,
};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// One repository's row of the dot plot.
#[derive(Debug, Clone, PartialEq)]
struct RepoPoint {
    repo: String,
    mean: f64,
    issues: Vec<f64>,
}

/// The per-repository view.
#[component]
pub fn ReposView() -> impl IntoView {
    let state = AppState::get();
    let s = state.settings;
    let table = move || {
        let k = s.shared().k().get();
        state
            .with_study(|study| {
                repo_table(study, &chosen_arms(&s.study_views().arms().get(), study), k)
            })
            .map(|table| view! { <TableView table testid="table-repo" /> })
    };
    let with_intervals = move || {
        let metric = state.view_metric();
        state.with_study(|study| {
            repo_metric_table(
                study,
                &chosen_arms(&s.study_views().arms().get(), study),
                metric,
                &state.metric_setup(study),
            )
            .map(|table| view! { <TableView table testid="table-repo-metric" /> })
            .map_err(crate::error::Error::from)
        })
    };
    let points = Memo::new(move |_| {
        let (left, right, k) = (
            s.study_views().left().get(),
            s.study_views().right().get(),
            s.shared().k().get(),
        );
        state.with_study(|study| {
            let all = Subset::All.indices(study);
            repo_differences(study, &left, &right, k, PairedMetric::FileRecall, &all).map(
                |by_repo| {
                    by_repo
                        .into_iter()
                        .map(|(repo, issues)| RepoPoint {
                            mean: issues.iter().sum::<f64>() / issues.len() as f64,
                            repo,
                            issues,
                        })
                        .collect::<Vec<_>>()
                },
            )
        })
    });
    // A failed comparison is an error value; the boundary around the plot shows it.
    let plot = move || {
        points.get().map(|points| {
            points.map(|points| {
                dot_plot(
                    points,
                    s.study_views().left().get(),
                    s.study_views().right().get(),
                    s.shared().k().get(),
                )
            })
        })
    };
    view! {
        <section>
            <div class="controls">
                <KSelect value=s.shared().k() label="k" testid="k-select" />
            </div>
            <ArmToggles chosen=s.study_views().arms() />
            {table}
            <h3>"With 95% intervals"</h3>
            <div class="controls">
                <ViewMetricSelect testid="repo-metric" />
                <RelevanceSelect />
            </div>
            <ErrorBoundary fallback=shown_errors>{with_intervals}</ErrorBoundary>
            <h3>"Figure 2: per-repository difference"</h3>
            <div class="controls">
                <ArmSelect value=s.study_views().left() label="left" testid="left-arm" />
                <ArmSelect value=s.study_views().right() label="right" testid="right-arm" />
            </div>
            <ErrorBoundary fallback=shown_errors>{plot}</ErrorBoundary>
        </section>
    }
}

/// The dot plot, hand-written SVG: a zero line, a large dot per repository mean and small dots
/// for its issues need no charting crate. Its content is written as a string, as every plot's
/// (`components::dot_chart`).
fn dot_plot(points: Vec<RepoPoint>, left: String, right: String, k: usize) -> impl IntoView {
    let (markup, height) = dot_plot_markup(&points, &left, &right, k);
    let aria_label = format!(
        "Figure 2: file recall@{k}, {left} − {right}, by repository: each repository's mean and its issues"
    );
    plot_svg("plot-repo-diff", (WIDTH, height), aria_label, markup)
}

const WIDTH: f64 = 640.0;
const LABEL: f64 = 210.0;
const ROW: f64 = 26.0;
const TOP: f64 = 30.0;

fn dot_plot_markup(points: &[RepoPoint], left: &str, right: &str, k: usize) -> (String, f64) {
    let height = TOP + ROW * points.len() as f64 + 30.0;
    // Symmetric axis in quarter steps that holds every issue's difference.
    let reach = points
        .iter()
        .flat_map(|p| p.issues.iter())
        .fold(0.25_f64, |m, d| m.max(d.abs()));
    let reach = (reach * 4.0).ceil() / 4.0;
    let x = |d: f64| LABEL + (d + reach) / (2.0 * reach) * (WIDTH - LABEL - 20.0);
    let mut out = format!(
        r#"<text x="{LABEL}" y="16" class="label">file recall@{k}: {3} − {4} (large: repository mean; small: issues)</text><line x1="{0}" x2="{0}" y1="{1}" y2="{2}" class="zero"/>"#,
        x(0.0),
        TOP - 6.0,
        height - 24.0,
        escape(left),
        escape(right),
    );
    for (i, p) in points.iter().enumerate() {
        let y = TOP + ROW * i as f64 + ROW / 2.0;
        let repo = escape(&p.repo);
        let _ = write!(
            out,
            r#"<g data-repo="{repo}" data-mean="{:.6}"><text x="{}" y="{}" text-anchor="end" class="label">{repo}</text>"#,
            p.mean,
            LABEL - 8.0,
            y + 4.0
        );
        for d in &p.issues {
            let _ = write!(
                out,
                r#"<circle cx="{}" cy="{y}" r="3" class="issue-dot"/>"#,
                x(*d)
            );
        }
        let _ = write!(
            out,
            r#"<circle cx="{}" cy="{y}" r="6" class="mean-dot"><title>{repo}: mean {:+.3} over {} issues</title></circle></g>"#,
            x(p.mean),
            p.mean,
            p.issues.len()
        );
    }
    for t in [-reach, -reach / 2.0, 0.0, reach / 2.0, reach] {
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle" class="tick">{t:+.2}</text>"#,
            x(t),
            height - 8.0
        );
    }
    (out, height)
}

#[cfg(test)]
mod tests {
    use super::RepoPoint;

    #[test]
    fn draws_each_repository_with_its_issues_and_escapes_names() {
        let points = vec![
            RepoPoint {
                repo: "a&b".into(),
                mean: 0.5,
                issues: vec![0.0, 1.0],
            },
            RepoPoint {
                repo: "c".into(),
                mean: -0.25,
                issues: vec![-0.25],
            },
        ];
        let (markup, _) = super::dot_plot_markup(&points, "tree", "fts5", 8);
        assert_eq!(markup.matches("<g data-repo=").count(), 2);
        assert_eq!(markup.matches(r#"class="issue-dot""#).count(), 3);
        assert!(markup.contains(r#"data-repo="a&amp;b""#));
        assert!(markup.contains("tree − fts5"));
    }
}
