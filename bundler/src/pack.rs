//! `routelens pack`: the context an agent would receive for one issue and one ranking over a
//! bundle, computed by the engine's [`build_context`] (the same code as the app's Context view).
//!
//! The files come from the bundle's chunks, each verified against the manifest; only the chunks
//! holding the top-k ranked files and the gold files are read. A ranked path the bundle does not
//! hold is **reported and skipped** (`missing_files` in JSON, a `missing:` line in the table),
//! not an error: rankings from another snapshot or arm may name files the bundle's policy left
//! out, and an agent would receive nothing for them. A gold span on a file the bundle does not
//! hold is an error (its line count is unknown). Tokens are counted with cl100k_base compiled in
//! (`embedded-cl100k`).

use std::io::Write;

use routelens_engine::delivery::context::{
    build_context, parse_gold, parse_ranking, ContextReport, ContextSettings, MissingFile,
};
use routelens_engine::delivery::linescore::ClippedSpan;
use routelens_engine::delivery::pack::SkipReason;
use routelens_engine::{Cell, Cl100k, Error, Table};

use crate::bundle::json_line;
use crate::cli::{OutputFormat, PackArgs};
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::render::text_table;

/// `pack --format json`.
#[derive(Debug, serde::Serialize)]
pub struct PackOutput<'r> {
    /// The bundle's source name.
    pub bundle: String,
    /// The settings packed with.
    pub settings: ContextSettings,
    /// The issue's query terms, sorted.
    pub terms: &'r [String],
    /// The packed paths in rank order.
    pub files: &'r [String],
    /// Top-k ranked paths the bundle does not hold (skipped).
    pub missing_files: &'r [MissingFile],
    /// Every block in the order the packer considered them.
    pub blocks: Vec<BlockOutput<'r>>,
    /// Tokens of the included blocks.
    pub tokens_used: usize,
    /// The budget.
    pub budget_tokens: usize,
    /// Delivered gold lines / gold lines; `null` without `--gold-file`.
    pub line_recall: Option<f64>,
    /// Line recall is 1; `null` without `--gold-file`.
    pub complete: Option<bool>,
    /// Distinct gold lines.
    pub gold_lines: Option<u64>,
    /// Those delivered.
    pub delivered_gold_lines: Option<u64>,
    /// Gold files with an included block / gold files.
    pub delivered_file_recall: Option<f64>,
    /// Gold spans whose ends were clipped to their files.
    pub clipped: &'r [ClippedSpan],
}

/// One block of `pack --format json`.
#[derive(Debug, serde::Serialize)]
pub struct BlockOutput<'r> {
    /// The file.
    pub path: &'r str,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, inclusive.
    pub end_line: u32,
    /// cl100k_base tokens of the rendered block.
    pub tokens: usize,
    /// Whether it is in the context.
    pub included: bool,
    /// The window's score (distinct terms on its best line; 0 for a whole file).
    pub score: u32,
    /// Why it was skipped (`{"kind": "over_budget", "remaining_tokens": N}`), else `null`.
    pub skip_reason: Option<&'r SkipReason>,
    /// Gold lines inside the block (`null` without `--gold-file`).
    pub gold_lines: Option<u64>,
}

/// Runs `pack`.
pub fn run(args: &PackArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let settings = ContextSettings {
        k: args.k,
        anchors_per_file: args.anchors,
        radius_lines: args.radius,
        budget_tokens: args.budget,
    }
    .check()?;
    let issue = read_text(&args.issue_file)?;
    let ranking = parse_ranking(
        &args.ranking_file.display().to_string(),
        &read_text(&args.ranking_file)?,
    )?;
    let gold = match &args.gold_file {
        Some(path) => Some(parse_gold(&path.display().to_string(), &read_text(path)?)?),
        None => None,
    };
    let folder = BundleFolder::open(&args.bundle)?;
    let wanted = ranking
        .iter()
        .take(settings.k)
        .chain(gold.iter().flatten().map(|span| &span.path))
        .map(String::as_str);
    let texts = folder.read_files(wanted)?;
    let mut counter = Cl100k::embedded()?;
    let report = build_context(
        &issue,
        &ranking,
        &settings,
        |path| texts.get(path).map(String::as_str),
        gold.as_deref(),
        &mut counter,
    )
    .map_err(|error| match (&error, &args.gold_file) {
        // Name the gold file too: the engine names only the span.
        (Error::Gold { .. }, Some(file)) => Failure::Engine(Error::Parse {
            file: file.display().to_string(),
            message: error.to_string(),
        }),
        _ => Failure::Engine(error),
    })?;
    let text = match args.format {
        OutputFormat::Json => json_line(&output(&folder.manifest.source, &report))?,
        OutputFormat::Table => table(&report),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// The JSON form of a report.
pub fn output<'r>(bundle: &str, report: &'r ContextReport) -> PackOutput<'r> {
    let gold = report.score.is_some();
    PackOutput {
        bundle: bundle.to_string(),
        settings: report.settings,
        terms: &report.terms,
        files: &report.files,
        missing_files: &report.missing,
        blocks: report
            .pack
            .blocks
            .iter()
            .map(|block| BlockOutput {
                path: &block.path,
                start_line: block.start_line,
                end_line: block.end_line,
                tokens: block.tokens,
                included: block.included,
                score: block.score,
                skip_reason: block.skip_reason.as_ref(),
                gold_lines: gold.then(|| report.gold_lines_in(block)),
            })
            .collect(),
        tokens_used: report.pack.tokens_used,
        budget_tokens: report.pack.budget_tokens,
        line_recall: report.score.as_ref().map(|s| s.line_recall),
        complete: report.score.as_ref().map(|s| s.complete),
        gold_lines: report.score.as_ref().map(|s| s.gold_lines),
        delivered_gold_lines: report.score.as_ref().map(|s| s.delivered_gold_lines),
        delivered_file_recall: report.score.as_ref().and_then(|s| s.delivered_file_recall),
        clipped: report.clipped(),
    }
}

/// The blocks as an aligned table, with the settings above and the scores below.
fn table(report: &ContextReport) -> String {
    let s = &report.settings;
    let gold = report.score.is_some();
    let title = format!(
        "pack: {} file{} of the top {} ranked, budget {} tokens (anchors {}, radius {})",
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" },
        s.k,
        s.budget_tokens,
        s.anchors_per_file,
        s.radius_lines
    );
    let mut headers = vec!["#", "path", "lines", "score", "tokens", "status"];
    if gold {
        headers.push("gold lines");
    }
    let mut table = Table::new(&title, &headers);
    for (index, block) in report.pack.blocks.iter().enumerate() {
        let mut row = vec![
            Cell::count(index + 1),
            Cell::text(&block.path),
            Cell::text(format!("{}-{}", block.start_line, block.end_line)),
            Cell::count(block.score as usize),
            Cell::count(block.tokens),
            Cell::text(match &block.skip_reason {
                None => "included".to_string(),
                Some(reason) => format!("skipped ({reason})"),
            }),
        ];
        if gold {
            row.push(Cell::count(report.gold_lines_in(block) as usize));
        }
        table.rows.push(row);
    }
    let rendered = text_table(&table);
    let (first, rest) = rendered.split_once('\n').unwrap_or((&rendered, ""));
    let mut text = format!("{first}\nterms: {}\n", report.terms.join(" "));
    for missing in &report.missing {
        text += &format!(
            "missing: {} (rank {}): not in the bundle, skipped\n",
            missing.path, missing.rank
        );
    }
    text += rest;
    text += &format!(
        "tokens used: {} of {}\n",
        report.pack.tokens_used, report.pack.budget_tokens
    );
    if let Some(score) = &report.score {
        text += &format!(
            "line recall: {}/{} = {:.3} ({})\n",
            score.delivered_gold_lines,
            score.gold_lines,
            score.line_recall,
            if score.complete {
                "complete"
            } else {
                "not complete"
            }
        );
        if let Some(recall) = score.delivered_file_recall {
            text += &format!(
                "delivered-file recall: {}/{} = {recall:.3}\n",
                score.delivered_gold_files, score.gold_files
            );
        }
        for clip in &score.clipped {
            text += &format!(
                "clipped: gold span {}:{}-{} ends after the file's last line {}\n",
                clip.path, clip.start_line, clip.end_line, clip.file_lines
            );
        }
    }
    text
}
