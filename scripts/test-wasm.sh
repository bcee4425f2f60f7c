#!/usr/bin/env bash
# Runs the engine's native/wasm parity test in headless Debian Chromium via wasm-bindgen-test.
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
