#!/usr/bin/env python3
"""Compares routelens's `fts5` arm with real SQLite FTS5 on the files of one bundle.

The files are read from the bundle folder itself (manifest.json, then every chunk, raw DEFLATE,
each chunk and each file checked against its SHA-256), so both sides search exactly the same
files; the script also checks that the index blob was built over exactly the manifest's paths
(the blob header's `docs` and `paths_sha256`).

SQLite side, as the paper ran it: an in-memory table `fts5(path, content, tokenize='unicode61')`,
the query an OR of the quoted terms of the first 500 characters, ranked by
`bm25(files, 2.0, 1.0), path`, top k (default 8). The terms are extracted here from the issue's
specification (lower-case, tokens `[a-z0-9_]+`, unique, not in the stop list, longer than two
characters, sorted) and must equal the `terms` that `routelens search --format json` reports for
every query, or the script stops.

routelens side: `routelens search BUNDLE --arm fts5 --queries FILE --k K --format json` (one
process, every query).

Queries: the question set given with --questions (JSON Lines {"id", "question", ...}) plus
--derived N sentences taken from the corpus's own doc comments (`///`, `//!`, `#`-free), picked
with a fixed seed.

Per query, overlap = |ours ∩ FTS5| / max(|ours|, |FTS5|) (1 when both are empty). The script
prints the mean and every query below 1 with its differing paths and the likely cause:

- **phrase**: a term such as `serde_json` is one token for the term extraction but two for
  unicode61, and FTS5 matches it as the phrase "serde json" (adjacent tokens). routelens does
  too from the index's positions; a bundle built with `--no-positions` matches the two tokens
  independently. The script re-runs FTS5 with such terms split into separate OR'ed tokens
  ("FTS5, phrases split"); when that list equals ours, the phrase rule is the whole difference.
- **near-tie**: the scores at the cut-off differ by less than 1e-9 relative, so floating-point
  summation order decides.
- anything else is printed as **other** (and would be a bug worth reading).

With --bench it also times each query (median of --repeat runs after one warm-up), and reads
routelens's query times from the same number of repeated runs of its batch mode (one process; its
`query_ms` covers the arm alone). --json FILE writes every number as one JSON object.

Exit status: 0, or 1 when the mean overlap is below --min-overlap.
"""

import argparse
import hashlib
import json
import os
import random
import re
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib

STOP_WORDS = set(
    """what which when where why how does that this the and from with into are for its use used
    there between about would could should their these those through under after before being
    have been once more than then each such they them also only given specified particular
    framework""".split()
)
TOKEN = re.compile(r"[a-z0-9_]+")
FIRST_CHARS = 500


def extract_terms(text):
    """The shared term extraction, from the issue's specification."""
    tokens = TOKEN.findall(text.lower())
    return sorted({t for t in tokens if len(t) > 2 and t not in STOP_WORDS})


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write_json(path, value):
    """Writes `value` to `path` as indented JSON."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=2)
        handle.write("\n")


def fail(message):
    sys.exit(f"fts5_compare: {message}")


def leb128(data, at):
    """An unsigned LEB128 integer at `at`: (value, next position)."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def read_file_list(folder, entry):
    """Format 6's file list (files/<sha256>.deflate): [(path, bytes, lines)], verified."""
    with open(os.path.join(folder, entry["file"]), "rb") as handle:
        stored = handle.read()
    if sha256(stored) != entry["sha256"]:
        fail(f"{folder}/{entry['file']}: SHA-256 mismatch")
    raw = zlib.decompressobj(-15).decompress(stored)
    if raw[:8] != b"RLFILES1":
        fail(f"{folder}/{entry['file']}: not a file list")
    count, at = leb128(raw, 8)
    listed, path = [], b""
    for _ in range(count):
        shared, at = leb128(raw, at)
        length, at = leb128(raw, at)
        path = path[:shared] + raw[at : at + length]
        at += length
        size, at = leb128(raw, at)
        lines, at = leb128(raw, at)
        listed.append((path.decode("utf-8"), size, lines))
    if count != entry["count"] or at != len(raw):
        fail(f"{folder}/{entry['file']}: {count} files, the manifest says {entry['count']}")
    return listed


def read_bundle(folder):
    """Every file of the bundle as (path, text), in manifest order, verified."""
    with open(os.path.join(folder, "manifest.json"), "rb") as handle:
        manifest_bytes = handle.read()
    manifest = json.loads(manifest_bytes)
    if manifest.get("format_version") not in (1, 2, 3, 4, 5, 6):
        fail(f"{folder}: bundle format {manifest.get('format_version')}, this script reads 1 to 6")
    chunks = []
    for chunk in manifest["chunks"]:
        with open(os.path.join(folder, chunk["file"]), "rb") as handle:
            stored = handle.read()
        if sha256(stored) != chunk["sha256"]:
            fail(f"{folder}/{chunk['file']}: SHA-256 mismatch")
        raw = zlib.decompressobj(-15).decompress(stored)
        if len(raw) != chunk["raw_bytes"]:
            fail(f"{folder}/{chunk['file']}: {len(raw)} bytes, the manifest says {chunk['raw_bytes']}")
        chunks.append(raw)
    # Format 6 lists its files apart, each file's SHA-256 in its chunk's header, and their places
    # follow from the chunks' file counts and the sizes.
    if "file_list" in manifest:
        entries, listed = [], iter(read_file_list(folder, manifest["file_list"]))
        for at, chunk in enumerate(manifest["chunks"]):
            raw = chunks[at]
            if raw[:8] != b"RLCHUNK1" or struct.unpack("<I", raw[8:12])[0] != chunk["files"]:
                fail(f"{folder}/{chunk['file']}: not a format-6 chunk of {chunk['files']} files")
            offset = 12 + 32 * chunk["files"]
            for slot in range(chunk["files"]):
                path, size, _ = next(listed)
                digest = raw[12 + 32 * slot : 44 + 32 * slot].hex()
                entries.append({"path": path, "chunk": at, "offset": offset, "bytes": size,
                                "sha256": digest})
                offset += size
    else:
        entries = manifest["files"]
    files = []
    for entry in entries:
        data = chunks[entry["chunk"]][entry["offset"] : entry["offset"] + entry["bytes"]]
        if sha256(data) != entry["sha256"]:
            fail(f"{folder}: {entry['path']}: SHA-256 mismatch")
        files.append((entry["path"], data.decode("utf-8")))
    paths = [path for path, _ in files]
    assert len(set(paths)) == len(paths)
    # Format 5 names a split index's base file, which routelens checks against these paths when
    # it opens it; a whole index blob's header is checked here.
    index = manifest.get("split_index") or manifest.get("index")
    if not index:
        fail(f"{folder}: the bundle has no index")
    with open(os.path.join(folder, index["file"]), "rb") as handle:
        stored = handle.read()
    if sha256(stored) != index["sha256"]:
        fail(f"{folder}/{index['file']}: SHA-256 mismatch")
    if "split_index" not in manifest:
        # Format 2 stores the blob DEFLATE-compressed and gives its raw size.
        blob = stored if index.get("raw_bytes") is None else zlib.decompressobj(-15).decompress(stored)
        if blob[:8] != b"RLTNTV01":
            fail(f"{folder}/{index['file']}: not an index blob")
        (header_len,) = struct.unpack("<I", blob[8:12])
        header = json.loads(blob[12 : 12 + header_len])
        # The same file set on both sides: the index was built over exactly these paths.
        assert header["docs"] == len(paths), (header["docs"], len(paths))
        assert header["paths_sha256"] == sha256("\n".join(paths).encode()), "index paths differ"
    sizes = {
        "manifest": len(manifest_bytes),
        "index": len(stored),
        "chunks": sum(chunk["bytes"] for chunk in manifest["chunks"]),
        "raw": sum(entry["bytes"] for entry in entries),
    }
    return files, sizes


def derived_queries(files, count, seed=0):
    """Sentences from the corpus's doc comments: consecutive `///` or `//!` lines joined."""
    candidates = []
    for path, text in files:
        if not path.endswith(".rs"):
            continue
        block = []
        for line in text.splitlines() + [""]:
            stripped = line.strip()
            if stripped.startswith("///") or stripped.startswith("//!"):
                body = stripped[3:].strip()
                if body and not body.startswith(("```", "#", "|", "-", "*")):
                    block.append(body)
                    continue
            if block:
                sentence = " ".join(block)
                words = sentence.split()
                if len(words) >= 8 and len(sentence) >= 50 and len(extract_terms(sentence)) >= 3:
                    candidates.append((path, sentence[:400]))
                block = []
    candidates.sort()
    rng = random.Random(seed)
    picked = rng.sample(candidates, min(count, len(candidates)))
    return [{"id": f"doc-{i:03d}", "question": q, "source": p} for i, (p, q) in enumerate(picked)]


def fts5_build(files):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE files USING fts5(path, content, tokenize='unicode61')")
    started = time.perf_counter()
    db.executemany("INSERT INTO files(path, content) VALUES (?, ?)", files)
    db.commit()
    build_ms = (time.perf_counter() - started) * 1000
    return db, build_ms


UNICODE61_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def fts5_query(db, terms, k, split_phrases=False):
    """FTS5's top k: OR of the quoted terms (or of each term's unicode61 tokens)."""
    if split_phrases:
        tokens = []
        for term in terms:
            for token in UNICODE61_TOKEN.findall(term):
                if token not in tokens:
                    tokens.append(token)
        phrases = tokens
    else:
        phrases = terms
    if not phrases:
        return []
    match = " OR ".join(f'"{phrase}"' for phrase in phrases)
    rows = db.execute(
        "SELECT path, bm25(files, 2.0, 1.0) FROM files WHERE files MATCH ? "
        "ORDER BY bm25(files, 2.0, 1.0), path LIMIT ?",
        (match, k),
    ).fetchall()
    return rows


def overlap(ours, theirs):
    if not ours and not theirs:
        return 1.0
    return len(set(ours) & set(theirs)) / max(len(ours), len(theirs))


def percentile(values, fraction):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, int(round(fraction * len(ordered) + 0.5)))
    return ordered[min(rank, len(ordered)) - 1]


def run_routelens(binary, bundle, queries, k, repeat):
    """routelens's fts5 answers; with repeat > 1, each query runs that many times in one process
    and its time is the median."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for round_ in range(repeat):
            for query in queries:
                line = {"id": f"{query['id']}#{round_}", "question": query["question"]}
                handle.write(json.dumps(line) + "\n")
        name = handle.name
    try:
        output = subprocess.run(
            [binary, "search", bundle, "--arm", "fts5", "--queries", name, "--k", str(k),
             "--format", "json"],
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(name)
    answers = {}
    for line in output.splitlines():
        answer = json.loads(line)
        query_id, _, round_ = answer["id"].rpartition("#")
        entry = answers.setdefault(query_id, {"terms": answer["terms"], "times": []})
        entry["times"].append(answer["query_ms"])
        if round_ == "0":
            entry["results"] = answer["results"]
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", required=True, help="the bundle folder")
    parser.add_argument("--routelens", required=True, help="the routelens binary")
    parser.add_argument("--questions", help="a question set, JSON Lines {id, question}")
    parser.add_argument("--derived", type=int, default=40, help="doc-comment queries (40)")
    parser.add_argument("--k", type=int, default=8, help="the cut-off compared (8)")
    parser.add_argument("--min-overlap", type=float, default=0.0, help="fail below this mean")
    parser.add_argument("--bench", action="store_true", help="also time the queries")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query (5)")
    parser.add_argument("--json", help="write the numbers to this file")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args()

    files, sizes = read_bundle(args.bundle)
    queries = []
    if args.questions:
        with open(args.questions, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    question = json.loads(line)
                    queries.append({"id": question["id"], "question": question["question"]})
    queries += derived_queries(files, args.derived)
    if not queries:
        fail("no queries")

    db, _ = fts5_build(files)
    repeat = args.repeat if args.bench else 1
    ours = run_routelens(args.routelens, args.bundle, queries, args.k, repeat)

    overlaps, split_overlaps, differing, fts5_times = [], [], [], []
    causes = {"phrase": 0, "near-tie": 0, "other": 0}
    for query in queries:
        terms = extract_terms(query["question"][:FIRST_CHARS])
        answer = ours[query["id"]]
        if answer["terms"] != terms:
            fail(f"{query['id']}: terms differ: routelens {answer['terms']}, spec {terms}")
        our_paths = [hit["path"] for hit in answer["results"]]
        rows = fts5_query(db, terms, args.k)
        their_paths = [path for path, _ in rows]
        split_paths = [path for path, _ in fts5_query(db, terms, args.k, split_phrases=True)]
        value = overlap(our_paths, their_paths)
        overlaps.append(value)
        split_overlaps.append(overlap(our_paths, split_paths))
        if args.bench:
            fts5_query(db, terms, args.k)  # warm-up
            runs = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                fts5_query(db, terms, args.k)
                runs.append((time.perf_counter() - started) * 1000)
            fts5_times.append(statistics.median(runs))
        if value < 1.0:
            if split_paths == our_paths or set(split_paths) == set(our_paths):
                cause = "phrase"
            else:
                cause = "other"
                # Scores at the cut-off within floating-point noise?
                split_rows = fts5_query(db, terms, args.k + 1, split_phrases=True)
                if len(split_rows) > args.k:
                    a, b = split_rows[args.k - 1][1], split_rows[args.k][1]
                    if abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12):
                        cause = "near-tie"
            causes[cause] += 1
            differing.append(
                {
                    "id": query["id"],
                    "overlap": value,
                    "cause": cause,
                    "phrase_terms": [t for t in terms if len(UNICODE61_TOKEN.findall(t)) > 1],
                    "only_routelens": [p for p in our_paths if p not in their_paths],
                    "only_fts5": [p for p in their_paths if p not in our_paths],
                }
            )

    mean = statistics.fmean(overlaps)
    result = {
        "files": len(files),
        "queries": len(queries),
        "k": args.k,
        "mean_overlap": mean,
        "mean_overlap_fts5_phrases_split": statistics.fmean(split_overlaps),
        "identical_top_k": sum(1 for v in overlaps if v == 1.0),
        "differing": differing,
        "causes": causes,
        "sizes": sizes,
    }
    if args.bench:
        our_times = [statistics.median(ours[q["id"]]["times"]) for q in queries]
        result["fts5_query_ms"] = {"p50": percentile(fts5_times, 0.5), "p95": percentile(fts5_times, 0.95)}
        result["routelens_query_ms"] = {"p50": percentile(our_times, 0.5), "p95": percentile(our_times, 0.95)}
    if args.json:
        write_json(args.json, result)

    print(
        f"fts5 top-{args.k} overlap with SQLite FTS5 {sqlite3.sqlite_version} "
        f"(bm25(files, 2.0, 1.0), path): mean {mean:.3f} over {len(queries)} queries, "
        f"{result['identical_top_k']} identical; {len(files)} files"
    )
    print(
        f"  against FTS5 with phrases split into tokens: mean "
        f"{result['mean_overlap_fts5_phrases_split']:.3f}; causes of differences: "
        + ", ".join(f"{name} {count}" for name, count in causes.items())
    )
    if not args.quiet:
        for item in differing:
            print(
                f"  {item['id']}: overlap {item['overlap']:.3f} ({item['cause']}"
                + (f": {', '.join(item['phrase_terms'])}" if item["phrase_terms"] else "")
                + f"); only routelens: {item['only_routelens']}; only FTS5: {item['only_fts5']}"
            )
    if args.bench:
        print(
            f"  query p50/p95: FTS5 "
            f"{result['fts5_query_ms']['p50']:.3f}/{result['fts5_query_ms']['p95']:.3f} ms, routelens "
            f"{result['routelens_query_ms']['p50']:.3f}/{result['routelens_query_ms']['p95']:.3f} ms"
        )
    if mean < args.min_overlap:
        print(f"fts5_compare: mean overlap {mean:.3f} is below {args.min_overlap}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
