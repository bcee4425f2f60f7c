#!/usr/bin/env python3
"""sentence-transformers' time to embed one typed question with all-MiniLM-L6-v2, the peer of
engine/benches/embed_query.rs (the same question, the same installed model files): p50 and
minimum over 50 calls after 5 warm-ups, with torch's threads set to 1 and then 2 (this
machine's cores). A dense query's own embedding is most of its time (docs/dense.md#speed).

Run by hand (torch is too large for CI), in the venv tests/minilm/make-reference.py uses:
  target/st-venv/bin/python bench/embed_query.py [MODEL_FOLDER]
MODEL_FOLDER defaults to $ROUTELENS_MODELS/all-MiniLM-L6-v2, ROUTELENS_MODELS to
~/.cache/routelens/models.
"""
import os
import pathlib
import sys
import time

import torch
from sentence_transformers import SentenceTransformer

# The question engine/benches/embed_query.rs embeds.
QUESTION = ("How does the bundle writer verify the chunk hashes before it renames the folder "
            "in this code")


def main() -> None:
    models = os.environ.get("ROUTELENS_MODELS", str(pathlib.Path.home() / ".cache/routelens/models"))
    folder = sys.argv[1] if len(sys.argv) > 1 else f"{models}/all-MiniLM-L6-v2"
    model = SentenceTransformer(folder, device="cpu")
    model.max_seq_length = 256
    pieces = len(model.tokenizer(QUESTION)["input_ids"])
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for _ in range(5):
            model.encode([QUESTION])
        times = []
        for _ in range(50):
            started = time.perf_counter()
            model.encode([QUESTION])
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(f"sentence-transformers, {threads} thread(s), one question of {pieces} pieces: "
              f"p50 {times[25]:.1f} ms, min {times[0]:.1f} ms")


main()
