//! Command-line regression tests, kept as data (as typos does): each `tests/cmd/<case>.toml` names
//! the arguments and exit code, `<case>.stdout` / `<case>.stderr` hold the exact output, and the
//! commands run in `tests/fixtures/`, the small hand-written studies and repositories (cases that
//! write, `bundle` and `demo`, run in a sandbox copy of it). `tests/cmd/<case>.trycmd` files hold
//! several read-only commands each with their output, run from the package folder. Regenerate the
//! expected output after an intended change with
//! `TRYCMD=overwrite cargo test -p routelens --test cli_tests`, then read the diff (and restore
//! the `[..]` that stand for times).

#[test]
fn cli_tests() {
    trycmd::TestCases::new()
        .case("tests/cmd/*.toml")
        .case("tests/cmd/*.trycmd");
}
