//! The paper's lexical arms, run over a bundle's files the same way natively and in wasm.
//!
//! | arm | needs | query terms | ranking |
//! | --- | --- | --- | --- |
//! | `fts5` | index | first 500 characters | BM25, path ×2 + content ×1 ([`fts`]) |
//! | `fts5-full` | index | whole issue | as `fts5` |
//! | `path-fts5` | index | first 500 characters | BM25 over the path only |
//! | `basename` | paths | first 500 characters | stem ×2 + path token overlap ([`basename()`]) |
//! | `rg` | texts | whole issue | literal matches, rarity + path ([`rg()`]) |
//! | `rg-first500` | texts | first 500 characters | as `rg` |
//! | `rg-feedback` | texts | whole issue, then its 5 rarest found terms | RRF of the two whole rankings, top k ([`rg_feedback`]) |
//!
//! Every arm extracts its terms with [`crate::terms`], returns at most `k` paths (the paper used
//! 16, [`DEFAULT_K`]) with their scores, best first, ties broken by path (byte order), and the
//! terms it searched for. Timing is the caller's job.
//!
//! "Needs" is what must be loaded: the paths come with the manifest, the texts with every chunk,
//! the index with the index blob (and the `lexical` feature). [`Sources`] holds what the caller
//! has, and [`run_arm`] runs an arm or says what it is missing.

mod basename;
#[cfg(feature = "lexical")]
mod bundle_index;
#[cfg(feature = "lexical")]
pub mod chunk_index;
#[cfg(feature = "lexical")]
pub mod chunkings;
mod corpus;
#[cfg(feature = "lexical")]
pub mod fts;
pub mod issue_run;
mod rg;
pub mod timing;

use crate::stable_sort;
use std::fmt;

pub use basename::{basename, stem};
#[cfg(feature = "lexical")]
pub use bundle_index::LexicalIndex;
pub use corpus::TextCorpus;
#[cfg(feature = "lexical")]
pub use fts::{FtsIndex, Scoring};
pub use rg::{rank_matches, rg, rg_feedback, rg_first500, FEEDBACK_TERMS, PATH_BOOST};

use crate::error::{Error, Result};

/// The paper's candidate limit: every arm returned 16 paths.
pub const DEFAULT_K: usize = 16;

/// One arm's answer for one issue.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ArmOutput {
    /// The query terms the arm searched for (for `rg-feedback`, the first search's).
    pub terms: Vec<String>,
    /// Ranked `(path, score)` pairs, best first, at most `k`.
    pub results: Vec<(String, f64)>,
    /// `rg-feedback` only: the rare terms of the second search; empty for other arms.
    pub feedback_terms: Vec<String>,
}

impl ArmOutput {
    /// An output with no feedback terms.
    pub fn new(terms: Vec<String>, results: Vec<(String, f64)>) -> Self {
        ArmOutput {
            terms,
            results,
            feedback_terms: Vec::new(),
        }
    }

    /// The ranked paths alone.
    pub fn paths(&self) -> Vec<String> {
        self.results.iter().map(|(path, _)| path.clone()).collect()
    }
}

/// Sorts by score descending, ties by path ascending, and keeps `k`.
pub(crate) fn sort_and_truncate(mut scored: Vec<(String, f64)>, k: usize) -> Vec<(String, f64)> {
    stable_sort::by(&mut scored, |a, b| {
        b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0))
    });
    scored.truncate(k);
    scored
}

/// What an arm must have loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// The bundle's paths (the manifest).
    Paths,
    /// Every file's text (all chunks).
    Texts,
    /// The search index blob, and a build with the `lexical` feature.
    Index,
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Needs::Paths => "the bundle's paths",
            Needs::Texts => "every file's text (all chunks)",
            Needs::Index => "the search index",
        })
    }
}

/// The paper's lexical arms. Serialized by [`LexicalArm::name`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum LexicalArm {
    /// BM25 over path and content, first 500 characters.
    Fts5,
    /// BM25 over path and content, whole issue.
    Fts5Full,
    /// BM25 over the path only, first 500 characters.
    PathFts5,
    /// Stem and path token overlap, first 500 characters.
    Basename,
    /// Literal search, whole issue.
    Rg,
    /// Literal search, first 500 characters.
    RgFirst500,
    /// Two literal searches fused.
    RgFeedback,
}

impl LexicalArm {
    /// Every arm, in the order the app shows them.
    pub const ALL: [LexicalArm; 7] = [
        LexicalArm::Fts5,
        LexicalArm::Fts5Full,
        LexicalArm::PathFts5,
        LexicalArm::Basename,
        LexicalArm::Rg,
        LexicalArm::RgFirst500,
        LexicalArm::RgFeedback,
    ];

    /// The arm's name on the command line and in URLs and runs.
    pub fn name(self) -> &'static str {
        match self {
            LexicalArm::Fts5 => "fts5",
            LexicalArm::Fts5Full => "fts5-full",
            LexicalArm::PathFts5 => "path-fts5",
            LexicalArm::Basename => "basename",
            LexicalArm::Rg => "rg",
            LexicalArm::RgFirst500 => "rg-first500",
            LexicalArm::RgFeedback => "rg-feedback",
        }
    }

    /// A human label for tables.
    pub fn label(self) -> &'static str {
        match self {
            LexicalArm::Fts5 => "FTS5, first 500 chars",
            LexicalArm::Fts5Full => "FTS5, full issue",
            LexicalArm::PathFts5 => "Path-only FTS5",
            LexicalArm::Basename => "Basename overlap",
            LexicalArm::Rg => "Fixed full-issue rg",
            LexicalArm::RgFirst500 => "rg, first 500 chars",
            LexicalArm::RgFeedback => "Two-search rg",
        }
    }

    /// The arm with this name, or an error listing the names.
    pub fn from_name(name: &str) -> Result<LexicalArm> {
        LexicalArm::ALL
            .into_iter()
            .find(|arm| arm.name() == name)
            .ok_or_else(|| Error::UnknownArm {
                name: name.to_string(),
                known: LexicalArm::ALL.map(LexicalArm::name).join(", "),
            })
    }

    /// What the arm must have loaded.
    pub fn needs(self) -> Needs {
        match self {
            LexicalArm::Fts5 | LexicalArm::Fts5Full | LexicalArm::PathFts5 => Needs::Index,
            LexicalArm::Basename => Needs::Paths,
            LexicalArm::Rg | LexicalArm::RgFirst500 | LexicalArm::RgFeedback => Needs::Texts,
        }
    }
}

impl fmt::Display for LexicalArm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a caller has loaded for the arms to search.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sources<'a> {
    paths: &'a [String],
    texts: Option<&'a TextCorpus>,
    #[cfg(feature = "lexical")]
    index: Option<&'a LexicalIndex>,
}

impl<'a> Sources<'a> {
    /// Sources with the bundle's paths (the manifest's) and nothing else.
    pub fn new(paths: &'a [String]) -> Self {
        Sources {
            paths,
            ..Sources::default()
        }
    }

    /// Adds the file texts, for the `rg` arms.
    pub fn with_texts(mut self, texts: &'a TextCorpus) -> Self {
        self.texts = Some(texts);
        self
    }

    /// Adds the search index, for the BM25 arms (a split one with the packs the query needs).
    #[cfg(feature = "lexical")]
    pub fn with_index(mut self, index: &'a LexicalIndex) -> Self {
        self.index = Some(index);
        self
    }

    /// Whether the arm can run on these sources.
    pub fn can_run(&self, arm: LexicalArm) -> bool {
        match arm.needs() {
            Needs::Paths => true,
            Needs::Texts => self.texts.is_some(),
            Needs::Index => self.has_index(),
        }
    }

    #[cfg(feature = "lexical")]
    fn has_index(&self) -> bool {
        self.index.is_some()
    }

    #[cfg(not(feature = "lexical"))]
    fn has_index(&self) -> bool {
        false
    }
}

/// Runs one arm for one issue; top `k`.
pub fn run_arm(arm: LexicalArm, sources: &Sources, issue: &str, k: usize) -> Result<ArmOutput> {
    let missing = || Error::Unavailable {
        arm: arm.name().to_string(),
        needs: if arm.needs() == Needs::Index && cfg!(not(feature = "lexical")) {
            "the search index, and this build has no `lexical` feature".to_string()
        } else {
            arm.needs().to_string()
        },
    };
    match arm {
        LexicalArm::Basename => Ok(basename(sources.paths, issue, k)),
        LexicalArm::Rg | LexicalArm::RgFirst500 | LexicalArm::RgFeedback => {
            let texts = sources.texts.ok_or_else(missing)?;
            Ok(match arm {
                LexicalArm::Rg => rg(texts, issue, k),
                LexicalArm::RgFirst500 => rg_first500(texts, issue, k),
                _ => rg_feedback(texts, issue, k),
            })
        }
        LexicalArm::Fts5 | LexicalArm::Fts5Full | LexicalArm::PathFts5 => {
            run_index_arm(arm, sources, issue, k).and_then(|output| output.ok_or_else(missing))
        }
    }
}

#[cfg(feature = "lexical")]
fn run_index_arm(
    arm: LexicalArm,
    sources: &Sources,
    issue: &str,
    k: usize,
) -> Result<Option<ArmOutput>> {
    let Some(index) = sources.index else {
        return Ok(None);
    };
    index.run(arm, issue, k).map(Some)
}

#[cfg(not(feature = "lexical"))]
fn run_index_arm(
    _arm: LexicalArm,
    _sources: &Sources,
    _issue: &str,
    _k: usize,
) -> Result<Option<ArmOutput>> {
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_arms() {
        for arm in LexicalArm::ALL {
            assert_eq!(LexicalArm::from_name(arm.name()).unwrap(), arm);
            // Messages to and from the browser's worker carry the same name.
            let json = serde_json::to_string(&arm).unwrap();
            assert_eq!(json, format!("{:?}", arm.name()));
            assert_eq!(serde_json::from_str::<LexicalArm>(&json).unwrap(), arm);
            assert_eq!(arm.to_string(), arm.name());
        }
        let error = LexicalArm::from_name("grep").unwrap_err().to_string();
        assert!(
            error.contains("fts5, fts5-full, path-fts5, basename, rg"),
            "{error}"
        );
    }

    #[test]
    fn run_arm_says_what_is_missing() {
        let paths = vec!["src/router.rs".to_string()];
        let sources = Sources::new(&paths);
        let output = run_arm(LexicalArm::Basename, &sources, "router", 16).unwrap();
        assert_eq!(output.paths(), ["src/router.rs"]);
        assert!(!sources.can_run(LexicalArm::Rg));
        let error = run_arm(LexicalArm::Rg, &sources, "router", 16).unwrap_err();
        assert_eq!(
            error.to_string(),
            "arm rg: needs every file's text (all chunks)"
        );
        let error = run_arm(LexicalArm::Fts5, &sources, "router", 16).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("arm fts5: needs the search index"));
        let texts = TextCorpus::new([("src/router.rs", "router")]);
        let sources = sources.with_texts(&texts);
        assert!(sources.can_run(LexicalArm::RgFeedback));
        let output = run_arm(LexicalArm::Rg, &sources, "router", 16).unwrap();
        assert_eq!(output.paths(), ["src/router.rs"]);
    }

    #[test]
    fn sorts_by_score_then_path() {
        let scored = vec![
            ("b".to_string(), 1.0),
            ("a".to_string(), 1.0),
            ("c".to_string(), 2.0),
        ];
        let sorted = sort_and_truncate(scored, 2);
        assert_eq!(sorted, [("c".to_string(), 2.0), ("a".to_string(), 1.0)]);
    }
}
