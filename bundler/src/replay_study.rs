//! `routelens replay-study`: a live study exported by the app, replayed offline over its bundle.
//!
//! The export (`routelens-live-study/1`, [`LiveStudyExport`]) holds per arm and question a run
//! file or a search's results. Each run file is replayed through the bundle's tree with its
//! recorded answers (no network; every request must be the recorded one), each search is run
//! again over the bundle's index and texts, and the table says per arm how many cases came out
//! identical. A bundle of another commit than the export's is refused before anything runs; any
//! case that differs makes the command fail (65) after the table.

use std::io::Write;

use routelens_engine::live::evidence::{replay, ArmReplay, LiveStudyExport};
use routelens_engine::{Cell, Error, Sources, Table};

use crate::bundle::json_line;
use crate::cli::{OutputFormat, ReplayStudyArgs};
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::render::text_table;

/// Runs `replay-study`.
pub fn run(args: &ReplayStudyArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let name = args.export.display().to_string();
    let export = LiveStudyExport::from_json(&name, &read_text(&args.export)?)?;
    let folder = BundleFolder::open(&args.bundle)?;
    let manifest = &folder.manifest;
    if export.bundle.commit != manifest.commit {
        return Err(Error::field(
            &name,
            "bundle.commit",
            format!(
                "the study ran over commit {}, {} is of {}",
                export
                    .bundle
                    .commit
                    .as_deref()
                    .unwrap_or("none (a working tree)"),
                args.bundle.display(),
                manifest
                    .commit
                    .as_deref()
                    .unwrap_or("none (a working tree)")
            ),
        )
        .into());
    }
    let tree = manifest.tree();
    let paths = manifest.paths();
    let index = folder
        .has_index()
        .then(|| folder.open_index())
        .transpose()?;
    let texts = folder.read_texts()?;
    let mut sources = Sources::new(&paths).with_texts(&texts);
    if let Some(index) = &index {
        sources = sources.with_index(index);
    }
    let checks = replay(&export, &tree, &sources);
    match args.format {
        OutputFormat::Table => write!(out, "{}", text_table(&table(&checks))),
        OutputFormat::Json => write!(out, "{}", json_line(&checks)?),
    }
    .map_err(Failure::output)?;
    let differing: usize = checks.iter().map(|check| check.differences.len()).sum();
    if differing > 0 {
        let first = checks
            .iter()
            .find_map(|check| {
                let why = check.differences.first()?;
                Some(format!("{}: {why}", check.arm))
            })
            .unwrap_or_default();
        return Err(Failure::Replay(format!(
            "{name}: {differing} cases did not replay to their recorded ranking; the first, {first}"
        )));
    }
    Ok(())
}

fn table(checks: &[ArmReplay]) -> Table {
    let mut table = Table::new("Replay", &["arm", "cases", "identical", "first difference"]);
    for check in checks {
        table.rows.push(vec![
            Cell::text(&check.arm),
            Cell::number(check.cases as f64, 0),
            Cell::number(check.identical as f64, 0),
            check
                .differences
                .first()
                .map_or_else(Cell::missing, Cell::text),
        ]);
    }
    table
}
