#!/usr/bin/env bash
# Sets up what is missing, builds the app (release) and the `routelens` CLI, and serves the app on
# 127.0.0.1 (port $PORT, default 8080). When ../shared/data/fastindex exists beside the checkout,
# the server mounts it and the paper's study opens from there. The demo bundle is built (or found
# up to date) in target/bundles/demo and served at /bundles/demo/. Before serving it prints each
# step's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

timings=()
started_all=$SECONDS
timed() {
  local name="$1" started=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%-8s %6ss' "$name" "$((SECONDS - started))")")
}

timed setup bash scripts/setup.sh
timed app trunk build --quiet index.html --release
timed cli cargo build --quiet --release -p routelens
# The demo bundle (this repository and its pinned crates, with its question set); skipped when
# it is up to date.
timed demo target/release/routelens demo --out target/bundles/demo

printf '\n==> step times (wall clock)\n' >&2
printf '%s\n' "${timings[@]}" >&2
printf '%-8s %6ss\n' total "$((SECONDS - started_all))" >&2
exec target/release/routelens serve --dist dist --data ../shared/data/fastindex \
  --bundles target/bundles --port "${PORT:-8080}"
