#!/usr/bin/env bash
# Checks routelens' System One protocol stub (and the requests routelens sends) against the official
# Python SDK, typesafe-sdk from PyPI. Installs the SDK into a virtual environment under
# target/typesafe-sdk-venv the first time (quiet when it is already there), builds the CLI (unless
# $ROUTELENS_BIN names one), and runs check.py. Usage: bash tests/typesafe_sdk/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SDK_VERSION="0.7.5"
VENV="target/typesafe-sdk-venv"
source tests/python_venv.sh
python_venv "$VENV" typesafe-sdk "$SDK_VERSION"
# $ROUTELENS_BIN: a CLI already built (scripts/test.sh passes the one its test build made, so
# nothing is compiled twice); else the debug CLI is built here.
cli="${ROUTELENS_BIN:-}"
if [ -z "$cli" ]; then
    cargo build --quiet -p routelens
    cli=target/debug/routelens
fi
"$VENV/bin/python" tests/typesafe_sdk/check.py "$cli" bundler/tests/fixtures/repo.bundle
