#!/usr/bin/env bash
# Checks `routelens agreement` against the field's references from PyPI: scikit-learn's
# cohen_kappa_score (binary at the cut, and linear-weighted over the grades) and the krippendorff
# package's alpha (nominal and ordinal), on generated label sets with missing judgments and on the
# degenerate ones. Installs both into target/agreement-venv the first time (quiet when they are
# there), builds the CLI unless $ROUTELENS_BIN names one, and runs check.py.
# Usage: bash tests/agreement/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="target/agreement-venv"
source tests/python_venv.sh
python_venv "$VENV" scikit-learn 1.9.1
python_venv "$VENV" krippendorff 0.9.0
cli="${ROUTELENS_BIN:-}"
if [ -z "$cli" ]; then
    cargo build --quiet -p routelens
    cli=target/debug/routelens
fi
"$VENV/bin/python" tests/agreement/check.py "$cli"
