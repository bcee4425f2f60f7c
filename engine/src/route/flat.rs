//! The paper's flat tournament, the exploratory control, as a step machine
//! ([`FlatTournament`]).
//!
//! Every eligible path is an option (the file option text, no directory menus). A round splits
//! the candidates into bounded menus exactly as the tree splits a big directory (254 options,
//! 48,000 characters); each menu advances its top `flat_advance` (16) paths by probability, ties
//! in menu order. A menu that holds no more than that advances whole without a call. Rounds
//! repeat until the candidates fit one menu; that menu's answer is the ranking, cut to
//! `max_files`. With one candidate there is nothing to ask.
//!
//! The paper gives the tournament a different instruction from the tree's without printing it;
//! ours is [`super::settings::FLAT_INSTRUCTIONS`], a setting. A run stopped early (calls, time,
//! an error) ranks what the current round has advanced so far, best first, then the candidates it
//! has not judged yet, in their order.

use std::ops::Range;

use super::calls::{Call, Ledger, Walk};
use super::menu::{choice_request, file_text, split_menu, MenuOption};
use super::protocol::{option_key, DecisionError, Response};
use super::run::{MenuRecord, Run, RunError, Strategy};
use super::settings::RouteSettings;
use crate::bundle::DirTree;
use crate::terms::first_chars;

/// The flat tournament over a bundle's paths.
#[derive(Debug, Clone)]
pub struct FlatTournament {
    state: String,
    /// This round's candidates, as options.
    pool: Vec<MenuOption>,
    parts: Vec<Range<usize>>,
    /// Parts of this round dealt with so far.
    part: usize,
    round: usize,
    /// Paths advanced this round with their probability (`None`: advanced without a call).
    advanced: Vec<(MenuOption, Option<f64>)>,
    ledger: Ledger,
}

impl FlatTournament {
    /// A tournament over every file of `tree` for `issue`.
    pub fn new(tree: &DirTree, issue: &str, settings: RouteSettings) -> FlatTournament {
        let mut paths = Vec::new();
        collect_paths(tree, &mut paths);
        paths.sort();
        let pool: Vec<MenuOption> = paths
            .into_iter()
            .map(|path| MenuOption {
                text: first_chars(&file_text(&path), settings.max_option_chars).to_string(),
                path,
                is_dir: false,
            })
            .collect();
        let state = settings.state(issue);
        let parts = split_menu(state.chars().count(), &pool, &settings);
        FlatTournament {
            state,
            pool,
            parts,
            part: 0,
            round: 1,
            advanced: Vec::new(),
            ledger: Ledger::new(settings, Strategy::Flat),
        }
    }

    fn menu_name(&self) -> String {
        format!("round {} menu {}", self.round, self.part + 1)
    }

    fn is_final(&self) -> bool {
        self.parts.len() == 1
    }

    /// Moves on until a call is needed or the tournament is over.
    fn advance(&mut self) -> Option<Call> {
        loop {
            if self.ledger.done {
                return None;
            }
            if self.pool.len() <= 1 {
                self.ledger.run.paths = self.pool.iter().map(|o| o.path.clone()).collect();
                self.ledger.stop(None);
                return None;
            }
            if self.part < self.parts.len() {
                let range = self.parts[self.part].clone();
                if !self.is_final() && range.len() <= self.ledger.settings.flat_advance {
                    let options = self.pool[range].to_vec();
                    self.record(
                        &options,
                        Vec::new(),
                        options.iter().map(|o| o.path.clone()).collect(),
                        0,
                    );
                    self.advanced.extend(options.into_iter().map(|o| (o, None)));
                    self.part += 1;
                    continue;
                }
                let request = choice_request(
                    &self.state,
                    &self.ledger.settings.flat_instructions,
                    &self.pool[range],
                    &self.ledger.settings,
                );
                let menu = self.menu_name();
                let call = self.ledger.issue(menu, request);
                if self.ledger.done {
                    self.rank_partial();
                }
                return call;
            }
            // The round is over: the advanced paths are the next round's candidates.
            let next: Vec<MenuOption> = self.advanced.drain(..).map(|(o, _)| o).collect();
            if next.len() >= self.pool.len() {
                self.ledger.run.error = Some(RunError {
                    status: None,
                    message: format!(
                        "the flat tournament cannot shrink {} candidates with these settings",
                        self.pool.len()
                    ),
                });
                self.pool = next;
                self.rank_partial();
                self.ledger.stop(None);
                return None;
            }
            self.pool = next;
            self.parts = split_menu(
                self.state.chars().count(),
                &self.pool,
                &self.ledger.settings,
            );
            self.part = 0;
            self.round += 1;
        }
    }

    fn record(
        &mut self,
        options: &[MenuOption],
        probabilities: Vec<f64>,
        kept: Vec<String>,
        calls: usize,
    ) {
        let directory = self.menu_name();
        self.ledger.run.menus.push(MenuRecord {
            directory,
            options: options.iter().map(|o| o.text.clone()).collect(),
            paths: options.iter().map(|o| o.path.clone()).collect(),
            probabilities,
            kept,
            none_of_these: Vec::new(),
            calls,
        });
    }

    /// The ranking of a tournament stopped early: this round's advanced paths, best first, then
    /// the candidates not judged yet.
    fn rank_partial(&mut self) {
        let mut ranked: Vec<(usize, &MenuOption, f64)> = self
            .advanced
            .iter()
            .enumerate()
            .map(|(i, (o, p))| (i, o, p.unwrap_or(0.0)))
            .collect();
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        let judged_end = self
            .parts
            .get(self.part)
            .map_or(self.pool.len(), |r| r.start);
        let mut paths: Vec<String> = ranked.iter().map(|(_, o, _)| o.path.clone()).collect();
        for option in &self.pool[judged_end..] {
            if !paths.contains(&option.path) {
                paths.push(option.path.clone());
            }
        }
        paths.truncate(self.ledger.settings.max_files);
        self.ledger.run.paths = paths;
    }
}

fn collect_paths(dir: &DirTree, out: &mut Vec<String>) {
    for file in &dir.files {
        out.push(super::menu::join(&dir.path, file));
    }
    for sub in &dir.dirs {
        collect_paths(sub, out);
    }
}

/// The indices of a menu's top `count` options by probability, ties in menu order.
pub fn top(probabilities: &[f64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..probabilities.len()).collect();
    order.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
    order.truncate(count);
    order
}

impl Walk for FlatTournament {
    fn next_call(&mut self, elapsed_ms: u64) -> Option<Call> {
        if self.ledger.done {
            return None;
        }
        if self.ledger.check_time(elapsed_ms) {
            self.rank_partial();
            return None;
        }
        if let Some(call) = &self.ledger.pending {
            return Some(call.clone());
        }
        self.advance()
    }

    fn answer(&mut self, outcome: Result<Response, DecisionError>, elapsed_ms: u64) {
        if self.ledger.pending.is_none() {
            return;
        }
        let Some(response) = self.ledger.receive(outcome, elapsed_ms) else {
            if self.ledger.done {
                self.rank_partial();
            }
            return;
        };
        let range = self.parts[self.part].clone();
        let options = self.pool[range].to_vec();
        let map = response.route_probabilities();
        let probabilities: Vec<f64> = (0..options.len())
            .map(|i| {
                map.and_then(|m| m.get(&option_key(i)))
                    .copied()
                    .unwrap_or(0.0)
            })
            .collect();
        let count = if self.is_final() {
            self.ledger.settings.max_files
        } else {
            self.ledger.settings.flat_advance
        };
        let best = top(&probabilities, count);
        let kept: Vec<String> = best.iter().map(|&i| options[i].path.clone()).collect();
        self.record(&options, probabilities.clone(), kept.clone(), 1);
        if self.is_final() {
            self.ledger.run.paths = kept;
            self.ledger.stop(None);
            return;
        }
        self.advanced.extend(
            best.into_iter()
                .map(|i| (options[i].clone(), Some(probabilities[i]))),
        );
        self.part += 1;
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
