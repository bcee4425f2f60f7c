//! The numpy bootstrap port (`scoring::numpy_bootstrap`) against numpy itself, then against
//! CodeNib's article.
//!
//! First every step, bit for bit, against numpy's own outputs: `tests/numpy_bootstrap/reference.json`
//! (written by `reference.py` under the numpy version it names; `tests/numpy_bootstrap/run.sh`
//! re-checks it against numpy). Floats there are their IEEE-754 bits, so no decimal parser stands
//! between numpy and the comparison.
//!
//! Then every paired interval of CodeNib's `jev_candidates_results.json`, recomputed from
//! `jev_candidates_cases.csv` with the article's rule; skips, saying so, only when the CodeNib
//! files are absent (and fails then under `ROUTELENS_REQUIRE_FIXTURES=1`).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use routelens_engine::scoring::numpy_bootstrap::{
    bootstrap_means, group_by_repository, mean, paired_interval, pairwise_sum, percentiles,
    PairedInterval, Pcg64, SeedSequence, CODENIB_RESAMPLES, CODENIB_SEED,
};
use routelens_engine::scoring::score_table::{load_score_table, Mapping, ScorePair, ScoreTable};
use routelens_engine::scoring::stats::BootstrapConfig;
use serde_json::Value;

const REFERENCE: &str = include_str!("../../tests/numpy_bootstrap/reference.json");

fn reference() -> Value {
    serde_json::from_str(REFERENCE).expect("reference.json is JSON")
}

/// A float stored as its bits (16 hex digits).
fn float(value: &Value) -> f64 {
    let hex = value.as_str().expect("a float is a hex string");
    f64::from_bits(u64::from_str_radix(hex, 16).expect("16 hex digits"))
}

fn floats(value: &Value) -> Vec<f64> {
    list(value).iter().map(float).collect()
}

fn list(value: &Value) -> &Vec<Value> {
    value.as_array().expect("a list")
}

fn integer(value: &Value) -> u64 {
    value.as_u64().expect("an unsigned integer")
}

fn integers(value: &Value) -> Vec<u64> {
    list(value).iter().map(integer).collect()
}

/// Bits, so that `-0.0` and `0.0` differ and a NaN equals itself.
fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|value| value.to_bits()).collect()
}

#[test]
fn seed_sequences_match_numpy() {
    for case in list(&reference()["seed_sequences"]) {
        let entropy = integer(&case["entropy"]);
        let sequence = SeedSequence::new(entropy);
        let pool: Vec<u64> = sequence.pool().iter().map(|&w| u64::from(w)).collect();
        assert_eq!(
            pool,
            integers(&case["pool"]),
            "SeedSequence({entropy}).pool"
        );
        let narrow: Vec<u64> = sequence
            .generate_state_u32(8)
            .into_iter()
            .map(u64::from)
            .collect();
        assert_eq!(
            narrow,
            integers(&case["state_u32"]),
            "uint32 state of {entropy}"
        );
        assert_eq!(
            sequence.generate_state_u64(4),
            integers(&case["state_u64"]),
            "uint64 state of {entropy}"
        );
    }
}

#[test]
fn pcg64_seeding_and_raw_outputs_match_numpy() {
    for case in list(&reference()["generators"]) {
        let seed = integer(&case["seed"]);
        let mut generator = Pcg64::from_seed(seed);
        let hex = |key: &str| u128::from_str_radix(case[key].as_str().unwrap(), 16).unwrap();
        assert_eq!(
            generator.state(),
            hex("state"),
            "state of default_rng({seed})"
        );
        assert_eq!(
            generator.increment(),
            hex("inc"),
            "inc of default_rng({seed})"
        );
        let expected = integers(&case["raw"]);
        let raw: Vec<u64> = expected.iter().map(|_| generator.next_u64()).collect();
        assert_eq!(raw, expected, "random_raw of default_rng({seed})");
    }
}

#[test]
fn consecutive_integers_calls_match_numpy() {
    let reference = reference();
    for section in ["integers", "integers_mixed"] {
        let mut generator = Pcg64::from_seed(integer(&reference[section]["seed"]));
        for (index, call) in list(&reference[section]["calls"]).iter().enumerate() {
            let (high, size) = (integer(&call["high"]), integer(&call["size"]));
            assert_eq!(
                generator.integers(high, size as usize).unwrap(),
                integers(&call["values"]),
                "{section} call {index}: integers(0, {high}, {size})"
            );
        }
    }
}

#[test]
fn sums_and_means_match_numpy() {
    let reference = reference();
    let values = floats(&reference["floats"]);
    for case in list(&reference["sums"]) {
        let length = integer(&case["length"]) as usize;
        let prefix = &values[..length];
        assert_eq!(
            pairwise_sum(prefix).to_bits(),
            float(&case["sum"]).to_bits(),
            "np.sum of the first {length}"
        );
        let expected = (!case["mean"].is_null()).then(|| float(&case["mean"]).to_bits());
        assert_eq!(
            mean(prefix).map(f64::to_bits),
            expected,
            "np.mean of the first {length}"
        );
    }
}

#[test]
fn percentiles_match_numpy() {
    let reference = reference();
    let values = floats(&reference["floats"]);
    for case in list(&reference["percentiles"]) {
        let length = integer(&case["length"]) as usize;
        let got = percentiles(&values[..length], &floats(&case["percents"])).unwrap();
        assert_eq!(
            bits(&got),
            bits(&floats(&case["values"])),
            "np.percentile of the first {length}"
        );
    }
}

#[test]
fn whole_bootstraps_match_numpy() {
    for case in list(&reference()["bootstraps"]) {
        let groups: Vec<Vec<f64>> = list(&case["groups"]).iter().map(floats).collect();
        let seed = integer(&case["seed"]);
        let resamples = integer(&case["resamples"]) as usize;
        let means = bootstrap_means(&groups, resamples, seed).unwrap();
        let first = floats(&case["first_draws"]);
        assert_eq!(
            bits(&means[..first.len()]),
            bits(&first),
            "{} groups",
            groups.len()
        );
        let interval = paired_interval(&groups, resamples, seed).unwrap();
        assert_eq!(
            bits(&[interval.difference, interval.low, interval.high]),
            bits(&[
                float(&case["difference"]),
                float(&case["ci95"][0]),
                float(&case["ci95"][1])
            ]),
            "{} groups",
            groups.len()
        );
    }
}

// ---- CodeNib's article -------------------------------------------------------------------------

const JEV: &str = "typesafe/jev-1.13";
/// Intervals in `jev_candidates_results.json`: 12 + 12 Jev-minus (two routes, three arms, four
/// metrics), 3 + 3 on the Jev success subsets, 4 + 4 Qwen scales, 15 grep-minus-BM25, 1 pool
/// coverage, and in the aligned frame 4 Jev-minus and 3 grep-minus-BM25.
const ARTICLE_INTERVALS: usize = 61;
/// The tolerance the comparison is held to (it is also checked bit for bit).
const TOLERANCE: f64 = 1e-12;

/// CodeNib's results, `jev_candidates_results.json` beside the cases file (see
/// `common::read_codenib_cases`), or `None` (see `common::skip`).
fn read_codenib_results() -> Option<String> {
    let dir = std::env::var_os("ROUTELENS_CODENIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/codenib")
        });
    let path = dir.join("jev_candidates_results.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(err) => common::skip(&format!(
            "CodeNib's results are not at {} ({err}; set ROUTELENS_CODENIB)",
            path.display()
        )),
    }
}

/// Every scalar of the results JSON under its key path, as written. The file is Python's
/// `json.dumps(indent=2)` (PROVENANCE.md: it round-trips byte for byte), so a key's depth is its
/// indentation. Read from the text, not through serde_json, whose default float parsing may be
/// one unit in the last place off: the article's bounds are compared bit for bit.
fn scalars_by_path(text: &str) -> BTreeMap<Vec<String>, Vec<String>> {
    let mut path: Vec<String> = Vec::new();
    let mut open_list: Option<Vec<String>> = None;
    let mut scalars: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let depth = (line.len() - line.trim_start().len()) / 2;
        let item = line.trim().trim_end_matches(',');
        let keyed = item
            .strip_prefix('"')
            .and_then(|rest| rest.split_once("\": "));
        if let Some((key, value)) = keyed {
            path.truncate(depth.saturating_sub(1));
            path.push(key.to_string());
            open_list = (value == "[").then(|| path.clone());
            if value != "[" && value != "{" {
                scalars.entry(path.clone()).or_default().push(value.into());
            }
        } else if let Some(list_path) = &open_list {
            if item == "]" {
                open_list = None;
            } else {
                scalars
                    .entry(list_path.clone())
                    .or_default()
                    .push(item.into());
            }
        }
    }
    scalars
}

/// One comparison: the CSV columns of its left and right arm, and the instances it leaves out.
struct Comparison {
    left: String,
    right: String,
    excluded_path: Option<Vec<String>>,
}

/// Which columns an interval of the results compares, from its path. The published frame is
/// `analyze_jev_routes.py` (it runs `benchmark_jev_base.analyze` once per route; a route's own
/// order is the arm named after the route): columns `{route}/{arm}/{metric}`, and the pools'
/// coverage `grep_span_coverage` and `bm25_span_coverage@100`. The aligned frame is
/// `audit_jev_base_labels.py`: Recall@5 only, columns `base_aligned/{route}/{arm}/span_recall@5`.
fn comparison(path: &[String]) -> Option<Comparison> {
    let segments: Vec<&str> = path.iter().map(String::as_str).collect();
    let pair = |left: String, right: String| Comparison {
        left,
        right,
        excluded_path: None,
    };
    Some(match segments.as_slice() {
        ["routes", route, "paired_jev_minus", arm, metric, "ci95"] => pair(
            format!("{route}/{JEV}/{metric}"),
            format!("{route}/{arm}/{metric}"),
        ),
        // Leaves out every instance with a failed Jev call, listed beside the intervals.
        ["routes", route, "jev_success_subset", "paired_jev_minus", arm, "ci95"] => Comparison {
            left: format!("{route}/{JEV}/span_recall@5"),
            right: format!("{route}/{arm}/span_recall@5"),
            excluded_path: Some(
                ["routes", route, "jev_success_subset", "excluded_instances"]
                    .map(String::from)
                    .to_vec(),
            ),
        },
        ["routes", route, "paired_qwen_scales", scales, metric, "ci95"] => {
            let (larger, smaller) = scales.split_once(" minus ")?;
            pair(
                format!("{route}/{larger}/{metric}"),
                format!("{route}/{smaller}/{metric}"),
            )
        }
        ["paired_grep_minus_bm25", arm, metric, "ci95"] => pair(
            format!("grep/{arm}/{metric}"),
            format!("bm25/{arm}/{metric}"),
        ),
        ["paired_candidate_coverage", "ci95"] => {
            pair("grep_span_coverage".into(), "bm25_span_coverage@100".into())
        }
        ["base_aligned_sensitivity", "routes", route, "paired_jev_minus", arm, "ci95"] => pair(
            format!("base_aligned/{route}/{JEV}/span_recall@5"),
            format!("base_aligned/{route}/{arm}/span_recall@5"),
        ),
        ["base_aligned_sensitivity", "paired_grep_minus_bm25", arm, "ci95"] => pair(
            format!("base_aligned/grep/{arm}/span_recall@5"),
            format!("base_aligned/bm25/{arm}/span_recall@5"),
        ),
        _ => return None,
    })
}

/// The cases file: one row per issue, in case order.
struct Cases {
    header: HashMap<String, usize>,
    rows: Vec<csv::StringRecord>,
}

impl Cases {
    fn parse(text: &str) -> Cases {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader
            .headers()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(index, name)| (name.to_string(), index))
            .collect();
        let rows = reader.records().map(|row| row.unwrap()).collect();
        Cases { header, rows }
    }

    fn text(&self, column: &str) -> Vec<&str> {
        let index = self.header[column];
        self.rows.iter().map(|row| &row[index]).collect()
    }

    /// A score column, parsed with Rust's correctly rounded float parser (the CSV holds Python's
    /// shortest round-trip reprs, so these are the article's floats exactly).
    fn scores(&self, column: &str) -> Vec<f64> {
        self.text(column)
            .iter()
            .enumerate()
            .map(|(row, cell)| {
                cell.parse()
                    .unwrap_or_else(|_| panic!("{column} row {}: {cell:?}", row + 2))
            })
            .collect()
    }

    /// The article's rule for one comparison: differences left − right grouped by repository.
    fn interval(&self, left: &str, right: &str, excluded: &[String]) -> PairedInterval {
        let (left, right) = (self.scores(left), self.scores(right));
        let repositories = self.text("repo");
        let ids = self.text("instance_id");
        let differences = (0..self.rows.len())
            .filter(|&row| !excluded.iter().any(|id| id == ids[row]))
            .map(|row| (repositories[row], left[row] - right[row]));
        let groups = group_by_repository(differences);
        paired_interval(&groups, CODENIB_RESAMPLES, CODENIB_SEED).unwrap()
    }
}

#[test]
fn every_paired_interval_of_codenibs_article_is_reproduced() {
    let Some((_, cases_text)) = common::read_codenib_cases() else {
        return;
    };
    let Some(results_text) = read_codenib_results() else {
        return;
    };
    let cases = Cases::parse(&cases_text);
    // The article's grouping is by first appearance; its cases are sorted, so that is the
    // sorted repository order.
    let repositories = cases.text("repo");
    assert!(repositories.windows(2).all(|pair| pair[0] <= pair[1]));
    let scalars = scalars_by_path(&results_text);
    let number = |path: &[String]| -> Vec<f64> {
        scalars[path]
            .iter()
            .map(|text| text.parse().unwrap())
            .collect()
    };

    let (cases_file, _) = common::read_codenib_cases().unwrap();
    let table = load_score_table(&cases_file, &cases_text, &Mapping::codenib()).unwrap();
    let mut through_table = 0;
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in scalars.keys().filter(|path| path.last().unwrap() == "ci95") {
        let Some(comparison) = comparison(path) else {
            problems.push(format!("{}: no rule for this interval", path.join(" > ")));
            continue;
        };
        let excluded: Vec<String> = comparison
            .excluded_path
            .map(|excluded| {
                scalars[&excluded]
                    .iter()
                    .map(|id| id.trim_matches('"').to_string())
                    .collect()
            })
            .unwrap_or_default();
        assert!(excluded
            .iter()
            .all(|id| cases.text("instance_id").contains(&id.as_str())));
        let got = cases.interval(&comparison.left, &comparison.right, &excluded);
        let parent = &path[..path.len() - 1];
        let field = |name: &str| [parent, &[name.to_string()]].concat();
        let expected_bounds = number(path);
        let expected_difference = number(&field("difference"))[0];
        let expected_repositories = number(&field("repositories"))[0] as usize;
        checked += 1;
        let pairs = [
            ("low", got.low, expected_bounds[0]),
            ("high", got.high, expected_bounds[1]),
            ("difference", got.difference, expected_difference),
        ];
        for (name, got, expected) in pairs {
            if (got - expected).abs() > TOLERANCE || got.to_bits() != expected.to_bits() {
                problems.push(format!(
                    "{} {name}: {got:?} against the article's {expected:?} (off by {:e})",
                    path.join(" > "),
                    got - expected
                ));
            }
        }
        if got.repositories != expected_repositories {
            problems.push(format!("{}: repositories", path.join(" > ")));
        }
        // The score table's own comparison (what `routelens score` and the page show) draws by
        // the same rule with the mapping's defaults: the same bits.
        if excluded.is_empty() {
            if let Some(shown) = table_pair(&table, &comparison.left, &comparison.right) {
                through_table += 1;
                if shown.ci_low.to_bits() != expected_bounds[0].to_bits()
                    || shown.ci_high.to_bits() != expected_bounds[1].to_bits()
                {
                    problems.push(format!(
                        "{}: the score table gives [{:?}, {:?}]",
                        path.join(" > "),
                        shown.ci_low,
                        shown.ci_high
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(checked, ARTICLE_INTERVALS);
    assert!(
        through_table > 20,
        "{through_table} compared through the score table"
    );
}

/// The score table's comparison of two columns of one frame and metric, with the mapping's own
/// bootstrap settings; `None` for columns it does not pair (another frame or metric).
fn table_pair(table: &ScoreTable, left: &str, right: &str) -> Option<ScorePair> {
    let column = |name: &str| table.columns.iter().find(|c| c.name == name);
    let (l, r) = (column(left)?, column(right)?);
    if l.frame != r.frame || l.metric != r.metric {
        return None;
    }
    let draws = table
        .draws(table.mapping.bootstrap_config(BootstrapConfig::default()))
        .unwrap();
    Some(
        table
            .compare(&l.frame, &l.arm, &r.arm, &l.metric, &draws)
            .unwrap(),
    )
}
