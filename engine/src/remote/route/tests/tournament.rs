//! The flat tournament as the archive records it: SHA-256 path order, menus of 200 paths within
//! the character budget, every menu a call, the top 16 advancing with ties by path, rounds until
//! 16 remain, transport retries after 1, 2, 4 s, and a call cap that ranks what it has.

use super::*;
use crate::remote::route::flat;
use crate::remote::route::settings::FLAT_INSTRUCTIONS;

fn numbered(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("f{i:04}.rs")).collect()
}

/// The number in an option text `Source file: f0123.rs`.
fn number(text: &str) -> f64 {
    let at = text.find(": f").unwrap() + 3;
    text[at..at + 4].parse().unwrap()
}

#[test]
fn paths_are_ordered_by_the_sha256_of_issue_id_nul_path() {
    let paths = ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "src/x.py"].map(String::from);
    // Python: sorted(ps, key=lambda p: hashlib.sha256(f"case-1\0{p}".encode()).digest())
    assert_eq!(
        flat::menu_order("case-1", paths.to_vec()),
        ["e.rs", "d.rs", "src/x.py", "b.rs", "a.rs", "c.rs"]
    );
    assert_ne!(
        flat::menu_order("case-2", paths.to_vec()),
        flat::menu_order("case-1", paths.to_vec())
    );
}

#[test]
fn the_first_request_has_the_archived_state_options_and_instruction() {
    let tree = DirTree::from_paths(&numbered(20));
    let issue = "é".repeat(600);
    let mut walk = FlatTournament::new(&tree, "id", &issue, RouteSettings::default());
    let call = walk.next_call(0).unwrap();
    assert_eq!(
        call.request.state,
        format!("User issue: {}", "é".repeat(500))
    );
    let Question::Choice {
        instructions,
        criteria,
    } = &call.request.questions["route"]
    else {
        panic!("choice expected")
    };
    assert_eq!(instructions, FLAT_INSTRUCTIONS);
    assert!(FLAT_INSTRUCTIONS.starts_with("Choose the source file path most likely"));
    let texts: Vec<&String> = criteria
        .0
        .iter()
        .filter(|(key, _)| key != NONE_KEY)
        .map(|(_, text)| text)
        .collect();
    assert_eq!(texts.len(), 20);
    let expected = flat::menu_order("id", numbered(20));
    assert_eq!(texts[0], &format!("Source file: {}", expected[0]));
}

#[test]
fn menus_hold_200_paths_and_close_before_the_character_budget() {
    let settings = RouteSettings::default();
    let options = |paths: Vec<String>| -> Vec<MenuOption> {
        paths
            .into_iter()
            .map(|path| MenuOption {
                text: String::new(),
                path,
                is_dir: false,
            })
            .collect()
    };
    let menus = flat::flat_menus(&options(numbered(450)), &settings);
    assert_eq!(menus, [0..200, 200..400, 400..450]);
    // Paths of 480 characters: 600 + 95 × 500 = 48,100 > 48,000, so 94 fit in a menu (47,600).
    let long: Vec<String> = (0..100)
        .map(|i| format!("{i:03}{}", "p".repeat(477)))
        .collect();
    let menus = flat::flat_menus(&options(long), &settings);
    assert_eq!(menus, [0..94, 94..100]);
    // A path longer than the budget still gets a menu of its own.
    let huge = vec!["x".repeat(60_000), "y.rs".into()];
    assert_eq!(flat::flat_menus(&options(huge), &settings), [0..1, 1..2]);
}

#[test]
fn every_menu_is_a_call_and_rounds_repeat_until_16_remain() {
    // 410 paths: round 1 has menus of 200, 200 and 10 (the small one is a call too), 42
    // survive (16 + 16 + 10); round 2 is one menu of 42; 16 remain.
    let tree = DirTree::from_paths(&numbered(410));
    let mut sizes = Vec::new();
    let mut decider = script(|_, texts| {
        sizes.push(texts.len());
        Ok(texts.iter().map(|t| number(t) / 1000.0).collect())
    });
    let mut walk = FlatTournament::new(&tree, "case", "issue", RouteSettings::default());
    let run = run(&mut walk, &mut decider, &mut ManualClock::default());
    assert_eq!(sizes, [200, 200, 10, 42]);
    assert_eq!(run.calls, 4);
    assert_eq!(run.strategy, Strategy::Flat);
    assert!(!run.truncated && run.error.is_none());
    assert_eq!(run.menus[3].directory, "round 2 menu 1");
    // The survivors of round 1 are each menu's top 16, menu after menu.
    let survivors: Vec<String> = run.menus[..3]
        .iter()
        .flat_map(|m| m.kept.iter().cloned())
        .collect();
    assert_eq!(run.menus[3].paths, survivors);
    assert_eq!(run.menus[2].kept.len(), 10);
    // The highest numbers win: the ranking is f0409 down to f0394.
    let expected: Vec<String> = (394..410).rev().map(|i| format!("f{i:04}.rs")).collect();
    assert_eq!(run.paths, expected);
    // With 16 paths or fewer there is nothing to ask.
    let mut small = FlatTournament::new(
        &DirTree::from_paths(&numbered(16)),
        "case",
        "issue",
        RouteSettings::default(),
    );
    assert!(small.next_call(0).is_none());
    assert_eq!(small.run().paths, flat::menu_order("case", numbered(16)));
}

#[test]
fn ties_advance_by_path_and_none_of_these_never_advances() {
    let options: Vec<MenuOption> = ["c.rs", "a.rs", "b.rs", "d.rs"]
        .into_iter()
        .map(|path| MenuOption {
            text: String::new(),
            path: path.into(),
            is_dir: false,
        })
        .collect();
    // c.rs and b.rs tie at 0.5: b.rs first; then a.rs before d.rs.
    assert_eq!(flat::top(&options, &[0.5, 0.2, 0.5, 0.2], 3), [2, 0, 1]);
    // A decider that puts everything on none-of-these still advances 16 paths, by path.
    let tree = DirTree::from_paths(&numbered(40));
    let mut none = script(|_, texts| Ok(vec![0.0; texts.len()]));
    let mut walk = FlatTournament::new(&tree, "case", "issue", RouteSettings::default());
    let run = run(&mut walk, &mut none, &mut ManualClock::default());
    assert_eq!(run.calls, 1);
    assert_eq!(run.paths, numbered(16));
}

#[test]
fn a_round_that_does_not_shrink_is_an_error() {
    // Settings `check` refuses: menus of 10 that each advance 16.
    let settings = RouteSettings {
        flat_menu_options: 10,
        ..RouteSettings::default()
    };
    assert!(settings.check().is_err());
    let tree = DirTree::from_paths(&numbered(30));
    let mut walk = FlatTournament::new(&tree, "case", "issue", settings);
    let run = run(&mut walk, &mut script(uniform), &mut ManualClock::default());
    assert_eq!(run.calls, 3);
    let error = run.error.unwrap();
    assert!(
        error.message.contains("round 1 did not shrink its 30"),
        "{}",
        error.message
    );
    assert_eq!(run.paths.len(), 16);
}

#[test]
fn transport_errors_retry_after_1_2_4_seconds_in_the_flat_tournament_only() {
    let failing = |failures: usize| {
        script(move |call, texts| {
            if call < failures {
                return Err(DecisionError::Transport {
                    message: "timed out".into(),
                });
            }
            uniform(call, texts)
        })
    };
    let tree = DirTree::from_paths(&numbered(20));
    let mut clock = ManualClock::default();
    let mut walk = FlatTournament::new(&tree, "case", "issue", RouteSettings::default());
    let done = run(&mut walk, &mut failing(3), &mut clock);
    assert_eq!(clock.sleeps, [1_000, 2_000, 4_000]);
    assert_eq!((done.retries, done.calls), (3, 1));
    assert!(done.error.is_none());
    let mut walk = FlatTournament::new(&tree, "case", "issue", RouteSettings::default());
    let failed = run(&mut walk, &mut failing(4), &mut ManualClock::default());
    assert!(failed.error.unwrap().message.contains("timed out"));
    // The tree does not retry a transport error (the paper's tree script did not).
    let mut tree_walk = TreeWalk::new(&tree, "issue", RouteSettings::default());
    let mut clock = ManualClock::default();
    let tree_run = run(&mut tree_walk, &mut failing(1), &mut clock);
    assert!(tree_run.error.is_some() && clock.sleeps.is_empty());
    // 429 keeps its own count beside the transport retries.
    let mut mixed = script(|call, texts| match call {
        0 => Err(DecisionError::Transport {
            message: "reset".into(),
        }),
        1 => Err(DecisionError::RateLimited {
            retry_after_ms: Some(3_000),
            message: "slow".into(),
        }),
        _ => uniform(call, texts),
    });
    let mut walk = FlatTournament::new(&tree, "case", "issue", RouteSettings::default());
    let mut clock = ManualClock::default();
    let done = run(&mut walk, &mut mixed, &mut clock);
    assert_eq!(clock.sleeps, [1_000, 3_000]);
    assert!(done.error.is_none());
}

#[test]
fn a_flat_tournament_stopped_by_a_call_cap_ranks_what_it_has() {
    let settings = RouteSettings {
        flat_max_calls: Some(1),
        ..RouteSettings::default()
    };
    let tree = DirTree::from_paths(&numbered(600));
    let order = flat::menu_order("case", numbered(600));
    let mut walk = FlatTournament::new(&tree, "case", "issue", settings);
    let mut decider = script(|_, texts| {
        Ok((0..texts.len())
            .map(|i| if i == 5 { 0.9 } else { 0.0 })
            .collect())
    });
    let run = run(&mut walk, &mut decider, &mut ManualClock::default());
    assert!(run.truncated);
    assert_eq!(run.stopped_by, Some(Cap::Calls));
    assert_eq!(run.paths.len(), 16);
    assert_eq!(run.paths[0], order[5]);
    // The tree's cap of 32 calls does not apply to the flat tournament by default.
    assert_eq!(RouteSettings::default().flat_max_calls, None);
}
