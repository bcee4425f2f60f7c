//! Replays every committed corpus file (`fuzz/corpus/<target>/`: the seeds, what libFuzzer kept,
//! and each crash found, named `crash-…`) through its target's body on stable, so a regression
//! fails the ordinary test command without nightly or libFuzzer.

use std::path::Path;

/// What a fuzz target runs over one input.
type Body = fn(&[u8]);

/// Each fuzz target's name (its folder under `fuzz/corpus/`) and body.
const TARGETS: &[(&str, Body)] = &[
    ("archive", routelens_fuzz_bodies::archive),
    ("trec", routelens_fuzz_bodies::trec),
    ("jsonl", routelens_fuzz_bodies::jsonl),
    ("score_table", routelens_fuzz_bodies::score_table),
    ("bundle", routelens_fuzz_bodies::bundle),
    ("split_index", routelens_fuzz_bodies::split_index),
    ("run_file", routelens_fuzz_bodies::run_file),
    ("decision_reply", routelens_fuzz_bodies::decision_reply),
    ("pack_inputs", routelens_fuzz_bodies::pack_inputs),
    ("question_set", routelens_fuzz_bodies::question_set),
    ("site", routelens_fuzz_bodies::site),
    ("documents", routelens_fuzz_bodies::documents),
    ("permalink", routelens_fuzz_bodies::permalink),
];

#[test]
fn every_committed_input_replays_without_a_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    for (target, body) in TARGETS {
        let folder = root.join(target);
        let entries =
            std::fs::read_dir(&folder).unwrap_or_else(|err| panic!("{}: {err}", folder.display()));
        let mut replayed = 0;
        for entry in entries {
            let path = entry.expect("a readable corpus entry").path();
            let bytes =
                std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let outcome = std::panic::catch_unwind(|| body(&bytes));
            assert!(
                outcome.is_ok(),
                "{target}: {} crashes its body",
                path.display()
            );
            replayed += 1;
        }
        // A target whose corpus went missing would pass by replaying nothing.
        assert!(
            replayed > 0,
            "{target}: no corpus under {}",
            folder.display()
        );
    }
}

#[test]
fn every_fuzz_target_is_replayed() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz_targets");
    let mut targets: Vec<String> = std::fs::read_dir(&folder)
        .unwrap_or_else(|err| panic!("{}: {err}", folder.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_string()))
        .collect();
    targets.sort();
    let mut replayed: Vec<String> = TARGETS.iter().map(|(name, _)| name.to_string()).collect();
    replayed.sort();
    assert_eq!(targets, replayed);
}
