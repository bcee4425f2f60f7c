//! Live name-only tree routing and the flat tournament, through TypeSafe's System One decision
//! API.
//!
//! The paper's tree router walks a bundle's folder tree: at each directory the model sees a menu
//! of the children's names ([`menu`]) and gives every option a probability; the walk keeps the
//! plausible branches and nominates files in the order it reaches them ([`TreeWalk`]). The flat
//! tournament ([`FlatTournament`]) shows every path in bounded menus instead.
//!
//! Both are step machines ([`Walk`]): they hand out the next request and take its outcome, and
//! never do I/O or read a clock, so the same code runs natively and in the browser. Whoever
//! drives them supplies the transport:
//!
//! - [`decider::run`] with a [`Decider`]: [`OfflineDecider`] (a lexical scorer, no key),
//!   [`Recorder`] / [`Replayer`] (run files that replay exactly), or the command line's HTTP
//!   client;
//! - the browser's async transport, through a [`Session`] (the walk plus its recording).
//!
//! ```
//! use routelens_engine::remote::route::{self, OfflineDecider, ManualClock, RouteSettings, TreeWalk, Walk};
//! use routelens_engine::DirTree;
//! let tree = DirTree::from_paths(&["src/parser.rs", "src/lexer.rs", "docs/guide.md"]);
//! let mut walk = TreeWalk::new(&tree, "the parser panics on nested lists", RouteSettings::default());
//! let run = route::run(&mut walk, &mut OfflineDecider::default(), &mut ManualClock::default());
//! assert_eq!(run.paths[0], "src/parser.rs");
//! assert_eq!(run.decider, "offline");
//! ```

pub mod calls;
pub mod decider;
pub mod flat;
pub mod menu;
pub mod protocol;
pub mod replay;
pub mod router;
pub mod run;
pub mod session;
pub mod settings;

#[cfg(test)]
mod tests;

pub use calls::{retry_delay_ms, transport_retry_delay_ms, Call, Walk};
pub use decider::{
    check_response, lexical_response, run, Clock, Decider, ManualClock, OfflineDecider,
};
pub use flat::FlatTournament;
pub use menu::MenuOption;
pub use protocol::{
    decode_reply, parse_response, Answer, Criteria, DecisionError, Pricing, Question, Request,
    Response, Usage,
};
pub use replay::{Exchange, Outcome, Recorder, Replayer, RunFile, RUN_FILE_FORMAT};
pub use router::TreeWalk;
pub use run::{Cap, MenuRecord, Run, RunError, Strategy};
pub use session::Session;
pub use settings::RouteSettings;

/// A walk of either strategy, for drivers that choose at run time. `issue_id` orders the flat
/// tournament's paths (the tree does not use it).
pub fn walk(
    strategy: Strategy,
    tree: &crate::DirTree,
    issue_id: &str,
    issue: &str,
    settings: RouteSettings,
) -> Box<dyn Walk> {
    match strategy {
        Strategy::Tree => Box::new(TreeWalk::new(tree, issue, settings)),
        Strategy::Flat => Box::new(FlatTournament::new(tree, issue_id, issue, settings)),
    }
}
