#!/usr/bin/env python3
"""Checks the first-load budget of a built app (issue 14): the wasm that `index.html` loads at
start, gzipped at level 9, must be at most 1,000,000 bytes, and must not be the live worker
(which the page starts on its first live call) or the labelling round's module (which only its
pages load). Prints the modules' sizes. Also checks that every integrity hash in `index.html`
matches the file it names, and that the page's module holds one copy of the standard stable sort.

Usage: python3 scripts/first-load.py [dist-folder]   (default: dist; exits 1 over budget)
"""
import base64
import gzip
import hashlib
import pathlib
import re
import sys

BUDGET = 1_000_000
WORKER = "routelens-worker"
ROUNDS = "routelens-rounds"

dist = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "dist")
html_path = dist / "index.html"
try:
    html = html_path.read_text(encoding="utf-8")
except OSError as error:
    sys.exit(f"first-load: cannot read {html_path}: {error}")

loaded = sorted(set(re.findall(r"""['"]/?([^'"]+\.wasm)['"]""", html)))
if not loaded:
    sys.exit(f"first-load: {html_path} loads no .wasm file")
problems = []
total = 0
for name in loaded:
    if WORKER in name:
        problems.append(f"{html_path} loads the live worker {name} at start")
    path = dist / name
    try:
        raw = path.read_bytes()
    except OSError as error:
        sys.exit(f"first-load: {html_path} names {name}, which cannot be read: {error}")
    packed = len(gzip.compress(raw, 9))
    total += packed
    print(f"first load: {name}: {len(raw):,} bytes, {packed:,} gzip")
for path in sorted(dist.glob(f"{WORKER}*.wasm")):
    raw = path.read_bytes()
    print(f"on first live call: {path.name}: {len(raw):,} bytes, {len(gzip.compress(raw, 9)):,} gzip")
for path in sorted(dist.glob(f"{ROUNDS}*.wasm")):
    if path.name in loaded:
        problems.append(f"{html_path} loads the labelling pages' module {path.name} at start")
    raw = path.read_bytes()
    print(f"on the labelling pages: {path.name}: {len(raw):,} bytes, {len(gzip.compress(raw, 9)):,} gzip")
print(f"first load total: {total:,} bytes gzip of wasm (budget {BUDGET:,})")
# Every integrity hash in index.html must describe the file served (the name section is cut out
# after Trunk hashed the module: scripts/shrink-app-wasm.py rewrites its hash).
for href, digest in re.findall(r'href="\./([^"]+)"[^>]*?integrity="sha384-([^"]+)"', html):
    try:
        served = base64.b64encode(hashlib.sha384((dist / href).read_bytes()).digest()).decode()
    except OSError as error:
        problems.append(f"{html_path} names {href}, which cannot be read: {error}")
        continue
    if served != digest:
        problems.append(f"{html_path}: the integrity hash of {href} does not match the file")
if total > BUDGET:
    problems.append(f"the first load is {total:,} bytes gzip of wasm, over the {BUDGET:,} budget")


def function_names(wasm: bytes) -> list[str]:
    """The function names of a module's `name` section (empty without one)."""
    def leb(at: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = wasm[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, at
    names, at = [], 8
    while at < len(wasm):
        section = wasm[at]
        size, at = leb(at + 1)
        end = at + size
        if section == 0:
            length, inner = leb(at)
            if wasm[inner:inner + length] == b"name":
                inner += length
                while inner < end:
                    kind = wasm[inner]
                    sub_size, inner = leb(inner + 1)
                    if kind == 1:
                        count, q = leb(inner)
                        for _ in range(count):
                            _, q = leb(q)
                            length, q = leb(q)
                            names.append(wasm[q:q + length].decode("utf-8", "replace"))
                            q += length
                    inner += sub_size
        at = end
    return names


# The standard stable sort compiles one copy per element type and comparison, about 3.5 kB of
# wasm each; engine/src/stable_sort.rs keeps one. Copies that creep back (a `collect()` into a
# BTreeMap or BTreeSet, a `.sort()`) are named here, from the page's module as linked (with its
# names; Trunk's copy in dist/ has them cut out).
LINKED = pathlib.Path("target/wasm32-unknown-unknown/app-release/routelens-app.wasm")
if LINKED.exists():
    sorts = [n for n in function_names(LINKED.read_bytes()) if "driftsort_main" in n]
    print(f"copies of the standard stable sort in {LINKED}: {len(sorts)}")
    if len(sorts) > 1:
        problems.append(
            f"{len(sorts)} copies of the standard stable sort in the page's module, not 1: call "
            "routelens_engine::stable_sort instead (docs/first-load.md says how to find them)")
else:
    print(f"copies of the standard stable sort: not counted, {LINKED} is absent (a release build makes it)")
if problems:
    sys.exit("first-load: " + "; ".join(problems))
