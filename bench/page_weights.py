#!/usr/bin/env python3
"""Measures the page's narrowed embedding weights (issue 33): all-MiniLM-L6-v2's f32 weights with
every mantissa rounded to fewer bits (the exponent kept), as `routelens` widens them in the
browser's worker (engine `retrieval::dense::page_weights`). For each width: the bytes of the
weights as byte planes compressed by zlib at level 9 (the pinned width's real file is reported
too); the lowest cosine between a text's vector and sentence-transformers' own (the fixture
tests/minilm/reference.json) and between it and the full weights' vector (the fixture's texts
and the demo's questions); and how many of the demo's questions keep the same dense top 10, in
order, over a demo bundle's stored structural vectors when the question is embedded with the
narrowed weights. The vectors come from `routelens embed --weights page --mantissa-bits B`, so
they are candle's, as in the page.

The rule (issue 33): keep a narrower copy only if every vector stays within cosine 0.9999 and
the demo's dense top 10 are unchanged.

Run by hand, with numpy (a venv of its own is enough):
  python bench/page_weights.py target/release/routelens DEMO_BUNDLE [BITS ...]
DEMO_BUNDLE is `routelens demo --embed structural`'s output (the vectors of its structural chunks).
"""
import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIN = json.loads((ROOT / "engine/src/retrieval/dense/all-minilm-l6-v2.json").read_text())


def embed(routelens: str, texts_file: str, bits: int | None) -> np.ndarray:
    args = [routelens, "embed", "--file", texts_file, "--format", "json"]
    if bits is not None:
        args += ["--weights", "page", "--mantissa-bits", str(bits)]
    out = subprocess.run(args, check=True, capture_output=True).stdout
    return np.array(json.loads(out)["vectors"], dtype=np.float64)


def plane_bytes(weights: bytes, bits: int) -> int:
    """zlib level 9 of the rounded F32 words' byte planes (as the page's file lays them out)."""
    header_len = struct.unpack("<Q", weights[:8])[0]
    header = json.loads(weights[8:8 + header_len])
    data = weights[8 + header_len:]
    words = np.concatenate([
        np.frombuffer(data[t["data_offsets"][0]:t["data_offsets"][1]], dtype=np.uint32)
        for name, t in sorted((k, v) for k, v in header.items() if k != "__metadata__")
        if t["dtype"] == "F32"])
    dropped = 23 - bits
    if dropped:
        odd = (words >> np.uint32(dropped)) & np.uint32(1)
        words = (words + np.uint32((1 << (dropped - 1)) - 1) + odd) & ~np.uint32((1 << dropped) - 1)
    planes = -(-(9 + bits) // 8)
    as_bytes = words.view(np.uint8).reshape(-1, 4)
    return 8 + header_len + sum(len(zlib.compress(np.ascontiguousarray(as_bytes[:, 3 - p]).tobytes(), 9))
                                for p in range(planes))


def main() -> None:
    routelens, demo = sys.argv[1], pathlib.Path(sys.argv[2])
    widths = [int(b) for b in sys.argv[3:]] or [10, 11, 12, 13]
    reference = json.loads((ROOT / "tests/minilm/reference.json").read_text())
    fixture = [case["text"] for case in reference["cases"]]
    st = np.array([case["vector"] for case in reference["cases"]], dtype=np.float64)
    questions = [json.loads(line)["question"] for line in
                 (ROOT / "bundler/demo/questions.jsonl").read_text().splitlines()
                 if line.strip() and "question" in json.loads(line)]
    models = pathlib.Path(os.environ.get("ROUTELENS_MODELS") or pathlib.Path.home() / ".cache/routelens/models")
    folder = models / PIN["install_as"]
    weights = (folder / "model.safetensors").read_bytes()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for text in fixture + questions:
            f.write(json.dumps({"text": text}) + "\n")
        texts_file = f.name
    full = embed(routelens, texts_file, None)
    manifest = json.loads((demo / "manifest.json").read_text())
    entry = next(c for c in manifest["chunkings"] if c["chunker"] == "structural")["vectors"]
    dtype = {"f16": np.float16, "f32": np.float32}[entry["precision"]]
    rows = np.frombuffer((demo / entry["file"]).read_bytes(), dtype=dtype).astype(np.float64)
    rows = rows.reshape(-1, entry["dimension"])
    top = lambda q: np.argsort(-(rows @ q), kind="stable")[:10]
    page = PIN.get("page_weights", {})
    print(f"| mantissa bits | bytes (zlib 9 of the planes) | lowest cosine to sentence-transformers "
          f"| lowest cosine to the full weights | largest score change in a top 10 "
          f"| demo questions with the same dense top 10 |")
    print("| --- | --- | --- | --- | --- | --- |")
    notes = []
    for bits in widths:
        vectors = embed(routelens, texts_file, bits)
        to_st = (vectors[:len(fixture)] * st).sum(axis=1) / np.linalg.norm(st, axis=1)
        to_full = (vectors * full).sum(axis=1)
        same, moved = 0, 0.0
        for at, (a, b) in enumerate(zip(full[len(fixture):], vectors[len(fixture):])):
            top_a, top_b = top(a), top(b)
            moved = max(moved, float(np.abs(rows[top_a] @ a - rows[top_a] @ b).max()))
            if np.array_equal(top_a, top_b):
                same += 1
                continue
            first = int(np.argmax(top_a != top_b))
            scores = rows @ a
            notes.append(f"{bits} bits, question {at + 1}: from place {first + 1}, full-weight score gap "
                         f"{abs(scores[top_a[first]] - scores[top_b[first]]):.2e}")
        size = f"{plane_bytes(weights, bits):,}"
        if page.get("mantissa_bits") == bits:
            size += f" (the pinned file: {page['bytes']:,})"
        print(f"| {bits} | {size} | {to_st.min():.7f} | {to_full.min():.7f} | {moved:.1e} "
              f"| {same} of {len(questions)} |")
    for note in notes:
        print(f"  {note}")
    os.unlink(texts_file)


main()
