//! Router tests on small synthetic trees, with scripted deciders and a manual clock.

use std::collections::BTreeMap;

use super::protocol::{option_key, NONE_KEY};
use super::*;
use crate::DirTree;

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

#[test]
fn best_first_and_ties_in_menu_order() {
    let tree = DirTree::from_paths(&["a/x.rs", "a/y.rs", "b/z.rs", "c.rs", "d.rs"]);
    // Root menu: a, b, c.rs, d.rs. b ties with a; d.rs is best.
    let mut decider = script(|call, texts| {
        Ok(match call {
            0 => {
                assert_eq!(texts.len(), 4);
                vec![0.2, 0.2, 0.1, 0.4]
            }
            // a: x.rs and y.rs tie.
            1 => vec![0.3, 0.3],
            _ => panic!("b has one child and needs no call"),
        })
    });
    let run = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(run.paths, ["d.rs", "a/x.rs", "a/y.rs", "b/z.rs", "c.rs"]);
    assert_eq!(run.calls, 2);
    assert_eq!((run.input_tokens, run.output_tokens), (200, 6));
    assert!((run.cost_usd - 200.0 * 0.042 / 1e6).abs() < 1e-15);
    assert!(!run.truncated && run.error.is_none());
    assert_eq!(run.decider, "script");
    let root = &run.menus[0];
    assert_eq!(root.directory, "");
    assert_eq!(root.kept, ["d.rs", "a", "b", "c.rs"]);
    assert_eq!(root.probabilities, [0.2, 0.2, 0.1, 0.4]);
    assert_eq!(root.none_of_these, [0.0]);
    assert_eq!(run.menus[2].directory, "b");
    assert_eq!(run.menus[2].calls, 0);
    assert!(run.menus[2].probabilities.is_empty());
}

#[test]
fn thresholds_are_absolute_and_relative_and_ignore_none() {
    let settings = RouteSettings::default();
    assert_eq!(router::keep(&[0.5, 0.005, 0.01, 0.0099], &settings), [0, 2]);
    // The best child is 0.005 (none-of-these is not a child): nothing reaches 0.01.
    assert!(router::keep(&[0.005, 0.004], &settings).is_empty());
    let strict = RouteSettings {
        relative_probability: 0.5,
        ..RouteSettings::default()
    };
    assert_eq!(router::keep(&[0.8, 0.4, 0.39], &strict), [0, 1]);
    // Through a walk: none_of_these at 0.98 does not raise the bar.
    let tree = DirTree::from_paths(&["a.rs", "b.rs", "c.rs"]);
    struct NoneHeavy;
    impl Decider for NoneHeavy {
        fn decide(&mut self, _: &Request) -> Result<Response, DecisionError> {
            Ok(response(&[0.012, 0.005, 0.003], 0.98))
        }
        fn kind(&self) -> String {
            "none-heavy".into()
        }
    }
    let run = tree_run(&tree, RouteSettings::default(), &mut NoneHeavy);
    assert_eq!(run.paths, ["a.rs"]);
    assert_eq!(run.menus[0].none_of_these, [0.98]);
}

#[test]
fn single_child_directories_need_no_call() {
    let tree = DirTree::from_paths(&["a/b/c/only.rs"]);
    let mut decider = script(|_, _| panic!("no call expected"));
    let run = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(run.paths, ["a/b/c/only.rs"]);
    assert_eq!(run.calls, 0);
    assert_eq!(run.menus.len(), 4);
    assert!(DirTree::from_paths::<&str>(&[]).files.is_empty());
    let empty = tree_run(
        &DirTree::default(),
        RouteSettings::default(),
        &mut script(uniform),
    );
    assert!(empty.paths.is_empty() && !empty.truncated);
}

#[test]
fn split_menus_are_not_renormalised() {
    let paths: Vec<String> = (0..300).map(|i| format!("f{i:03}.rs")).collect();
    let tree = DirTree::from_paths(&paths);
    let mut sizes = Vec::new();
    let mut decider = script(|call, texts| {
        sizes.push(texts.len());
        // Part 1 is confident about its first option; part 2 spreads thinly.
        Ok(match call {
            0 => (0..texts.len())
                .map(|i| if i == 0 { 0.9 } else { 0.0 })
                .collect(),
            _ => (0..texts.len())
                .map(|i| if i < 3 { 0.02 } else { 0.001 })
                .collect(),
        })
    });
    let run = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(sizes, [254, 46]);
    assert_eq!(run.calls, 2);
    assert_eq!(run.menus[0].probabilities.len(), 300);
    assert_eq!(run.menus[0].calls, 2);
    // Kept: 0.9 and the three 0.02s of part 2 (each ≥ max(0.01, 0.009)).
    assert_eq!(run.paths, ["f000.rs", "f254.rs", "f255.rs", "f256.rs"]);
}

#[test]
fn splits_when_characters_would_pass_48000() {
    // 100 files whose options are cut to 800 characters: 59 fit beside the state, the other 41
    // go in a second call.
    let paths: Vec<String> = (0..100)
        .map(|i| format!("{i:03}{}", "n".repeat(330)))
        .collect();
    let tree = DirTree::from_paths(&paths);
    let mut sizes = Vec::new();
    let mut decider = script(|_, texts| {
        sizes.push((
            texts.len(),
            texts.iter().map(|t| t.chars().count()).sum::<usize>(),
        ));
        Ok(vec![0.0; texts.len()])
    });
    let run = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(run.calls, 2);
    let state = "User question: issue".len();
    assert!(
        sizes.iter().all(|(_, chars)| state + chars <= 48_000),
        "{sizes:?}"
    );
    assert_eq!((sizes[0].0, sizes[1].0), (59, 41));
    assert!(state + sizes[0].1 + 800 > 48_000);
}

#[test]
fn the_file_cap_truncates_only_with_work_left() {
    let paths: Vec<String> = (0..20).map(|i| format!("f{i:02}.rs")).collect();
    let run = tree_run(
        &DirTree::from_paths(&paths),
        RouteSettings::default(),
        &mut script(uniform),
    );
    assert_eq!(run.paths.len(), 16);
    assert_eq!(run.paths[0], "f00.rs");
    assert!(run.truncated);
    assert_eq!(run.stopped_by, Some(Cap::Files));
    let exact: Vec<String> = (0..16).map(|i| format!("f{i:02}.rs")).collect();
    let run = tree_run(
        &DirTree::from_paths(&exact),
        RouteSettings::default(),
        &mut script(uniform),
    );
    assert_eq!(run.paths.len(), 16);
    assert!(!run.truncated && run.stopped_by.is_none());
}

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
    // root, p, p/s: two files nominated before the fourth call was needed.
    assert_eq!(run.paths, ["p/s/u.rs", "p/s/v.rs"]);
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
    assert_eq!(run.paths, ["a.rs", "b.rs"]);
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
    assert_eq!(run.paths, ["p/s/u.rs", "p/s/v.rs"]);
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
        assert_eq!(run.menus[1].directory, "p");
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

#[test]
fn offline_runs_replay_exactly() {
    let tree = DirTree::from_paths(&[
        "src/parser/json.rs",
        "src/parser/toml.rs",
        "src/lexer.rs",
        "docs/parser.md",
        "tests/parse_nested.rs",
    ]);
    let issue = "The JSON parser panics on nested arrays";
    for strategy in [Strategy::Tree, Strategy::Flat] {
        let settings = RouteSettings::default();
        let mut walk = super::walk(strategy, &tree, issue, settings.clone());
        let mut recorder = Recorder::new(OfflineDecider::default());
        let recorded = run(walk.as_mut(), &mut recorder, &mut ManualClock::default());
        assert!(!recorded.paths.is_empty());
        let file = recorder.into_file(issue, &settings, &recorded);
        let text = file.to_json();
        let back = RunFile::from_json("run.json", &text).unwrap();
        assert_eq!(back, file);
        let mut replayer = Replayer::new(&back);
        let mut again = super::walk(back.strategy, &tree, &back.issue, back.settings.clone());
        let replayed = run(again.as_mut(), &mut replayer, &mut ManualClock::default());
        assert_eq!(replayed.paths, recorded.paths);
        assert_eq!(replayed.menus, recorded.menus);
        assert_eq!(
            (
                replayed.calls,
                replayed.input_tokens,
                replayed.output_tokens,
                replayed.cost_usd
            ),
            (
                recorded.calls,
                recorded.input_tokens,
                recorded.output_tokens,
                recorded.cost_usd
            )
        );
        assert_eq!(replayed.decider, "replay of offline");
        assert_eq!(replayer.remaining(), 0);
        // Another issue asks another question: the replay refuses it.
        let mut other = super::walk(strategy, &tree, "something else", back.settings.clone());
        let refused = run(
            other.as_mut(),
            &mut Replayer::new(&back),
            &mut ManualClock::default(),
        );
        let error = refused.error.unwrap();
        assert!(
            error
                .message
                .contains("request 1 differs from the recorded one in state"),
            "{}",
            error.message
        );
    }
}

#[test]
fn replay_records_errors_and_retries_too() {
    let tree = DirTree::from_paths(&["a.rs", "b.rs"]);
    let settings = RouteSettings::default();
    let mut recorder = Recorder::new(script(|call, texts| {
        if call == 0 {
            return Err(DecisionError::RateLimited {
                retry_after_ms: Some(1_000),
                message: "x".into(),
            });
        }
        uniform(call, texts)
    }));
    let mut walk = TreeWalk::new(&tree, "q", settings.clone());
    let recorded = run(&mut walk, &mut recorder, &mut ManualClock::default());
    let file = recorder.into_file("q", &settings, &recorded);
    assert_eq!(file.exchanges.len(), 2);
    assert!(matches!(
        file.exchanges[0].outcome,
        Outcome::Error(DecisionError::RateLimited { .. })
    ));
    let mut walk = TreeWalk::new(&tree, "q", settings);
    let mut clock = ManualClock::default();
    let replayed = run(&mut walk, &mut Replayer::new(&file), &mut clock);
    assert_eq!(replayed.retries, 1);
    assert_eq!(clock.sleeps, [1_000]);
    assert_eq!(replayed.paths, recorded.paths);
    assert!(!file.to_json().contains("Bearer"));
}

#[test]
fn run_files_are_checked_on_reading() {
    let err = RunFile::from_json("run.json", "{").unwrap_err();
    assert!(err.to_string().starts_with("run.json: "), "{err}");
    let err = RunFile::from_json(
        "run.json",
        r#"{"format":"other","strategy":"tree","issue":"","settings":{},"decider":"x","exchanges":[],"run":{}}"#,
    );
    // `run` lacks required fields or format is wrong: either way the file and field are named.
    let err = err.unwrap_err().to_string();
    assert!(err.starts_with("run.json: field "), "{err}");
}

#[test]
fn the_flat_tournament_advances_the_top_16_of_each_menu() {
    let paths: Vec<String> = (0..600).map(|i| format!("d{}/f{i:03}.rs", i % 7)).collect();
    let tree = DirTree::from_paths(&paths);
    let mut sizes = Vec::new();
    // Score each option by the number in its name, so the highest numbers win every round.
    let mut decider = script(|_, texts| {
        sizes.push(texts.len());
        Ok(texts
            .iter()
            .map(|t| {
                let n: f64 = t[t.find("/f").unwrap() + 2..][..3].parse().unwrap();
                n / 1000.0
            })
            .collect())
    });
    let mut walk = FlatTournament::new(&tree, "issue", RouteSettings::default());
    let run = run(&mut walk, &mut decider, &mut ManualClock::default());
    assert_eq!(sizes, [254, 254, 92, 48]);
    assert_eq!(run.calls, 4);
    assert_eq!(run.strategy, Strategy::Flat);
    assert_eq!(run.paths.len(), 16);
    assert!(!run.truncated);
    // Round 1 menus hold sorted paths; each menu's best 16 advance, and the final ranking is
    // the 16 best of those 48.
    let mut best: Vec<(f64, String)> = run.menus[..3]
        .iter()
        .flat_map(|m| m.kept.iter().cloned())
        .map(|p| {
            (
                p[p.find("/f").unwrap() + 2..][..3].parse::<f64>().unwrap(),
                p,
            )
        })
        .collect();
    best.sort_by(|a, b| b.0.total_cmp(&a.0));
    let expected: Vec<String> = best.into_iter().take(16).map(|(_, p)| p).collect();
    assert_eq!(run.paths, expected);
    assert_eq!(run.menus[3].directory, "round 2 menu 1");
}

#[test]
fn flat_ties_keep_menu_order_and_small_menus_skip_the_call() {
    assert_eq!(flat::top(&[0.1, 0.5, 0.5, 0.2], 3), [1, 2, 3]);
    // 260 paths: a 254 menu and a 6 menu that advances whole without a call.
    let paths: Vec<String> = (0..260).map(|i| format!("f{i:03}.rs")).collect();
    let mut walk = FlatTournament::new(
        &DirTree::from_paths(&paths),
        "issue",
        RouteSettings::default(),
    );
    let run = run(&mut walk, &mut script(uniform), &mut ManualClock::default());
    assert_eq!(run.calls, 2);
    assert_eq!(run.menus[1].calls, 0);
    // All tied: menu order decides, f000..f015 advance from menu 1, then f254..f259.
    assert_eq!(run.paths[0], "f000.rs");
    assert_eq!(run.paths.len(), 16);
    let one = FlatTournament::new(
        &DirTree::from_paths(&["only.rs"]),
        "issue",
        RouteSettings::default(),
    );
    let mut one = one;
    assert!(one.next_call(0).is_none());
    assert_eq!(one.run().paths, ["only.rs"]);
}

#[test]
fn a_flat_tournament_stopped_by_the_call_cap_ranks_what_it_has() {
    let paths: Vec<String> = (0..600).map(|i| format!("f{i:03}.rs")).collect();
    let settings = RouteSettings {
        max_calls: 1,
        ..RouteSettings::default()
    };
    let mut walk = FlatTournament::new(&DirTree::from_paths(&paths), "issue", settings);
    let mut decider = script(|_, texts| {
        Ok((0..texts.len())
            .map(|i| if i == 5 { 0.9 } else { 0.0 })
            .collect())
    });
    let run = run(&mut walk, &mut decider, &mut ManualClock::default());
    assert!(run.truncated);
    assert_eq!(run.stopped_by, Some(Cap::Calls));
    assert_eq!(run.paths.len(), 16);
    assert_eq!(run.paths[0], "f005.rs");
}

#[test]
fn the_offline_decider_routes_toward_the_issue_terms() {
    let tree = DirTree::from_paths(&[
        "engine/src/tokens.rs",
        "engine/src/pack.rs",
        "engine/src/route/menu.rs",
        "app/src/views/search.rs",
        "README.md",
    ]);
    let mut walk = TreeWalk::new(
        &tree,
        "How are menu options built when routing?",
        RouteSettings::default(),
    );
    let run = run(
        &mut walk,
        &mut OfflineDecider::default(),
        &mut ManualClock::default(),
    );
    assert_eq!(run.paths[0], "engine/src/route/menu.rs");
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Probabilities from a hash of the seed and the option text, so every menu differs.
    struct Hashed(u64);

    impl Decider for Hashed {
        fn decide(&mut self, request: &Request) -> Result<Response, DecisionError> {
            let Question::Choice { criteria, .. } = &request.questions["route"] else {
                panic!("choice expected")
            };
            let probabilities: Vec<f64> = criteria
                .0
                .iter()
                .filter(|(key, _)| key != NONE_KEY)
                .map(|(_, text)| {
                    let mut h = self.0 ^ 0x9e37_79b9_7f4a_7c15;
                    for b in text.bytes() {
                        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                    }
                    // Some options fall under the 0.01 floor, some tie at 0.5.
                    match h % 4 {
                        0 => 0.005,
                        1 => 0.5,
                        _ => (h % 1000) as f64 / 1000.0,
                    }
                })
                .collect();
            Ok(response(&probabilities, 0.1))
        }

        fn kind(&self) -> String {
            "hashed".into()
        }
    }

    proptest! {
        #[test]
        fn routing_terminates_within_its_caps(
            paths in proptest::collection::btree_set("[a-d](/[a-d]){0,3}/[e-h]\\.rs", 1..60),
            seed in any::<u64>(),
            max_menu_options in 2usize..8,
            max_calls in 1usize..40,
            max_files in 1usize..20,
            flat in any::<bool>(),
        ) {
            let paths: Vec<String> = paths.into_iter().collect();
            let tree = DirTree::from_paths(&paths);
            let settings = RouteSettings {
                max_menu_options,
                max_calls,
                max_files,
                flat_advance: 1.max(max_menu_options / 2),
                ..RouteSettings::default()
            };
            prop_assert!(settings.check().is_ok());
            let strategy = if flat { super::super::Strategy::Flat } else { super::super::Strategy::Tree };
            let mut walk = super::super::walk(strategy, &tree, "issue a b", settings);
            let mut decider = Hashed(seed);
            let mut steps = 0;
            let mut now = 0;
            while let Some(call) = walk.next_call(now) {
                steps += 1;
                prop_assert!(steps <= 10_000, "the walk does not end");
                now += call.wait_ms + 1;
                let outcome = decider.decide(&call.request);
                walk.answer(outcome, now);
            }
            let run = walk.run();
            prop_assert!(walk.is_done());
            prop_assert!(run.calls <= max_calls);
            prop_assert!(run.paths.len() <= max_files);
            let unique: std::collections::BTreeSet<&String> = run.paths.iter().collect();
            prop_assert_eq!(unique.len(), run.paths.len());
            prop_assert!(run.paths.iter().all(|p| paths.contains(p)));
            prop_assert!(run.error.is_none());
            if run.stopped_by.is_some() {
                prop_assert!(run.truncated);
            }
        }
    }
}
