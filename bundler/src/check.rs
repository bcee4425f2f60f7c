//! `routelens check STUDY`: every number the paper prints beside its recomputation from the
//! study's own data (engine `check`), with a ✓ where the digits agree at the printed precision.
//! Exits 65 when a number that should reproduce does not.

use std::io::Write;
use std::path::Path;

use routelens_engine::check::printed::{built_in, PrintedFile};
use routelens_engine::check::{check, CheckReport, Source};
use routelens_engine::scoring::score_table::{load_score_table, Mapping};

use crate::cli::{CheckArgs, OutputFormat};
use crate::failure::Failure;
use crate::input::{load_study, read_text};
use crate::render::text_table;
use crate::score_table::is_score_table;

/// Runs the check and writes its table (or JSON) and summary line.
pub fn run(args: &CheckArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let (report, study) = if is_score_table(&args.study) {
        let text = read_text(&args.study)?;
        let file = args.study.display().to_string();
        let mapping =
            Mapping::detect(text.lines().next().unwrap_or_default()).ok_or_else(|| {
                Failure::Usage(format!(
                "{file}: check reads CodeNib's per-issue table; this table's columns are not its"
            ))
            })?;
        let table = load_score_table(&file, &text, &mapping)?;
        let printed = printed(args.printed.as_deref(), "codenib")?;
        (check(&printed, Source::Scores(&table)), "codenib")
    } else {
        let study = load_study(&args.study, args.qrels.as_deref())?;
        let printed = printed(args.printed.as_deref(), "fastindex")?;
        (check(&printed, Source::Study(&study)), "fastindex")
    };
    let name = args.name.as_deref().unwrap_or(study);
    write_report(&report, name, args.format, out)?;
    if report.all_reproduced() {
        Ok(())
    } else {
        Err(Failure::Check(report.summary(name)))
    }
}

/// The printed numbers: the file given, or the built-in ones of `study`.
fn printed(path: Option<&Path>, study: &str) -> Result<PrintedFile, Failure> {
    match path {
        Some(path) => Ok(PrintedFile::from_json(
            &path.display().to_string(),
            &read_text(path)?,
        )?),
        None => Ok(built_in(study)?),
    }
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
