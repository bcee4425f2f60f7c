#!/usr/bin/env python3
"""Embedding throughput, routelens against sentence-transformers in one run (issue 32's goal:
routelens at least 1.0x): the same 400 code chunks (the fixture's ten, tests/minilm/reference.json,
repeated), the same installed model files, two threads each (this machine's cores).

sentence-transformers: torch.set_num_threads(2), encode(batch_size=32) after one warm-up batch,
as tests/minilm/make-reference.py measured it. routelens: `routelens embed --file` on 400 and on
800 of the texts; the difference of the two wall times is 400 texts' embedding with the process's
start and the model's loading taken out. Each side runs ROUNDS times, alternating; the best of
each is compared.

Run by hand (torch is too large for CI), in the venv tests/minilm/make-reference.py uses:
  target/st-venv/bin/python bench/embed_throughput.py [ROUTELENS] [ROUNDS]
ROUTELENS defaults to target/release/routelens; the model folder to
$ROUTELENS_MODELS/all-MiniLM-L6-v2, ROUTELENS_MODELS to ~/.cache/routelens/models.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import torch
from sentence_transformers import SentenceTransformer

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXTS = 400


def main() -> None:
    routelens = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/routelens")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    models = os.environ.get("ROUTELENS_MODELS", str(pathlib.Path.home() / ".cache/routelens/models"))
    folder = f"{models}/all-MiniLM-L6-v2"
    cases = json.loads((ROOT / "tests/minilm/reference.json").read_text())["cases"]
    ten = [case["text"] for case in cases[:10]]
    bench = [ten[i % 10] for i in range(TEXTS)]

    torch.set_num_threads(2)
    model = SentenceTransformer(folder, device="cpu")
    model.max_seq_length = 256
    pieces = sum(len(model.tokenizer(t, truncation=True, max_length=256)["input_ids"]) for t in bench)
    model.encode(bench[:32], batch_size=32)

    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for count in (TEXTS, 2 * TEXTS):
            path = pathlib.Path(tmp) / f"{count}.jsonl"
            path.write_text("".join(json.dumps({"text": ten[i % 10]}) + "\n" for i in range(count)))
            files[count] = path

        def wall(count: int) -> float:
            started = time.perf_counter()
            subprocess.run([routelens, "embed", "--model", folder, "--file", str(files[count])],
                           check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - started

        peer, ours = [], []
        for _ in range(rounds):
            started = time.perf_counter()
            model.encode(bench, batch_size=32)
            peer.append(TEXTS / (time.perf_counter() - started))
            ours.append(TEXTS / (wall(2 * TEXTS) - wall(TEXTS)))

    print(f"{TEXTS} code chunks, {pieces / TEXTS:.0f} pieces on average, two threads each")
    print("sentence-transformers texts/s: " + ", ".join(f"{x:.1f}" for x in peer))
    print("routelens texts/s:             " + ", ".join(f"{x:.1f}" for x in ours))
    print(f"best against best: {max(ours):.1f} / {max(peer):.1f} = {max(ours) / max(peer):.2f}x")


main()
