//! `routelens search --unit chunk` (chunk BM25 over one chunking, optionally capped per file)
//! and `routelens chunks` (a chunking's table, of one file or all). Both read only the manifest,
//! the chunking's table and, for a search, its index, each verified.

use std::io::Write;
use std::time::Instant;

use routelens_engine::corpus::code_chunks::CodeChunk;
use routelens_engine::retrieval::chunk_search::ChunkRankings;
use routelens_engine::retrieval::lexical::chunk_index::chunk_texts;
use routelens_engine::{Cell, Table};

use crate::bundle::json_line;
use crate::cli::{parse_chunker, parse_retriever, ChunksArgs, OutputFormat, SearchArgs};
use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::model::ModelChoice;
use crate::render::text_table;
use crate::render::{one_line, score_cell};

/// One chunk of `chunks --format json`, with the text it is indexed and embedded with
/// (`path :: name`, or the path alone, then its lines: CodeAtlas's embedded payload).
#[derive(Debug, serde::Serialize)]
struct ListedChunk<'c> {
    path: &'c str,
    start_line: u32,
    end_line: u32,
    kind: &'c str,
    name: &'c str,
    embed_text: String,
}

/// One ranked chunk of `search --unit chunk --format json`.
#[derive(Debug, serde::Serialize)]
struct ChunkResult<'c> {
    path: &'c str,
    start_line: u32,
    end_line: u32,
    name: &'c str,
    score: f64,
}

/// One question's chunk search as `--format json` prints it.
#[derive(Debug, serde::Serialize)]
struct ChunkSearch<'c> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'c str>,
    chunker: &'static str,
    retriever: &'static str,
    cap: Option<usize>,
    results: Vec<ChunkResult<'c>>,
    query_ms: f64,
}

/// Runs `chunks`.
pub fn chunks(args: &ChunksArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let chunker = parse_chunker(&args.chunker)?;
    let folder = BundleFolder::open(&args.bundle)?;
    if let Some(path) = &args.path {
        if folder.manifest.file(path).is_none() {
            return Err(Failure::Usage(format!(
                "--path {path:?}: not a file of the bundle {}",
                args.bundle.display()
            )));
        }
    }
    let table = folder.open_chunking(chunker)?;
    let shown: Vec<&CodeChunk> = table
        .iter()
        .filter(|c| args.path.as_ref().is_none_or(|p| *p == c.path))
        .collect();
    let text = match args.format {
        OutputFormat::Json => {
            let files = folder.read_files(shown.iter().map(|c| c.path.as_str()))?;
            let owned: Vec<CodeChunk> = shown.iter().map(|c| (*c).clone()).collect();
            let texts = chunk_texts(&owned, |path| files.get(path).map_or("", String::as_str));
            let listed: Vec<ListedChunk> = shown
                .iter()
                .zip(texts)
                .map(|(c, embed_text)| ListedChunk {
                    path: &c.path,
                    start_line: c.start_line,
                    end_line: c.end_line,
                    kind: &c.kind,
                    name: &c.name,
                    embed_text,
                })
                .collect();
            json_line(&listed)?
        }
        OutputFormat::Table => {
            let mut rendered = Table::new(
                &format!("{} chunks ({})", shown.len(), chunker.name()),
                &["path", "lines", "kind", "name", "tokens"],
            );
            for c in shown {
                rendered.rows.push(vec![
                    Cell::text(&c.path),
                    Cell::text(format!("{}-{}", c.start_line, c.end_line)),
                    Cell::text(&c.kind),
                    Cell::text(&c.name),
                    Cell::count(c.tokens as usize),
                ]);
            }
            text_table(&rendered)
        }
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// Runs `search --unit chunk` over `questions` (`(id, text)` pairs).
pub fn search(
    args: &SearchArgs,
    questions: &[(Option<String>, String)],
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let chunker = parse_chunker(&args.chunker)?;
    let retriever = parse_retriever(&args.retriever)?;
    let folder = BundleFolder::open(&args.bundle)?;
    let mut open = folder.open_chunkings(&[chunker])?;
    if retriever.needs_vectors() {
        let texts: Vec<&str> = questions.iter().map(|(_, q)| q.as_str()).collect();
        let model = ModelChoice::new(args.model.as_deref(), args.weights, args.mantissa_bits)?;
        folder.open_vectors(&mut open, &[chunker], (&texts, model))?;
    }
    let table = open.table(chunker)?;
    let batch = questions.len() > 1 || args.query.queries.is_some();
    for (id, question) in questions {
        let started = Instant::now();
        let hits = open.search((chunker, retriever), question, args.k, args.cap)?;
        let query_ms = elapsed_ms(started);
        let results: Vec<ChunkResult> = hits
            .iter()
            .map(|hit| {
                let c = &table[hit.chunk];
                ChunkResult {
                    path: &c.path,
                    start_line: c.start_line,
                    end_line: c.end_line,
                    name: &c.name,
                    score: f64::from(hit.score),
                }
            })
            .collect();
        let found = ChunkSearch {
            id: id.as_deref(),
            chunker: chunker.name(),
            retriever: retriever.name(),
            cap: args.cap,
            results,
            query_ms,
        };
        let text = match args.format {
            OutputFormat::Json if batch => serde_json::to_string(&found).unwrap_or_default() + "\n",
            OutputFormat::Json => json_line(&found)?,
            OutputFormat::Table => {
                let heading = id
                    .as_ref()
                    .map(|id| format!("== {id}: {}\n\n", one_line(question)))
                    .unwrap_or_default();
                heading + &results_table(&found)
            }
        };
        out.write_all(text.as_bytes()).map_err(Failure::output)?;
    }
    Ok(())
}

fn results_table(found: &ChunkSearch) -> String {
    let cap = found
        .cap
        .map(|n| format!(", at most {n} per file at the head"))
        .unwrap_or_default();
    let mut table = Table::new(
        &format!(
            "chunk {} over {} chunks{cap}: {} result{} in {:.3} ms",
            found.retriever,
            found.chunker,
            found.results.len(),
            if found.results.len() == 1 { "" } else { "s" },
            found.query_ms
        ),
        &["rank", "score", "path", "lines", "name"],
    );
    for (rank, hit) in found.results.iter().enumerate() {
        table.rows.push(vec![
            Cell::count(rank + 1),
            score_cell(hit.score),
            Cell::text(hit.path),
            Cell::text(format!("{}-{}", hit.start_line, hit.end_line)),
            Cell::text(hit.name),
        ]);
    }
    text_table(&table)
}
