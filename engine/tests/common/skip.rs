//! How an integration test whose input is missing says so: it skips visibly, or fails where the
//! input is required.
#![allow(clippy::print_stderr)] // A skipped test must say why on the test output.

/// `None` with the reason printed, so that the caller can skip visibly; a panic instead when
/// `ROUTELENS_REQUIRE_FIXTURES=1` (the test command and CI set it), so that a missing input can
/// never pass as a skipped test there.
pub fn skip<T>(reason: &str) -> Option<T> {
    if std::env::var_os("ROUTELENS_REQUIRE_FIXTURES").is_some_and(|value| value == "1") {
        panic!("missing fixture: {reason} (ROUTELENS_REQUIRE_FIXTURES=1 makes this a failure)");
    }
    eprintln!("SKIPPED: {reason}");
    None
}
