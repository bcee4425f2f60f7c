//! `routelens agreement TASK LABELS_A LABELS_B`: two labellers' agreement on a labelling task
//! (engine `load::labels` reads the files, `scoring::agreement` computes): coverage, the
//! confusion matrix of grades, and every statistic with its bootstrap interval over questions,
//! as a table of sentences or JSON.

use std::io::Write;

use routelens_engine::load::labels::{items, parse_labels, parse_task};
use routelens_engine::scoring::agreement::{agreement, AgreementReport};
use routelens_engine::scoring::agreement_text::report_text;
use routelens_engine::BootstrapConfig;

use crate::cli::{AgreementArgs, OutputFormat};
use crate::failure::Failure;
use crate::input::read_text;

/// What `agreement --format json` prints: the files' labellers, then the report.
#[derive(Debug, serde::Serialize)]
struct Printed<'r> {
    labellers: [String; 2],
    #[serde(flatten)]
    report: &'r AgreementReport,
}

/// Runs `agreement`.
pub fn run(args: &AgreementArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let task_name = args.task.display().to_string();
    let task_bytes = std::fs::read(&args.task).map_err(|e| Failure::read(&args.task, e))?;
    let task = parse_task(&task_name, &task_bytes)?;
    let read = |path: &std::path::Path| -> Result<_, Failure> {
        let name = path.display().to_string();
        Ok(parse_labels(&name, &read_text(path)?, &task_bytes, &task)?)
    };
    let (a, b) = (read(&args.labels_a)?, read(&args.labels_b)?);
    let report = agreement(
        &items(&task, &a, &b),
        args.cut,
        BootstrapConfig {
            resamples: args.resamples,
            seed: args.seed,
        },
    )?;
    let labellers = [a.header.labeller.clone(), b.header.labeller.clone()];
    let text = match args.format {
        OutputFormat::Json => {
            let printed = Printed {
                labellers,
                report: &report,
            };
            serde_json::to_string_pretty(&printed).map_err(|e| Failure::Io {
                context: "writing JSON".into(),
                source: std::io::Error::other(e),
            })? + "\n"
        }
        OutputFormat::Table => report_text(&labellers, &report),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}
