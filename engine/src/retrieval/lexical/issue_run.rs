//! Every lexical arm, and one reciprocal-rank fusion of some of them, over one issue: the Search
//! view's columns, the Context view's rankings and the replay of a live search arm all come from
//! [`run_issue`], so they cannot drift apart.
//!
//! An arm that fails (its index or texts are not loaded, say) stays failed with its error: it is
//! never turned into an empty ranking. A fusion whose parts did not all answer fails too, naming
//! the part.

use super::{run_arm, ArmOutput, LexicalArm, Sources};
use crate::error::{Error, Result};
use crate::scoring::fusion::{fusion_name, rrf_scored, RrfConfig};

/// One arm's answer for the issue.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmRun {
    /// The arm's name (a fusion's is its parts joined with `+`).
    pub arm: String,
    /// Its output, or why it has none.
    pub output: Result<ArmOutput>,
    /// The arm's own run time in milliseconds, from the caller's clock; `None` for a fusion,
    /// which is computed from the other arms' outputs.
    pub ms: Option<f64>,
}

/// Runs every arm of [`LexicalArm::ALL`] over `issue` (top `k` each), then, when `fused` names
/// two or more of them, their RRF (the paper's rank constant 60 and depth 16) cut to `k`. `now`
/// reads the caller's clock in milliseconds (the engine has none).
pub fn run_issue(
    sources: &Sources<'_>,
    issue: &str,
    k: usize,
    fused: &[String],
    now: &mut dyn FnMut() -> f64,
) -> Vec<ArmRun> {
    let mut runs: Vec<ArmRun> = LexicalArm::ALL
        .into_iter()
        .map(|arm| {
            let started = now();
            let output = run_arm(arm, sources, issue, k);
            ArmRun {
                arm: arm.name().to_string(),
                output,
                ms: Some(now() - started),
            }
        })
        .collect();
    if fused.len() >= 2 {
        let output = fuse_runs(&runs, fused, k);
        runs.push(ArmRun {
            arm: fusion_name(fused),
            output,
            ms: None,
        });
    }
    runs
}

/// One arm by name over `issue`: a lexical arm, or a fusion of lexical arms named `a+b` (their
/// RRF, as [`run_issue`] makes it). The replay of a live search arm runs this.
pub fn run_named(sources: &Sources<'_>, issue: &str, k: usize, name: &str) -> Result<ArmOutput> {
    let parts: Vec<String> = name.split('+').map(str::to_string).collect();
    if let [only] = parts.as_slice() {
        return run_arm(LexicalArm::from_name(only)?, sources, issue, k);
    }
    let runs: Vec<ArmRun> = parts
        .iter()
        .map(|part| ArmRun {
            arm: part.clone(),
            output: LexicalArm::from_name(part).and_then(|arm| run_arm(arm, sources, issue, k)),
            ms: None,
        })
        .collect();
    fuse_runs(&runs, &parts, k)
}

/// The RRF of the named runs' rankings, top `k` (the paper's rank constant 60 and depth 16);
/// fails when a part is missing or failed.
pub fn fuse_runs(runs: &[ArmRun], parts: &[String], k: usize) -> Result<ArmOutput> {
    let mut lists: Vec<Vec<String>> = Vec::with_capacity(parts.len());
    for part in parts {
        let run = runs
            .iter()
            .find(|run| run.arm == *part)
            .ok_or_else(|| Error::UnknownArm {
                name: part.clone(),
                known: LexicalArm::ALL.map(LexicalArm::name).join(", "),
            })?;
        let output = run.output.as_ref().map_err(|error| Error::Unavailable {
            arm: fusion_name(parts),
            needs: format!("{part}'s ranking, which failed ({error})"),
        })?;
        lists.push(output.paths());
    }
    let refs: Vec<&[String]> = lists.iter().map(Vec::as_slice).collect();
    let mut results = rrf_scored(&refs, RrfConfig::default());
    results.truncate(k);
    Ok(ArmOutput::new(Vec::new(), results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::TextCorpus;

    const FILES: &[(&str, &str)] = &[
        ("src/cache.rs", "fn evict(cache) { cache.clear() }"),
        ("src/router.rs", "fn route(request) { dispatch(request) }"),
        ("docs/cache.md", "The cache evicts the oldest entry."),
    ];

    #[test]
    fn every_arm_runs_and_the_fusion_is_rrf_of_its_parts() {
        let texts = TextCorpus::new(FILES.iter().copied());
        let paths: Vec<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        let sources = Sources::new(&paths).with_texts(&texts);
        let mut clock = 0.0;
        let mut now = || {
            clock += 1.5;
            clock
        };
        let parts = ["rg".to_string(), "basename".to_string()];
        let runs = run_issue(&sources, "the cache evicts", 16, &parts, &mut now);
        assert_eq!(runs.len(), LexicalArm::ALL.len() + 1);
        assert!(runs[..LexicalArm::ALL.len()]
            .iter()
            .all(|run| run.ms == Some(1.5)));
        let find = |name: &str| runs.iter().find(|run| run.arm == name).unwrap();
        let lists: Vec<Vec<String>> = ["rg", "basename"]
            .map(|name| find(name).output.as_ref().unwrap().paths())
            .to_vec();
        let refs: Vec<&[String]> = lists.iter().map(Vec::as_slice).collect();
        let fusion = find("rg+basename");
        assert_eq!(fusion.ms, None);
        assert_eq!(
            fusion.output.as_ref().unwrap().results,
            rrf_scored(&refs, RrfConfig::default())
        );
        // Without the index the BM25 arms fail, named, and are not empty rankings.
        let fts5 = find("fts5");
        assert!(
            matches!(fts5.output, Err(Error::Unavailable { .. })),
            "{fts5:?}"
        );
        // A fusion with a failed part fails, naming it.
        let parts = ["fts5".to_string(), "rg".to_string()];
        let runs = run_issue(&sources, "the cache evicts", 16, &parts, &mut now);
        let error = runs
            .last()
            .unwrap()
            .output
            .as_ref()
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("arm fts5+rg: needs fts5's ranking, which failed (arm fts5: needs"),
            "{error}"
        );
    }
}
