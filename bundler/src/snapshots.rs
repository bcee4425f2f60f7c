//! `routelens snapshots`: one bundle per case of the paper's study at the case's base commit,
//! under the paper's policy, each checked against the archive's `file_count`.
//!
//! `--plan` prints the `routelens bundle` command of each case instead, one a line, for a Slurm
//! job array or GNU `parallel` (docs/snapshots.md); without it the cases are built here one after
//! another by parsing and running those same command lines, each bundle written atomically, so a
//! run that stops resumes: a case whose bundle is already there at its commit is kept. Each
//! case's bundle is an independent job; sharing identical files across snapshots is not done yet.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use routelens_engine::Study;

use crate::cli::{Cli, Command, SnapshotsArgs};
use crate::failure::Failure;
use crate::folder::BundleFolder;
use crate::input::load_study;

/// The archived measurement that counts a snapshot's files.
const FILE_COUNT: &str = "file_count";

/// One case to bundle: its id, repository, base commit, the clone it is read from, and the
/// archive's file count.
struct Job {
    case: String,
    repo: String,
    commit: String,
    clone: PathBuf,
    file_count: Option<u64>,
}

/// Runs `snapshots`.
pub fn run(args: &SnapshotsArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let study = load_study(&args.archive, None)?;
    let (jobs, absent) = jobs(&study, &args.repos, args.repo.as_deref());
    let mut say = |line: String| out.write_all(line.as_bytes()).map_err(Failure::output);
    if args.plan {
        for job in &jobs {
            say(shell_line(&command(job, &args.out)) + "\n")?;
        }
        return Ok(());
    }
    for repo in &absent {
        say(format!(
            "skipped   {repo}: no clone under {}\n",
            args.repos.display()
        ))?;
    }
    let mut differing = 0;
    for (at, job) in jobs.iter().enumerate() {
        let target = args.out.join(&job.case);
        let progress = format!(
            "[{}/{}] {} ({} at {})",
            at + 1,
            jobs.len(),
            job.case,
            job.repo,
            short(&job.commit)
        );
        let kept = BundleFolder::open(&target)
            .ok()
            .filter(|folder| folder.manifest.commit.as_deref() == Some(job.commit.as_str()));
        let files = match kept {
            Some(folder) => {
                say(format!("{progress}: already built, kept\n"))?;
                folder.manifest.files.len() as u64
            }
            None => {
                say(format!("{progress}: building\n"))?;
                build(job, &args.out)?;
                BundleFolder::open(&target)?.manifest.files.len() as u64
            }
        };
        let verdict = match job.file_count {
            Some(count) if count == files => format!("{files} files, as the archive's file_count"),
            Some(count) => {
                differing += 1;
                format!(
                    "{files} files, the archive's file_count is {count} ({:+})",
                    files as i64 - count as i64
                )
            }
            None => format!("{files} files (the archive gives no file_count)"),
        };
        say(format!("{progress}: {verdict}\n"))?;
    }
    say(format!(
        "snapshots {} built or kept under {}; {differing} differ from the archive's file count\n",
        jobs.len(),
        args.out.display()
    ))?;
    Ok(())
}

/// The cases whose repository has a clone under `repos` (named `owner+name` or `owner/name`),
/// optionally of one repository, and the repositories without one.
fn jobs(study: &Study, repos: &Path, only: Option<&str>) -> (Vec<Job>, Vec<String>) {
    // The flat tournament's results (`flat-jev`) record each snapshot's file count.
    let count_of = |case: usize| {
        study.arms.iter().find_map(|arm| {
            let count = arm.measurements.get(case)?.get(FILE_COUNT)?;
            Some(*count as u64)
        })
    };
    let mut jobs = Vec::new();
    let mut absent: Vec<String> = Vec::new();
    for (index, case) in study.cases.iter().enumerate() {
        if only.is_some_and(|only| only != case.repo) {
            continue;
        }
        let Some(commit) = &case.base_commit else {
            continue;
        };
        let clone = [case.repo.replace('/', "+"), case.repo.clone()]
            .into_iter()
            .map(|name| repos.join(name))
            .find(|path| path.exists());
        let Some(clone) = clone else {
            if !absent.contains(&case.repo) {
                absent.push(case.repo.clone());
            }
            continue;
        };
        let file_count = count_of(index);
        jobs.push(Job {
            case: case.id.clone(),
            repo: case.repo.clone(),
            commit: commit.clone(),
            clone,
            file_count,
        });
    }
    (jobs, absent)
}

/// The `routelens bundle` command line of a job: the paper's policy and index, no chunkings (the
/// fastindex study's arms and packer use none).
fn command(job: &Job, out: &Path) -> Vec<String> {
    [
        "routelens",
        "bundle",
        &job.clone.display().to_string(),
        "--commit",
        &job.commit,
        "--out",
        &out.join(&job.case).display().to_string(),
        "--source-name",
        &job.repo,
        "--chunkers",
        "none",
    ]
    .map(str::to_string)
    .to_vec()
}

/// Builds one job by running its planned command line in this process.
fn build(job: &Job, out: &Path) -> Result<(), Failure> {
    let cli = Cli::try_parse_from(command(job, out))
        .map_err(|err| Failure::Usage(format!("{}: {err}", job.case)))?;
    let Command::Bundle(args) = cli.command else {
        return Err(Failure::Usage(format!(
            "{}: not a bundle command",
            job.case
        )));
    };
    crate::bundle::run(&args, &mut std::io::sink())
}

/// Words quoted for a POSIX shell where they need it.
fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|word| {
            if !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@".contains(c))
            {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
