//! The Route view's driver: the loop that steps an engine [`Session`] through a transport
//! ([`crate::decisions`]), and "Add as arm".
//!
//! The loop asks the session for the next call, waits the call's `wait_ms` (a retry after 429 or
//! 529), sends it through the chosen transport, hands the outcome back and shows the run after
//! every answer, so the menus fill in live. The key lives in a signal (and in local storage only
//! when the user ticks "remember"); it goes into the `Authorization` header and nowhere else: not
//! the URL, not the console, not the run file (a session never sees it).

use std::sync::Arc;

use leptos::prelude::*;
use routelens_engine::live::evidence::join_live_arms;
use routelens_engine::live::evidence::{live_arm, CaseEvidence};
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::route::{RouteSettings, Run, RunFile, Session, Strategy};
use routelens_engine::DirTree;

use super::params::RouteParams;
use super::state::{RouteState, Shown};
use crate::api;
use crate::decisions::DeciderKind;
use crate::decisions::{sleep_ms, Transport};
use crate::error::Error;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;

/// Steps `session` to its end (or the user's cancel), calling `shown` with the run after every
/// answer. Local deciders yield to the page every few calls so it paints.
pub(super) async fn drive(
    rs: RouteState,
    session: &mut Session,
    transport: &mut Transport,
    shown: impl Fn(&Run),
) {
    let start = api::now_ms();
    let elapsed = move || (api::now_ms() - start).max(0.0) as u64;
    let mut steps = 0usize;
    loop {
        if rs.cancel.get_untracked() {
            session.cancel("cancelled by the user");
            break;
        }
        let Some(call) = session.next_call(elapsed()) else {
            break;
        };
        if call.wait_ms > 0 && transport.is_remote() {
            rs.progress.set(Some(format!(
                "call {}: retry {} in {} ms",
                call.index + 1,
                call.attempt,
                call.wait_ms
            )));
            sleep_ms(call.wait_ms).await;
        }
        let asked = api::now_ms();
        let outcome = transport.send(&call.request).await;
        let decider_ms = (api::now_ms() - asked).max(0.0) as u64;
        session.answer(&call.request, outcome, elapsed(), decider_ms);
        shown(session.run());
        steps += 1;
        if transport.is_remote() || steps.is_multiple_of(4) {
            api::next_tick().await;
        }
    }
    shown(session.run());
}

/// The engine settings for the view's setup.
pub(super) fn settings_of(setup: &RouteParams) -> RouteSettings {
    RouteSettings {
        model: setup.model.clone(),
        max_files: setup.max_files,
        max_calls: setup.max_calls,
        ..RouteSettings::default()
    }
}

/// The arm name of a route run: `route-<strategy>-<decider>`.
pub(super) fn arm_name(strategy: Strategy, decider: DeciderKind) -> String {
    format!("route-{}-{}", strategy.name(), decider.name())
}

/// Routes every question of the open bundle's set with the chosen decider and adds the rankings
/// as one arm of the live study (and of the open study, when it is this question set).
pub(super) async fn run_all(app: AppState, rs: RouteState) {
    let Some(open) = rs.open.get_untracked() else {
        return;
    };
    let setup = app.settings.route().get_untracked();
    if setup.decider == DeciderKind::Replay {
        rs.error.set(Some(Error::refused(
            "a run file replays one question; choose offline, http or proxy to add an arm",
        )));
        return;
    }
    rs.busy.set(true);
    rs.cancel.set(false);
    rs.error.set(None);
    let settings = settings_of(&setup);
    let base = app.settings.shared().api_base().get_untracked();
    let mut evidence = Vec::new();
    let mut failed = Vec::new();
    for (done, q) in open.questions.iter().enumerate() {
        rs.progress.set(Some(format!(
            "routing question {}/{} ({})",
            done + 1,
            open.questions.len(),
            q.id
        )));
        let file = match route_one(
            rs,
            &open.tree,
            q,
            &settings,
            &setup,
            &base,
            &rs.key.get_untracked(),
        )
        .await
        {
            Ok(run) => run,
            Err(err) => {
                rs.busy.set(false);
                rs.error.set(Some(err));
                return;
            }
        };
        if let Some(error) = &file.run.error {
            failed.push(format!("{}: {}", q.id, error.message));
        }
        evidence.push(Some(CaseEvidence::Route(Box::new(file))));
        if rs.cancel.get_untracked() {
            rs.busy.set(false);
            rs.progress.set(Some("cancelled; no arm added".into()));
            return;
        }
    }
    let name = arm_name(setup.strategy, setup.decider);
    let label = format!(
        "{} router, {} decider",
        setup.strategy.name(),
        setup.decider.name()
    );
    // The arm keeps every run file: its calls, tokens, cost and time reach the operating points,
    // and the study downloads with its runs for an offline replay.
    let base = app.base.get_untracked();
    let joined = join_live_arms(
        rs.live.get_untracked().as_deref(),
        base.as_deref(),
        &open.entry.name,
        &open.questions,
        vec![live_arm(&name, &label, evidence)],
    );
    let joined = match joined {
        Ok(joined) => joined,
        Err(err) => {
            rs.busy.set(false);
            rs.error.set(Some(Error::about(name, err)));
            return;
        }
    };
    let merged = joined.open;
    rs.progress.set(Some(format!(
        "routed {} questions; arm {name} added to {}{}",
        open.questions.len(),
        if merged.is_some() {
            "the open study"
        } else {
            "the live study"
        },
        if failed.is_empty() {
            String::new()
        } else {
            format!(
                "; {} runs failed and count as partial: {}",
                failed.len(),
                failed.join("; ")
            )
        }
    )));
    if let Some(merged) = merged {
        app.base.set(Some(Arc::new(merged)));
    }
    rs.live.set(Some(Arc::new(joined.live)));
    rs.busy.set(false);
}

/// One question's run file, routed with a fresh transport (the live view is not touched).
async fn route_one(
    rs: RouteState,
    tree: &DirTree,
    question: &Question,
    settings: &RouteSettings,
    setup: &RouteParams,
    base: &str,
    key: &str,
) -> Result<RunFile, Error> {
    let mut transport = Transport::for_kind(setup.decider, base, key)?;
    let mut session = Session::new(
        setup.strategy,
        tree,
        &question.id,
        &question.question,
        settings.clone(),
        setup.decider.name(),
    )
    .map_err(|err| Error::about(question.id.clone(), err))?;
    drive(rs, &mut session, &mut transport, |_| {}).await;
    Ok(session.file())
}

/// Makes the live study the open study, so every study view shows the route arm.
pub(super) fn open_live_study(app: AppState, rs: RouteState) {
    if let (Some(study), Some(open)) = (rs.live.get_untracked(), rs.open.get_untracked()) {
        app.open_live_study(study.study.clone(), open.entry.name.clone());
    }
}

/// What the view shows of a finished or running run.
pub(super) fn shown(
    run: &Run,
    settings: &RouteSettings,
    question: Option<&Question>,
    source: &str,
) -> Shown {
    Shown {
        run: run.clone(),
        settings: settings.clone(),
        qid: question.map(|q| q.id.clone()),
        gold: question.map(|q| q.gold.clone()).filter(|g| !g.is_empty()),
        source: source.to_string(),
    }
}
