#!/usr/bin/env bash
# Re-checks the numpy outputs that engine/tests/numpy_bootstrap.rs holds the numpy bootstrap port
# to: installs numpy into a virtual environment under target/numpy-venv the first time (quiet when
# it is already there), runs reference.py and compares its output with the committed
# reference.json. Exits non-zero, showing the diff, when numpy disagrees with the file.
# Usage: bash tests/numpy_bootstrap/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# The version reference.json was written with (it records it as "numpy_version").
NUMPY_VERSION="2.4.6"
VENV="target/numpy-venv"
source tests/python_venv.sh
python_venv "$VENV" numpy "$NUMPY_VERSION"
fresh="$(mktemp)"
trap 'rm -f "$fresh"' EXIT
"$VENV/bin/python" tests/numpy_bootstrap/reference.py >"$fresh"
if ! diff -u tests/numpy_bootstrap/reference.json "$fresh"; then
    echo "numpy $NUMPY_VERSION disagrees with tests/numpy_bootstrap/reference.json (diff above)" >&2
    exit 1
fi
echo "numpy $NUMPY_VERSION agrees with tests/numpy_bootstrap/reference.json"
