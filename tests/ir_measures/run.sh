#!/usr/bin/env bash
# Checks routelens' ranking metrics against ir_measures from PyPI on generated runs and qrels.
# Installs ir_measures into a virtual environment under target/ir-measures-venv the first time
# (quiet when it is already there), builds the CLI (unless $ROUTELENS_BIN names one), and runs
# check.py. Usage: bash tests/ir_measures/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
IR_MEASURES_VERSION="0.3.1"
VENV="target/ir-measures-venv"
source tests/python_venv.sh
python_venv "$VENV" ir_measures "$IR_MEASURES_VERSION"
cli="${ROUTELENS_BIN:-}"
if [ -z "$cli" ]; then
    cargo build --quiet -p routelens
    cli=target/debug/routelens
fi
"$VENV/bin/python" tests/ir_measures/check.py "$cli"
