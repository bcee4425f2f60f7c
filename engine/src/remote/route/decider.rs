//! Deciders: who answers a router's calls, and the synchronous driver that connects the two.
//!
//! [`Decider`] is the synchronous interface the native command line uses: the HTTP client (in
//! the bundler), [`super::replay::Recorder`] / [`super::replay::Replayer`], and
//! [`OfflineDecider`], a deterministic lexical scorer that needs no key so the view works on a
//! fresh machine. The browser drives the step machine itself with its async transport and never
//! goes through this trait.
//!
//! The engine has no clock: [`run`] takes a [`Clock`] for the elapsed time it hands the router
//! and for the waits before retries, so tests run a whole walk, retries and time cap included,
//! in microseconds.

use crate::stable_sort::Sorted;
use std::collections::{BTreeMap, BTreeSet};

use super::calls::Walk;
use super::protocol::{Answer, Criteria, DecisionError, Question, Request, Response, Usage};
use super::run::Run;
use crate::terms::{extract_terms, token_runs};

/// Answers a router's requests.
pub trait Decider {
    /// The response to one request, or why there is none.
    fn decide(&mut self, request: &Request) -> Result<Response, DecisionError>;

    /// What produced the answers, as runs record it: `offline`, `http`, `replay`, …
    fn kind(&self) -> String;
}

/// The driver's time: milliseconds since the run started, and a way to wait.
pub trait Clock {
    /// Milliseconds since the run started.
    fn now_ms(&mut self) -> u64;
    /// Waits this long (a test clock just adds it).
    fn sleep_ms(&mut self, ms: u64);
}

/// Runs a walk to the end with a decider: each call is waited for (`wait_ms`), decided, checked
/// against its request ([`check_response`]) and fed back. The run records the decider's kind and
/// the time spent inside it.
pub fn run(walk: &mut dyn Walk, decider: &mut dyn Decider, clock: &mut dyn Clock) -> Run {
    let mut decider_ms = 0;
    while let Some(sent) = send_next(walk, decider, clock, &|| false) {
        decider_ms += sent.decider_ms;
        walk.answer(sent.outcome, sent.at_ms);
    }
    let kind = decider.kind();
    let run = walk.run_mut();
    run.decider = kind;
    run.decider_ms = decider_ms;
    run.clone()
}

/// One call sent: its request, the checked outcome, the time spent in the decider and the run's
/// time when it came back.
pub(crate) struct Sent {
    pub request: Request,
    pub outcome: Result<Response, DecisionError>,
    pub decider_ms: u64,
    pub at_ms: u64,
}

/// Sends a walk's next call through `decider` after its wait, or `None` when the walk is over
/// (also when the wait ran past the time cap) or `stop` says so after the wait (an interrupt
/// during a retry's wait sends nothing more). The caller hands the outcome back.
pub(crate) fn send_next(
    walk: &mut dyn Walk,
    decider: &mut dyn Decider,
    clock: &mut dyn Clock,
    stop: &dyn Fn() -> bool,
) -> Option<Sent> {
    let call = walk.next_call(clock.now_ms())?;
    if call.wait_ms > 0 {
        clock.sleep_ms(call.wait_ms);
        walk.next_call(clock.now_ms())?;
        if stop() {
            return None;
        }
    }
    let started = clock.now_ms();
    let outcome = decider
        .decide(&call.request)
        .and_then(|response| check_response(&call.request, &response).map(|()| response));
    let at_ms = clock.now_ms();
    Some(Sent {
        request: call.request,
        outcome,
        decider_ms: at_ms.saturating_sub(started),
        at_ms,
    })
}

/// Checks a typed response against its request, as [`super::protocol::parse_response`] checks a
/// body: every choice criterion has a probability, each in [0, 1].
pub fn check_response(request: &Request, response: &Response) -> Result<(), DecisionError> {
    for (name, question) in &request.questions {
        let Question::Choice { criteria, .. } = question else {
            continue;
        };
        let Some(Answer::Choice { probabilities, .. }) = response.answers.get(name) else {
            return Err(DecisionError::Malformed {
                message: format!("field answers.{name} is missing or not a choice answer"),
            });
        };
        for key in criteria.keys() {
            match probabilities.get(key) {
                Some(p) if (0.0..=1.0).contains(p) => {}
                Some(p) => {
                    return Err(DecisionError::InvalidAnswer {
                        key: key.to_string(),
                        message: format!(
                            "answers.{name}.probabilities.{key} = {p} is outside [0, 1]"
                        ),
                    })
                }
                None => {
                    return Err(DecisionError::InvalidAnswer {
                        key: key.to_string(),
                        message: format!(
                            "answers.{name}.probabilities has no probability for option {key}"
                        ),
                    })
                }
            }
        }
    }
    Ok(())
}

/// The offline decider: probabilities from a lexical score of the issue's terms against each
/// option's text. Deterministic (same request, same bits, natively and in wasm) and free.
#[derive(Debug, Clone, Default)]
pub struct OfflineDecider {
    /// Perturbs tied scores reproducibly; 0 leaves them tied. The protocol test server uses its
    /// seed here.
    pub seed: u64,
}

impl Decider for OfflineDecider {
    fn decide(&mut self, request: &Request) -> Result<Response, DecisionError> {
        Ok(lexical_response(request, self.seed, "routelens-offline"))
    }

    fn kind(&self) -> String {
        "offline".into()
    }
}

/// How much more likely an option is for each issue term its text contains.
const TERM_WEIGHT: f64 = 20.0;

/// The lexical scorer's answer to a request: for each choice question, an option matching `s`
/// distinct issue terms gets weight 20^s (times a seeded jitter in [1, 1.1) when `seed` is not
/// 0), none-of-these weight 1, and the weights are normalised. Usage is an estimate: a token per
/// four characters of the request's JSON in, one token per question out.
pub fn lexical_response(request: &Request, seed: u64, model: &str) -> Response {
    let terms: BTreeSet<String> = extract_terms(&request.state_text())
        .into_iter()
        .sorted_set();
    let mut answers = BTreeMap::new();
    for (name, question) in &request.questions {
        if let Question::Choice { criteria, .. } = question {
            answers.insert(name.clone(), choice_answer(&terms, criteria, seed));
        }
    }
    let input_tokens = request.to_json().chars().count().div_ceil(4) as u64;
    Response {
        model: model.to_string(),
        answers,
        usage: Usage {
            input_tokens,
            output_tokens: request.questions.len() as u64,
        },
    }
}

fn choice_answer(terms: &BTreeSet<String>, criteria: &Criteria, seed: u64) -> Answer {
    let weights: Vec<(String, f64)> = criteria
        .0
        .iter()
        .map(|(key, text)| {
            let weight = if key == super::protocol::NONE_KEY {
                1.0
            } else {
                let lower = text.to_lowercase();
                let tokens: BTreeSet<&str> = token_runs(&lower)
                    .flat_map(|run| std::iter::once(run).chain(run.split('_')))
                    .sorted_set();
                let matches = terms.iter().filter(|t| tokens.contains(t.as_str())).count();
                let mut weight = 1.0;
                for _ in 0..matches.min(8) {
                    weight *= TERM_WEIGHT;
                }
                if seed != 0 {
                    weight *= 1.0 + jitter(seed, text) / 10.0;
                }
                weight
            };
            (key.clone(), weight)
        })
        .collect();
    let total: f64 = weights.iter().map(|(_, w)| w).sum();
    let probabilities: BTreeMap<String, f64> = weights
        .iter()
        .map(|(key, w)| (key.clone(), w / total))
        .sorted_map();
    let (choice, confidence) = weights
        .iter()
        .fold((String::new(), -1.0), |(bk, bp), (key, w)| {
            let p = w / total;
            if p > bp {
                (key.clone(), p)
            } else {
                (bk, bp)
            }
        });
    Answer::Choice {
        choice,
        probabilities,
        confidence,
    }
}

/// A number in [0, 1) from the seed and a text (FNV-1a, then a mix), the same on every platform.
fn jitter(seed: u64, text: &str) -> f64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    (hash >> 11) as f64 / (1u64 << 53) as f64
}

/// A clock for tests and replays: time moves only by `step_ms` per reading and by sleeps.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    /// The current time in milliseconds.
    pub now_ms: u64,
    /// Added at every reading, to model time spent per step.
    pub step_ms: u64,
    /// Every sleep asked for, in order.
    pub sleeps: Vec<u64>,
}

impl Clock for ManualClock {
    fn now_ms(&mut self) -> u64 {
        self.now_ms += self.step_ms;
        self.now_ms
    }

    fn sleep_ms(&mut self, ms: u64) {
        self.sleeps.push(ms);
        self.now_ms += ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::route::menu::{choice_request, MenuOption};
    use crate::remote::route::settings::RouteSettings;

    fn request(texts: &[&str]) -> Request {
        let options: Vec<MenuOption> = texts
            .iter()
            .map(|t| MenuOption {
                path: t.to_string(),
                is_dir: false,
                text: t.to_string(),
            })
            .collect();
        choice_request(
            "User question: the tokenizer drops unicode",
            "pick",
            &options,
            &RouteSettings::default(),
        )
    }

    #[test]
    fn offline_prefers_options_naming_issue_terms() {
        let request = request(&[
            "src/tokenizer.rs",
            "src/unicode_tokenizer.rs",
            "docs/readme.md",
        ]);
        let response = OfflineDecider::default().decide(&request).unwrap();
        check_response(&request, &response).unwrap();
        let p = response.route_probabilities().unwrap();
        assert!(p["option_1"] > p["option_0"], "{p:?}");
        assert!(p["option_0"] > p["option_2"], "{p:?}");
        assert_eq!(p["option_2"], p["none_of_these"]);
        let total: f64 = p.values().sum();
        assert!((total - 1.0).abs() < 1e-12);
        let Answer::Choice { choice, .. } = &response.answers["route"] else {
            panic!()
        };
        assert_eq!(choice, "option_1");
        // Deterministic to the bit.
        assert_eq!(
            OfflineDecider::default().decide(&request).unwrap(),
            response
        );
        assert!(response.usage.input_tokens > 0);
    }

    #[test]
    fn a_seed_breaks_ties_reproducibly() {
        let request = request(&["a.rs", "b.rs"]);
        let plain = OfflineDecider::default().decide(&request).unwrap();
        let p = plain.route_probabilities().unwrap();
        assert_eq!(p["option_0"], p["option_1"]);
        let seeded = OfflineDecider { seed: 7 }.decide(&request).unwrap();
        let q = seeded.route_probabilities().unwrap();
        assert_ne!(q["option_0"], q["option_1"]);
        assert_eq!(OfflineDecider { seed: 7 }.decide(&request).unwrap(), seeded);
    }

    #[test]
    fn check_response_names_the_key() {
        let request = request(&["a.rs", "b.rs"]);
        let mut response = OfflineDecider::default().decide(&request).unwrap();
        if let Some(Answer::Choice { probabilities, .. }) = response.answers.get_mut("route") {
            probabilities.remove("option_1");
        }
        let err = check_response(&request, &response).unwrap_err();
        assert!(matches!(&err, DecisionError::InvalidAnswer { key, .. } if key == "option_1"));
    }
}
