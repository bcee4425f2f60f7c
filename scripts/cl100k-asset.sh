#!/usr/bin/env bash
# Copies cl100k_base.tiktoken (the rank table the Context view fetches on its first pack) into
# Trunk's staging folder, so it is served beside the app at /cl100k_base.tiktoken without being
# committed. Trunk runs this as a post_build hook (Trunk.toml) with TRUNK_STAGING_DIR set.
#
# The file is found where engine/tests/rank_table/mod.rs finds it: $ROUTELENS_CL100K_TIKTOKEN if
# set, else assets/cl100k_base.tiktoken of a tiktoken-rs source folder that cargo unpacked under
# $CARGO_HOME/registry/src/*/ (building the engine unpacks it). The app checks its SHA-256.
set -euo pipefail
out="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
src="${ROUTELENS_CL100K_TIKTOKEN:-}"
if [ -z "$src" ]; then
  src="$(ls -1d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets/cl100k_base.tiktoken 2>/dev/null | sort | tail -n 1 || true)"
fi
if [ -z "$src" ] || [ ! -f "$src" ]; then
  echo "cl100k-asset: no cl100k_base.tiktoken in the cargo registry's tiktoken-rs sources (set ROUTELENS_CL100K_TIKTOKEN); the Context view will say the rank table is missing" >&2
  exit 0
fi
cp "$src" "$out/cl100k_base.tiktoken"
