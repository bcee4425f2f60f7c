#!/usr/bin/env python3
"""Runs the live lexical arms on the paper's own snapshots and compares them with the archive.

For every issue text in --texts (files named `<case id>.txt`, as in
`../shared/data/fastindex-texts/`), the script looks the case up in the archive's ledger
(repository and base commit), checks the text's SHA-256 against the case's `query_sha256`, builds a
bundle of --repo at the base commit with `routelens bundle --commit` (the default `paper` policy
unless --bundle-args says otherwise), and runs `routelens search` with the `fts5`, `fts5-full`,
`path-fts5`, `rg`, `rg-first500` and `rg-feedback` arms. Per case and arm it prints the bundle's
file count against the archive's `file_count`, how many of the archived top 16 the live top 16
holds at the same rank, and the first rank where they differ.

Usage:
    python3 bench/live_vs_archive.py --repo /path/to/sympy --routelens target/debug/routelens \\
        [--archive ../shared/data/fastindex/paper/data] [--texts ../shared/data/fastindex-texts] \\
        [--bundle-args "--no-positions"]

The repository is read with git at each base commit; nothing is fetched. Exit status: 0 when every
list and every file count equals the archive's, 1 otherwise, 2 on bad input.
"""

import argparse
import hashlib
import json
import pathlib
import shlex
import subprocess
import sys
import tempfile

ARMS = {
    "fts5": ("contextbench-paper-fts5.json", "first500"),
    "fts5-full": ("contextbench-paper-fts5.json", "full"),
    "path-fts5": ("contextbench-paper-path-fts5.json", None),
    "rg": ("contextbench-paper-rg.json", "full"),
    "rg-first500": ("contextbench-paper-rg.json", "first500"),
    "rg-feedback": ("contextbench-paper-rg-feedback.json", None),
}


def fail(message):
    print(f"live_vs_archive: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        fail(f"{path}: {error}")


def archived_rankings(archive):
    """(arm, case id) -> the archived result row."""
    rows = {}
    for arm, (name, mode) in ARMS.items():
        for row in load_json(archive / name)["results"]:
            if mode is None or row.get("query_mode") == mode:
                rows[(arm, row["id"])] = row
    return rows


def ledger_cases(archive):
    ledger = load_json(archive / "contextbench-case-ledger.json")
    cases = ledger["cases"] if isinstance(ledger, dict) else ledger
    return {case["id"]: case for case in cases}


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def main():
    here = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True, type=pathlib.Path)
    parser.add_argument("--routelens", required=True)
    parser.add_argument("--archive", type=pathlib.Path,
                        default=here / "../shared/data/fastindex/paper/data")
    parser.add_argument("--texts", type=pathlib.Path,
                        default=here / "../shared/data/fastindex-texts")
    parser.add_argument("--bundle-args", default="")
    args = parser.parse_args()

    rankings = archived_rankings(args.archive)
    cases = ledger_cases(args.archive)
    texts = sorted(args.texts.glob("*.txt"))
    if not texts:
        fail(f"{args.texts}: no <case id>.txt files")
    all_equal = True
    print("| case | arm | files (live / archive) | same rank | first difference |")
    print("| --- | --- | --- | ---: | --- |")
    with tempfile.TemporaryDirectory() as temp:
        for text in texts:
            case_id = text.stem
            case = cases.get(case_id) or fail(f"{text}: case {case_id} is not in the ledger")
            digest = hashlib.sha256(text.read_bytes()).hexdigest()
            if digest != case.get("query_sha256"):
                fail(f"{text}: SHA-256 {digest} is not the ledger's query_sha256")
            bundle = pathlib.Path(temp) / case_id
            run([args.routelens, "bundle", str(args.repo), "--commit", case["base_commit"],
                 "--out", str(bundle), *shlex.split(args.bundle_args)])
            manifest = load_json(bundle / "manifest.json")
            # Format 6 lists its files apart and gives their count with the list.
            listed = manifest.get("file_list")
            files = listed["count"] if listed else len(manifest["files"])
            for arm in ARMS:
                row = rankings.get((arm, case_id)) or fail(f"{case_id}: no archived {arm} row")
                found = json.loads(run([args.routelens, "search", str(bundle), "--arm", arm,
                                        "--query-file", str(text), "--format", "json"]))
                live = [hit["path"] for hit in found["results"]]
                archived = row["paths"]
                same = sum(1 for a, b in zip(live, archived) if a == b)
                differs = next((rank for rank, (a, b) in enumerate(zip(live, archived), 1)
                                if a != b), None)
                if differs is None and len(live) != len(archived):
                    differs = min(len(live), len(archived)) + 1
                equal = differs is None and files == row["file_count"]
                all_equal &= equal
                print(f"| {case_id} | {arm} | {files} / {row['file_count']} | "
                      f"{same} of {len(archived)} | {'none' if differs is None else differs} |")
    sys.exit(0 if all_equal else 1)


if __name__ == "__main__":
    main()
