#!/usr/bin/env python3
"""Shrinks the page's own wasm module after Trunk built it: in a release build, binaryen's
`wasm-opt` (pinned at 132 in tools/wasm-opt/, installed by scripts/setup.sh): `-Oz` (about 7 kB
gzip of the first load), then the control flow flattened and rebuilt by binaryen's relooper
(`--flatten --rereloop`) and `-Oz` again (a further 7 kB gzip, measured 2026-12-05: the relooper
finds smaller shapes for the async state machines and the views' match arms; it adds about
25 s to a release build), then the `name` custom section cut out; and rewrites that file's integrity hash
in index.html to match.

wasm-opt runs here rather than through Trunk's `data-wasm-opt`, because Trunk looks for it on PATH
and every `trunk build` would then need PATH set; a release build without it fails, naming the
install step, so a first load is never measured unoptimised by accident. The live worker is left
as it is: wasm-opt made tantivy's and tree-sitter's gzip larger and queries slower (TOOLCHAIN).

The name section holds function names for stack traces only (panic messages keep their file and
line); it was a fifth of the first load (about 1.4 MB raw, 200 kB gzip). Neither the Cargo profile
(`strip = "debuginfo"`, `--strip-debug`) removes it, nor does Trunk pass wasm-bindgen's
`--remove-name-section`, and `strip = "symbols"` would also drop the `target_features` section that
wasm-bindgen reads. Trunk runs this as a post_build hook (Trunk.toml) with TRUNK_STAGING_DIR set,
after it has written index.html there. The file keeps the name Trunk gave it (hashed from the
unstripped bytes); only the integrity attribute describes the bytes served.

Hand-written: the wasm section layout (id, LEB128 size, payload) is all it needs, and no tool that
rewrites wasm (binaryen, wasm-tools) is installed here.

The labelling round's module (rounds/) goes through the same two steps; index.html does not link
it (the app's main loads it), so it has no integrity hash.

Usage (by Trunk): python3 scripts/shrink-app-wasm.py
"""
import base64
import hashlib
import os
import pathlib
import re
import subprocess
import sys

WASM_OPT = pathlib.Path(__file__).resolve().parent.parent / "tools/wasm-opt/node_modules/.bin/wasm-opt"
# The features rustc's wasm32 target enables (its target_features section), so that wasm-opt
# keeps using them.
PASSES = ["-Oz", "--flatten", "--rereloop", "-Oz"]
FEATURES = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext",
            "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue"]

APP = "routelens-app-"
# The labelling round's module (rounds/): shrunk the same way; index.html does not link it, so
# there is no integrity hash to rewrite.
ROUNDS = "routelens-rounds_bg.wasm"


def leb128(data: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if at >= len(data):
            raise ValueError("truncated LEB128")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def without_names(data: bytes, name: str) -> bytes:
    if data[:4] != b"\0asm":
        raise ValueError(f"{name} is not a wasm module")
    out, at = bytearray(data[:8]), 8
    while at < len(data):
        start = at
        section = data[at]
        size, payload = leb128(data, at + 1)
        end = payload + size
        if end > len(data):
            raise ValueError(f"{name}: section at byte {start} runs past the end")
        if section == 0:
            length, text = leb128(data, payload)
            if data[text : text + length] == b"name":
                at = end
                continue
        out += data[start:end]
        at = end
    return bytes(out)


def optimised(path: pathlib.Path) -> bytes:
    """The module at `path` after wasm-opt's `PASSES` (read back; the file itself is left
    alone)."""
    if not WASM_OPT.exists():
        sys.exit(f"shrink-app-wasm: {WASM_OPT} is missing: run scripts/setup.sh (it installs "
                 "binaryen 132 from npm into tools/wasm-opt/)")
    out = path.with_suffix(".opt.wasm")
    done = subprocess.run([str(WASM_OPT), *PASSES, *FEATURES, str(path), "-o", str(out)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"shrink-app-wasm: wasm-opt failed on {path.name}: {done.stderr.strip()}")
    data = out.read_bytes()
    out.unlink()
    return data


def shrunk(path: pathlib.Path, release: bool) -> bytes:
    """Rewrites the module at `path` optimised (release builds) and without its name section;
    says the sizes and returns the new bytes."""
    before = path.read_bytes()
    try:
        after = without_names(optimised(path) if release else before, path.name)
    except ValueError as error:
        sys.exit(f"shrink-app-wasm: {error}")
    tmp = path.with_suffix(".wasm.tmp")
    tmp.write_bytes(after)
    tmp.replace(path)
    print(f"shrink-app-wasm: {path.name}: {len(before):,} -> {len(after):,} bytes")
    return after


def main() -> None:
    staging = pathlib.Path(os.environ.get("TRUNK_STAGING_DIR") or sys.exit(
        "shrink-app-wasm: run by trunk as a post_build hook (TRUNK_STAGING_DIR is not set)"))
    html_path = staging / "index.html"
    html = html_path.read_text(encoding="utf-8")
    modules = sorted(staging.glob(f"{APP}*_bg.wasm"))
    if not modules:
        sys.exit(f"shrink-app-wasm: no {APP}*_bg.wasm in {staging}")
    release = os.environ.get("TRUNK_PROFILE") == "release"
    if (staging / ROUNDS).exists():
        shrunk(staging / ROUNDS, release)
    for path in modules:
        after = shrunk(path, release)
        digest = "sha384-" + base64.b64encode(hashlib.sha384(after).digest()).decode()
        link = re.compile(r'(href="\./' + re.escape(path.name) + r'"[^>]*?integrity=")sha384-[^"]*(")')
        html, found = link.subn(lambda m: m.group(1) + digest + m.group(2), html)
        if found != 1:
            sys.exit(f"shrink-app-wasm: index.html has {found} integrity links to {path.name}, expected 1")
    tmp = html_path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(html_path)


main()
