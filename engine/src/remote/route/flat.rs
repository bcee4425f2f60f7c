//! The paper's flat tournament, the exploratory control, as a step machine
//! ([`FlatTournament`]). Every rule follows the `config` block the archive records for it
//! (`contextbench-paper-flat-paths.json`) and, where that is silent, the paper's code:
//!
//! - every eligible path is an option `Source file: <path>` (not cut; no directory menus); the
//!   state is `User issue: ` and the issue's first 500 characters;
//! - the paths are ordered ascending by the SHA-256 digest of `<issue id>\0<path>` (UTF-8), so
//!   the issue id is part of a run ([`menu_order`]);
//! - a round splits the candidates, in order, into menus of at most 200 paths that also close
//!   before 600 + Σ(length of path + 20) would pass 48,000 characters ([`flat_menus`]);
//! - every menu is a call, even a small one; each advances its top 16 by probability, ties by
//!   path ascending, none-of-these never advancing ([`top`]); the survivors, menu after menu,
//!   are the next round's candidates;
//! - rounds repeat until at most 16 remain, which are the ranking in that order; a round that
//!   does not shrink the field is an error;
//! - a call that times out or fails in transport is retried up to 3 times after 1, 2 and 4 s;
//!   429 and 529 retry as for the tree. No call or time cap unless one is set (the paper's ran
//!   up to 231 calls and 302 s).
//!
//! A run stopped early (a cap, an error) ranks what the current round has advanced so far, then
//! the candidates it has not judged yet, in their order.

use crate::stable_sort;
use std::ops::Range;

use sha2::{Digest, Sha256};

use super::calls::{Call, Ledger, Walk};
use super::menu::{choice_request, MenuOption};
use super::protocol::{option_key, DecisionError, Response};
use super::run::{MenuRecord, Run, RunError, Strategy};
use super::settings::RouteSettings;
use crate::corpus::bundle::DirTree;

/// The flat tournament over a bundle's paths.
#[derive(Debug, Clone)]
pub struct FlatTournament {
    state: String,
    /// This round's candidates, as options.
    pool: Vec<MenuOption>,
    parts: Vec<Range<usize>>,
    /// Menus of this round answered so far.
    part: usize,
    round: usize,
    /// Paths advanced this round, menu after menu.
    advanced: Vec<MenuOption>,
    ledger: Ledger,
}

impl FlatTournament {
    /// A tournament over every file of `tree` for the issue `issue_id` with text `issue`.
    pub fn new(
        tree: &DirTree,
        issue_id: &str,
        issue: &str,
        settings: RouteSettings,
    ) -> FlatTournament {
        let mut paths = Vec::new();
        collect_paths(tree, &mut paths);
        let pool: Vec<MenuOption> = menu_order(issue_id, paths)
            .into_iter()
            .map(|path| MenuOption {
                text: format!("{}{path}", settings.flat_option_prefix),
                path,
                is_dir: false,
            })
            .collect();
        let parts = flat_menus(&pool, &settings);
        FlatTournament {
            state: settings.flat_state(issue),
            pool,
            parts,
            part: 0,
            round: 1,
            advanced: Vec::new(),
            ledger: Ledger::new(settings, Strategy::Flat),
        }
    }

    /// The request state (`User issue: ` and the issue's start).
    pub fn state(&self) -> &str {
        &self.state
    }

    fn menu_name(&self) -> String {
        format!("round {} menu {}", self.round, self.part + 1)
    }

    /// Moves on until a call is needed or the tournament is over.
    fn advance(&mut self) -> Option<Call> {
        loop {
            if self.ledger.done {
                return None;
            }
            if self.part == 0 && self.pool.len() <= self.ledger.settings.flat_advance {
                let mut paths: Vec<String> = self.pool.iter().map(|o| o.path.clone()).collect();
                paths.truncate(self.ledger.settings.max_files);
                self.ledger.run.paths = paths;
                self.ledger.stop(None);
                return None;
            }
            if self.part < self.parts.len() {
                let range = self.parts[self.part].clone();
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
            let next = std::mem::take(&mut self.advanced);
            if next.len() >= self.pool.len() {
                self.ledger.run.error = Some(RunError {
                    status: None,
                    message: format!(
                        "the flat tournament's round {} did not shrink its {} candidates",
                        self.round,
                        self.pool.len()
                    ),
                });
                self.advanced = next;
                self.rank_partial();
                self.ledger.stop(None);
                return None;
            }
            self.pool = next;
            self.parts = flat_menus(&self.pool, &self.ledger.settings);
            self.part = 0;
            self.round += 1;
        }
    }

    /// The ranking of a tournament stopped early: this round's advanced paths, then the
    /// candidates not judged yet.
    fn rank_partial(&mut self) {
        let judged_end = self
            .parts
            .get(self.part)
            .map_or(self.pool.len(), |r| r.start);
        let mut paths: Vec<String> = self.advanced.iter().map(|o| o.path.clone()).collect();
        for option in &self.pool[judged_end..] {
            if !paths.contains(&option.path) {
                paths.push(option.path.clone());
            }
        }
        paths.truncate(self.ledger.settings.max_files);
        self.ledger.run.paths = paths;
    }
}

/// Every file the bundle holds (the paper's tournament ranks the files its loader reads: an
/// empty one too, an unreadable one not).
fn collect_paths(dir: &DirTree, out: &mut Vec<String>) {
    for file in dir
        .files
        .iter()
        .filter(|file| !dir.unreadable.contains(file))
    {
        out.push(super::menu::join(&dir.path, file));
    }
    for sub in &dir.dirs {
        collect_paths(sub, out);
    }
}

/// The paths in the tournament's order: ascending by the SHA-256 digest of
/// `<issue id>\0<path>` (the archive's "SHA-256 of issue ID plus NUL plus path"), compared as
/// bytes.
pub fn menu_order(issue_id: &str, paths: Vec<String>) -> Vec<String> {
    let mut keyed: Vec<([u8; 32], String)> = paths
        .into_iter()
        .map(|path| {
            let mut hasher = Sha256::new();
            hasher.update(issue_id.as_bytes());
            hasher.update([0]);
            hasher.update(path.as_bytes());
            (hasher.finalize().into(), path)
        })
        .collect();
    stable_sort::sort(&mut keyed);
    keyed.into_iter().map(|(_, path)| path).collect()
}

/// Splits a round's candidates, in order, into menus: a menu closes before it would hold more
/// than `flat_menu_options` paths or before `flat_menu_base_chars` + Σ(path characters +
/// `flat_option_overhead_chars`) would pass `max_menu_chars`. Every menu holds at least one path.
pub fn flat_menus(pool: &[MenuOption], settings: &RouteSettings) -> Vec<Range<usize>> {
    let mut menus = Vec::new();
    let mut start = 0;
    let mut size = settings.flat_menu_base_chars;
    for (i, option) in pool.iter().enumerate() {
        let length = option.path.chars().count() + settings.flat_option_overhead_chars;
        let full = i - start >= settings.flat_menu_options;
        if i > start && (full || size + length > settings.max_menu_chars) {
            menus.push(start..i);
            start = i;
            size = settings.flat_menu_base_chars;
        }
        size += length;
    }
    if start < pool.len() {
        menus.push(start..pool.len());
    }
    menus
}

/// The indices of a menu's top `count` options by probability, ties by path ascending.
pub fn top(options: &[MenuOption], probabilities: &[f64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..probabilities.len()).collect();
    stable_sort::by(&mut order, |&a, &b| {
        probabilities[b]
            .total_cmp(&probabilities[a])
            .then_with(|| options[a].path.cmp(&options[b].path))
    });
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
        let best = top(&options, &probabilities, self.ledger.settings.flat_advance);
        let kept: Vec<String> = best.iter().map(|&i| options[i].path.clone()).collect();
        let directory = self.menu_name();
        self.ledger.run.menus.push(MenuRecord {
            directory,
            options: options.iter().map(|o| o.text.clone()).collect(),
            paths: options.iter().map(|o| o.path.clone()).collect(),
            probabilities,
            kept,
            none_of_these: Vec::new(),
            calls: 1,
        });
        self.advanced
            .extend(best.into_iter().map(|i| options[i].clone()));
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
