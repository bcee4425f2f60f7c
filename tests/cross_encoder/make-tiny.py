#!/usr/bin/env python3
"""Writes tests/cross_encoder/tiny/ (a tiny cross-encoder: config.json, model.safetensors,
tokenizer.json) and tests/cross_encoder/reference.json (its logits for ~20 (query, passage)
pairs from transformers' own forward pass and from sentence-transformers' CrossEncoder.predict),
the fixture `routelens`' cross-encoder is held to (within 1e-4: engine/tests/cross_encoder.rs).

The model is BertForSequenceClassification with one label, as cross-encoder/ms-marco-MiniLM-L-6-v2
is, but with 2 layers, hidden size 32, random weights from a fixed seed and a WordPiece vocabulary
trained on the pairs themselves: nothing of any published model is in it, and it is a few
hundred kilobytes. Its weights are drawn wider than BERT's default (initializer_range 0.3), so
the logits spread and a wrong token, type id or mask shows.

Run once by hand, not in CI: torch's PyPI wheel pulls large CUDA packages.
  python3 -m venv target/st-venv && target/st-venv/bin/pip install sentence-transformers==6.3.0
  target/st-venv/bin/python tests/cross_encoder/make-tiny.py
"""
import hashlib
import json
import pathlib
import tempfile

import sentence_transformers
import tokenizers
import torch
import transformers
from sentence_transformers import CrossEncoder
from tokenizers import BertWordPieceTokenizer
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "tests/cross_encoder"
MAX_LENGTH = 512

LONG_PASSAGE = "engine/src/delivery/pack.rs :: pack\n" + "\n".join(
    f"    let block_{i} = budget.take(lines[{i}..{i + 40}]); // keeps the block when it fits" for i in range(90))
PAIRS = [
    ("How are two rankings fused with reciprocal rank fusion?",
     "engine/src/scoring/fusion.rs :: rrf\npub fn rrf(rankings: &[Vec<String>], k: f64) -> Vec<(String, f64)> {"),
    ("How are two rankings fused with reciprocal rank fusion?",
     "pub fn rrf(rankings: &[Vec<String>], k: f64) -> Vec<(String, f64)> {"),
    ("How are two rankings fused with reciprocal rank fusion?",
     "README.md\n# routelens\n\nA supplement for code-retrieval papers that runs in your browser."),
    ("Where does the server refuse paths that climb out of their folder?",
     "bundler/src/serve.rs :: route\nfn route(path: &str) -> Option<PathBuf> {\n    if path.split('/').any(|p| p == \"..\") { return None; }"),
    ("Where does the server refuse paths that climb out of their folder?",
     "def request(self, method, url, params=None):\n    req = Request(method=method.upper(), url=url)"),
    ("retry loop backs off on 503",
     "for attempt in range(retries):\n    if response.status == 503:\n        time.sleep(2 ** attempt)"),
    ("retry loop backs off on 503",
     "tests/test_io.py :: test_roundtrip\ndef test_roundtrip(tmp_path):\n    assert read(path) == {'a': 1}"),
    ("Which tokens does the packer count?", LONG_PASSAGE),
    ("Which tokens does the packer count? " * 30, "a short passage about counting tokens"),
    ("Café résumé naïve façade", "Cafe resume naive facade"),
    ("Поиск кода по описанию ошибки", "search code by the error's description"),
    ("日本語のテキストを検索する", "text search"),
    ("UPPER CASE QUERY", "upper case query"),
    ("punctuation!!! and... symbols", "<>, {}, [], ->, =>, ::, @decorator #hash $var"),
    ("an empty passage", ""),
    ("", "an empty query"),
    ("How is a chunk embedded?",
     "engine/src/retrieval/dense/embedder.rs :: Embedder.run\nlet mean = summed.broadcast_div(&counts)?;"),
    ("How is a chunk embedded?", "let mean = summed.broadcast_div(&counts)?;"),
    ("Makefile test target", "Makefile\nall:\n\tcargo build --release\n\ntest:\n\tcargo test --workspace"),
    ("emoji in a commit message", "🚀 emoji in a commit message ✅"),
]


def build(folder: pathlib.Path) -> None:
    corpus = [text for pair in PAIRS for text in pair]
    wordpiece = BertWordPieceTokenizer(lowercase=True, strip_accents=True)
    wordpiece.train_from_iterator(corpus, vocab_size=400, min_frequency=1, show_progress=False,
                                  special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tokenizer = BertTokenizerFast(tokenizer_object=wordpiece._tokenizer, model_max_length=MAX_LENGTH,
                                  unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                                  cls_token="[CLS]", mask_token="[MASK]")
    tokenizer.save_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=MAX_LENGTH,
                        num_labels=1, initializer_range=0.3)
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(str(folder), safe_serialization=True)


def main() -> None:
    torch.set_num_threads(2)
    tiny = OUT / "tiny"
    tiny.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        build(folder)
        tokenizer = BertTokenizerFast.from_pretrained(str(folder))
        model = BertForSequenceClassification.from_pretrained(str(folder)).eval()
        queries = [q for q, _ in PAIRS]
        passages = [p for _, p in PAIRS]
        with torch.no_grad():
            batch = tokenizer(queries, passages, padding=True, truncation=True, max_length=MAX_LENGTH,
                              return_tensors="pt")
            logits = model(**batch).logits[:, 0].tolist()
            # One pair at a time gives the same: padding is masked. (Not for an empty passage:
            # transformers' tokenizer, called on one pair, takes "" as no pair at all and drops
            # the second [SEP]; batched, and in sentence-transformers, it keeps it.)
            for at, (q, p) in enumerate(PAIRS):
                if not p:
                    continue
                alone = model(**tokenizer(q, p, truncation=True, max_length=MAX_LENGTH,
                                          return_tensors="pt")).logits[0, 0].item()
                assert abs(alone - logits[at]) < 1e-5, (at, alone, logits[at])
        pieces = batch["attention_mask"].sum(dim=1).tolist()
        untruncated = tokenizer(queries, passages)["input_ids"]
        untruncated = [len(ids) for ids in untruncated]
        assert max(untruncated) > MAX_LENGTH, "one pair must be over the maximum length"
        cross = CrossEncoder(str(folder), max_length=MAX_LENGTH, device="cpu")
        predicted = cross.predict(PAIRS, batch_size=4, activation_fn=torch.nn.Identity(),
                                  convert_to_numpy=True).tolist()
        for a, b in zip(logits, predicted):
            assert abs(a - b) < 1e-5, (a, b)
        spread = max(logits) - min(logits)
        assert spread > 0.5, f"logits spread only {spread}"
        for name in ["config.json", "model.safetensors", "tokenizer.json"]:
            (tiny / name).write_bytes((folder / name).read_bytes())
    sha = {name: hashlib.sha256((tiny / name).read_bytes()).hexdigest()
           for name in ["config.json", "model.safetensors", "tokenizer.json"]}
    out = {
        "model": "routelens tiny cross-encoder (tests/cross_encoder/make-tiny.py)",
        "sha256": sha,
        "max_length": MAX_LENGTH,
        "made_with": {"transformers": transformers.__version__,
                      "sentence_transformers": sentence_transformers.__version__,
                      "tokenizers": tokenizers.__version__, "torch": torch.__version__},
        "cases": [{"query": q, "passage": p, "pieces": n, "untruncated_pieces": u,
                   "transformers": float(f"{t:.9g}"), "sentence_transformers": float(f"{s:.9g}")}
                  for (q, p), n, u, t, s in zip(PAIRS, pieces, untruncated, logits, predicted)],
    }
    path = OUT / "reference.json"
    cases = out.pop("cases")
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in out.items()]
    lines += [' "cases": [']
    lines += ["  " + json.dumps(c, ensure_ascii=False, separators=(",", ":")) + ("," if i < len(cases) - 1 else "")
              for i, c in enumerate(cases)]
    lines += [" ]", "}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {tiny} ({sum((tiny / n).stat().st_size for n in sha)} bytes) and {path}: {len(PAIRS)} pairs, "
          f"logits from {min(logits):.3f} to {max(logits):.3f}")


main()
