//! Recording a run and replaying it exactly, with no network.
//!
//! The paper could not do this: it kept the rankings, not the model's answers. A run file holds
//! every request and its outcome (the response, or the error, retries included), the settings
//! and the issue, and the run as it ended. Replaying feeds the recorded outcomes back in order and
//! refuses, naming the call and the field, any request that differs from the recorded one, so a
//! replay either reproduces the walk (same menus, same ranking, same calls and tokens) or says
//! why it cannot. The key is a transport header and never part of a request, so it is never in a
//! run file.

use serde::{Deserialize, Serialize};

use super::decider::Decider;
use super::protocol::{DecisionError, Question, Request, Response};
use super::run::{Run, Strategy};
use super::settings::RouteSettings;
use crate::{Error, Result};

/// The `format` of a run file this engine writes and reads.
pub const RUN_FILE_FORMAT: &str = "routelens-route-run/1";

/// A recorded run (the JSON file `--record` writes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    /// Always [`RUN_FILE_FORMAT`].
    pub format: String,
    /// Tree or flat.
    pub strategy: Strategy,
    /// The issue's id (it orders the flat tournament's paths; empty when none was given).
    #[serde(default)]
    pub issue_id: String,
    /// The issue text routed.
    pub issue: String,
    /// The settings the run used.
    pub settings: RouteSettings,
    /// The decider that answered when recording (`http`, `offline`).
    pub decider: String,
    /// Every request in order, with what came back.
    pub exchanges: Vec<Exchange>,
    /// The run as it ended.
    pub run: Run,
    /// The run stopped before its end: by an error, a cancel or Ctrl-C, or it was still going
    /// (the command line rewrites the file after every call). A replay stops where the
    /// recording does, with the recorded reason.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// One request and its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// The request body as sent.
    pub request: Request,
    /// What came back.
    pub outcome: Outcome,
}

/// What a request got.
///
/// A response is kept as its JSON text, not as a JSON object: serde_json's default float parser
/// may land one unit in the last place away from the printed value, and a number parsed twice
/// through print and parse could drift. The recorder hands the walk the response parsed from this
/// very text, and the replayer parses the same text again, so both see the same bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A checked response, as JSON text.
    Response(String),
    /// An error (a retried 429 shows up as one exchange per attempt).
    Error(DecisionError),
}

impl RunFile {
    /// Reads a run file; errors name the file and the field.
    pub fn from_json(file: &str, text: &str) -> Result<RunFile> {
        let run: RunFile = crate::error::from_json_file(file, text)?;
        if run.format != RUN_FILE_FORMAT {
            return Err(Error::field(
                file,
                "format",
                format!("{:?} is not {RUN_FILE_FORMAT:?}", run.format),
            ));
        }
        Ok(run)
    }

    /// Why a partial recording stops (its run's error, or that it was cut off), so its replay
    /// stops there too; `None` for a whole run. A run that failed is partial also in a file
    /// written before the field existed.
    pub fn stopped_because(&self) -> Option<String> {
        (self.partial || self.run.error.is_some()).then(|| {
            self.run.error.as_ref().map_or_else(
                || "the recording ends here (a partial run file)".to_string(),
                |error| error.message.clone(),
            )
        })
    }

    /// The file's JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// Passes requests to another decider and keeps every exchange.
#[derive(Debug)]
pub struct Recorder<D> {
    inner: D,
    /// The exchanges so far.
    pub exchanges: Vec<Exchange>,
}

impl<D: Decider> Recorder<D> {
    /// Records what `inner` answers.
    pub fn new(inner: D) -> Recorder<D> {
        Recorder {
            inner,
            exchanges: Vec::new(),
        }
    }

    /// The run file of a finished run.
    pub fn into_file(
        self,
        issue_id: &str,
        issue: &str,
        settings: &RouteSettings,
        run: &Run,
    ) -> RunFile {
        RunFile {
            format: RUN_FILE_FORMAT.into(),
            strategy: run.strategy,
            issue_id: issue_id.to_string(),
            issue: issue.to_string(),
            settings: settings.clone(),
            decider: self.inner.kind(),
            exchanges: self.exchanges,
            run: run.clone(),
            partial: run.error.is_some(),
        }
    }
}

impl<D: Decider> Decider for Recorder<D> {
    fn decide(&mut self, request: &Request) -> std::result::Result<Response, DecisionError> {
        let outcome = self.inner.decide(request);
        record(&mut self.exchanges, request, outcome)
    }

    fn kind(&self) -> String {
        self.inner.kind()
    }
}

/// Answers from a run file, refusing any request the recording does not have at that point.
#[derive(Debug, Clone)]
pub struct Replayer {
    exchanges: Vec<Exchange>,
    next: usize,
    recorded_by: String,
}

impl Replayer {
    /// Replays `file`'s exchanges in order.
    pub fn new(file: &RunFile) -> Replayer {
        Replayer {
            exchanges: file.exchanges.clone(),
            next: 0,
            recorded_by: file.decider.clone(),
        }
    }

    /// Replays `exchanges` (another run file's, such as a rerank run's), recorded by
    /// `recorded_by`.
    pub fn from_exchanges(exchanges: Vec<Exchange>, recorded_by: &str) -> Replayer {
        Replayer {
            exchanges,
            next: 0,
            recorded_by: recorded_by.to_string(),
        }
    }

    /// How many recorded exchanges have not been used (0 after an exact replay).
    pub fn remaining(&self) -> usize {
        self.exchanges.len() - self.next
    }
}

impl Decider for Replayer {
    fn decide(&mut self, request: &Request) -> std::result::Result<Response, DecisionError> {
        let index = self.next;
        let Some(exchange) = self.exchanges.get(index) else {
            return Err(DecisionError::Replay {
                message: format!(
                    "request {} was not recorded (the run file has {} exchanges)",
                    index + 1,
                    self.exchanges.len()
                ),
            });
        };
        if let Some(field) = difference(&exchange.request, request) {
            return Err(DecisionError::Replay {
                message: format!(
                    "request {} differs from the recorded one in {field}",
                    index + 1
                ),
            });
        }
        self.next += 1;
        match &exchange.outcome {
            Outcome::Response(text) => reparse(text),
            Outcome::Error(error) => Err(error.clone()),
        }
    }

    fn kind(&self) -> String {
        format!("replay of {}", self.recorded_by)
    }
}

/// A recorded response's text as the typed response.
/// Appends `request` and its outcome to `exchanges` and returns the outcome as a replay will see
/// it: a response goes through its JSON text, so the recorded bits are the ones used.
pub(crate) fn record(
    exchanges: &mut Vec<Exchange>,
    request: &Request,
    outcome: std::result::Result<Response, DecisionError>,
) -> std::result::Result<Response, DecisionError> {
    let outcome = outcome.and_then(|response| {
        let text = serde_json::to_string(&response).unwrap_or_default();
        serde_json::from_slice::<Response>(text.as_bytes())
            .map(|response| (response, text))
            .map_err(|err| DecisionError::Malformed {
                message: format!("the response does not survive a round trip: {err}"),
            })
    });
    let (outcome, kept) = match outcome {
        Ok((response, text)) => (Ok(response), Outcome::Response(text)),
        Err(error) => (Err(error.clone()), Outcome::Error(error)),
    };
    exchanges.push(Exchange {
        request: request.clone(),
        outcome: kept,
    });
    outcome
}

fn reparse(text: &str) -> std::result::Result<Response, DecisionError> {
    serde_json::from_slice(text.as_bytes()).map_err(|err| DecisionError::Replay {
        message: format!("a recorded response is not a response: {err}"),
    })
}

/// The first field in which two requests differ, named for a person.
fn difference(recorded: &Request, asked: &Request) -> Option<String> {
    if recorded.state != asked.state {
        return Some("state (another issue text?)".into());
    }
    if recorded.model != asked.model {
        return Some(format!(
            "model ({} recorded, {} asked)",
            recorded.model, asked.model
        ));
    }
    for (name, question) in &recorded.questions {
        let Some(other) = asked.questions.get(name) else {
            return Some(format!("questions.{name} (missing)"));
        };
        match (question, other) {
            (
                Question::Choice {
                    instructions: a,
                    criteria: ca,
                },
                Question::Choice {
                    instructions: b,
                    criteria: cb,
                },
            ) => {
                if a != b {
                    return Some(format!("questions.{name}.instructions"));
                }
                for (i, (key, text)) in ca.0.iter().enumerate() {
                    match cb.0.get(i) {
                        Some((k, t)) if k == key && t == text => {}
                        _ => return Some(format!("questions.{name}.criteria.{key}")),
                    }
                }
                if cb.0.len() != ca.0.len() {
                    return Some(format!(
                        "questions.{name}.criteria ({} options recorded, {} asked)",
                        ca.0.len(),
                        cb.0.len()
                    ));
                }
            }
            (a, b) if a != b => return Some(format!("questions.{name}")),
            _ => {}
        }
    }
    (recorded != asked).then(|| "questions".to_string())
}
