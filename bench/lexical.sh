#!/usr/bin/env bash
# The lexical benchmark, in one run on the demo corpus (this repository and the crates of
# bundler/demo/crates.txt, as `routelens demo` bundles them):
#
#   - bundle build time (read, index, compress, hash, write) against the SQLite FTS5 index build,
#     in interleaved rounds (bench/build_compare.py): FTS5 inserting the files from memory, and
#     FTS5 as the paper timed it (connect, read the files from disk, insert, count);
#   - query p50/p95 of the fts5 arm natively (`routelens search --queries`, the arm's own time)
#     against FTS5's query (execute + fetch in Python's sqlite3), 70 queries × 5 runs each;
#   - bundle bytes against raw source bytes;
#   - bytes fetched before the first result (manifest + index blob, no chunk) as a fraction of
#     the bundle;
#   - and the fts5 top-8 overlap with FTS5's `bm25(files, 2.0, 1.0), path` (bench/fts5_compare.py).
#
#   bash bench/lexical.sh              # release build (LTO: several minutes the first time)
#   PROFILE=dev bash bench/lexical.sh  # the debug binary, for a quick look
#
# Raw outputs go to bench/out/ (git-ignored); the summary is printed and kept in
# bench/out/lexical.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
mkdir -p bench/out
profile="${PROFILE:-release}"
if [ "$profile" = release ]; then
  cargo build --quiet --release -p routelens
  bin=target/release/routelens
else
  cargo build --quiet -p routelens
  bin=target/debug/routelens
fi
bundle=bench/out/demo-bundle

echo "==> $bin demo --force" >&2
"$bin" demo --out "$bundle" --force --format json > bench/out/demo-build.json

echo "==> python3 bench/build_compare.py (${ROUNDS:-9} interleaved rounds)" >&2
python3 bench/build_compare.py --bundle "$bundle" --routelens "$bin" \
  --out bench/out/demo-rebuild --rounds "${ROUNDS:-9}" --json bench/out/build.json

echo "==> python3 bench/fts5_compare.py --bench" >&2
python3 bench/fts5_compare.py --bundle "$bundle" --routelens "$bin" \
  --questions bundler/demo/questions.jsonl --derived 40 --bench --repeat 5 \
  --json bench/out/fts5.json --quiet

python3 - "$bin" <<'PY' | tee bench/out/lexical.txt
"""Prints the benchmark's summary from bench/out/demo-build.json, build.json and fts5.json."""
import json
import sys

last = json.load(open("bench/out/demo-build.json"))["bundle"]
build = json.load(open("bench/out/build.json"))
fts5 = json.load(open("bench/out/fts5.json"))
rounds = len(build["rounds"])
sizes = fts5["sizes"]
first = sizes["manifest"] + sizes["index"]
ours, theirs = fts5["routelens_query_ms"], fts5["fts5_query_ms"]
rows = [
    ("corpus", f"{fts5['files']} files, {last['raw_bytes']:,} raw bytes ({sys.argv[1]})"),
    (f"bundle build (median of {rounds} rounds)",
     f"{build['routelens_ms']:.0f} ms, of which index {build['routelens_index_ms']:.0f} ms"),
    ("SQLite FTS5 build, insert only", f"{build['fts5_insert_ms']:.0f} ms  "
     f"(bundle/FTS5, median per-round ratio {build['ratio_to_fts5_insert']:.2f}x)"),
    ("SQLite FTS5 build as the paper timed it", f"{build['fts5_paper_ms']:.0f} ms  "
     f"(bundle/FTS5, median per-round ratio {build['ratio_to_fts5_paper']:.2f}x)"),
    ("fts5 query, routelens native", f"p50 {ours['p50']:.3f} ms, p95 {ours['p95']:.3f} ms"),
    ("fts5 query, SQLite FTS5", f"p50 {theirs['p50']:.3f} ms, p95 {theirs['p95']:.3f} ms  "
     f"(routelens/FTS5 p50 {ours['p50'] / theirs['p50']:.2f}x)"),
    ("bundle bytes", f"{last['bundle_bytes']:,} = {last['bundle_bytes'] / last['raw_bytes']:.3f} of raw "
     f"(manifest {sizes['manifest']:,}, chunks {sizes['chunks']:,}, index {sizes['index']:,})"),
    ("bytes before the first result", f"{first:,} (manifest + index) = "
     f"{first / last['bundle_bytes']:.3f} of the bundle"),
    ("fts5 top-8 overlap with FTS5", f"{fts5['mean_overlap']:.3f} over {fts5['queries']} queries "
     f"({fts5['identical_top_k']} identical; {fts5['mean_overlap_fts5_phrases_split']:.3f} against FTS5 "
     f"with phrases split; causes {fts5['causes']})"),
]
width = max(len(name) for name, _ in rows)
for name, value in rows:
    print(f"{name:<{width}}  {value}")
PY
