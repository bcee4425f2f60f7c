//! Named subsets of a study's cases: the aligned-text sensitivity subset, the paper's prespecified
//! subgroups, and single repositories.

use crate::study::Study;

/// A subset of cases.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub enum Subset {
    /// Every case.
    All,
    /// Cases whose every gold span aligns with the base-commit source.
    Aligned,
    /// Cases with at least one misaligned gold span.
    Unaligned,
    /// Cases whose issue text names a gold path (`true`) or does not (`false`).
    MentionsGoldPath(bool),
    /// Cases whose issue text names a gold basename (`true`) or does not (`false`).
    MentionsGoldBasename(bool),
    /// Cases whose gold files span more than one directory (`true`) or one (`false`).
    MultipleDirectories(bool),
    /// The cases of one repository.
    Repo(String),
}

impl Subset {
    /// A short label for tables.
    pub fn label(&self) -> String {
        let yes_no = |b: &bool| if *b { "yes" } else { "no" };
        match self {
            Subset::All => "all".into(),
            Subset::Aligned => "aligned".into(),
            Subset::Unaligned => "unaligned".into(),
            Subset::MentionsGoldPath(b) => format!("names gold path: {}", yes_no(b)),
            Subset::MentionsGoldBasename(b) => format!("names gold basename: {}", yes_no(b)),
            Subset::MultipleDirectories(b) => format!("gold in several directories: {}", yes_no(b)),
            Subset::Repo(repo) => repo.clone(),
        }
    }

    /// The indices of the cases in the subset. A label the study does not carry selects nothing.
    pub fn indices(&self, study: &Study) -> Vec<usize> {
        study
            .cases
            .iter()
            .enumerate()
            .filter(|(_, case)| match self {
                Subset::All => true,
                Subset::Aligned => case.flags.gold_text_aligned == Some(true),
                Subset::Unaligned => case.flags.gold_text_aligned == Some(false),
                Subset::MentionsGoldPath(b) => case.flags.mentions_gold_path == Some(*b),
                Subset::MentionsGoldBasename(b) => case.flags.mentions_gold_basename == Some(*b),
                Subset::MultipleDirectories(b) => case.gold_spans_multiple_directories() == *b,
                Subset::Repo(repo) => &case.repo == repo,
            })
            .map(|(index, _)| index)
            .collect()
    }

    /// The prespecified subgroups of the paper, both sides of each.
    pub fn prespecified() -> Vec<Subset> {
        vec![
            Subset::MentionsGoldPath(true),
            Subset::MentionsGoldPath(false),
            Subset::MentionsGoldBasename(true),
            Subset::MentionsGoldBasename(false),
            Subset::MultipleDirectories(true),
            Subset::MultipleDirectories(false),
        ]
    }
}
