//! `routelens adjudicate TASK LABELS_A LABELS_B`: the disputes of a second labelling round for
//! the adjudicator (without `--log`), or, with the adjudicator's log, the outcome (engine
//! `evaluate::adjudication`): adjudicated qrels, a new question set whose gold is every file at
//! or above the cut, and how far the original gold agrees with the adjudicated grades.

use std::io::Write;

use routelens_engine::evaluate::adjudication::{adjudicate, disputes, parse_log};
use routelens_engine::evaluate::adjudication_report::adjudication_report;
use routelens_engine::load::labels::{parse_labels, parse_task, LabelTask, Labels};
use routelens_engine::BootstrapConfig;

use crate::cli::{AdjudicateArgs, OutputFormat};
use crate::failure::Failure;
use crate::folder::write_file_atomic;
use crate::input::read_text;

/// Runs `adjudicate`.
pub fn run(args: &AdjudicateArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let task_name = args.task.display().to_string();
    let task_bytes = std::fs::read(&args.task).map_err(|e| Failure::read(&args.task, e))?;
    let task = parse_task(&task_name, &task_bytes)?;
    let read = |path: &std::path::Path| -> Result<Labels, Failure> {
        let name = path.display().to_string();
        Ok(parse_labels(&name, &read_text(path)?, &task_bytes, &task)?)
    };
    let (a, b) = (read(&args.labels_a)?, read(&args.labels_b)?);
    let Some(log_path) = &args.log else {
        return list_disputes(&task, (&a, &b), args.format, out);
    };
    let log = parse_log(
        &log_path.display().to_string(),
        &read_text(log_path)?,
        &task_bytes,
        &task,
    )?;
    let outcome = adjudicate(&task, (&a, &b), &log)?;
    let set_name = args.questions.display().to_string();
    let report = adjudication_report(
        &outcome,
        &log,
        (&set_name, &read_text(&args.questions)?),
        args.cut,
        BootstrapConfig {
            resamples: args.resamples,
            seed: args.seed,
        },
    )?;
    if let Some(path) = &args.qrels {
        write_file_atomic(path, report.qrels.as_bytes())?;
    }
    if let Some(path) = &args.new_questions {
        write_file_atomic(path, report.new_set.as_bytes())?;
    }
    let text = report.text;
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

fn list_disputes(
    task: &LabelTask,
    (a, b): (&Labels, &Labels),
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let found = disputes(task, a, b);
    let text = match format {
        OutputFormat::Json => found
            .iter()
            .map(|d| serde_json::to_string(d).unwrap_or_default() + "\n")
            .collect(),
        OutputFormat::Table => {
            let grade = |g: Option<u8>| g.map_or("–".to_string(), |g| g.to_string());
            let mut text = format!(
                "{} disputes between {} and {} (grades and notes):\n",
                found.len(),
                a.header.labeller,
                b.header.labeller
            );
            for d in &found {
                text += &format!(
                    "{} {}: {} {:?} / {} {:?}\n",
                    d.question,
                    d.path,
                    grade(d.grades[0]),
                    d.notes[0],
                    grade(d.grades[1]),
                    d.notes[1]
                );
            }
            text
        }
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}
