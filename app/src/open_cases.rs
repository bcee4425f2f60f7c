//! From a number to the cases behind it, for the study views and the paper page: a click on a
//! number of a table whose rows are arms opens the per-issue list sorted by that arm, at the k
//! its column names (`File@16`, `file_recall@8`), with the subset and the other settings kept; a
//! printed number opens the list its statistic counts over.

use leptos::prelude::*;
use reactive_stores::Store;
use routelens_engine::check::quantity::Quantity;
use routelens_engine::{PairedMetric, Subset};

use crate::params::page::{PageParamsStoreFields, View};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::{Settings, SettingsStoreFields};
use crate::views::study::params::StudyViewParamsStoreFields;

/// The callback a [`crate::components::TableView`] of arms calls with a row and a column. Table
/// 2's `L55@k` opens the archived line recall of the aligned issues; any other column, the file
/// recall of the subset already chosen.
pub fn cases_of_arm_rows(s: Store<Settings>) -> Callback<(String, String)> {
    Callback::new(move |(arm, header): (String, String)| {
        if let Some(k) = k_in(&header) {
            s.shared().k().set(k);
        }
        let views = s.study_views();
        if is_aligned_lines(&header) {
            views.metric().set(PairedMetric::ArchivedLineRecall);
            views.subset().set(Subset::Aligned);
        } else {
            views.metric().set(PairedMetric::FileRecall);
        }
        open_sorted_by(s, arm);
    })
}

/// Whether a header is Table 2's line column (`L55@8`: an L, the aligned count, `@`).
fn is_aligned_lines(header: &str) -> bool {
    header.split_once('@').is_some_and(|(before, _)| {
        before.len() > 1
            && before.starts_with('L')
            && before[1..].chars().all(|c| c.is_ascii_digit())
    })
}

/// Opens the per-issue list sorted by `column` (an arm, or `difference`), every filter but the
/// subset cleared; an arm the list does not show is added to it.
pub fn open_sorted_by(s: Store<Settings>, column: String) {
    let views = s.study_views();
    let mut arms = views.arms().get_untracked();
    if !arms.is_empty() && column != "difference" && !arms.contains(&column) {
        arms.push(column.clone());
        views.arms().set(arms);
    }
    views.sort().set(Some(column));
    views.side().set(None);
    views.repo().set(None);
    s.page().view().set(View::Cases);
}

/// Where a printed number's cases are: the list its statistic counts over, when it is one of a
/// study of rankings that the list can show (an arm's recall or counts at k, or a paired
/// comparison, over all issues, the aligned ones or one repository's).
pub fn cases_of_quantity(s: Store<Settings>, quantity: &Quantity) -> Option<Callback<()>> {
    let (arm, left_right, k, metric, subset) = match quantity {
        Quantity::FileRecall { arm, k, subset } | Quantity::FullCount { arm, k, subset } => (
            Some(arm),
            None,
            *k,
            PairedMetric::FileRecall,
            subset.as_str(),
        ),
        Quantity::MicroFound { arm, k } | Quantity::MicroRecall { arm, k } => {
            (Some(arm), None, *k, PairedMetric::FileRecall, "all")
        }
        Quantity::LineRecall { arm, k, subset } | Quantity::CompleteLines { arm, k, subset } => (
            Some(arm),
            None,
            *k,
            PairedMetric::ArchivedLineRecall,
            subset.as_str(),
        ),
        Quantity::Paired {
            left,
            right,
            k,
            metric,
            subset,
            ..
        } => {
            let metric = match metric.as_str() {
                "lines" => PairedMetric::ArchivedLineRecall,
                _ => PairedMetric::FileRecall,
            };
            (None, Some((left, right)), *k, metric, subset.as_str())
        }
        _ => return None,
    };
    let (subset, repo) = match subset {
        "all" => (Subset::All, None),
        "aligned" => (Subset::Aligned, None),
        other => (Subset::All, Some(other.strip_prefix("repo:")?.to_string())),
    };
    let (arm, left_right) = (
        arm.cloned(),
        left_right.map(|(l, r)| (l.clone(), r.clone())),
    );
    Some(Callback::new(move |()| {
        let views = s.study_views();
        s.shared().k().set(k);
        views.metric().set(metric);
        views.subset().set(subset.clone());
        if let Some((left, right)) = &left_right {
            views.left().set(left.clone());
            views.right().set(right.clone());
        }
        open_sorted_by(s, arm.clone().unwrap_or_else(|| "difference".into()));
        views.repo().set(repo.clone());
    }))
}

/// The k a column header names after its last `@` (`File@16` → 16), if any.
fn k_in(header: &str) -> Option<usize> {
    let (_, after) = header.rsplit_once('@')?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{is_aligned_lines, k_in};

    #[test]
    fn the_k_of_a_header() {
        assert_eq!(k_in("File@16"), Some(16));
        assert_eq!(k_in("file_recall@8 (low)"), Some(8));
        assert_eq!(k_in("mrr"), None);
    }

    #[test]
    fn table_2s_line_column_is_told_from_the_others() {
        assert!(is_aligned_lines("L55@8"));
        assert!(
            !is_aligned_lines("File@8") && !is_aligned_lines("L@8") && !is_aligned_lines("mrr")
        );
    }
}
