//! `routelens label-task`: a labelling task for a second labelling round (engine
//! `evaluate::label_task`): each question's pool from the top K files of each arm (`--pool
//! ARM@K`: a lexical arm, or `CHUNKER/RETRIEVER`, a chunking's bm25, dense or hybrid ranking mapped
//! to its files in order of first appearance; `--run FILE@K`: each tag of a TREC run) and the
//! question set's gold, written as the task, which the labellers open, and the coordinator's file
//! beside it, which they never do; each written whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};

use routelens_engine::checksum::sha256_hex;
use routelens_engine::evaluate::label_task::{build_task, PooledArm};
use routelens_engine::load::question_set::{parse_question_set, Question};
use routelens_engine::load::runfile::load_trec;
use routelens_engine::retrieval::chunk_search::ChunkRankings;
use routelens_engine::retrieval::lexical::{run_arm, LexicalArm, Needs, Sources};

use crate::cli::{parse_chunker, parse_retriever, LabelTaskArgs};
use crate::failure::Failure;
use crate::folder::{write_file_atomic, BundleFolder};
use crate::input::read_text;
use crate::model::ModelChoice;

/// Runs `label-task`.
pub fn run(args: &LabelTaskArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let name = args.questions.display().to_string();
    let text = read_text(&args.questions)?;
    let set = parse_question_set(&name, &text)?;
    let folder = BundleFolder::open(&args.bundle)?;
    if let Some(pinned) = &set.corpus {
        folder.verify_pinned(pinned)?;
    }
    let mut arms = Vec::new();
    for value in &args.pools {
        let (arm, depth) = split_depth(value, "--pool")?;
        arms.push(PooledArm {
            rankings: pool_rankings(&folder, &arm, depth, &set.questions)?,
            name: arm,
            depth,
        });
    }
    for value in &args.runs {
        let (path, depth) = split_depth(value, "--run")?;
        arms.extend(run_rankings(Path::new(&path), depth, &set.questions)?);
    }
    if arms.is_empty() {
        return Err(Failure::Usage(
            "give at least one --pool ARM@K or --run FILE@K".into(),
        ));
    }
    let commit = folder
        .manifest
        .commit
        .clone()
        .unwrap_or_else(|| folder.manifest.source.clone());
    let (task, mut coordinator) = build_task(
        &set.questions,
        (&sha256_hex(text.as_bytes()), &commit),
        &arms,
        (args.labellers, args.seed),
    )?;
    let task_bytes = pretty(&task)?;
    coordinator.task_sha256 = sha256_hex(&task_bytes);
    let coordinator_path = args
        .coordinator
        .clone()
        .unwrap_or_else(|| coordinator_beside(&args.out));
    write_file_atomic(&args.out, &task_bytes)?;
    write_file_atomic(&coordinator_path, &pretty(&coordinator)?)?;
    let pairs: usize = task.questions.iter().map(|q| q.candidates.len()).sum();
    writeln!(
        out,
        "{}: {} questions, {pairs} question–file pairs to judge, {} labellers; task SHA-256 {}\n\
         {}: which arm pooled each file and which are gold (not for the labellers)",
        args.out.display(),
        task.questions.len(),
        task.labellers.len(),
        coordinator.task_sha256,
        coordinator_path.display()
    )
    .map_err(Failure::output)
}

/// `task.json` → `task.coordinator.json`.
fn coordinator_beside(task: &Path) -> PathBuf {
    let stem = task
        .file_stem()
        .map_or_else(|| "task".into(), |s| s.to_string_lossy().into_owned());
    task.with_file_name(format!("{stem}.coordinator.json"))
}

fn pretty<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, Failure> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| Failure::Io {
        context: "writing JSON".into(),
        source: std::io::Error::other(e),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `NAME@K` split at its last `@`.
fn split_depth(value: &str, option: &str) -> Result<(String, usize), Failure> {
    let (name, k) = value.rsplit_once('@').ok_or_else(|| {
        Failure::Usage(format!("{option} {value}: expected NAME@K, e.g. fts5@10"))
    })?;
    let k = k.parse::<usize>().ok().filter(|&k| k >= 1).ok_or_else(|| {
        Failure::Usage(format!(
            "{option} {value}: K must be a whole number, 1 or more"
        ))
    })?;
    Ok((name.to_string(), k))
}

/// Each question's files by `arm`, best first: at least `depth` distinct ones when it has them.
fn pool_rankings(
    folder: &BundleFolder,
    arm: &str,
    depth: usize,
    questions: &[Question],
) -> Result<Vec<Vec<String>>, Failure> {
    if let Some((chunker, retriever)) = arm.split_once('/') {
        let (chunker, retriever) = (parse_chunker(chunker)?, parse_retriever(retriever)?);
        let mut open = folder.open_chunkings(&[chunker])?;
        if retriever.needs_vectors() {
            let texts: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
            folder.open_vectors(&mut open, &[chunker], (&texts, ModelChoice::default()))?;
        }
        let table = open.table(chunker)?;
        let mut rankings = Vec::with_capacity(questions.len());
        for question in questions {
            // Chunks until `depth` distinct files, or every chunk the ranking has.
            let mut chunks = depth * 8;
            let files = loop {
                let hits = open.search((chunker, retriever), &question.question, chunks, None)?;
                let mut files: Vec<String> = Vec::new();
                for hit in &hits {
                    let path = &table[hit.chunk].path;
                    if !files.contains(path) {
                        files.push(path.clone());
                    }
                }
                if files.len() >= depth || hits.len() < chunks {
                    break files;
                }
                chunks *= 4;
            };
            rankings.push(files);
        }
        return Ok(rankings);
    }
    let arm = LexicalArm::from_name(arm)?;
    let paths = folder.manifest.paths();
    let index = match arm.needs() {
        Needs::Index => Some(folder.open_index()?),
        _ => None,
    };
    let texts = match arm.needs() {
        Needs::Texts => Some(folder.read_texts()?),
        _ => None,
    };
    let mut sources = Sources::new(&paths);
    if let Some(texts) = &texts {
        sources = sources.with_texts(texts);
    }
    if let Some(index) = &index {
        sources = sources.with_index(index);
    }
    questions
        .iter()
        .map(|q| {
            let output = run_arm(arm, &sources, &q.question, depth)?;
            Ok(output.results.into_iter().map(|(path, _)| path).collect())
        })
        .collect()
}

/// Each tag of the TREC run at `path` as an arm `run:TAG`, its ranking per question (a question
/// the run has no line for pools nothing from it; a query id that is no question is refused).
fn run_rankings(
    path: &Path,
    depth: usize,
    questions: &[Question],
) -> Result<Vec<PooledArm>, Failure> {
    let run = read_text(path)?;
    // The question set as qrels, so the run is read by the one TREC reader, unknown ids refused.
    let qrels: String = questions
        .iter()
        .flat_map(|q| {
            let gold: Vec<String> = q
                .gold
                .iter()
                .map(|g| format!("{} 0 {g} 1\n", q.id))
                .collect();
            if gold.is_empty() {
                vec![format!("{} 0 - 0\n", q.id)]
            } else {
                gold
            }
        })
        .collect();
    let study = load_trec(
        &path.display().to_string(),
        &run,
        "the question set",
        &qrels,
    )?;
    Ok(study
        .arms
        .iter()
        .map(|arm| PooledArm {
            name: format!("run:{}", arm.name),
            depth,
            rankings: questions
                .iter()
                .map(|q| {
                    study
                        .cases
                        .iter()
                        .position(|c| c.id == q.id)
                        .map(|at| arm.rankings[at].clone())
                        .unwrap_or_default()
                })
                .collect(),
        })
        .collect())
}
