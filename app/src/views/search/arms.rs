//! The Search view's whole-question-set actions: "Add as arm" (every question through every arm,
//! into a live study of the question set and, when it is the open study, into that), "Open as
//! study" (the live study becomes the study every other view shows), and the TREC export.

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::live::evidence::join_live_arms;
use routelens_engine::live::evidence::{live_arm, CaseEvidence};
use routelens_engine::live::live_session::{AnswerBody, CallBody, WireRun};
use routelens_engine::live::trec_export::{trec_run, RunList};
use routelens_engine::load::question_set::Question;
use routelens_engine::retrieval::lexical::issue_run::{fuse_runs, ArmRun};
use routelens_engine::{fusion_name, MAX_K};

use super::sources::load;
use super::state::{fail, AllRuns, SearchState};
use crate::error::Error;
use crate::live;
use crate::state::AppState;

/// Runs every question through every arm and the fusion, adds them to the live study, and, when
/// the open study is this question set, to the open study too.
pub(super) async fn run_all(app: AppState, s: SearchState) {
    let Some(open) = s.open.get_untracked() else {
        return;
    };
    s.busy.set(true);
    s.error.set(None);
    let issues = match run_questions(s, &open.entry.name, &open.questions).await {
        Ok(issues) => issues,
        Err(err) => {
            s.busy.set(false);
            return fail(s, err);
        }
    };
    // Each arm keeps per question its scored results and query time (the operating points show
    // the query time; the study downloads with its searches for an offline replay). An arm that
    // failed on any question is left out and named, never added with empty rankings.
    let names: Vec<String> = issues
        .first()
        .map(|(_, arms)| arms.iter().map(|run| run.arm.clone()).collect())
        .unwrap_or_default();
    let mut added = Vec::new();
    let mut failed = Vec::new();
    for (slot, name) in names.iter().enumerate() {
        let evidence: Result<Vec<Option<CaseEvidence>>, String> = issues
            .iter()
            .map(|(qid, arms)| match &arms[slot].output {
                Ok(output) => Ok(Some(CaseEvidence::Search {
                    k: MAX_K,
                    results: output.results.clone(),
                    query_ms: arms[slot].ms,
                })),
                Err(err) => Err(format!("{name} failed on {qid}: {err}")),
            })
            .collect();
        match evidence {
            Ok(evidence) => added.push(live_arm(name, name, evidence)),
            Err(why) => failed.push(why),
        }
    }
    let count = added.len();
    let base = app.base.get_untracked();
    let joined = join_live_arms(
        s.live.get_untracked().as_deref(),
        base.as_deref(),
        &open.entry.name,
        &open.questions,
        added,
    );
    let joined = match joined {
        Ok(joined) => joined,
        Err(err) => {
            s.busy.set(false);
            return fail(s, err);
        }
    };
    let into = if joined.open.is_some() {
        "the open study"
    } else {
        "the live study (\"Open as study\" makes it the open study)"
    };
    s.progress.set(Some(format!(
        "ran {} questions through {count} arms; added to {into}",
        issues.len(),
    )));
    if !failed.is_empty() {
        s.error.set(Some(Error::refused(format!(
            "{} arm(s) failed and were not added: {}",
            failed.len(),
            failed.join("; ")
        ))));
    }
    if let Some(merged) = joined.open {
        app.base.set(Some(Arc::new(merged)));
    }
    let runs = issues
        .into_iter()
        .map(|(qid, arms)| {
            let ranked = arms
                .into_iter()
                .filter_map(|run| Some((run.arm, run.output.ok()?.results)))
                .collect();
            (qid, ranked)
        })
        .collect();
    s.all.set(Some(AllRuns { runs }));
    s.live.set(Some(Arc::new(joined.live)));
    s.busy.set(false);
}

/// Every question through every arm and the fusion, in the live worker (every chunk loaded
/// first), with progress.
async fn run_questions(
    s: SearchState,
    bundle: &str,
    questions: &[Question],
) -> crate::error::Result<Vec<(String, Vec<ArmRun>)>> {
    load(s, true).await?;
    let call = CallBody::RunIssues {
        bundle: bundle.to_string(),
        issues: questions.iter().map(|q| q.question.clone()).collect(),
        k: MAX_K,
        fused: s.fused.get_untracked(),
    };
    match live::call(call, move |line| s.progress.set(Some(line))).await? {
        AnswerBody::RanAll {
            issues,
            cancelled: false,
        } => Ok(questions
            .iter()
            .zip(issues)
            .map(|(q, runs)| {
                let runs = runs.into_iter().map(WireRun::into_run).collect();
                (q.id.clone(), runs)
            })
            .collect()),
        other => Err(live::unexpected(&other)),
    }
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
        .then(|| fuse_runs(&results.columns, &fused_arms, MAX_K).ok())
        .flatten()
        .map(|output| (fusion_name(&fused_arms), output.results));
    let mut lists: Vec<RunList> = results
        .columns
        .iter()
        .filter_map(|c| {
            c.output.as_ref().ok().map(|output| RunList {
                qid: "query",
                tag: &c.arm,
                results: &output.results,
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
        app.open_live_study(study.study.clone(), open.entry.name.clone());
    }
}
