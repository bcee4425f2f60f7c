//! A routing run driven from outside, one call at a time, recorded as it goes.
//!
//! The browser cannot use the synchronous [`super::decider::run`]: its transport is async. A
//! [`Session`] wraps a [`Walk`] with the recording a run file needs, so the app's loop stays
//! thin: ask [`Session::next_call`], send the request however it can (HTTP, the offline decider,
//! a replayer), hand the outcome to [`Session::answer`], and at any point show
//! [`Session::run`] or download [`Session::file`]. The key is the transport's business and never
//! reaches a session. The command line drives one with [`Session::step`] and a synchronous
//! decider, saving the file after every call.
//!
//! A run that stops early (an error, a cancel, Ctrl-C) keeps its file, marked partial; its
//! replay stops where the recording ends, with the recorded reason, instead of asking for a call
//! that was never made.
//!
//! ```
//! use routelens_engine::remote::route::{OfflineDecider, Decider, RouteSettings, Session, Strategy};
//! use routelens_engine::DirTree;
//! let tree = DirTree::from_paths(&["src/parser.rs", "src/lexer.rs", "docs/guide.md"]);
//! let mut session =
//!     Session::new(Strategy::Tree, &tree, "", "the parser panics", RouteSettings::default(),
//!         "offline").unwrap();
//! let mut decider = OfflineDecider::default();
//! while let Some(call) = session.next_call(0) {
//!     let outcome = decider.decide(&call.request);
//!     session.answer(&call.request, outcome, 0, 0);
//! }
//! assert_eq!(session.run().paths[0], "src/parser.rs");
//! assert_eq!(session.file().exchanges.len(), session.run().calls);
//! ```

use super::calls::{Call, Walk};
use super::decider::{send_next, Clock, Decider};
use super::protocol::{DecisionError, Request, Response};
use super::replay::{record, Exchange, RunFile, RUN_FILE_FORMAT};
use super::run::{Run, RunError, Strategy};
use super::settings::RouteSettings;
use crate::DirTree;

/// A walk, its settings and issue, and every exchange so far.
pub struct Session {
    walk: Box<dyn Walk>,
    strategy: Strategy,
    issue_id: String,
    issue: String,
    settings: RouteSettings,
    decider: String,
    exchanges: Vec<Exchange>,
    /// A partial recording being replayed: its number of exchanges, and why it stopped.
    recording_ends: Option<(usize, String)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("strategy", &self.strategy)
            .field("decider", &self.decider)
            .field("exchanges", &self.exchanges.len())
            .finish()
    }
}

impl Session {
    /// A run of `strategy` over `tree` for the issue `issue_id` (it orders the flat tournament;
    /// may be empty) with text `issue`, answered by `decider` (`offline`, `http`, `proxy`,
    /// `replay of http`, …: what the run records). Refuses settings that cannot route.
    pub fn new(
        strategy: Strategy,
        tree: &DirTree,
        issue_id: &str,
        issue: &str,
        settings: RouteSettings,
        decider: &str,
    ) -> crate::Result<Session> {
        settings.check()?;
        if issue.trim().is_empty() {
            return Err(crate::Error::setting("issue", "\"\"", "some text to route"));
        }
        let mut walk = super::walk(strategy, tree, issue_id, issue, settings.clone());
        walk.run_mut().decider = decider.to_string();
        Ok(Session {
            walk,
            strategy,
            issue_id: issue_id.to_string(),
            issue: issue.to_string(),
            settings,
            decider: decider.to_string(),
            exchanges: Vec::new(),
            recording_ends: None,
        })
    }

    /// The replay of a run file: its strategy, issue and settings over `tree`.
    pub fn replay(file: &RunFile, tree: &DirTree) -> crate::Result<Session> {
        Session::replay_asking(file, tree, &file.issue)
    }

    /// The replay of a run file for `issue`, which may differ from the recorded one: the
    /// replayer then refuses the first request, naming the field (the command line's check that
    /// a recording answers the issue given).
    pub fn replay_asking(file: &RunFile, tree: &DirTree, issue: &str) -> crate::Result<Session> {
        let mut session = Session::new(
            file.strategy,
            tree,
            &file.issue_id,
            issue,
            file.settings.clone(),
            &format!("replay of {}", file.decider),
        )?;
        session.recording_ends = file
            .stopped_because()
            .map(|why| (file.exchanges.len(), why));
        Ok(session)
    }

    /// The call to send next (the same one until answered), or `None` when the run is over
    /// (or a partial recording being replayed has no more calls).
    pub fn next_call(&mut self, elapsed_ms: u64) -> Option<Call> {
        if let Some((recorded, why)) = &self.recording_ends {
            if self.exchanges.len() >= *recorded {
                let why = why.clone();
                self.cancel(&why);
                return None;
            }
        }
        self.walk.next_call(elapsed_ms)
    }

    /// Sends the next call through a synchronous `decider` (after its wait on `clock`), checks
    /// the response and hands it back; `false` when the run is over, or when `stop` (asked
    /// before the call and after a retry's wait) says so: then [`Session::cancel`] it. The
    /// native driver; the browser does the same with its async transport.
    pub fn step(
        &mut self,
        decider: &mut dyn Decider,
        clock: &mut dyn Clock,
        stop: &dyn Fn() -> bool,
    ) -> bool {
        if stop() || self.next_call(clock.now_ms()).is_none() {
            return false;
        }
        let Some(sent) = send_next(self.walk.as_mut(), decider, clock, stop) else {
            return false;
        };
        self.answer(&sent.request, sent.outcome, sent.at_ms, sent.decider_ms);
        true
    }

    /// Records the outcome of `request` and hands it to the walk. A response goes through its
    /// JSON text, as the recorder does, so a replay sees the same bits. `decider_ms` is the time
    /// this call spent waiting for the decider.
    pub fn answer(
        &mut self,
        request: &Request,
        outcome: Result<Response, DecisionError>,
        elapsed_ms: u64,
        decider_ms: u64,
    ) {
        let outcome = record(&mut self.exchanges, request, outcome);
        self.walk.answer(outcome, elapsed_ms);
        self.walk.run_mut().decider_ms += decider_ms;
    }

    /// Ends the run by the user's hand: the partial run is kept and marked with the reason.
    /// The walk is settled first, as its next call would (the menu just answered is closed and
    /// the files it reveals ranked), at the time of its last answer; a walk that then needs no
    /// further call had ended whole and is not marked.
    pub fn cancel(&mut self, reason: &str) {
        let last_answer_ms = self.walk.run().elapsed_ms;
        if self.walk.next_call(last_answer_ms).is_none() {
            return;
        }
        let run = self.walk.run_mut();
        if run.error.is_none() {
            run.error = Some(RunError {
                status: None,
                message: reason.to_string(),
            });
        }
    }

    /// The run so far.
    pub fn run(&self) -> &Run {
        self.walk.run()
    }

    /// Whether the walk is over (a cancelled run may still have had work left).
    pub fn is_done(&self) -> bool {
        self.walk.is_done()
    }

    /// The run file of the run so far: every request and outcome, no key.
    pub fn file(&self) -> RunFile {
        RunFile {
            format: RUN_FILE_FORMAT.into(),
            strategy: self.strategy,
            issue_id: self.issue_id.clone(),
            issue: self.issue.clone(),
            settings: self.settings.clone(),
            decider: self.decider.clone(),
            exchanges: self.exchanges.clone(),
            run: self.walk.run().clone(),
            partial: self.walk.run().error.is_some() || !self.walk.is_done(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::route::{
        decider, Decider, ManualClock, OfflineDecider, Recorder, Replayer, TreeWalk,
    };
    use crate::remote::route::{DecisionError, Request, Response};

    fn tree() -> DirTree {
        DirTree::from_paths(&[
            "src/parser/mod.rs",
            "src/parser/lists.rs",
            "src/lexer.rs",
            "docs/guide.md",
            "README.md",
        ])
    }

    #[test]
    fn a_session_matches_the_native_driver_and_replays_exactly() {
        let issue = "nested lists make the parser panic";
        let settings = RouteSettings::default();
        let mut walk = TreeWalk::new(&tree(), issue, settings.clone());
        // The recorder hands the walk the response parsed from its recorded text, as a session
        // does (a float may land one unit in the last place away from the unrecorded value).
        let native = decider::run(
            &mut walk,
            &mut Recorder::new(OfflineDecider::default()),
            &mut ManualClock::default(),
        );
        let mut session =
            Session::new(Strategy::Tree, &tree(), "", issue, settings, "offline").unwrap();
        let mut offline = OfflineDecider::default();
        while let Some(call) = session.next_call(0) {
            let outcome = offline.decide(&call.request);
            session.answer(&call.request, outcome, 0, 1);
        }
        assert_eq!(session.run().paths, native.paths);
        assert_eq!(session.run().menus, native.menus);
        assert_eq!(session.run().decider_ms, session.run().calls as u64);
        let file = RunFile::from_json("run.json", &session.file().to_json()).unwrap();
        let mut replay = Session::replay(&file, &tree()).unwrap();
        let mut replayer = Replayer::new(&file);
        while let Some(call) = replay.next_call(0) {
            let outcome = replayer.decide(&call.request);
            replay.answer(&call.request, outcome, 0, 0);
        }
        assert_eq!(replay.run().paths, native.paths);
        assert_eq!(replay.run().decider, "replay of offline");
        assert_eq!(replayer.remaining(), 0);
        assert!(!file.partial, "a run that ended is whole");
    }

    #[test]
    fn an_interrupted_run_is_kept_partial_and_its_replay_stops_where_it_did() {
        let issue = "nested lists make the parser panic";
        let settings = RouteSettings::default();
        let mut whole =
            Session::new(Strategy::Tree, &tree(), "", issue, settings.clone(), "x").unwrap();
        let (mut offline, mut clock) = (OfflineDecider::default(), ManualClock::default());
        while whole.step(&mut offline, &mut clock, &|| false) {}
        assert!(
            whole.run().calls >= 2,
            "the walk needs two calls to stop in between"
        );

        let mut cut = Session::new(Strategy::Tree, &tree(), "", issue, settings, "x").unwrap();
        assert!(cut.step(&mut offline, &mut clock, &|| false));
        assert!(cut.file().partial, "a run still going is partial");
        cut.cancel("interrupted by Ctrl-C");
        let file = RunFile::from_json("run.json", &cut.file().to_json()).unwrap();
        assert!(file.partial);
        assert_eq!(file.exchanges.len(), 1);

        let mut replay = Session::replay(&file, &tree()).unwrap();
        let mut replayer = Replayer::new(&file);
        while replay.step(&mut replayer, &mut clock, &|| false) {}
        assert_eq!(replayer.remaining(), 0);
        let recorded = Run {
            decider: "replay of x".into(),
            ..file.run.clone()
        };
        assert_eq!(
            replay.run(),
            &recorded,
            "the replay ends as the recording did"
        );
        let error = replay.run().error.as_ref().unwrap();
        assert_eq!(
            error.message, "interrupted by Ctrl-C",
            "not a request never recorded"
        );
        assert!(replay.file().partial);

        // A file cut off by a kill (partial, no reason recorded) stops with a reason of its own.
        let mut killed = file.clone();
        killed.run.error = None;
        let mut replay = Session::replay(&killed, &tree()).unwrap();
        let mut replayer = Replayer::new(&killed);
        while replay.step(&mut replayer, &mut clock, &|| false) {}
        let why = &replay.run().error.as_ref().unwrap().message;
        assert!(why.contains("partial run file"), "{why}");
    }

    /// A clock on which any wait stands for Ctrl-C pressed while waiting.
    struct PressedWhileWaiting<'a>(&'a std::cell::Cell<bool>);

    impl Clock for PressedWhileWaiting<'_> {
        fn now_ms(&mut self) -> u64 {
            0
        }

        fn sleep_ms(&mut self, _ms: u64) {
            self.0.set(true);
        }
    }

    /// Rate-limits every call, counting them.
    struct RateLimited(usize);

    impl Decider for RateLimited {
        fn decide(&mut self, _: &Request) -> Result<Response, DecisionError> {
            self.0 += 1;
            Err(DecisionError::RateLimited {
                retry_after_ms: Some(2_000),
                message: "slow down".into(),
            })
        }

        fn kind(&self) -> String {
            "limited".into()
        }
    }

    #[test]
    fn a_stop_during_a_retry_wait_sends_nothing_more() {
        let pressed = std::cell::Cell::new(false);
        let mut clock = PressedWhileWaiting(&pressed);
        let mut limited = RateLimited(0);
        let mut session = Session::new(
            Strategy::Tree,
            &tree(),
            "",
            "parser",
            RouteSettings::default(),
            "limited",
        )
        .unwrap();
        let stop = || pressed.get();
        assert!(
            session.step(&mut limited, &mut clock, &stop),
            "the first call"
        );
        assert!(
            !session.step(&mut limited, &mut clock, &stop),
            "stopped after the wait"
        );
        assert_eq!(limited.0, 1, "the retry was not sent");
        session.cancel("interrupted");
        assert_eq!(session.run().error.as_ref().unwrap().message, "interrupted");
        assert_eq!(session.file().exchanges.len(), 1);
    }

    #[test]
    fn a_cancel_after_the_last_call_leaves_the_run_whole() {
        let mut session = Session::new(
            Strategy::Tree,
            &tree(),
            "",
            "parser",
            RouteSettings::default(),
            "offline",
        )
        .unwrap();
        let (mut offline, mut clock) = (OfflineDecider::default(), ManualClock::default());
        while session.step(&mut offline, &mut clock, &|| false) {}
        let whole = session.run().clone();
        // Cancelling a run that needs no further call changes nothing and marks nothing.
        session.cancel("interrupted");
        assert_eq!(session.run(), &whole);
        assert!(!session.file().partial);
        // A cancel just after the last answer settles the walk the same way: the paths the last
        // menu reveals are ranked, not dropped.
        let mut cut = Session::new(
            Strategy::Tree,
            &tree(),
            "",
            "parser",
            RouteSettings::default(),
            "offline",
        )
        .unwrap();
        for _ in 0..whole.calls {
            assert!(cut.step(&mut offline, &mut clock, &|| false));
        }
        cut.cancel("interrupted");
        assert_eq!(cut.run().paths, whole.paths);
        assert!(cut.run().error.is_none(), "{:?}", cut.run().error);
    }

    #[test]
    fn refuses_an_empty_issue_and_keeps_a_cancelled_run() {
        let err = Session::new(
            Strategy::Tree,
            &tree(),
            "",
            "  ",
            RouteSettings::default(),
            "offline",
        )
        .unwrap_err();
        assert!(err.to_string().contains("issue"), "{err}");
        let mut session = Session::new(
            Strategy::Tree,
            &tree(),
            "case-1",
            "parser",
            RouteSettings::default(),
            "offline",
        )
        .unwrap();
        session.cancel("cancelled");
        assert_eq!(session.run().error.as_ref().unwrap().message, "cancelled");
        // Five paths are fewer than the tournament advances: it needs no call, so a cancel
        // before it starts finds it whole.
        let mut flat = Session::new(
            Strategy::Flat,
            &tree(),
            "case-1",
            "parser",
            RouteSettings::default(),
            "offline",
        )
        .unwrap();
        flat.cancel("cancelled");
        assert!(flat.run().error.is_none());
        assert_eq!(flat.run().paths.len(), 5);
    }
}
