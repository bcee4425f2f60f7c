//! Run files: recording a run (errors and retries included), replaying it exactly, refusing a
//! request the recording lacks, and checking a file on reading.

use super::*;

#[test]
fn offline_runs_replay_exactly() {
    // More than 16 files, so that the flat tournament has a menu to ask.
    let mut paths: Vec<String> = [
        "src/parser/json.rs",
        "src/parser/toml.rs",
        "src/lexer.rs",
        "docs/parser.md",
        "tests/parse_nested.rs",
    ]
    .map(String::from)
    .to_vec();
    paths.extend((0..20).map(|i| format!("src/util/helper_{i:02}.rs")));
    let tree = DirTree::from_paths(&paths);
    let issue = "The JSON parser panics on nested arrays";
    for strategy in [Strategy::Tree, Strategy::Flat] {
        let settings = RouteSettings::default();
        let mut walk = super::walk(strategy, &tree, "case-1", issue, settings.clone());
        let mut recorder = Recorder::new(OfflineDecider::default());
        let recorded = run(walk.as_mut(), &mut recorder, &mut ManualClock::default());
        assert!(!recorded.paths.is_empty());
        let file = recorder.into_file("case-1", issue, &settings, &recorded);
        let text = file.to_json();
        let back = RunFile::from_json("run.json", &text).unwrap();
        assert_eq!(back, file);
        let mut replayer = Replayer::new(&back);
        let mut again = super::walk(
            back.strategy,
            &tree,
            &back.issue_id,
            &back.issue,
            back.settings.clone(),
        );
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
        let mut other = super::walk(
            strategy,
            &tree,
            "case-1",
            "something else",
            back.settings.clone(),
        );
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
    let file = recorder.into_file("", "q", &settings, &recorded);
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
