//! The Search view's whole-question-set actions: "Add as arm" (every question through every arm,
//! into a live study of the question set and, when it is the open study, into that), "Open as
//! study" (the live study becomes the study every other view shows), and the TREC export.

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::evidence::{live_arm, CaseEvidence};
use routelens_engine::lexical::live::{live_study, merge_live_arms, trec_run, RunList};
use routelens_engine::MAX_K;

use super::search::{fail, fuse, load_all, run_arms, AllRuns, SearchState};
use crate::api;
use crate::state::AppState;

/// Runs every question through every arm and the fusion, adds them to the live study, and, when
/// the open study is this question set, to the open study too.
pub(super) async fn run_all(app: AppState, s: SearchState) {
    let Some(open) = s.open.get_untracked() else {
        return;
    };
    s.busy.set(true);
    s.error.set(None);
    let (index, texts) = match load_all(s).await {
        Ok(ready) => ready,
        Err(err) => {
            s.busy.set(false);
            return fail(s, err);
        }
    };
    let fused_arms = s.fused.get_untracked();
    let fusion_name = fused_arms.join("+");
    let mut runs = Vec::new();
    // Per question, each arm's own query time (none for the fusion).
    let mut times: Vec<Vec<Option<f64>>> = Vec::new();
    for (done, q) in open.questions.iter().enumerate() {
        if done % 5 == 0 {
            s.progress.set(Some(format!(
                "running question {}/{}",
                done + 1,
                open.questions.len()
            )));
            api::next_tick().await;
        }
        let columns = run_arms(&index, Some(&texts), &open.paths, &q.question);
        let mut arms: Vec<(String, Vec<(String, f64)>)> = columns
            .iter()
            .map(|c| (c.arm.clone(), c.results.clone().unwrap_or_default()))
            .collect();
        let mut ms: Vec<Option<f64>> = columns.iter().map(|c| Some(c.ms)).collect();
        if fused_arms.len() >= 2 {
            arms.push((fusion_name.clone(), fuse(&columns, &fused_arms)));
            ms.push(None);
        }
        runs.push((q.id.clone(), arms));
        times.push(ms);
    }
    let mut study = s
        .live
        .get_untracked()
        .map(|study| (*study).clone())
        .unwrap_or_else(|| live_study(&open.entry.name, &open.questions));
    let names: Vec<String> = runs
        .first()
        .map(|(_, arms)| arms.iter().map(|(name, _)| name.clone()).collect())
        .unwrap_or_default();
    for (slot, name) in names.iter().enumerate() {
        // Each case keeps its scored results and query time: the operating points show the
        // arm's query time, and the study downloads with its searches for an offline replay.
        let evidence = runs
            .iter()
            .zip(&times)
            .map(|((_, arms), ms)| {
                Some(CaseEvidence::Search {
                    k: MAX_K,
                    results: arms[slot].1.clone(),
                    query_ms: ms[slot],
                })
            })
            .collect();
        if let Err(err) = study.add_arm(live_arm(name, name, evidence)) {
            s.error.set(Some(err.to_string()));
        }
    }
    let merged = app
        .base
        .get_untracked()
        .and_then(|open| merge_live_arms(&open, &study));
    let into = if merged.is_some() {
        "the open study"
    } else {
        "the live study (\"Open as study\" makes it the open study)"
    };
    s.progress.set(Some(format!(
        "ran {} questions through {} arms; added to {into}",
        runs.len(),
        names.len()
    )));
    if let Some(merged) = merged {
        app.base.set(Some(Arc::new(merged)));
    }
    s.all.set(Some(AllRuns { runs }));
    s.live.set(Some(Arc::new(study)));
    s.busy.set(false);
}

/// The TREC run of the results: every question when "Add as arm" ran them, else the shown query.
pub(super) fn export_trec(s: SearchState) -> String {
    if let Some(all) = s.all.get_untracked() {
        let lists: Vec<RunList> = all
            .runs
            .iter()
            .flat_map(|(qid, arms)| {
                arms.iter()
                    .map(move |(tag, results)| RunList { qid, tag, results })
            })
            .collect();
        return trec_run(&lists);
    }
    let Some(results) = s.results.get_untracked() else {
        return String::new();
    };
    let fused_arms = s.fused.get_untracked();
    let fusion = (fused_arms.len() >= 2)
        .then(|| (fused_arms.join("+"), fuse(&results.columns, &fused_arms)));
    let mut lists: Vec<RunList> = results
        .columns
        .iter()
        .filter_map(|c| {
            c.results.as_ref().ok().map(|r| RunList {
                qid: "query",
                tag: &c.arm,
                results: r,
            })
        })
        .collect();
    if let Some((name, fused)) = &fusion {
        lists.push(RunList {
            qid: "query",
            tag: name,
            results: fused,
        });
    }
    trec_run(&lists)
}

/// Makes the live study the open study: every view (Table 2, fusion, paired tests, cases) then
/// shows the live arms. The permalink names it `live:<bundle>`; it cannot carry the runs.
pub(super) fn open_live_study(app: AppState, s: SearchState) {
    if let (Some(study), Some(open)) = (s.live.get_untracked(), s.open.get_untracked()) {
        app.open_live_study((*study).clone(), open.entry.name.clone());
    }
}
