#!/usr/bin/env bash
# Installs everything routelens needs to build, serve and test, on a fresh Debian machine of this
# project's kind. Idempotent: every step checks first and stays quiet when it is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Versions that must agree with the workspace (see Cargo.toml: wasm-bindgen is pinned with `=`).
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >/dev/null
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (several minutes, once)"
  cargo install --quiet --locked trunk --version "$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (several minutes, once)"
  # --locked fails for this version on the registry mirror here (a pinned webpki-roots release is
  # missing), so fall back to an unlocked install of the same exact version.
  cargo install --quiet --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" 2>/dev/null ||
    cargo install --quiet --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if [ ! -d tests/e2e/node_modules/playwright-core ]; then
  say "installing playwright-core for the browser tests (no browser download)"
  (cd tests/e2e && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm install --silent --no-audit --no-fund >/dev/null)
fi
