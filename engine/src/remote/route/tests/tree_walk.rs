//! The tree walk's rules: best first with ties in reverse menu order, the keep thresholds, menus split at
//! the option and character limits, the file cap, and the offline decider.

use super::*;

#[test]
fn best_first_and_ties_in_reverse_menu_order() {
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
    // The paper: tied children follow reverse input order (b before a, y.rs before x.rs).
    assert_eq!(run.paths, ["d.rs", "b/z.rs", "a/y.rs", "a/x.rs", "c.rs"]);
    assert_eq!(run.calls, 2);
    assert_eq!((run.input_tokens, run.output_tokens), (200, 6));
    assert!((run.cost_usd - 200.0 * 0.042 / 1e6).abs() < 1e-15);
    assert!(!run.truncated && run.error.is_none());
    assert_eq!(run.decider, "script");
    let root = &run.menus[0];
    assert_eq!(root.directory, "");
    assert_eq!(root.kept, ["d.rs", "b", "a", "c.rs"]);
    assert_eq!(root.probabilities, [0.2, 0.2, 0.1, 0.4]);
    assert_eq!(root.none_of_these, [0.0]);
    // b (one child, no call) is visited before a.
    assert_eq!(run.menus[1].directory, "b");
    assert_eq!(run.menus[1].calls, 0);
    assert!(run.menus[1].probabilities.is_empty());
    assert_eq!(run.menus[2].directory, "a");
    assert_eq!(run.menus[2].calls, 1);
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
    // Kept: 0.9 and the three 0.02s of part 2 (each ≥ max(0.01, 0.009)), tied ones in reverse
    // menu order.
    assert_eq!(run.paths, ["f000.rs", "f256.rs", "f255.rs", "f254.rs"]);
}

#[test]
fn ties_across_split_menu_parts_follow_reverse_menu_order() {
    // 300 files in one directory: two parts (254 + 46). f010 in part 1 and f260 in part 2 tie
    // at the best probability, f020 and f280 tie below it: the later in the menu goes first.
    let paths: Vec<String> = (0..300).map(|i| format!("f{i:03}.rs")).collect();
    let tree = DirTree::from_paths(&paths);
    let mut decider = script(|call, texts| {
        let (best, second) = if call == 0 {
            (10, 20)
        } else {
            (260 - 254, 280 - 254)
        };
        Ok((0..texts.len())
            .map(|i| match i {
                i if i == best => 0.5,
                i if i == second => 0.3,
                _ => 0.0,
            })
            .collect())
    });
    let run = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(run.calls, 2);
    assert_eq!(run.paths, ["f260.rs", "f010.rs", "f280.rs", "f020.rs"]);
    assert_eq!(
        run.menus[0].kept,
        ["f260.rs", "f010.rs", "f280.rs", "f020.rs"]
    );
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
    assert_eq!(run.paths[0], "f19.rs");
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

#[test]
fn unreadable_and_empty_files_are_options_but_never_nominated() {
    use crate::corpus::bundle::Listed;
    let tree = DirTree::from_listing(&[
        ("img/logo.png", Listed::Unreadable),
        ("img/notes.md", Listed::Searchable),
        ("empty.txt", Listed::Empty),
        ("main.rs", Listed::Searchable),
        ("pics/a.png", Listed::Unreadable),
    ]);
    // Root: img (subtopics name logo too), pics (unreadable files only), empty.txt, main.rs;
    // then img: logo.png, notes.md. Every option is kept.
    let mut decider = script(|call, texts| {
        Ok(match call {
            0 => {
                assert_eq!(texts.len(), 4, "{texts:?}");
                assert!(texts[0].contains("subtopics: logo, notes"), "{}", texts[0]);
                vec![0.25; 4]
            }
            1 => {
                assert_eq!(texts.len(), 2, "{texts:?}");
                vec![0.5, 0.5]
            }
            _ => panic!("pics has one child and needs no call"),
        })
    });
    let walked = tree_run(&tree, RouteSettings::default(), &mut decider);
    assert_eq!(walked.paths, ["main.rs", "img/notes.md"]);
    assert_eq!(walked.calls, 2);
    assert!(walked
        .menus
        .iter()
        .any(|menu| menu.kept.contains(&"pics/a.png".to_string())));
    // The flat tournament ranks the files the bundle holds: the empty one, not the unreadable.
    let mut walk = FlatTournament::new(&tree, "id", "issue", RouteSettings::default());
    let mut uniform = script(|_, texts| Ok(vec![0.3; texts.len()]));
    let flat = run(&mut walk, &mut uniform, &mut ManualClock::default());
    let mut ranked = flat.paths.clone();
    ranked.sort();
    assert_eq!(ranked, ["empty.txt", "img/notes.md", "main.rs"]);
}
