//! Line level recomputed over a loaded bundle: delivered-line recall of a study's arms over the
//! cases whose files the bundle holds (and whose snapshot it is), at the Context view's settings
//! (k, budget, radius, anchors), packed in the live worker. Used by the Lines view and, for the
//! bundle's own questions, by the Context view.

use leptos::prelude::*;
use routelens_engine::delivery::context::{recomputed_lines_table, ContextSettings};
use routelens_engine::live::live_session::LineJob;
use routelens_engine::live::snapshot::snapshot_mismatch;
use routelens_engine::{GoldSpan, Study, Table};

use super::LoadedBundle;
use crate::error::Result;
use crate::packing::params::PackParamsStoreFields;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// The Context view's settings.
pub fn settings_now(app: AppState) -> ContextSettings {
    let s = app.settings;
    ContextSettings {
        k: s.shared().k().get_untracked(),
        anchors_per_file: s.packing().anchors().get_untracked(),
        radius_lines: s.packing().radius().get_untracked(),
        budget_tokens: s.packing().budget().get_untracked(),
    }
}

/// Whether every gold span's file is in the bundle.
pub fn files_available(bundle: &LoadedBundle, gold: &[GoldSpan]) -> bool {
    !gold.is_empty() && gold.iter().all(|span| bundle.paths.contains(&span.path))
}

/// The cases of a study the loaded bundle can recompute, and those it must not.
#[derive(Default)]
pub struct Available {
    /// Each case's index, issue text and gold spans.
    pub cases: Vec<(usize, String, Vec<GoldSpan>)>,
    /// One sentence per case the bundle has a question for but that was cut at another commit
    /// or ranked under another file policy: its gold lines and the bundle's files would belong
    /// to different snapshots, so it is shown, never recomputed.
    pub mismatched: Vec<String>,
}

/// The cases of `study` whose files are in `bundle`: the bundle has a question with the case's id
/// (its issue text) and every gold span's file, and the bundle is of the case's commit and the
/// study's file policy. Gold spans are the case's, else the question's.
pub fn available_cases(study: &Study, bundle: &LoadedBundle) -> Available {
    let snapshot = bundle.snapshot();
    let mut available = Available::default();
    for (index, case) in study.cases.iter().enumerate() {
        let Some(question) = bundle.questions.iter().find(|q| q.id == case.id) else {
            continue;
        };
        if let Some(why) = snapshot_mismatch(study, case, snapshot) {
            available.mismatched.push(why);
            continue;
        }
        let gold = if case.gold_spans.is_empty() {
            question.gold_lines.clone()
        } else {
            case.gold_spans.clone()
        };
        if files_available(bundle, &gold) {
            available
                .cases
                .push((index, question.question.clone(), gold));
        }
    }
    available
}

/// Recomputes the study's arms over its available cases (see [`available_cases`]).
pub async fn recompute_study(
    study: &Study,
    bundle: &LoadedBundle,
    settings: ContextSettings,
    progress: impl Fn(String) + 'static,
) -> Result<Table> {
    let jobs = available_cases(study, bundle)
        .cases
        .into_iter()
        .map(|(index, text, gold)| LineJob {
            index,
            text,
            gold,
            rankings: study
                .arms
                .iter()
                .map(|arm| {
                    let ranking = arm.rankings.get(index).cloned().unwrap_or_default();
                    (arm.name.clone(), ranking)
                })
                .collect(),
        })
        .collect();
    let rows = bundle.line_scores(jobs, settings, progress).await?;
    Ok(recomputed_lines_table(
        &format!("Delivered lines at k = {} (recomputed)", settings.k),
        &rows,
        Some(study),
    ))
}
