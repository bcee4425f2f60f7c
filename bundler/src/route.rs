//! `routelens route`: route one issue through a bundle's folder tree (or the flat tournament)
//! with the engine's step machine, driven here synchronously.
//!
//! Only the manifest is read: routing is name-only. The decider is the offline lexical scorer,
//! the HTTP client (key from `TYPESAFE_API_KEY`, never printed or recorded), or a recorded run
//! replayed with no network. `--record` writes the run file atomically, for a live run after
//! every call, so a run stopped by an error, Ctrl-C or a kill leaves what it did, marked
//! partial, and replays.
//! A run that fails prints what it did (the ranking so far, marked) and exits 69; one stopped by
//! Ctrl-C exits 130; a replay that does not match its recording exits 65, and one that ends
//! where a partial recording did exits 0 with a note.

use std::io::Write;
use std::time::Duration;

use routelens_engine::remote::route::protocol::KEY_ENV;
use routelens_engine::remote::route::{
    Decider, OfflineDecider, Pricing, Replayer, RouteSettings, Run, RunFile, Session, Strategy,
};
use routelens_engine::{Cell, Table};

use crate::bundle::json_line;
use crate::cli::{DeciderChoice, OutputFormat, RouteArgs, StrategyArg};
use crate::failure::{Failure, EX_DATAERR, EX_UNAVAILABLE};
use crate::folder::{write_file_atomic, BundleFolder};
use crate::input::read_text;
use crate::interrupt;
use crate::render::text_table;
use crate::transport::{HttpDecider, WallClock};

/// Runs `route`.
pub fn run(args: &RouteArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let issue = match (&args.query.query, &args.query.query_file) {
        (Some(text), _) => text.clone(),
        (None, Some(path)) => read_text(path)?,
        (None, None) => {
            return Err(Failure::Usage(
                "give an issue: --query TEXT or --query-file FILE".into(),
            ))
        }
    };
    let folder = BundleFolder::open(&args.bundle)?;
    let tree = folder.manifest.tree();

    let mut recorded = None;
    let (mut session, mut decider): (Session, Box<dyn Decider>) = match &args.decider {
        DeciderChoice::Replay(path) => {
            let text = read_text(path)?;
            let file = RunFile::from_json(&path.display().to_string(), &text)?;
            let decider = Box::new(Replayer::new(&file));
            let session = Session::replay_asking(&file, &tree, &issue)?;
            recorded = Some(file);
            (session, decider)
        }
        choice => {
            let router = &args.router;
            let defaults = RouteSettings::default();
            let settings = RouteSettings {
                model: args.model.clone(),
                max_files: router.max_files,
                max_calls: router.max_calls,
                max_elapsed_ms: router.max_seconds.saturating_mul(1000),
                min_probability: router.min_probability,
                relative_probability: router.relative_probability,
                max_menu_options: router.max_menu_options,
                max_menu_chars: router.max_menu_chars,
                max_option_chars: router.max_option_chars,
                flat_advance: router.flat_top_k,
                flat_menu_options: router.flat_menu_limit,
                flat_max_calls: router.flat_max_calls,
                flat_max_elapsed_ms: router.flat_max_seconds.map(|s| s.saturating_mul(1000)),
                pricing: Pricing {
                    usd_per_million_input: router.usd_per_million_input,
                    ..defaults.pricing
                },
                ..defaults
            };
            settings.check()?;
            let strategy = match args.strategy {
                StrategyArg::Tree => Strategy::Tree,
                StrategyArg::Flat => Strategy::Flat,
            };
            let decider: Box<dyn Decider> = if *choice == DeciderChoice::Http {
                let key = std::env::var(KEY_ENV)
                    .ok()
                    .filter(|key| !key.trim().is_empty());
                if key.is_none() {
                    let _ = writeln!(
                        std::io::stderr(),
                        "routelens: {KEY_ENV} is not set: sending no Authorization header \
                             (right for a gateway that adds the key, such as routelens serve)"
                    );
                }
                let timeout = Duration::from_millis(args.timeout_ms.max(1));
                Box::new(HttpDecider::new(&args.base, key, timeout))
            } else {
                Box::new(OfflineDecider::default())
            };
            let session = Session::new(
                strategy,
                &tree,
                &args.issue_id,
                &issue,
                settings,
                &decider.kind(),
            )?;
            (session, decider)
        }
    };

    let mut clock = WallClock::start(recorded.is_none());
    let save = |session: &Session| match &args.record {
        Some(path) => write_file_atomic(path, session.file().to_json().as_bytes()),
        None => Ok(()),
    };
    // A live run is saved after every call and stops on Ctrl-C; offline and replayed runs are
    // instant, saved once, and keep the default Ctrl-C.
    let live = args.decider == DeciderChoice::Http;
    if live {
        interrupt::catch();
    }
    while session.step(decider.as_mut(), &mut clock, &interrupt::requested) {
        if live {
            save(&session)?;
        }
    }
    if interrupt::requested() {
        session.cancel(interrupt::REASON);
    }
    save(&session)?;
    let run = session.run();

    let text = match args.format {
        OutputFormat::Json => json_line(run)?,
        OutputFormat::Table => table(run),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)?;
    out.flush().map_err(Failure::output)?;
    ended(run, recorded.as_ref(), args.record.is_some())
}

/// How the command ends: a whole run, a replay that stopped where its partial recording did
/// (a note), or a failure: Ctrl-C, the service, or a replay that did not match.
fn ended(run: &Run, recorded: Option<&RunFile>, recording: bool) -> Result<(), Failure> {
    let Some(error) = &run.error else {
        return Ok(());
    };
    if let Some(file) = recorded {
        if file.stopped_because().as_ref() == Some(&error.message) {
            let _ = writeln!(
                std::io::stderr(),
                "routelens: the recording is partial ({}); the replay reproduced it up to there",
                error.message
            );
            return Ok(());
        }
    }
    if error.message == interrupt::REASON {
        let kept = if recording {
            "; the run file keeps it, marked partial"
        } else {
            ""
        };
        return Err(Failure::Interrupted(format!(
            "{} after {} call{}{kept}",
            error.message,
            run.calls,
            if run.calls == 1 { "" } else { "s" }
        )));
    }
    Err(Failure::Routing {
        message: error.message.clone(),
        code: if recorded.is_some() {
            EX_DATAERR
        } else {
            EX_UNAVAILABLE
        },
    })
}

/// The ranking, then one line of costs and one of how the run ended.
fn table(run: &Run) -> String {
    let title = format!(
        "route ({}, decider {}, model {}): {} path{}",
        run.strategy.name(),
        run.decider,
        run.model,
        run.paths.len(),
        if run.paths.len() == 1 { "" } else { "s" }
    );
    let mut table = Table::new(&title, &["rank", "path"]);
    for (rank, path) in run.paths.iter().enumerate() {
        table
            .rows
            .push(vec![Cell::count(rank + 1), Cell::text(path)]);
    }
    let mut text = text_table(&table);
    text += &format!(
        "calls {}, retries {}, input tokens {}, output tokens {}, cost ${:.6}, menus {}\n",
        run.calls,
        run.retries,
        run.input_tokens,
        run.output_tokens,
        run.cost_usd,
        run.menus.len()
    );
    text += &format!(
        "elapsed {} ms, of which decider {} ms\n",
        run.elapsed_ms, run.decider_ms
    );
    if run.truncated {
        let cap = run
            .stopped_by
            .map(|cap| format!("{cap:?}").to_lowercase())
            .unwrap_or_default();
        text += &format!("truncated by the {cap} cap\n");
    }
    if let Some(error) = &run.error {
        text += &format!("failed: {} (the ranking above is partial)\n", error.message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use routelens_engine::remote::route::{Cap, RunError};
    use routelens_engine::Error;

    #[test]
    fn the_table_says_how_the_run_ended() {
        let run = Run {
            paths: vec!["a.rs".into()],
            calls: 2,
            truncated: true,
            stopped_by: Some(Cap::Calls),
            error: Some(RunError {
                status: Some(500),
                message: "500 server error (x)".into(),
            }),
            ..Run::default()
        };
        let text = table(&run);
        assert!(text.contains("truncated by the calls cap"), "{text}");
        assert!(text.contains("failed: 500 server error (x)"), "{text}");
        assert!(text.contains("1  a.rs"), "{text}");
    }

    #[test]
    fn engine_errors_keep_their_names() {
        let failure = Failure::from(Error::setting("max_files", 0, "1 or more"));
        assert!(failure.to_string().contains("max_files"));
    }
}
