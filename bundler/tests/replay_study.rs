//! `routelens replay-study`: an export made with the engine (as the app makes it) over the
//! fixture bundle replays identically; a changed recording and a bundle of another commit are
//! refused with exit code 65, naming what differs.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use routelens_engine::live::evidence::{
    live_arm, BundleRef, CaseEvidence, LiveStudy, LiveStudyExport,
};
use routelens_engine::load::question_set::{parse_questions, Question};
use routelens_engine::remote::route::{
    self, ManualClock, OfflineDecider, Recorder, RouteSettings, Strategy,
};
use routelens_engine::retrieval::lexical::LexicalIndex;
use routelens_engine::{run_arm, LexicalArm, Sources, TextCorpus};

const BUNDLE: &str = "tests/fixtures/repo.bundle";

fn routelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routelens"))
        .args(args)
        .output()
        .expect("the CLI runs")
}

/// The export of the fixture questions: the offline tree router and the fts5 and rg arms.
fn export() -> LiveStudyExport {
    let read = |name: &str| std::fs::read(Path::new(BUNDLE).join(name)).unwrap();
    let manifest = common::read_manifest(Path::new(BUNDLE));
    let chunks: Vec<Vec<u8>> = manifest.chunks.iter().map(|c| read(&c.file)).collect();
    let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let texts = TextCorpus::new(manifest.read_all(&chunks).unwrap());
    let (file, _) = LexicalIndex::file_of(&manifest).unwrap();
    let mut index = LexicalIndex::from_bundle(&manifest, &read(file)).unwrap();
    // Every page and pack of the split index, as the CLI reads them.
    while let LexicalIndex::Split(split) = &index {
        let missing: Vec<String> = split
            .known_files()
            .into_iter()
            .filter(|(_, added)| !added)
            .map(|(file, _)| file.file)
            .collect();
        if missing.is_empty() {
            break;
        }
        for file in missing {
            index.add_file(&file, &read(&file)).unwrap();
        }
    }
    let paths = manifest.paths();
    let sources = Sources::new(&paths).with_texts(&texts).with_index(&index);
    let questions: Vec<Question> = parse_questions(
        "questions.jsonl",
        &std::fs::read_to_string("tests/fixtures/questions.jsonl").unwrap(),
    )
    .unwrap();
    let tree = manifest.tree();
    let mut study = LiveStudy::new("repo", &questions);
    let routed = questions
        .iter()
        .map(|q| {
            let settings = RouteSettings::default();
            let mut walk = route::walk(Strategy::Tree, &tree, &q.id, &q.question, settings.clone());
            let mut recorder = Recorder::new(OfflineDecider::default());
            let run = route::run(walk.as_mut(), &mut recorder, &mut ManualClock::default());
            let file = recorder.into_file(&q.id, &q.question, &settings, &run);
            Some(CaseEvidence::Route(Box::new(file)))
        })
        .collect();
    study
        .add_arm(live_arm("route-tree-offline", "tree, offline", routed))
        .unwrap();
    for arm in [LexicalArm::Fts5, LexicalArm::Rg] {
        let evidence = questions
            .iter()
            .map(|q| {
                let output = run_arm(arm, &sources, &q.question, 16).unwrap();
                Some(CaseEvidence::Search {
                    k: 16,
                    results: output.results,
                    query_ms: Some(0.1),
                })
            })
            .collect();
        study
            .add_arm(live_arm(arm.name(), arm.name(), evidence))
            .unwrap();
    }
    let bundle = BundleRef {
        name: "repo.bundle".into(),
        commit: manifest.commit.clone(),
        policy: manifest.policy.label(),
    };
    LiveStudyExport::new(&study, &questions, bundle).unwrap()
}

fn write(export: &LiveStudyExport, dir: &Path) -> String {
    let path = dir.join("live.json");
    std::fs::write(&path, export.to_json()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn an_exported_study_replays_identically() {
    let temp = tempfile::tempdir().unwrap();
    let file = write(&export(), temp.path());
    let output = routelens(&["replay-study", &file, BUNDLE]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for arm in ["route-tree-offline", "fts5", "rg"] {
        let row = stdout.lines().find(|line| line.starts_with(arm)).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], cells[2], "{row}");
        assert_ne!(cells[1], "0", "{row}");
    }
}

#[test]
fn a_changed_recording_or_another_commit_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let mut changed = export();
    if let Some(CaseEvidence::Search { results, .. }) = changed.arms[1].evidence[0].as_mut() {
        results.reverse();
    }
    let file = write(&changed, temp.path());
    let output = routelens(&["replay-study", &file, BUNDLE]);
    assert_eq!(output.status.code(), Some(65));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 cases did not replay")
            && stderr.contains("fts5: evict: the ranking differs"),
        "{stderr}"
    );
    let mut elsewhere = export();
    elsewhere.bundle.commit = Some("0123456789abcdef".into());
    let file = write(&elsewhere, temp.path());
    let output = routelens(&["replay-study", &file, BUNDLE]);
    assert_eq!(output.status.code(), Some(65));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("field bundle.commit: the study ran over commit 0123456789abcdef"),
        "{stderr}"
    );
}
