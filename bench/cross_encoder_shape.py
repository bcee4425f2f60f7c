#!/usr/bin/env python3
"""Makes target/bench/ce-minilm-shape/: a cross-encoder of exactly the shape of
cross-encoder/ms-marco-MiniLM-L-6-v2 (BERT, 6 layers, hidden 384, 12 heads, intermediate 1536,
512 positions, one label) with random weights and all-MiniLM-L6-v2's tokenizer (the same
bert-base-uncased vocabulary of 30,522 pieces), for timing only: the time of a forward pass does
not depend on what the weights are. Nothing of it is committed, and its scores mean nothing.

  target/st-venv/bin/python bench/cross_encoder_shape.py
  ROUTELENS_CE_MODEL=target/bench/ce-minilm-shape cargo bench -p routelens-engine --features dense --bench cross_encoder
"""
import json
import os
import pathlib

import torch
from transformers import BertConfig, BertForSequenceClassification

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target/bench/ce-minilm-shape"
models = pathlib.Path(os.environ.get("ROUTELENS_MODELS") or pathlib.Path.home() / ".cache/routelens/models")
tokenizer = models / "all-MiniLM-L6-v2/tokenizer.json"

OUT.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)
config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                    intermediate_size=1536, max_position_embeddings=512, num_labels=1)
BertForSequenceClassification(config).eval().save_pretrained(str(OUT), safe_serialization=True)
(OUT / "tokenizer.json").write_bytes(tokenizer.read_bytes())
print(f"wrote {OUT}: {sum(p.numel() for p in BertForSequenceClassification(config).parameters()):,} parameters")
