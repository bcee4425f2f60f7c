//! Ctrl-C during a long remote run (`route`, `rerank`): the first stops the run after the call in
//! flight, so its run file is written, marked partial, and replays; a second quits at once.
//!
//! Without this the default SIGINT kills the process and a run's file is lost. The flag is only
//! read between calls: a call in flight is bounded by `--timeout-ms`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::failure::EX_INTERRUPTED;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// What a run stopped by Ctrl-C records as its reason.
pub const REASON: &str = "interrupted by Ctrl-C";

/// Catches Ctrl-C (SIGINT) from now on; other signals keep their default (a kill still leaves
/// the run file as of the last call, partial). A handler that cannot be installed (one
/// already is) leaves the default behaviour, said on standard error.
pub fn catch() {
    let installed = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(EX_INTERRUPTED));
        }
        let _ = writeln!(
            std::io::stderr(),
            "routelens: {REASON}: stopping after the call in flight and keeping the run file \
             (Ctrl-C again quits now)"
        );
    });
    if let Err(err) = installed {
        let _ = writeln!(
            std::io::stderr(),
            "routelens: Ctrl-C will not keep a partial run file: {err}"
        );
    }
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
