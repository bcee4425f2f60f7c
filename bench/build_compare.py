#!/usr/bin/env python3
"""Times the bundle build against SQLite FTS5's index build, interleaved, on one bundle's files.

This machine's speed drifts by up to 1.5x within minutes, so builds timed in separate blocks
compare the drift as much as the builds. Here every round runs each build once, back to back,
in alternating order, and the summary gives each build's median and the median of the per-round
ratios.

Per round:

- **routelens**: `routelens demo --out OUT --force --format json`, its own `build_ms.total` (from
  the first file read to the finished folder: reading through the policy, the index, chunk
  compression and hashing, writing) and `build_ms.index`;
- **FTS5, insert only**: the files (already in memory) inserted into an in-memory
  `fts5(path, content, tokenize='unicode61')` table and committed;
- **FTS5 as the paper timed it** (the paper's `evals/contextbench_fts.py`): from opening the
  connection to counting the rows, reading every file of the snapshot from disk on the way. The
  snapshot is the bundle's files written once, untimed, to a temporary folder.

The files are read from the bundle folder (fts5_compare.read_bundle checks every hash), so all
sides build over exactly the same files.

    python3 bench/build_compare.py --bundle B --routelens BIN --out OUT [--rounds 9] [--json F]
"""

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fts5_compare import fail, fts5_build, read_bundle, write_json  # noqa: E402


def write_snapshot(files, root):
    """Writes `(path, text)` pairs under `root`, byte for byte."""
    for path, text in files:
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def read_snapshot(root):
    """Yields `(path, text)` for every file under `root`, as the paper's loader does."""
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            with open(full, "rb") as handle:
                text = handle.read().decode("utf-8")
            yield os.path.relpath(full, root), text


def fts5_build_paper(root):
    """The paper's timed span: connect, create, read and insert every file, count the rows."""
    started = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE files USING fts5(path, content, tokenize='unicode61')")
    db.executemany("INSERT INTO files(path, content) VALUES (?, ?)", read_snapshot(root))
    rows = db.execute("SELECT count(*) FROM files").fetchone()[0]
    build_ms = (time.perf_counter() - started) * 1000
    db.close()
    return rows, build_ms


def routelens_build(binary, out):
    """One forced demo build; returns its `build_ms` object."""
    done = subprocess.run(
        [binary, "demo", "--out", out, "--force", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)["bundle"]["build_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", required=True, help="the bundle folder whose files are used")
    parser.add_argument("--routelens", required=True, help="the routelens binary")
    parser.add_argument("--out", required=True, help="where the timed demo builds are written")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (9)")
    parser.add_argument("--json", help="write the numbers to this file")
    args = parser.parse_args()
    if args.rounds < 1:
        fail("--rounds must be at least 1")

    files, _ = read_bundle(args.bundle)
    snapshot = tempfile.mkdtemp(prefix="routelens-snapshot-")
    try:
        write_snapshot(files, snapshot)
        rounds = []
        for number in range(args.rounds):
            timings = {}

            def run_routelens():
                build = routelens_build(args.routelens, args.out)
                timings["routelens"] = build["total"]
                timings["routelens_index"] = build["index"]

            def run_fts5():
                timings["fts5_insert"] = fts5_build(files)[1]
                rows, timings["fts5_paper"] = fts5_build_paper(snapshot)
                if rows != len(files):
                    fail(f"the snapshot gave {rows} rows for {len(files)} files")

            order = (run_routelens, run_fts5) if number % 2 == 0 else (run_fts5, run_routelens)
            for run in order:
                run()
            rounds.append(timings)
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)

    def median(key):
        return statistics.median(round_[key] for round_ in rounds)

    def ratio(key):
        return statistics.median(round_["routelens"] / round_[key] for round_ in rounds)

    result = {
        "rounds": rounds,
        "routelens_ms": median("routelens"),
        "routelens_index_ms": median("routelens_index"),
        "fts5_insert_ms": median("fts5_insert"),
        "fts5_paper_ms": median("fts5_paper"),
        "ratio_to_fts5_insert": ratio("fts5_insert"),
        "ratio_to_fts5_paper": ratio("fts5_paper"),
    }
    if args.json:
        write_json(args.json, result)
    print(
        f"build, median of {args.rounds} interleaved rounds: routelens {result['routelens_ms']:.0f} ms "
        f"(index {result['routelens_index_ms']:.0f}); FTS5 insert only {result['fts5_insert_ms']:.0f} ms "
        f"(per-round ratio {result['ratio_to_fts5_insert']:.2f}x); FTS5 as the paper timed it "
        f"{result['fts5_paper_ms']:.0f} ms (ratio {result['ratio_to_fts5_paper']:.2f}x)"
    )


if __name__ == "__main__":
    main()
