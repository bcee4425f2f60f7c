//! Router tests on small synthetic trees, with scripted deciders and a manual clock.

use std::collections::BTreeMap;

use super::protocol::{option_key, NONE_KEY};
use super::*;
use crate::DirTree;

mod limits_and_errors;
#[cfg(not(target_arch = "wasm32"))]
mod properties;
mod replaying;
mod tournament;
mod tree_walk;

/// A decider answering from a closure of (call number, option texts).
struct Script<F>(F, usize);

impl<F: FnMut(usize, &[String]) -> Result<Vec<f64>, DecisionError>> Decider for Script<F> {
    fn decide(&mut self, request: &Request) -> Result<Response, DecisionError> {
        let Question::Choice { criteria, .. } = &request.questions["route"] else {
            panic!("choice expected")
        };
        let texts: Vec<String> = criteria
            .0
            .iter()
            .filter(|(key, _)| key != NONE_KEY)
            .map(|(_, text)| text.clone())
            .collect();
        let call = self.1;
        self.1 += 1;
        let probabilities = (self.0)(call, &texts)?;
        Ok(response(&probabilities, 0.0))
    }

    fn kind(&self) -> String {
        "script".into()
    }
}

fn script<F: FnMut(usize, &[String]) -> Result<Vec<f64>, DecisionError>>(f: F) -> Script<F> {
    Script(f, 0)
}

fn response(probabilities: &[f64], none: f64) -> Response {
    let mut map: BTreeMap<String, f64> = probabilities
        .iter()
        .enumerate()
        .map(|(i, p)| (option_key(i), *p))
        .collect();
    map.insert(NONE_KEY.into(), none);
    Response {
        model: "jev-test".into(),
        answers: BTreeMap::from([(
            "route".to_string(),
            Answer::Choice {
                choice: "option_0".into(),
                probabilities: map,
                confidence: 0.5,
            },
        )]),
        usage: Usage {
            input_tokens: 100,
            output_tokens: 3,
        },
    }
}

fn uniform(_: usize, texts: &[String]) -> Result<Vec<f64>, DecisionError> {
    Ok(vec![1.0 / (texts.len() + 1) as f64; texts.len()])
}

fn tree_run(tree: &DirTree, settings: RouteSettings, decider: &mut dyn Decider) -> Run {
    let mut walk = TreeWalk::new(tree, "issue", settings);
    run(&mut walk, decider, &mut ManualClock::default())
}
