//! `routelens search`: load a bundle folder (verifying what it reads) and run the paper's
//! lexical arms with the engine, the same code the browser runs.
//!
//! Only what the chosen arms need is read: the manifest always, the index blob for `fts5`,
//! `fts5-full` and `path-fts5`, every chunk for `rg`, `rg-first500` and `rg-feedback`. The time
//! reported (`query_ms`) is the arm's run alone, loading excluded.
//!
//! One query comes from `--query` or `--query-file`; `--queries FILE` runs a question set (JSON
//! Lines `{"id", "question", "gold"}`, as `bundler/demo/questions.jsonl`) and prints one JSON
//! object per question and arm, each with its `id`.

use std::io::Write;
use std::time::Instant;

use routelens_engine::load::question_set::parse_questions;
use routelens_engine::retrieval::lexical::{LexicalIndex, Needs};
use routelens_engine::{run_arm, ArmOutput, Cell, Error, LexicalArm, Sources, Table, TextCorpus};

use crate::bundle::json_line;
use crate::cli::{OutputFormat, SearchArgs, UnitArg, ALL_ARMS};
use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::read_text;
use crate::render::{one_line, score_cell, text_table};

/// One arm's answer as `search --format json` prints it.
#[derive(Debug, serde::Serialize)]
pub struct ArmResult {
    /// The question's id (`--queries` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The arm's name.
    pub arm: &'static str,
    /// The query terms it searched for.
    pub terms: Vec<String>,
    /// `rg-feedback` only: the rare terms of its second search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub feedback_terms: Vec<String>,
    /// Ranked paths, best first.
    pub results: Vec<Hit>,
    /// The arm's run time in milliseconds.
    pub query_ms: f64,
    /// The bytes a page with nothing loaded fetches for this search alone: `manifest.json` and
    /// its file list (format 6), then
    /// for the BM25 arms the index blob, or a split index's base file and the parts of the
    /// query's terms (table pages and packs), for the `rg` arms every chunk (see `fetched`).
    pub fetched_bytes: u64,
    /// The same bytes by kind of file.
    pub fetched: Fetched,
}

/// What a search fetches, by kind of file, in stored bytes.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Fetched {
    /// `manifest.json`.
    pub manifest: u64,
    /// The file list (format 6; 0 before, where `manifest.json` lists the files).
    pub file_list: u64,
    /// The index blob, or the split index's base file.
    pub index: u64,
    /// The split index's files the query's terms fall in, table pages and packs (how many).
    pub packs: usize,
    /// Their bytes.
    pub pack_bytes: u64,
    /// Their names in the bundle folder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pack_files: Vec<String>,
    /// The text chunks.
    pub chunks: u64,
}

/// One ranked path.
#[derive(Debug, serde::Serialize)]
pub struct Hit {
    /// The bundle path.
    pub path: String,
    /// The arm's score.
    pub score: f64,
}

/// Runs `search`.
pub fn run(args: &SearchArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if args.k == 0 {
        return Err(Error::setting("k", 0, "1 or more").into());
    }
    let questions = queries(args)?;
    let arm = match (args.unit, &args.arm) {
        (Some(UnitArg::Chunk), None) => return crate::chunk_query::search(args, &questions, out),
        (Some(UnitArg::Chunk), Some(_)) => {
            return Err(Failure::Usage(
                "--unit chunk ranks chunks by chunk BM25: leave out --arm".into(),
            ))
        }
        (_, Some(arm)) => arm.as_str(),
        (_, None) => return Err(Failure::Usage("--unit file needs --arm ARM".into())),
    };
    let arms: Vec<LexicalArm> = if arm == ALL_ARMS {
        LexicalArm::ALL.to_vec()
    } else {
        vec![LexicalArm::from_name(arm)?]
    };
    let folder = BundleFolder::open(&args.bundle)?;
    let paths = folder.manifest.paths();
    // A split index opens with its base file; each question adds the packs its terms need.
    let mut index: Option<LexicalIndex> = if arms.iter().any(|arm| arm.needs() == Needs::Index) {
        Some(folder.open_index_base()?)
    } else {
        None
    };
    let texts: Option<TextCorpus> = if arms.iter().any(|arm| arm.needs() == Needs::Texts) {
        Some(folder.read_texts()?)
    } else {
        None
    };
    let batch = args.query.queries.is_some();
    for (id, question) in &questions {
        if let Some(index) = &mut index {
            for &arm in &arms {
                // Pages, then the packs they name.
                loop {
                    let missing = index.missing_files(arm, question);
                    if missing.is_empty() {
                        break;
                    }
                    folder.add_files(index, &missing)?;
                }
            }
        }
        let mut sources = Sources::new(&paths);
        if let Some(texts) = &texts {
            sources = sources.with_texts(texts);
        }
        if let Some(index) = &index {
            sources = sources.with_index(index);
        }
        let results = arms
            .iter()
            .map(|&arm| {
                let fetched = fetched(&folder, index.as_ref(), arm, question);
                run_one(arm, &sources, question, args.k, id.clone(), fetched)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let text = match (args.format, batch) {
            (OutputFormat::Json, true) => results
                .iter()
                .map(|result| serde_json::to_string(result).unwrap_or_default() + "\n")
                .collect(),
            (OutputFormat::Json, false) if arm == ALL_ARMS => json_line(&results)?,
            (OutputFormat::Json, false) => json_line(&results[0])?,
            (OutputFormat::Table, _) => {
                let heading = id
                    .as_ref()
                    .map(|id| format!("== {id}: {}\n\n", one_line(question)))
                    .unwrap_or_default();
                let tables: Vec<String> = results.iter().map(table).collect();
                heading + &tables.join("\n")
            }
        };
        out.write_all(text.as_bytes()).map_err(Failure::output)?;
    }
    Ok(())
}

/// The queries to run: `(id, text)` pairs, the id only for a question set.
pub fn queries(args: &SearchArgs) -> Result<Vec<(Option<String>, String)>, Failure> {
    let input = &args.query;
    if let Some(text) = &input.query {
        return Ok(vec![(None, text.clone())]);
    }
    if let Some(path) = &input.query_file {
        return Ok(vec![(None, read_text(path)?)]);
    }
    if let Some(path) = &input.queries {
        let text = read_text(path)?;
        let questions = parse_questions(&path.display().to_string(), &text)?;
        return Ok(questions
            .into_iter()
            .map(|question| (Some(question.id), question.question))
            .collect());
    }
    Err(Failure::Usage(
        "give a query: --query TEXT, --query-file FILE or --queries FILE".into(),
    ))
}

/// What a page with nothing loaded fetches to run `arm` on `question` (see
/// [`ArmResult::fetched_bytes`]).
fn fetched(
    folder: &BundleFolder,
    index: Option<&LexicalIndex>,
    arm: LexicalArm,
    question: &str,
) -> Fetched {
    let mut fetched = Fetched {
        manifest: folder.manifest_bytes,
        file_list: folder
            .manifest
            .file_list
            .as_ref()
            .map_or(0, |list| list.bytes),
        ..Fetched::default()
    };
    let all_chunks = folder.manifest.chunks.iter().map(|c| c.bytes).sum();
    match arm.needs() {
        Needs::Paths => {}
        Needs::Texts => fetched.chunks = all_chunks,
        // An index built from the texts (a merged site's snapshot) costs every chunk.
        Needs::Index if folder.manifest.derived_index.is_some() => fetched.chunks = all_chunks,
        Needs::Index => {
            fetched.index = LexicalIndex::file_of(&folder.manifest).map_or(0, |(_, bytes)| bytes);
            if let Some(index) = index {
                let packs = index.files_for(arm, question);
                fetched.packs = packs.len();
                fetched.pack_bytes = packs.iter().map(|pack| pack.bytes).sum();
                fetched.pack_files = packs.into_iter().map(|pack| pack.file).collect();
            }
        }
    }
    fetched
}

fn run_one(
    arm: LexicalArm,
    sources: &Sources,
    question: &str,
    k: usize,
    id: Option<String>,
    fetched: Fetched,
) -> Result<ArmResult, Failure> {
    let started = Instant::now();
    let output: ArmOutput = run_arm(arm, sources, question, k)?;
    let query_ms = elapsed_ms(started);
    Ok(ArmResult {
        id,
        arm: arm.name(),
        terms: output.terms,
        feedback_terms: output.feedback_terms,
        results: output
            .results
            .into_iter()
            .map(|(path, score)| Hit { path, score })
            .collect(),
        query_ms,
        fetched_bytes: fetched.manifest
            + fetched.file_list
            + fetched.index
            + fetched.pack_bytes
            + fetched.chunks,
        fetched,
    })
}

/// One arm's results as an aligned table, after a line with its terms.
fn table(result: &ArmResult) -> String {
    let arm = LexicalArm::from_name(result.arm).map_or(result.arm, LexicalArm::label);
    let title = format!(
        "{} ({arm}): {} result{} in {:.3} ms",
        result.arm,
        result.results.len(),
        if result.results.len() == 1 { "" } else { "s" },
        result.query_ms
    );
    let mut table = Table::new(&title, &["rank", "score", "path"]);
    for (rank, hit) in result.results.iter().enumerate() {
        table.rows.push(vec![
            Cell::count(rank + 1),
            score_cell(hit.score),
            Cell::text(&hit.path),
        ]);
    }
    let f = &result.fetched;
    let mut text = format!("terms: {}\n", result.terms.join(" "));
    text += &format!(
        "fetched: {} bytes from nothing loaded (manifest {}, file list {}, index {}, {} index part{} {}, chunks {})\n",
        result.fetched_bytes,
        f.manifest,
        f.file_list,
        f.index,
        f.packs,
        if f.packs == 1 { "" } else { "s" },
        f.pack_bytes,
        f.chunks
    );
    if !result.feedback_terms.is_empty() {
        text += &format!("feedback terms: {}\n", result.feedback_terms.join(" "));
    }
    // The title goes first, then the terms, then the table.
    let rendered = text_table(&table);
    let (first, rest) = rendered.split_once('\n').unwrap_or((&rendered, ""));
    format!("{first}\n{text}{rest}")
}
