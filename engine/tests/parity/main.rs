//! Native/wasm32 parity: the same computations, run natively under `cargo test` and in headless
//! Chromium under `wasm-bindgen-test`, must match the same committed fingerprints. One test binary
//! holds every part so that the wasm build compiles and runs once (`scripts/test.sh wasm`):
//!
//! ```text
//! cd engine && CHROMEDRIVER=/usr/bin/chromedriver \
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --features lexical,embedded-cl100k --test parity
//! ```

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The study model: loading, re-scoring, fusion and bootstraps.
mod study;

/// The lexical arms over the golden format-1 bundle.
mod lexical;

/// The line selector and the context packer.
mod pack;
