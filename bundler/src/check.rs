//! `routelens check STUDY`: every number the paper prints beside its recomputation from the
//! study's own data (engine `check`), with a ✓ where the digits agree at the printed precision.
//! Exits 65 when a number that should reproduce does not.

use std::io::Write;
use std::path::Path;

use routelens_engine::check::{check, CheckReport};
use routelens_engine::scoring::score_table::{load_score_table, Mapping};

use crate::cli::{CheckArgs, OutputFormat};
use crate::failure::Failure;
use crate::input::{load_study, read_text};
use crate::printed::{self, Checkable};
use crate::render::text_table;
use crate::score_table::is_score_table;

/// Runs the check and writes its table (or JSON) and summary line.
pub fn run(args: &CheckArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let study = load(&args.study, args.qrels.as_deref())?;
    let printed = printed::read(args.printed.as_deref(), study.built_in_name())?;
    let report = check(&printed.file, study.source());
    let name = args.name.as_deref().unwrap_or(study.built_in_name());
    write_report(&report, name, args.format, out)?;
    if report.all_reproduced() {
        Ok(())
    } else {
        Err(Failure::Check(report.summary(name)))
    }
}

/// The study at `path`: CodeNib's per-issue table, or a study of rankings.
pub fn load(path: &Path, qrels: Option<&Path>) -> Result<Checkable, Failure> {
    if !is_score_table(path) {
        return Ok(Checkable::Study(Box::new(load_study(path, qrels)?)));
    }
    let text = read_text(path)?;
    let file = path.display().to_string();
    let mapping = Mapping::detect(text.lines().next().unwrap_or_default()).ok_or_else(|| {
        Failure::Usage(format!(
            "{file}: check reads CodeNib's per-issue table; this table's columns are not its"
        ))
    })?;
    Ok(Checkable::Scores(Box::new(load_score_table(
        &file, &text, &mapping,
    )?)))
}

fn write_report(
    report: &CheckReport,
    name: &str,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let text = match format {
        OutputFormat::Json => crate::bundle::json_line(report)?,
        OutputFormat::Table => format!("{}\n{}", report.summary(name), text_table(&report.table())),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}
