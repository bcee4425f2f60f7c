use super::printed::PrintedFile;
use super::*;
use crate::load::runfile::load_jsonl;

fn study() -> Study {
    load_jsonl(
        "s.jsonl",
        r#"{"id": "r::1", "gold": ["a.rs", "b.rs"]}
{"id": "r::2", "gold": ["c.rs"]}
{"id": "r::1", "arm": "x", "paths": ["a.rs", "z.rs"]}
{"id": "r::2", "arm": "x", "paths": ["c.rs"]}"#,
    )
    .unwrap()
}

fn printed(numbers: &str) -> PrintedFile {
    let text = format!(
        r#"{{"format": "routelens-printed/1", "paper": "P", "source": "s", "numbers": [{numbers}]}}"#
    );
    PrintedFile::from_json("p.json", &text).unwrap()
}

#[test]
fn a_printed_number_is_reproduced_at_its_precision_or_differs_by_how_much() {
    let file = printed(
        r#"{"where": "T2 x File@1", "printed": "0.75", "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "T2 x File@1 wrong", "printed": "0.70", "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "T2 x Full@1", "printed": "1/2", "compute": {"stat": "full_count", "arm": "x", "k": 1}},
           {"where": "T2 x Full@1 other whole", "printed": "1/3", "compute": {"stat": "full_count", "arm": "x", "k": 1}},
           {"where": "T6", "printed": "940", "why": "not archived"},
           {"where": "File@1 in percent", "printed": "75.0", "scale": 100, "compute": {"stat": "file_recall", "arm": "x", "k": 1}},
           {"where": "bad arm", "printed": "0.1", "compute": {"stat": "file_recall", "arm": "y", "k": 1}}"#,
    );
    let report = check(&file, Source::Study(&study()));
    let outcomes: Vec<&Outcome> = report.verdicts.iter().map(|v| &v.outcome).collect();
    assert_eq!(
        outcomes,
        [
            &Outcome::Reproduced,
            &Outcome::Differs,
            &Outcome::Reproduced,
            &Outcome::Differs,
            &Outcome::NotComputable,
            &Outcome::Reproduced,
            &Outcome::Failed
        ]
    );
    assert!((report.verdicts[1].difference.unwrap() - 0.05).abs() < 1e-12);
    assert_eq!(report.verdicts[2].recomputed.as_deref(), Some("1/2"));
    assert!(report.verdicts[6].note.as_ref().unwrap().contains("\"y\""));
    assert!(!report.all_reproduced());
    assert_eq!(
        report.summary("s"),
        "s: 3 of 7 printed numbers reproduced; 2 differ (2 without a known reason); 1 could not be recomputed; 1 cannot \
         be computed from the data"
    );
    assert_eq!(report.table().rows[0][3].text, "✓");
}
