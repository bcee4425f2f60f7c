#!/usr/bin/env bash
# Runs the engine's native/wasm parity tests (study, lexical, pack) in headless Debian Chromium via wasm-bindgen-test.
# Chromium's flags (root needs --no-sandbox; the closed network needs the background flags) are in
# engine/webdriver.json, which wasm-bindgen-test-runner reads from the package folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export WASM_BINDGEN_TEST_TIMEOUT=180
cd engine
cargo test --target wasm32-unknown-unknown --test parity
cargo test --target wasm32-unknown-unknown --features lexical --test lexical_parity
# The selector and packer, with the real cl100k_base counter: tiktoken-rs's compiled-in
# vocabulary (the rank-table file stays out of the repository).
cargo test --target wasm32-unknown-unknown --features embedded-cl100k --test pack_parity
