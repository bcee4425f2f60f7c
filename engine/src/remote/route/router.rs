//! The paper's tree router as a step machine ([`TreeWalk`]).
//!
//! The walk starts at the root with a stack. A popped file is nominated (rank = order of
//! nomination). A popped directory shows its children as a menu (see [`super::menu`]); a
//! directory with one child needs no call, that child is pushed as it is. Once every part of a
//! menu has its answer, each child whose probability is at least
//! `max(min_probability, relative_probability × best)` is kept, where the best is the highest
//! child probability over all parts (none-of-these is never a child and never the best, and
//! probabilities are neither renormalised across parts nor multiplied down the path). As in the
//! paper ("A stack visits higher-scoring children first; tied children follow reverse input
//! order"), kept children are sorted ascending by probability with a stable sort and pushed in
//! that order, so the best is visited first and, among equals, the one that came *later* in the
//! menu (across all of a split menu's parts).
//!
//! The walk stops when the stack is empty, or at a cap (files, calls, time), which marks the run
//! truncated when work was left.

use crate::stable_sort;
use std::ops::Range;

use super::calls::{Call, Ledger, Walk};
use super::menu::{choice_request, directory_options, split_menu, MenuOption};
use super::protocol::{option_key, DecisionError, Response, NONE_KEY};
use super::run::{Cap, MenuRecord, Run, Strategy};
use super::settings::RouteSettings;
use crate::corpus::bundle::DirTree;

/// What is on the stack.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir(String),
    File(String),
}

/// A directory's menu while its parts are being answered.
#[derive(Debug, Clone)]
struct OpenMenu {
    directory: String,
    options: Vec<MenuOption>,
    parts: Vec<Range<usize>>,
    /// Parts answered so far.
    answered: usize,
    probabilities: Vec<f64>,
    none_of_these: Vec<f64>,
}

/// The tree walk over a bundle's directory tree.
#[derive(Debug, Clone)]
pub struct TreeWalk {
    tree: DirTree,
    state: String,
    stack: Vec<Node>,
    open: Option<OpenMenu>,
    ledger: Ledger,
}

impl TreeWalk {
    /// A walk of `tree` for `issue`. Settings are not checked here; see
    /// [`RouteSettings::check`].
    pub fn new(tree: &DirTree, issue: &str, settings: RouteSettings) -> TreeWalk {
        TreeWalk {
            tree: tree.clone(),
            state: settings.state(issue),
            stack: vec![Node::Dir(String::new())],
            open: None,
            ledger: Ledger::new(settings, Strategy::Tree),
        }
    }

    /// The request state (`User question: ` and the issue's start).
    pub fn state(&self) -> &str {
        &self.state
    }

    /// Moves the walk on until it needs a call or is over.
    fn advance(&mut self) -> Option<Call> {
        loop {
            if self.ledger.done {
                return None;
            }
            if let Some(open) = &self.open {
                if open.answered < open.parts.len() {
                    let part = open.parts[open.answered].clone();
                    let request = choice_request(
                        &self.state,
                        &self.ledger.settings.instructions,
                        &open.options[part],
                        &self.ledger.settings,
                    );
                    let menu = open.directory.clone();
                    return self.ledger.issue(menu, request);
                }
                self.close_menu();
                continue;
            }
            if self.ledger.run.paths.len() >= self.ledger.settings.max_files {
                let cap = (!self.stack.is_empty()).then_some(Cap::Files);
                self.ledger.stop(cap);
                return None;
            }
            match self.stack.pop() {
                None => {
                    self.ledger.stop(None);
                    return None;
                }
                // As the paper's walker: a file found unreadable or empty when reached is skipped.
                Some(Node::File(path)) if self.tree.skipped_when_visited(&path) => {}
                Some(Node::File(path)) => self.ledger.run.paths.push(path),
                Some(Node::Dir(path)) => self.open_menu(&path),
            }
        }
    }

    fn open_menu(&mut self, path: &str) {
        let Some(dir) = self.tree.find(path) else {
            return;
        };
        let options = directory_options(dir, &self.ledger.settings);
        match options.len() {
            0 => {}
            1 => {
                let only = &options[0];
                self.ledger.run.menus.push(MenuRecord {
                    directory: path.to_string(),
                    options: vec![only.text.clone()],
                    probabilities: Vec::new(),
                    kept: vec![only.path.clone()],
                    paths: vec![only.path.clone()],
                    none_of_these: Vec::new(),
                    calls: 0,
                });
                self.stack.push(node(only));
            }
            _ => {
                let parts = split_menu(self.state.chars().count(), &options, &self.ledger.settings);
                self.open = Some(OpenMenu {
                    directory: path.to_string(),
                    options,
                    parts,
                    answered: 0,
                    probabilities: Vec::new(),
                    none_of_these: Vec::new(),
                });
            }
        }
    }

    /// Keeps the children over the threshold and pushes them, best on top.
    fn close_menu(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let kept = keep(&open.probabilities, &self.ledger.settings);
        for &i in kept.iter().rev() {
            self.stack.push(node(&open.options[i]));
        }
        self.ledger.run.menus.push(MenuRecord {
            directory: open.directory,
            kept: kept.iter().map(|&i| open.options[i].path.clone()).collect(),
            paths: open.options.iter().map(|o| o.path.clone()).collect(),
            options: open.options.into_iter().map(|o| o.text).collect(),
            probabilities: open.probabilities,
            none_of_these: open.none_of_these,
            calls: open.parts.len(),
        });
    }

    /// Records the menu that was open when the run stopped early, with what it had.
    fn record_unfinished(&mut self) {
        if let Some(open) = self.open.take() {
            self.ledger.run.menus.push(MenuRecord {
                directory: open.directory,
                kept: Vec::new(),
                paths: open.options.iter().map(|o| o.path.clone()).collect(),
                options: open.options.into_iter().map(|o| o.text).collect(),
                probabilities: open.probabilities,
                none_of_these: open.none_of_these,
                calls: open.answered,
            });
        }
    }
}

fn node(option: &MenuOption) -> Node {
    if option.is_dir {
        Node::Dir(option.path.clone())
    } else {
        Node::File(option.path.clone())
    }
}

/// The indices of the children to keep, in visit order: best first, and among equal
/// probabilities the later in the menu first (the paper's stable ascending sort, popped from the
/// top). Kept are those with probability at least `max(min_probability, relative_probability ×
/// best child)`.
pub fn keep(probabilities: &[f64], settings: &RouteSettings) -> Vec<usize> {
    let best = probabilities.iter().copied().fold(0.0_f64, f64::max);
    let threshold = settings
        .min_probability
        .max(settings.relative_probability * best);
    let mut kept: Vec<usize> = (0..probabilities.len())
        .filter(|&i| probabilities[i] >= threshold)
        .collect();
    // Descending probability; equal probabilities in reverse menu order.
    stable_sort::by(&mut kept, |&a, &b| {
        probabilities[b]
            .total_cmp(&probabilities[a])
            .then(b.cmp(&a))
    });
    kept
}

impl Walk for TreeWalk {
    fn next_call(&mut self, elapsed_ms: u64) -> Option<Call> {
        if self.ledger.check_time(elapsed_ms) {
            self.record_unfinished();
            return None;
        }
        if let Some(call) = &self.ledger.pending {
            return Some(call.clone());
        }
        let call = self.advance();
        if self.ledger.done {
            self.record_unfinished();
        }
        call
    }

    fn answer(&mut self, outcome: Result<Response, DecisionError>, elapsed_ms: u64) {
        if self.ledger.pending.is_none() {
            return;
        }
        let Some(response) = self.ledger.receive(outcome, elapsed_ms) else {
            if self.ledger.done {
                self.record_unfinished();
            }
            return;
        };
        let Some(open) = &mut self.open else {
            return;
        };
        let part = open.parts[open.answered].clone();
        // parse_response checked every key; an unchecked response (a custom decider) that lacks
        // one counts as 0.
        let probabilities = response.route_probabilities();
        let p = |key: &str| {
            probabilities
                .and_then(|map| map.get(key))
                .copied()
                .unwrap_or(0.0)
        };
        for i in 0..part.len() {
            open.probabilities.push(p(&option_key(i)));
        }
        open.none_of_these.push(p(NONE_KEY));
        open.answered += 1;
    }

    fn run(&self) -> &Run {
        &self.ledger.run
    }

    fn run_mut(&mut self) -> &mut Run {
        &mut self.ledger.run
    }

    fn is_done(&self) -> bool {
        self.ledger.done
    }
}
