#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing (scripts/setup.sh),
# checks formatting and lints, runs the engine and CLI tests natively, the native/wasm parity test
# in headless Chromium, checks the decision-API stub against the official Python SDK, builds the
# app, and runs the browser end-to-end tests against
# `routelens serve`. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n==> %s\n' "$*"; }

step "setup"
bash scripts/setup.sh

step "format and lints"
cargo fmt --all -- --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet -p routelens-app --target wasm32-unknown-unknown -- -D warnings

step "engine and CLI tests (native)"
cargo test --workspace

step "native/wasm parity (headless Chromium)"
bash scripts/test-wasm.sh

step "build the app and the CLI"
trunk build index.html
cargo build --quiet -p routelens

step "the protocol stub against the official typesafe-sdk (Python)"
bash tests/typesafe_sdk/run.sh

step "browser end-to-end tests (headless Chromium)"
(cd tests/e2e && node --test)
