//! Caps and failures: the call and time caps, retries of rate limits and overloads, errors that
//! end a run, invalid answers, and the step machine repeating an unanswered call.

use super::*;

fn deep_tree() -> DirTree {
    let mut paths = Vec::new();
    for a in ["p", "q", "r"] {
        for b in ["s", "t"] {
            for f in ["u.rs", "v.rs"] {
                paths.push(format!("{a}/{b}/{f}"));
            }
        }
    }
    DirTree::from_paths(&paths)
}

#[test]
fn the_call_cap_truncates() {
    let settings = RouteSettings {
        max_calls: 3,
        ..RouteSettings::default()
    };
    let run = tree_run(&deep_tree(), settings, &mut script(uniform));
    assert_eq!(run.calls, 3);
    assert!(run.truncated);
    assert_eq!(run.stopped_by, Some(Cap::Calls));
    // root, r, r/t (ties go to the later child): two files before the fourth call was needed.
    assert_eq!(run.paths, ["r/t/v.rs", "r/t/u.rs"]);
    let full = tree_run(&deep_tree(), RouteSettings::default(), &mut script(uniform));
    assert_eq!(
        (full.calls, full.paths.len(), full.truncated),
        (10, 12, false)
    );
}

#[test]
fn the_time_cap_truncates() {
    let mut walk = TreeWalk::new(&deep_tree(), "issue", RouteSettings::default());
    // Every clock reading moves 30 s; a call takes three readings (ask, start, answer): the
    // second call is answered at 180 s, and the third is never asked.
    let mut clock = ManualClock {
        step_ms: 30_000,
        ..ManualClock::default()
    };
    let run = run(&mut walk, &mut script(uniform), &mut clock);
    assert!(run.truncated);
    assert_eq!(run.stopped_by, Some(Cap::Time));
    assert_eq!(run.calls, 2);
    assert_eq!(run.elapsed_ms, 180_000);
    assert!(walk.is_done());
    assert!(walk.next_call(0).is_none());
}

#[test]
fn rate_limits_are_retried_with_waits() {
    let mut failures = 0;
    let mut decider = script(|call, texts| {
        if call < 2 {
            failures += 1;
            return Err(DecisionError::RateLimited {
                retry_after_ms: if call == 0 { Some(3_000) } else { None },
                message: "slow down".into(),
            });
        }
        uniform(call, texts)
    });
    let tree = DirTree::from_paths(&["a.rs", "b.rs"]);
    let mut walk = TreeWalk::new(&tree, "issue", RouteSettings::default());
    let mut clock = ManualClock::default();
    let run = run(&mut walk, &mut decider, &mut clock);
    assert_eq!(clock.sleeps, [3_000, 4_000]);
    assert_eq!((run.calls, run.retries), (1, 2));
    assert_eq!(run.paths, ["b.rs", "a.rs"]);
    assert!(run.error.is_none());
}

#[test]
fn a_fourth_overload_fails_the_run_and_keeps_it() {
    let tree = deep_tree();
    let mut decider = script(|call, texts| {
        if call >= 3 {
            return Err(DecisionError::Overloaded {
                retry_after_ms: Some(100),
                message: "busy".into(),
            });
        }
        uniform(call, texts)
    });
    let mut clock = ManualClock::default();
    let mut walk = TreeWalk::new(&tree, "issue", RouteSettings::default());
    let run = run(&mut walk, &mut decider, &mut clock);
    assert_eq!(clock.sleeps, [1_000, 1_000, 1_000]);
    assert_eq!(run.retries, 3);
    let error = run.error.as_ref().unwrap();
    assert_eq!(error.status, Some(529));
    assert!(error.message.contains("busy"));
    assert_eq!(run.calls, 3);
    assert_eq!(run.paths, ["r/t/v.rs", "r/t/u.rs"]);
    assert!(!run.truncated);
}

#[test]
fn other_errors_end_the_run_at_once() {
    for (error, status) in [
        (
            DecisionError::Server {
                status: 500,
                message: "oops".into(),
            },
            Some(500),
        ),
        (
            DecisionError::Forbidden {
                message: "no".into(),
            },
            Some(403),
        ),
        (
            DecisionError::Malformed {
                message: "not JSON".into(),
            },
            None,
        ),
    ] {
        let mut decider = script(|call, texts| {
            if call == 1 {
                Err(error.clone())
            } else {
                uniform(call, texts)
            }
        });
        let run = tree_run(&deep_tree(), RouteSettings::default(), &mut decider);
        assert_eq!(run.retries, 0);
        assert_eq!(run.calls, 1);
        assert_eq!(run.error.as_ref().unwrap().status, status);
        assert!(run.paths.is_empty());
        // The root menu is kept, and the unanswered one is recorded without probabilities.
        assert_eq!(run.menus.len(), 2);
        assert_eq!(run.menus[1].directory, "r");
        assert!(run.menus[1].probabilities.is_empty());
    }
}

#[test]
fn an_invalid_answer_fails_the_run_naming_the_key() {
    struct Short;
    impl Decider for Short {
        fn decide(&mut self, _: &Request) -> Result<Response, DecisionError> {
            Ok(response(&[0.5], 0.1))
        }
        fn kind(&self) -> String {
            "short".into()
        }
    }
    let run = tree_run(
        &DirTree::from_paths(&["a.rs", "b.rs"]),
        RouteSettings::default(),
        &mut Short,
    );
    let error = run.error.unwrap();
    assert!(error.message.contains("option_1"), "{}", error.message);
}

#[test]
fn the_step_machine_repeats_an_unanswered_call() {
    let mut walk = TreeWalk::new(&deep_tree(), "issue", RouteSettings::default());
    let first = walk.next_call(0).unwrap();
    assert_eq!(walk.next_call(1).unwrap(), first);
    assert_eq!((first.index, first.attempt, first.wait_ms), (0, 0, 0));
    assert_eq!(first.menu, "");
    assert_eq!(first.request.state, "User question: issue");
    walk.answer(
        Err(DecisionError::RateLimited {
            retry_after_ms: None,
            message: String::new(),
        }),
        5,
    );
    let retry = walk.next_call(6).unwrap();
    assert_eq!((retry.index, retry.attempt, retry.wait_ms), (0, 1, 2_000));
    assert_eq!(retry.request, first.request);
    walk.answer(Ok(response(&[0.5, 0.3, 0.2], 0.0)), 2_010);
    let next = walk.next_call(2_011).unwrap();
    assert_eq!((next.index, next.menu.as_str()), (1, "p"));
    // A stray answer with nothing outstanding is ignored.
    let mut done = TreeWalk::new(&DirTree::default(), "issue", RouteSettings::default());
    assert!(done.next_call(0).is_none());
    done.answer(Ok(response(&[], 0.0)), 1);
    assert_eq!(done.run().calls, 0);
}
