#!/usr/bin/env bash
# Times the whole re-score of the paper's study (every arm x 82 issues x k = 1..16, plus the four
# paired 10,000-resample cluster bootstraps) in the engine, with criterion, and in plain Python
# (bench/rescore.py), then prints both and the speed-up. Needs the archive at
# ../shared/data/fastindex beside the checkout, or $ROUTELENS_FASTINDEX.
#
#   bash bench/run.sh            # full criterion run and 5 Python runs
#   PY_RUNS=9 bash bench/run.sh  # more Python runs
#
# Raw outputs are kept in bench/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
mkdir -p bench/out

echo "==> cargo bench -p routelens-engine --bench rescore (release build, then criterion)" >&2
cargo bench -p routelens-engine --bench rescore -- rescore_everything 2>&1 |
  tee bench/out/criterion.txt

echo "==> python3 bench/rescore.py" >&2
python3 bench/rescore.py --runs "${PY_RUNS:-5}" | tee bench/out/python.txt

python3 - bench/out/criterion.txt bench/out/python.txt <<'EOF'
"""Reads criterion's estimate for rescore_everything and the Python median; prints the ratio."""
import re
import sys

criterion_text, python_text = (open(path, encoding="utf-8").read() for path in sys.argv[1:3])
# Criterion colours its output on a terminal; tee may keep the escapes.
criterion_text = re.sub(r"\x1b\[[0-9;]*m", "", criterion_text)
UNITS = {"ps": 1e-9, "ns": 1e-6, "us": 1e-3, "µs": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3}

# The bench's name line, then (same or a later line) `time:   [low unit mid unit high unit]`.
start = criterion_text.find("rescore_everything")
match = start >= 0 and re.search(
    r"time:\s*\[\s*([\d.]+)\s*(\S+)\s+([\d.]+)\s*(\S+)\s+([\d.]+)\s*(\S+)\s*\]",
    criterion_text[start:],
)
if not match:
    sys.exit("bench/run.sh: no `time: [...]` estimate for rescore_everything in criterion's output")
low, mid, high = (float(match.group(i)) * UNITS[match.group(i + 1)] for i in (1, 3, 5))

python = re.search(r"^python_ms=([\d.]+)\s*$", python_text, re.MULTILINE)
if not python:
    sys.exit("bench/run.sh: no python_ms= line in bench/rescore.py's output")
python_ms = float(python.group(1))

print()
print(f"rust_ms={mid:.3f}  (criterion estimate [{low:.3f} {mid:.3f} {high:.3f}] ms)")
print(f"python_ms={python_ms:.3f}  (median of bench/rescore.py runs)")
print(f"speedup={python_ms / mid:.1f}x  (target: at least 50x)")
EOF
