//! A paper's printed numbers beside a study: read (a `routelens-printed/1` file, or the numbers
//! routelens carries for fastindex and CodeNib), checked against the study's own data (engine
//! `check`), and attached to a site's entry, so that the page opens the study on its paper page
//! and the home page can say how many numbers reproduced (`publish --printed`, `serve`).

use std::path::Path;

use routelens_engine::check::printed::{built_in, built_in_text, PrintedFile};
use routelens_engine::check::{check, CheckReport, Source};
use routelens_engine::publish::site::{Checked, SiteStudy};
use routelens_engine::scoring::score_table::ScoreTable;
use routelens_engine::Study;

use crate::failure::Failure;
use crate::input::read_text;

/// A study as loaded, in the form its printed numbers are checked against.
pub enum Checkable {
    /// A study of rankings.
    Study(Box<Study>),
    /// A per-case score table.
    Scores(Box<ScoreTable>),
}

impl Checkable {
    /// The engine's view of it.
    pub fn source(&self) -> Source<'_> {
        match self {
            Checkable::Study(study) => Source::Study(study),
            Checkable::Scores(table) => Source::Scores(table),
        }
    }

    /// The name of the built-in printed numbers a study of this kind is checked against when
    /// none are given: fastindex's for rankings, CodeNib's for a score table.
    pub fn built_in_name(&self) -> &'static str {
        match self {
            Checkable::Study(_) => "fastindex",
            Checkable::Scores(_) => "codenib",
        }
    }
}

/// Printed numbers as read, with their text (a site publishes the text as it was given).
pub struct Printed {
    /// The numbers.
    pub file: PrintedFile,
    /// The file's text.
    pub text: String,
}

/// The printed numbers at `path`, or the built-in ones named `name` when there is no path.
pub fn read(path: Option<&Path>, name: &str) -> Result<Printed, Failure> {
    match path {
        Some(path) => {
            let text = read_text(path)?;
            let file = PrintedFile::from_json(&path.display().to_string(), &text)?;
            Ok(Printed { file, text })
        }
        None => Ok(Printed {
            file: built_in(name)?,
            text: built_in_text(name).unwrap_or_default().to_string(),
        }),
    }
}

/// Checks `printed` against `study` and records on `entry` where the page finds them (`at`,
/// relative to the site root) and how they fared.
pub fn attach(
    entry: &mut SiteStudy,
    at: &str,
    printed: &Printed,
    study: &Checkable,
) -> CheckReport {
    let report = check(&printed.file, study.source());
    entry.printed = Some(at.to_string());
    entry.checked = Some(Checked::of(&report));
    report
}
