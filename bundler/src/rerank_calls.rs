//! `rerank`'s remote calls: the live planner (chat completions) and the Jev Score judge (System
//! One), each over HTTP or replayed from a rerank run file, driven synchronously through the
//! engine's step machines, and the run file `--record` keeps.
//!
//! Keys come from the environment (`OPENROUTER_API_KEY` for the planner, `TYPESAFE_API_KEY` for
//! the judge) and go only into request headers: a run file holds request bodies, never a key.
//! The run file is rewritten (atomically) after every judged pool, marked partial until the run
//! ends, so a run stopped by an error or Ctrl-C leaves what it did, replayable. Ctrl-C is caught
//! while a live planner or judge runs ([`crate::interrupt`]): the call in flight finishes, the
//! pool being judged is recorded as far as it went, and the command exits 130.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use routelens_engine::remote::rerank::chat_planner::{
    ChatReplayer, PlannerAccounting, PlannerPayload, PlannerRun, PlannerSettings, PLANNER_KEY_ENV,
};
use routelens_engine::remote::rerank::jev::{judge_all, JevRun, JevSettings};
use routelens_engine::remote::rerank::plan::{parse_plan, Plan};
use routelens_engine::remote::rerank::record::{RecordedArm, RerankRunFile};
use routelens_engine::remote::rerank::settings::RerankArm;
use routelens_engine::remote::route::protocol::KEY_ENV;
use routelens_engine::remote::route::Clock;

use crate::failure::Failure;
use crate::folder::write_file_atomic;
use crate::input::read_text;
use crate::interrupt;
use crate::transport::{ChatClient, HttpDecider, WallClock};

/// Who answers the judge's calls.
pub enum JudgeSource {
    /// The decision API over HTTP.
    Http(HttpDecider),
    /// A recorded run.
    Replay(Box<RerankRunFile>),
}

/// Who plans.
pub enum PlanSource {
    /// The engine's offline planner.
    Offline,
    /// A model over chat completions.
    Http(ChatClient),
    /// A recorded run's planning.
    Replay(Box<RerankRunFile>),
}

/// The remote half of a rerank run and its recording.
pub struct Remote {
    judge: Option<JudgeSource>,
    planner: PlanSource,
    planner_settings: PlannerSettings,
    jev: JevSettings,
    batch: usize,
    record: Option<(PathBuf, RerankRunFile)>,
}

/// Reads a rerank run file named by `replay:FILE`, saying on stderr when it is partial.
pub fn read_run_file(path: &std::path::Path) -> Result<RerankRunFile, Failure> {
    let file = RerankRunFile::from_json(&path.display().to_string(), &read_text(path)?)?;
    if file.partial {
        let _ = writeln!(
            std::io::stderr(),
            "routelens: {} is partial ({}): what it did not record is reported as not recorded",
            path.display(),
            file.stopped_by.as_deref().unwrap_or("its run did not end")
        );
    }
    Ok(file)
}

/// A key from the environment, or none (then no Authorization header is sent: right for a
/// gateway that adds it), said on stderr.
fn key_from(env: &str) -> Option<String> {
    let key = std::env::var(env).ok().filter(|key| !key.trim().is_empty());
    if key.is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "routelens: {env} is not set: sending no Authorization header"
        );
    }
    key
}

impl Remote {
    /// The remote half: `judge` is `http`, `replay:FILE` or none; `planner` is `offline`,
    /// `http` or `replay:FILE`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        judge: Option<&str>,
        planner: &str,
        (base, jev): (&str, JevSettings),
        planner_settings: PlannerSettings,
        batch: usize,
        timeout: Duration,
        record: Option<PathBuf>,
    ) -> Result<Remote, Failure> {
        let judge = match judge {
            None => None,
            Some("http") => Some(JudgeSource::Http(HttpDecider::new(
                base,
                key_from(KEY_ENV),
                timeout,
            ))),
            Some(other) => match other.strip_prefix("replay:") {
                Some(path) => Some(JudgeSource::Replay(Box::new(read_run_file(
                    std::path::Path::new(path),
                )?))),
                None => unknown_reranker(other)?,
            },
        };
        let planner = match planner {
            "offline" => PlanSource::Offline,
            "http" => PlanSource::Http(ChatClient::new(
                &planner_settings.base,
                key_from(PLANNER_KEY_ENV),
                timeout,
            )),
            other => match other.strip_prefix("replay:") {
                Some(path) => {
                    PlanSource::Replay(Box::new(read_run_file(std::path::Path::new(path))?))
                }
                None => {
                    return Err(Failure::Usage(format!(
                        "--planner: unknown planner {other:?}; expected offline, http or \
                         replay:FILE"
                    )))
                }
            },
        };
        // A replay answers with the recording's settings, so its requests can match.
        let (jev, batch) = match &judge {
            Some(JudgeSource::Replay(file)) => (file.jev.clone(), file.batch),
            _ => (jev, batch),
        };
        let planner_settings = match &planner {
            PlanSource::Replay(file) => file.planner.clone().unwrap_or(planner_settings),
            _ => planner_settings,
        };
        let kind = match &judge {
            Some(JudgeSource::Replay(file)) => format!("replay of {}", file.judge),
            Some(JudgeSource::Http(_)) => "http".into(),
            None => "none".into(),
        };
        if matches!(judge, Some(JudgeSource::Http(_))) || matches!(planner, PlanSource::Http(_)) {
            interrupt::catch();
        }
        let record = record.map(|path| {
            let mut file = RerankRunFile::new(&kind, jev.clone(), batch);
            if !matches!(planner, PlanSource::Offline) {
                file.planner = Some(planner_settings.clone());
            }
            (path, file)
        });
        Ok(Remote {
            judge,
            planner,
            planner_settings,
            jev,
            batch,
            record,
        })
    }

    /// The batch size the judge uses (a replay's own).
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Whether a live or replayed planner plans (else the offline planner does).
    pub fn plans(&self) -> bool {
        !matches!(self.planner, PlanSource::Offline)
    }

    /// The plan of one question from the live or replayed planner: a plan, or, when it gave
    /// none, an empty plan (an empty grep pool: no refill) and why. `None` with the offline
    /// planner.
    pub fn plan(
        &mut self,
        id: &str,
        query: &str,
        payload: impl FnOnce() -> PlannerPayload,
    ) -> Result<Option<(Plan, Option<String>, PlannerAccounting)>, Failure> {
        if !self.plans() {
            return Ok(None);
        }
        let mut run = PlannerRun::new(&payload(), self.planner_settings.clone());
        let replaying = matches!(self.planner, PlanSource::Replay(_));
        let mut clock = WallClock::start(!replaying);
        let mut replayer = match &self.planner {
            PlanSource::Replay(file) => Some(ChatReplayer::new(
                file.question(id, query)
                    .map(|q| q.planning.clone())
                    .unwrap_or_default(),
            )),
            _ => None,
        };
        while let Some(call) = run.next_call() {
            if call.wait_ms > 0 {
                clock.sleep_ms(call.wait_ms);
            }
            if interrupt::requested() {
                break;
            }
            let (outcome, ms) = match (&self.planner, replayer.as_mut()) {
                (_, Some(replayer)) => replayer.answer(&call.body),
                (PlanSource::Http(client), None) => {
                    let started = clock.now_ms();
                    let outcome = client.send(&call.body);
                    (outcome, clock.now_ms().saturating_sub(started))
                }
                _ => break,
            };
            run.answer(outcome, ms);
        }
        let stopped = interrupt::requested() && run.result().is_none();
        let outcome = match run.result() {
            Some(Ok(text)) => match parse_plan(&format!("the planner's reply for {id}"), text) {
                Ok(plan) => (plan, None),
                Err(err) => (Plan { actions: vec![] }, Some(err.to_string())),
            },
            Some(Err(why)) => (Plan { actions: vec![] }, Some(why.clone())),
            None if stopped => (Plan { actions: vec![] }, Some(interrupt::REASON.into())),
            None => (Plan { actions: vec![] }, Some("no reply".into())),
        };
        let (exchanges, accounting) = run.record();
        if let Some((_, file)) = &mut self.record {
            let question = file.question_mut(id, query);
            question.planning = exchanges;
            question.planner_accounting = Some(accounting.clone());
            question.plan_error = outcome.1.clone();
        }
        if stopped {
            return Err(interrupted(id));
        }
        Ok(Some((outcome.0, outcome.1, accounting)))
    }

    /// Judges every pending arm of one question with the Jev judge, recording each pool.
    pub fn judge(&mut self, id: &str, query: &str, arms: &mut [RerankArm]) -> Result<(), Failure> {
        for arm in arms.iter_mut().filter(|a| a.judge_pending) {
            let mut run = JevRun::new(query, arm.candidates.clone(), self.batch, self.jev.clone());
            match &mut self.judge {
                Some(JudgeSource::Http(decider)) => judge_all(
                    &mut run,
                    decider,
                    &mut WallClock::start(true),
                    &interrupt::requested,
                ),
                Some(JudgeSource::Replay(file)) => {
                    let mut replayer = file.judge_replayer(id, query, arm.route);
                    judge_all(
                        &mut run,
                        &mut replayer,
                        &mut WallClock::start(false),
                        &|| false,
                    )
                }
                None => {
                    return Err(Failure::Usage(
                        "the jev reranker needs --reranker http or --reranker replay:FILE".into(),
                    ))
                }
            }
            let (reranked, exchanges) = run.finish();
            arm.reranked = reranked;
            arm.judge_pending = false;
            if let Some((_, file)) = &mut self.record {
                file.question_mut(id, query).arms.push(RecordedArm {
                    route: arm.route,
                    exchanges,
                    reranked: arm.reranked.clone(),
                });
            }
            self.save(true, None)?;
            if interrupt::requested() {
                return Err(interrupted(id));
            }
        }
        Ok(())
    }

    /// Whether a run file is being written.
    pub fn records(&self) -> bool {
        self.record.is_some()
    }

    /// Writes the run file (when recording), marked partial and why until the run ends.
    pub fn save(&mut self, partial: bool, stopped_by: Option<String>) -> Result<(), Failure> {
        if let Some((path, file)) = &mut self.record {
            file.partial = partial;
            file.stopped_by = stopped_by;
            write_file_atomic(path, file.to_json().as_bytes())?;
        }
        Ok(())
    }
}

/// Ctrl-C's failure, naming the question it stopped at.
pub fn interrupted(id: &str) -> Failure {
    Failure::Interrupted(format!("{} (at question {id:?})", interrupt::REASON))
}

fn unknown_reranker<T>(name: &str) -> Result<T, Failure> {
    Err(Failure::Usage(format!(
        "--reranker: unknown reranker {name:?}; expected none, offline, http or replay:FILE"
    )))
}
