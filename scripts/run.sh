#!/usr/bin/env bash
# Sets up what is missing, builds the app (release) and the `routelens` CLI, and serves the app on
# 127.0.0.1 (port $PORT, default 8080). When ../shared/data/fastindex exists beside the checkout,
# the server mounts it and the paper's study opens from there. The demo bundle is built (or found
# up to date) in target/bundles/demo and served at /bundles/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
trunk build index.html --release
cargo build --quiet --release -p routelens
# The demo bundle (this repository and its pinned crates, with its question set); skipped when
# it is up to date.
target/release/routelens demo --out target/bundles/demo
exec target/release/routelens serve --dist dist --data ../shared/data/fastindex \
  --bundles target/bundles --port "${PORT:-8080}"
