//! The flat tournament: the top 16 of each menu advance, ties keep menu order, small menus need
//! no call, and a call cap ranks what the tournament has.

use super::*;

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
