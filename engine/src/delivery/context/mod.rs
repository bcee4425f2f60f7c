//! Delivered context for one issue and one ranking: the selector ([`crate::delivery::select`]), the packer
//! ([`crate::delivery::pack`]) and line scoring ([`crate::delivery::linescore`]) in one call, the same for the
//! `routelens pack` command and the app's Context view.
//!
//! Inputs are the issue text, a ranking (paths, best first), the files' texts (looked up by path,
//! e.g. from a bundle's verified chunks), optional gold spans and a token counter. Only the first
//! [`ContextSettings::k`] ranked paths are packed. A ranked path the lookup does not know (the
//! ranking came from another snapshot, or the bundle's policy left the file out) is not an error:
//! it is reported in [`ContextReport::missing`] with its rank and packing goes on without it, as
//! an agent would get nothing for a file it cannot open. Gold spans must name files the lookup
//! knows (their line counts clip the spans); one that does not is an [`Error::Gold`].
//!
//! The two input formats of the command line are parsed here too: a ranking file
//! ([`parse_ranking`], one path per line) and a gold file ([`parse_gold`], JSON
//! `[{"path", "start_line", "end_line"}...]`).
//!
//! ```
//! use routelens_engine::delivery::context::{build_context, ContextSettings};
//! use routelens_engine::corpus::tokens::TokenCounter;
//! use routelens_engine::{GoldSpan, Result};
//!
//! struct Words;
//! impl TokenCounter for Words {
//!     fn count_tokens(&mut self, text: &str) -> Result<usize> {
//!         Ok(text.split_whitespace().count())
//!     }
//! }
//! let text = "fn parse_header() {}\nfn other() {}\n";
//! let ranking = vec!["src/a.rs".to_string(), "src/gone.rs".to_string()];
//! let gold = [GoldSpan { path: "src/a.rs".into(), start_line: 1, end_line: 1 }];
//! let report = build_context(
//!     "the parse_header function fails",
//!     &ranking,
//!     &ContextSettings::default(),
//!     |path| (path == "src/a.rs").then_some(text),
//!     Some(&gold),
//!     &mut Words,
//! )
//! .unwrap();
//! assert_eq!(report.pack.blocks.len(), 1);
//! assert_eq!(report.missing[0].path, "src/gone.rs");
//! assert_eq!(report.score.as_ref().unwrap().line_recall, 1.0);
//! ```

mod parse;
mod recomputed;
mod report;
mod settings;

#[cfg(test)]
mod tests;

pub use parse::{parse_gold, parse_ranking};
pub use recomputed::{recomputed_lines_table, RecomputedLines};
pub use report::{ContextReport, GoldDelivery, MissingFile};
pub use settings::{ContextSettings, DEFAULT_CONTEXT_K};

use std::collections::HashSet;

use crate::corpus::tokens::TokenCounter;
use crate::delivery::linescore::{clip_gold, score_lines};
use crate::delivery::pack::pack;
use crate::delivery::select::{count_lines, select_files, QueryTerms};
use crate::error::{Error, Result};
use crate::study::GoldSpan;

/// Selects and packs the top `settings.k` paths of `ranking` for `issue`, reading texts through
/// `text_of`, and scores the pack against `gold` when given (see the module doc). The counter is
/// borrowed so that a [`TokenCache`](crate::corpus::tokens::TokenCache) can outlive one call: re-packing
/// at another budget then encodes nothing again.
pub fn build_context<'a, C: TokenCounter + ?Sized>(
    issue: &str,
    ranking: &'a [String],
    settings: &ContextSettings,
    text_of: impl Fn(&str) -> Option<&'a str>,
    gold: Option<&[GoldSpan]>,
    counter: &mut C,
) -> Result<ContextReport> {
    let settings = settings.check()?;
    let terms = QueryTerms::from_issue(issue);
    let mut files: Vec<(&'a str, &'a str)> = Vec::new();
    let mut missing = Vec::new();
    let mut seen = HashSet::new();
    for (index, path) in ranking.iter().take(settings.k).enumerate() {
        if !seen.insert(path.as_str()) {
            continue;
        }
        match text_of(path) {
            Some(text) => files.push((path.as_str(), text)),
            None => missing.push(MissingFile {
                path: path.clone(),
                rank: index + 1,
            }),
        }
    }
    let selections = select_files(&terms, files.iter().copied(), &settings.select_config());
    let packed = pack(&selections, &settings.pack_config(), counter)?;
    let (score, clipped_gold) = match gold {
        None => (None, Vec::new()),
        Some(gold) => {
            for span in gold {
                if text_of(&span.path).is_none() {
                    return Err(Error::Gold {
                        path: span.path.clone(),
                        start_line: span.start_line,
                        end_line: span.end_line,
                        message: "the file is not among the files supplied (not in the bundle)"
                            .to_string(),
                    });
                }
            }
            let line_count = |path: &str| text_of(path).map(|text| to_u32(count_lines(text)));
            let score = score_lines(&packed, gold, line_count)?;
            let (spans, _) = clip_gold(gold, line_count)?;
            (Some(score), spans)
        }
    };
    Ok(ContextReport {
        settings,
        terms: terms.terms().to_vec(),
        files: files.iter().map(|(path, _)| path.to_string()).collect(),
        missing,
        pack: packed,
        score,
        gold: clipped_gold,
    })
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
