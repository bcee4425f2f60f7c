#!/usr/bin/env bash
# Runs the project's tests: `bash scripts/test.sh` runs every step (what .ci/run runs);
# `bash scripts/test.sh lint native` runs only the steps named. Set-up always runs first (quiet
# when everything is installed). Exits non-zero on the first failure; either way it ends with each
# step's wall time.
#
#   lint    cargo fmt; clippy over every native target (compiled once, shared with `native`, see
#           below) and over the app and its live worker for wasm32; the import picture of every
#           crate (scripts/imports.py: no circles, the engine's layers, the app's views) and its
#           own test; every relative link of the docs (scripts/doc-links.py) and its own test
#   native  the engine's and the CLI's tests
#   wasm    the engine's native/wasm parity tests in headless Chromium (one wasm test binary)
#   sdk     the decision-API protocol stub against the official typesafe-sdk (Python), the
#           ranking metrics against ir_measures (Python) on generated runs and qrels, the
#           labellers' agreement against scikit-learn and krippendorff (Python), and the
#           CodeNib bootstrap's reference values against numpy (Python)
#   e2e     the release app (what scripts/run.sh serves), its first-load budget
#           (scripts/first-load.py) and the browser end-to-end tests
#
# Native builds run clippy as the workspace's compiler (RUSTC_WORKSPACE_WRAPPER=clippy-driver):
# clippy-driver is rustc with the lints added, so `lint` compiles every native target once, with
# the lints denied, and `native`, `sdk` and `e2e` reuse those artifacts instead of compiling the
# workspace a second time in check mode. CLIPPY_ARGS is clippy-driver's argument channel (what
# `cargo clippy -- -D warnings` sets).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

all_steps=(lint native wasm sdk e2e)
if [ "$#" -eq 0 ]; then
  steps=("${all_steps[@]}")
else
  steps=("$@")
  for name in "${steps[@]}"; do
    case " ${all_steps[*]} " in
      *" $name "*) ;;
      *)
        printf 'test.sh: no step named %s (steps: %s)\n' "$name" "${all_steps[*]}" >&2
        exit 64
        ;;
    esac
  done
fi

# A test whose input (the paper's archive, the cl100k rank table, the built app) is missing fails
# here instead of skipping.
export ROUTELENS_REQUIRE_FIXTURES=1

RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)"
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

timings=()
started_all=$SECONDS
current=""
report() {
  local status=$?
  [ -z "$current" ] || timings+=("$(printf '%-8s %6ss (failed)' "$current" "$((SECONDS - current_started))")")
  printf '\n==> step times (wall clock)\n'
  for row in "${timings[@]}"; do printf '%s\n' "$row"; done
  printf '%-8s %6ss%s\n' total "$((SECONDS - started_all))" "$([ "$status" -eq 0 ] || printf ' (failed)')"
}
trap report EXIT

# run_step NAME: runs step_NAME and records its wall time. Not called in a condition, so that
# `set -e` still stops the script at the step's first failing command (report then names it).
run_step() {
  current="$1"
  current_started=$SECONDS
  printf '\n==> %s\n' "$1"
  "step_$1"
  timings+=("$(printf '%-8s %6ss' "$1" "$((SECONDS - current_started))")")
  current=""
}

step_setup() { bash scripts/setup.sh; }

step_lint() {
  cargo fmt --all -- --check
  test_build_cli
  # The import picture (ARCHITECTURE.md): no circles, engine imports only downward, no view
  # reaching into another; and every relative link of the README, ARCHITECTURE and docs/.
  python3 scripts/imports_test.py
  python3 scripts/imports.py
  python3 scripts/doc-links-test.py
  python3 scripts/doc-links.py
  # The app is compiled for wasm32 only (by Trunk, without the wrapper): check it apart.
  RUSTC_WORKSPACE_WRAPPER='' cargo clippy --quiet -p routelens-app -p routelens-worker -p routelens-rounds \
    --target wasm32-unknown-unknown -- -D warnings
}

step_native() { cargo test --workspace; }

step_wasm() {
  (
    cd engine
    export CHROMEDRIVER=/usr/bin/chromedriver
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
    export WASM_BINDGEN_TEST_TIMEOUT=180
    # The study, lexical and pack parity in one binary: `embedded-cl100k` gives the packer the
    # real cl100k_base counter (tiktoken-rs's compiled-in vocabulary) without the rank-table file.
    RUSTC_WORKSPACE_WRAPPER='' cargo test --target wasm32-unknown-unknown \
      --features lexical,embedded-cl100k --test parity
  )
}

# The debug CLI that the test build links (target/debug/routelens): built by `cargo test`, whose
# dependency features (dev-dependencies included) differ from a plain `cargo build -p routelens`,
# so building it that way would compile tantivy and the rest a second time.
test_build_cli() { cargo test --quiet --workspace --all-targets --no-run; }

step_sdk() {
  test_build_cli
  ROUTELENS_BIN=target/debug/routelens bash tests/typesafe_sdk/run.sh
  ROUTELENS_BIN=target/debug/routelens bash tests/ir_measures/run.sh
  ROUTELENS_BIN=target/debug/routelens bash tests/agreement/run.sh
  bash tests/numpy_bootstrap/run.sh
}

step_e2e() {
  # The same release build that scripts/run.sh serves, so a machine that ran it builds nothing here.
  RUSTC_WORKSPACE_WRAPPER='' trunk build --quiet index.html --release
  # The study views' first load stays within its budget, and never includes the live worker.
  python3 scripts/first-load.py dist
  test_build_cli
  (cd tests/e2e && node --test)
}

run_step setup
for name in "${steps[@]}"; do
  run_step "$name"
done
