use super::*;
use crate::remote::route::{self, ManualClock, OfflineDecider, Recorder, RouteSettings, Strategy};
use crate::retrieval::lexical::{run_arm, LexicalArm, TextCorpus};
use crate::scoring::tables::{model_calls_per_issue, operations_table};

const FILES: &[(&str, &str)] = &[
    ("src/parser/mod.rs", "pub fn parse(input: &str) {}"),
    ("src/parser/lexer.rs", "pub fn lex(tokens: &str) {}"),
    ("src/render/html.rs", "pub fn render_html() {}"),
    ("docs/parser.md", "How the parser reads input."),
    ("README.md", "A parser and a renderer."),
];

fn paths() -> Vec<String> {
    FILES.iter().map(|(path, _)| path.to_string()).collect()
}

fn tree() -> DirTree {
    DirTree::from_paths(&paths())
}

fn questions() -> Vec<Question> {
    [
        (
            "q1",
            "the parser lexer fails on tokens",
            "src/parser/lexer.rs",
        ),
        ("q2", "render html output is wrong", "src/render/html.rs"),
    ]
    .iter()
    .map(|(id, text, gold)| Question {
        id: id.to_string(),
        question: text.to_string(),
        gold: vec![gold.to_string()],
        gold_lines: Vec::new(),
    })
    .collect()
}

/// A recorded offline run of `question` (the clock steps 5 ms per reading).
fn routed(strategy: Strategy, question: &Question) -> RunFile {
    let settings = RouteSettings::default();
    let mut walk = route::walk(
        strategy,
        &tree(),
        &question.id,
        &question.question,
        settings.clone(),
    );
    let mut recorder = Recorder::new(OfflineDecider::default());
    let mut clock = ManualClock {
        step_ms: 5,
        ..ManualClock::default()
    };
    let run = route::run(walk.as_mut(), &mut recorder, &mut clock);
    recorder.into_file(&question.id, &question.question, &settings, &run)
}

fn searched(arm: LexicalArm, question: &Question, sources: &Sources<'_>) -> CaseEvidence {
    let output = run_arm(arm, sources, &question.question, 16).unwrap();
    CaseEvidence::Search {
        k: 16,
        results: output.results,
        query_ms: Some(0.25),
    }
}

/// The live study of the two questions with a tree route arm, a flat one, rg and basename.
fn live(sources: &Sources<'_>) -> LiveStudy {
    let questions = questions();
    let mut study = LiveStudy::new("demo", &questions);
    for strategy in [Strategy::Tree, Strategy::Flat] {
        let evidence = questions
            .iter()
            .map(|q| Some(CaseEvidence::Route(Box::new(routed(strategy, q)))))
            .collect();
        let name = format!("route-{}-offline", strategy.name());
        study.add_arm(live_arm(&name, &name, evidence)).unwrap();
    }
    for arm in [LexicalArm::Rg, LexicalArm::Basename] {
        let evidence = questions
            .iter()
            .map(|q| Some(searched(arm, q, sources)))
            .collect();
        study
            .add_arm(live_arm(arm.name(), arm.name(), evidence))
            .unwrap();
    }
    study
}

fn bundle() -> BundleRef {
    BundleRef {
        name: "demo".into(),
        commit: None,
        policy: "paper".into(),
    }
}

#[test]
fn a_live_route_arm_carries_its_runs_and_their_measurements() {
    let texts = TextCorpus::new(FILES.iter().copied());
    let paths = paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    let live = live(&sources);
    let study = &live.study;
    let arm = study.arm("route-tree-offline").unwrap();
    let evidence = live.evidence_of("route-tree-offline").unwrap();
    let CaseEvidence::Route(file) = evidence[0].as_ref().unwrap() else {
        panic!("a route arm keeps run files");
    };
    assert_eq!(arm.rankings[0], file.run.paths);
    assert!(file.run.calls > 0);
    let row = &arm.measurements[0];
    assert_eq!(row["model_calls"], file.run.calls as f64);
    assert_eq!(row["input_tokens"], file.run.input_tokens as f64);
    assert_eq!(row["latency_ms"], file.run.elapsed_ms as f64);
    assert!(row["latency_ms"] > 0.0, "the clock stepped");
    // The operating points show it as they show an archived arm: its calls, and 0 for a search.
    assert_eq!(
        model_calls_per_issue(arm),
        arm.mean_measurement("model_calls").map(|(mean, _)| mean)
    );
    assert_eq!(model_calls_per_issue(study.arm("rg").unwrap()), Some(0.0));
    let table = operations_table(study, 8);
    let calls = table
        .headers
        .iter()
        .position(|h| h == "calls/issue")
        .unwrap();
    let row = table
        .rows
        .iter()
        .find(|row| row[0].text == "route-tree-offline")
        .unwrap();
    assert!(
        !row[calls].text.is_empty() && row[calls].text != "0.0",
        "{row:?}"
    );
}

#[test]
fn an_export_reopens_to_the_identical_arms_and_replays_offline() {
    let texts = TextCorpus::new(FILES.iter().copied());
    let paths = paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    let study = live(&sources);
    let export = LiveStudyExport::new(&study, &questions(), bundle()).unwrap();
    let text = export.to_json();
    let back = LiveStudyExport::from_json("live.json", &text).unwrap();
    assert_eq!(back, export);
    let reopened = back.live_study().unwrap();
    assert_eq!(reopened.study.arms, study.study.arms);
    assert_eq!(reopened.study.cases, study.study.cases);
    assert_eq!(reopened.evidence, study.evidence);
    assert_eq!(back.study().unwrap(), reopened.study);
    let checks = replay(&back, &tree(), &sources);
    assert_eq!(checks.len(), 4);
    for check in &checks {
        assert_eq!((check.cases, check.identical), (2, 2), "{check:?}");
    }
}

#[test]
fn a_changed_recording_is_found_by_the_replay() {
    let texts = TextCorpus::new(FILES.iter().copied());
    let paths = paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    let mut export = LiveStudyExport::new(&live(&sources), &questions(), bundle()).unwrap();
    // A search result that the index would not give.
    if let Some(CaseEvidence::Search { results, .. }) = export.arms[2].evidence[1].as_mut() {
        results.reverse();
        results.push(("src/nowhere.rs".into(), 0.0));
    }
    // A run file whose recorded ranking is not what its answers give.
    if let Some(CaseEvidence::Route(file)) = export.arms[0].evidence[0].as_mut() {
        file.run.paths.push("README.md".into());
        file.run.paths.dedup();
    }
    let checks = replay(&export, &tree(), &sources);
    assert_eq!(checks[2].identical, 1);
    assert!(
        checks[2].differences[0].starts_with("q2: the ranking differs"),
        "{:?}",
        checks[2]
    );
    assert_eq!(checks[0].identical, 1, "{:?}", checks[0]);
    assert!(
        checks[0].differences[0].starts_with("q1: "),
        "{:?}",
        checks[0]
    );
}

#[test]
fn bad_exports_are_refused_naming_the_field() {
    let texts = TextCorpus::new(FILES.iter().copied());
    let paths = paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    let export = LiveStudyExport::new(&live(&sources), &questions(), bundle()).unwrap();
    let mut short = export.clone();
    short.arms[1].evidence.pop();
    let err = LiveStudyExport::from_json("live.json", &short.to_json()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "live.json: field arms[1].evidence: 1 entries for 2 questions"
    );
    let mut other = export.clone();
    other.format = "routelens-live-study/0".into();
    let err = LiveStudyExport::from_json("live.json", &other.to_json()).unwrap_err();
    assert!(err.to_string().contains("field format"), "{err}");
    let err = LiveStudyExport::from_json("live.json", "{\"format\":").unwrap_err();
    assert!(err.to_string().starts_with("live.json: "), "{err}");
    // A study of other cases, or with no arm that kept its runs, is not exported.
    let bare = LiveStudy::new("demo", &questions());
    let err = LiveStudyExport::new(&bare, &questions(), bundle()).unwrap_err();
    assert!(err.to_string().contains("no arm kept its runs"), "{err}");
    let err = LiveStudyExport::new(&bare, &questions()[..1], bundle()).unwrap_err();
    assert!(err.to_string().contains("not the question set"), "{err}");
}

#[test]
fn joined_arms_reach_the_live_study_and_the_same_open_study() {
    let text = "{\"id\":\"a\",\"question\":\"x\",\"gold\":[\"x.rs\"]}\n";
    let questions = crate::load::question_set::parse_questions("q.jsonl", text).unwrap();
    let arm = |name: &str| LiveArm {
        arm: Arm::new(name, name, ArmOrigin::Archived, vec![vec!["x.rs".into()]]),
        evidence: Vec::new(),
    };
    let first = join_live_arms(None, None, "demo", &questions, vec![arm("rg")]).unwrap();
    assert_eq!(first.live.study.arm_names(), ["rg"]);
    assert!(first.open.is_none());
    let open = first.live.study.clone();
    let second = join_live_arms(
        Some(&first.live),
        Some(&open),
        "demo",
        &questions,
        vec![arm("fts5")],
    )
    .unwrap();
    assert_eq!(second.live.study.arm_names(), ["rg", "fts5"]);
    assert_eq!(second.open.unwrap().arm_names(), ["rg", "fts5"]);
    let other = live_study("demo", &[]);
    let third = join_live_arms(None, Some(&other), "demo", &questions, vec![arm("rg")]).unwrap();
    assert!(
        third.open.is_none(),
        "another question set takes no live arm"
    );
    let short = LiveArm {
        arm: Arm::new("bad", "bad", ArmOrigin::Archived, Vec::new()),
        evidence: Vec::new(),
    };
    assert!(join_live_arms(None, None, "demo", &questions, vec![short]).is_err());
}

#[test]
fn evidence_follows_its_arm_and_goes_when_the_arm_is_replaced_without_it() {
    let texts = TextCorpus::new(FILES.iter().copied());
    let paths = paths();
    let sources = Sources::new(&paths).with_texts(&texts);
    let mut study = live(&sources);
    assert!(study.evidence_of("rg").is_some());
    let bare = Arm::new(
        "rg",
        "rg",
        ArmOrigin::Archived,
        vec![Vec::new(), Vec::new()],
    );
    study
        .add_arm(LiveArm {
            arm: bare,
            evidence: Vec::new(),
        })
        .unwrap();
    assert!(study.evidence_of("rg").is_none());
    let export = LiveStudyExport::new(&study, &questions(), bundle()).unwrap();
    assert!(export.arms.iter().all(|arm| arm.name != "rg"));
}
