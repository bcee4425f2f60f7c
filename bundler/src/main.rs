//! # routelens
//!
//! The native command line of routelens, thin over `routelens_engine`: every number it prints is
//! computed by the same engine code that the browser app runs as wasm, so the two always agree.
//!
//! - `routelens score <STUDY>` re-scores a study (the paper's archive folder, a JSON Lines file, or
//!   a TREC run with `--qrels`) and prints Table 2, Table 4 and the sign-flip tests as aligned
//!   text, CSV or one JSON object; a per-case score table (`.csv`, CodeNib's) prints each
//!   metric's means with intervals and the paired comparisons with their sentences.
//! - `routelens bundle <REPO_DIR> --out <DIR>` reads a working tree (or, with `--commit`, a git
//!   commit) through the searchable-file policy and writes an index bundle folder;
//!   `--explain PATH` says why one file is in or out.
//! - `routelens search <BUNDLE_DIR> --arm <ARM>` runs the paper's lexical arms over a bundle.
//! - `routelens pack <BUNDLE_DIR> --issue-file F --ranking-file R` selects and packs a ranking's
//!   files into the token budget (cl100k_base) and, with `--gold-file`, scores the delivered
//!   lines.
//! - `routelens demo --out <DIR>` builds the demo bundle from this repository and the crates its
//!   Cargo.lock pins, with a question set.
//! - `routelens route <BUNDLE_DIR> --query TEXT --decider offline|http|replay:RUN.json` walks
//!   a bundle's folder tree (or runs the flat tournament) through a decider, prints the ranking
//!   with its calls, tokens and cost, and can record the run for an exact replay.
//! - `routelens replay-study <EXPORT.json> <BUNDLE_DIR>` replays a live study the app exported
//!   (run files and searches) offline over its bundle and checks every ranking is the recorded one.
//! - `routelens publish --out SITE --study … --bundle …` writes a static supplement site (the
//!   app, studies, bundles, `site.json`, `CHECKSUMS`); `--verify SITE` re-checks a copy.
//! - `routelens serve` serves the built app (`dist/`) on 127.0.0.1 and mounts the paper's archive
//!   and the bundles read-only beside it, so the app can open them without them entering the
//!   repo.
//!
//! `main` only calls [`run`]; failures print one `error: …` line (the engine's message, which
//! names file, field and line) and exit with a sysexits code: 64 bad usage, 65 bad data, 66
//! missing input, 74 I/O failure.

mod adjudicate;
mod agreement;
mod bundle;
mod check;
mod chunk_query;
mod chunking;
mod cli;
mod clock;
mod demo;
mod embed;
mod evaluate;
mod failure;
mod folder;
mod http;
mod input;
mod interrupt;
mod label_task;
mod merge;
mod model;
mod pack;
mod page_weights;
mod printed;
mod proxy;
mod publish;
mod render;
mod replay_study;
mod rerank;
mod rerank_calls;
mod rerank_coverage;
mod route;
mod score;
mod score_table;
mod search;
mod serve;
mod snapshots;
mod sources;
mod stub;
mod transport;
mod vectors;
mod version_packs;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::failure::{Failure, EX_USAGE};

fn main() -> ExitCode {
    run()
}

/// Parses the command line, runs the subcommand and turns its outcome into an exit code.
fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // `--help` and `--version` also arrive here; they are not failures.
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(EX_USAGE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let outcome = match cli.command {
        Command::Score(args) => score::run(&args, &mut out),
        Command::Check(args) => check::run(&args, &mut out),
        Command::Bundle(args) => bundle::run(&args, &mut out),
        Command::Search(args) => search::run(&args, &mut out),
        Command::Snapshots(args) => snapshots::run(&args, &mut out),
        Command::Merge(args) => merge::run(&args, &mut out),
        Command::Chunks(args) => chunk_query::chunks(&args, &mut out),
        Command::Evaluate(args) => evaluate::run(&args, &mut out),
        Command::Embed(args) => embed::run(&args, &mut out),
        Command::Agreement(args) => agreement::run(&args, &mut out),
        Command::LabelTask(args) => label_task::run(&args, &mut out),
        Command::Adjudicate(args) => adjudicate::run(&args, &mut out),
        Command::Rerank(args) => rerank::run(&args, &mut out),
        Command::Pack(args) => pack::run(&args, &mut out),
        Command::Demo(args) => demo::run(&args, &mut out),
        Command::Serve(args) => serve::run(&args, &mut out),
        Command::Publish(args) => publish::run(&args, &mut out),
        Command::Route(args) => route::run(&args, &mut out),
        Command::ReplayStudy(args) => replay_study::run(&args, &mut out),
        Command::TypesafeStub(args) => stub::run(&args, &mut out),
    };
    let outcome = outcome.and_then(|()| out.flush().map_err(Failure::output));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`routelens score … | head`) is not an error.
        Err(failure) if failure.is_broken_pipe() => ExitCode::SUCCESS,
        Err(failure) => {
            let _ = writeln!(std::io::stderr(), "error: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}
