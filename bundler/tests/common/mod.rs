//! Shared by the CLI's integration tests: finding the inputs beside the checkout that are never
//! copied into it (the paper's archive, CodeNib's per-issue results).
#![allow(dead_code)] // Each test binary uses part of it.
#![allow(clippy::print_stderr)] // A skipped test must say why on the test output.

use std::path::PathBuf;

/// `$<var>`, else `../shared/data/<folder>` beside the checkout, when `<marker>` is a file in it.
/// Otherwise the test skips, saying so, or fails under ROUTELENS_REQUIRE_FIXTURES=1 (the test
/// command and CI set it, so a missing input is a failure there).
fn shared_data(var: &str, folder: &str, marker: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data")
            .join(folder)
    });
    if dir.join(marker).is_file() {
        return Some(dir);
    }
    let reason = format!("{what} is not at {} (set {var})", dir.display());
    if std::env::var_os("ROUTELENS_REQUIRE_FIXTURES").is_some_and(|value| value == "1") {
        panic!("missing fixture: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
    None
}

/// The paper's archive folder (`$ROUTELENS_FASTINDEX`, or `../shared/data/fastindex`).
pub fn archive_dir() -> Option<PathBuf> {
    shared_data(
        "ROUTELENS_FASTINDEX",
        "fastindex",
        "paper/data/README.md",
        "the paper archive",
    )
}

/// CodeNib's `jev_candidates_cases.csv` (in `$ROUTELENS_CODENIB`, or `../shared/data/codenib`).
pub fn codenib_cases() -> Option<PathBuf> {
    const CASES: &str = "jev_candidates_cases.csv";
    shared_data("ROUTELENS_CODENIB", "codenib", CASES, "CodeNib's results").map(|d| d.join(CASES))
}
