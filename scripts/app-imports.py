#!/usr/bin/env python3
"""Draws the import picture of app/src (one node per file: what each file names of the crate's
other modules, through `crate::`, `super::` and a parent's `child::`) and checks the two rules of
ARCHITECTURE.md: no import circles, and no view reaching into another view's files.

Usage: python3 scripts/app-imports.py [--dot]   (exits 1 naming each circle and each reach)
"""
import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "app" / "src"


def module_of(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


files = {module_of(p): p for p in SRC.rglob("*.rs") if p.name != "main.rs"}


def resolve(parts):
    """The longest module prefix of a path, or None."""
    for end in range(len(parts), 0, -1):
        if tuple(parts[:end]) in files:
            return tuple(parts[:end])
    return None


def code(text):
    # Drop line comments and doc comments: they name modules without importing them.
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


edges = {}
for module, path in files.items():
    text = code(path.read_text(encoding="utf-8"))
    targets = set()
    is_folder = path.name in ("mod.rs", "lib.rs")
    for match in re.finditer(r"\b(crate|super)((?:::\w+)+)", text):
        head, tail = match.group(1), match.group(2).split("::")[1:]
        # `super` is the parent module, for a folder's mod.rs and a plain file alike.
        base = [] if head == "crate" else list(module[:-1])
        target = resolve(base + tail)
        if target is not None and target != module:
            targets.add(target)
    # A folder's own children, named by their bare name (`render::packs_view`).
    if is_folder:
        for child in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M):
            if re.search(rf"(?<![\w:]){child}::", text):
                targets.add(module + (child,))
    edges[module] = targets

name = lambda m: "/".join(m) or "lib"
problems = []

# Circles: strongly connected components with more than one file.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(comp)


sys.setrecursionlimit(10000)
for v in sorted(edges):
    if v not in index:
        strong(v)
for comp in sccs:
    if len(comp) > 1:
        problems.append("import circle: " + " <-> ".join(sorted(name(m) for m in comp)))

# Reaches: a file of views/X naming a file of views/Y.
for source, targets in edges.items():
    for target in targets:
        if source[:1] == ("views",) and target[:1] == ("views",) and len(source) > 1 and len(target) > 1:
            if source[1] != target[1]:
                problems.append(f"{name(source)} reaches into {name(target)}")

if "--dot" in sys.argv:
    print("digraph app {")
    for source, targets in sorted(edges.items()):
        for target in sorted(targets):
            print(f'  "{name(source)}" -> "{name(target)}";')
    print("}")
else:
    print(f"app/src: {len(files)} files, {sum(len(t) for t in edges.values())} imports between them")
if problems:
    sys.exit("app-imports: " + "; ".join(sorted(problems)))
