//! A rerank run file: every planning and judging exchange of a run over one or more questions,
//! so the run replays exactly with no network and no key.
//!
//! Per question: its id and text, the planning exchanges (chat completions) with their
//! accounting and outcome, and per route the Jev exchanges (System One) with the reranked pool
//! as it ended. A run stopped early (an error, Ctrl-C, the page's Cancel) is still written, with
//! `partial` set and what stopped it; what it recorded replays, and the rest is judged again or
//! reported as not recorded.

use serde::{Deserialize, Serialize};

use super::chat_planner::{ChatExchange, PlannerAccounting, PlannerSettings};
use super::jev::JevSettings;
use super::pools::Route;
use super::reranker::Reranked;
use crate::remote::route::{Exchange, Replayer};
use crate::{Error, Result};

/// The `format` of a rerank run file.
pub const RERANK_RUN_FORMAT: &str = "routelens-rerank-run/1";

/// A recorded rerank run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RerankRunFile {
    /// Always [`RERANK_RUN_FORMAT`].
    pub format: String,
    /// Who answered the judge's calls when recording (`http`, `replay of http`, …).
    pub judge: String,
    /// The judge's settings.
    pub jev: JevSettings,
    /// The live planner's settings, when it planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planner: Option<PlannerSettings>,
    /// Candidates per judging batch.
    pub batch: usize,
    /// The run stopped before its end.
    #[serde(default)]
    pub partial: bool,
    /// What stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// Each question, in the order run.
    pub questions: Vec<RecordedQuestion>,
}

/// One question's exchanges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedQuestion {
    /// The question's id (empty for a typed query).
    pub id: String,
    /// Its text.
    pub query: String,
    /// The live planner's exchanges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planning: Vec<ChatExchange>,
    /// What planning cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planner_accounting: Option<PlannerAccounting>,
    /// Why the live planner gave no plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_error: Option<String>,
    /// Each judged pool.
    pub arms: Vec<RecordedArm>,
}

/// One route's pool judged by Jev.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedArm {
    /// The pool's route.
    pub route: Route,
    /// Every System One request and its outcome.
    pub exchanges: Vec<Exchange>,
    /// The reranked pool as the run ended.
    pub reranked: Reranked,
}

impl RerankRunFile {
    /// An empty run file of these settings.
    pub fn new(judge: &str, jev: JevSettings, batch: usize) -> RerankRunFile {
        RerankRunFile {
            format: RERANK_RUN_FORMAT.into(),
            judge: judge.to_string(),
            jev,
            planner: None,
            batch,
            partial: false,
            stopped_by: None,
            questions: Vec::new(),
        }
    }

    /// Reads a run file; errors name the file and the field.
    pub fn from_json(file: &str, text: &str) -> Result<RerankRunFile> {
        let run: RerankRunFile = crate::error::from_json_file(file, text)?;
        if run.format != RERANK_RUN_FORMAT {
            return Err(Error::field(
                file,
                "format",
                format!("{:?} is not {RERANK_RUN_FORMAT:?}", run.format),
            ));
        }
        Ok(run)
    }

    /// The file's JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The recorded question of this id and text, else the one question of this text (a run
    /// recorded for a question of a set replays for the same text typed in).
    pub fn question(&self, id: &str, query: &str) -> Option<&RecordedQuestion> {
        let exact = self
            .questions
            .iter()
            .find(|q| q.id == id && q.query == query);
        exact.or_else(|| {
            let mut same = self.questions.iter().filter(|q| q.query == query);
            match (same.next(), same.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        })
    }

    /// The question's record, added when it is not there yet.
    pub fn question_mut(&mut self, id: &str, query: &str) -> &mut RecordedQuestion {
        let at = match self
            .questions
            .iter()
            .position(|q| q.id == id && q.query == query)
        {
            Some(at) => at,
            None => {
                self.questions.push(RecordedQuestion {
                    id: id.to_string(),
                    query: query.to_string(),
                    planning: Vec::new(),
                    planner_accounting: None,
                    plan_error: None,
                    arms: Vec::new(),
                });
                self.questions.len() - 1
            }
        };
        &mut self.questions[at]
    }

    /// A replayer of the judge's exchanges for one question's route; with none recorded, every
    /// request is refused as not recorded (so the pool keeps its order, marked failed).
    pub fn judge_replayer(&self, id: &str, query: &str, route: Route) -> Replayer {
        let exchanges = self
            .question(id, query)
            .and_then(|q| q.arms.iter().find(|a| a.route == route))
            .map(|a| a.exchanges.clone())
            .unwrap_or_default();
        Replayer::from_exchanges(exchanges, &self.judge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::rerank::jev::{judge_all, JevRun};
    use crate::remote::rerank::pools::Candidate;
    use crate::remote::route::protocol::{Answer, DecisionError, Request, Response, Usage};
    use crate::remote::route::{Clock, Decider};

    struct Still;
    impl Clock for Still {
        fn now_ms(&mut self) -> u64 {
            0
        }
        fn sleep_ms(&mut self, _: u64) {}
    }

    /// Level 3 for candidates whose content holds the query, else level 0; a 429 first.
    struct Judge {
        calls: usize,
    }
    impl Decider for Judge {
        fn decide(&mut self, request: &Request) -> std::result::Result<Response, DecisionError> {
            self.calls += 1;
            if self.calls == 1 {
                return Err(DecisionError::from_status(429, Some("1"), None, ""));
            }
            let query = request.state["query"].as_str().unwrap().to_string();
            let answers = request
                .questions
                .keys()
                .map(|key| {
                    let content = request.state["candidates"][key]["content"]
                        .as_str()
                        .unwrap();
                    let top = content.contains(&query);
                    let probabilities = (0..4)
                        .map(|l| (l.to_string(), if (l == 3) == top { 0.7 } else { 0.1 }))
                        .collect();
                    (
                        key.clone(),
                        Answer::Score {
                            score: 0.0,
                            legend: Default::default(),
                            probabilities,
                            confidence: 0.7,
                        },
                    )
                })
                .collect();
            Ok(Response {
                model: "jev-1.13.0".into(),
                answers,
                usage: Usage {
                    input_tokens: 7,
                    output_tokens: 1,
                },
            })
        }
        fn kind(&self) -> String {
            "http".into()
        }
    }

    fn pool() -> Vec<Candidate> {
        (0..13)
            .map(|at| Candidate {
                chunk: at,
                name: format!("f{at}"),
                file: "a.rs".into(),
                start_line: 1,
                end_line: 2,
                content: if at % 4 == 1 {
                    "burst".into()
                } else {
                    "x".into()
                },
            })
            .collect()
    }

    #[test]
    fn a_recorded_run_replays_to_the_same_judgments_through_its_file() {
        let settings = JevSettings::default();
        let mut run = JevRun::new("burst", pool(), 10, settings.clone());
        judge_all(&mut run, &mut Judge { calls: 0 }, &mut Still, &|| false);
        let (reranked, exchanges) = run.finish();
        assert_eq!(exchanges.len(), 3, "a 429, then two batches");
        assert_eq!(&reranked.order[..4], &[1, 5, 9, 0]);
        let mut file = RerankRunFile::new("http", settings.clone(), 10);
        file.question_mut("q1", "burst").arms.push(RecordedArm {
            route: Route::Bm25,
            exchanges,
            reranked: reranked.clone(),
        });
        let file = RerankRunFile::from_json("run.json", &file.to_json()).unwrap();
        let mut again = JevRun::new("burst", pool(), 10, settings.clone());
        // Found by its id and text, or by its text alone (typed in rather than picked).
        assert!(file.question("", "burst").is_some() && file.question("q1", "other").is_none());
        let mut replayer = file.judge_replayer("q1", "burst", Route::Bm25);
        judge_all(&mut again, &mut replayer, &mut Still, &|| false);
        assert_eq!(replayer.remaining(), 0);
        let (replayed, _) = again.finish();
        assert_eq!(replayed, reranked);
        // Another pool is refused at its first request: the run keeps the pool's order, marked.
        let mut other = JevRun::new("burst", pool()[..5].to_vec(), 10, settings);
        let mut replayer = file.judge_replayer("q1", "burst", Route::Bm25);
        judge_all(&mut other, &mut replayer, &mut Still, &|| false);
        let (refused, _) = other.finish();
        assert!(refused.all_failed);
        assert!(refused.failed_batches[0]
            .1
            .contains("differs from the recorded one"));
    }

    #[test]
    fn a_bad_run_file_is_refused_naming_the_field() {
        let text = RerankRunFile::new("http", JevSettings::default(), 10).to_json();
        let bad = text.replace("\"batch\": 10", "\"batch\": \"ten\"");
        let err = RerankRunFile::from_json("run.json", &bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("run.json") && err.contains("batch"), "{err}");
        let other = text.replace(RERANK_RUN_FORMAT, "routelens-route-run/1");
        let err = RerankRunFile::from_json("run.json", &other)
            .unwrap_err()
            .to_string();
        assert!(err.contains("format"), "{err}");
    }
}
