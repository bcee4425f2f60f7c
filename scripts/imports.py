#!/usr/bin/env python3
"""The import picture of the workspace's crates, checked against ARCHITECTURE.md's rules.

One node per source file of the built crate; an edge wherever a file names another file's module: through `crate::`,
`super::` or `self::` paths (in `use` trees, braces expanded, and in code), and through a folder's
own children named by their bare name (`decode::read`). Comments and string literals are blanked
first, so a path in a doc comment or a message is not an import. Test code (`#[cfg(test)]` modules,
inline or in files of their own) is left out: a unit test may build its fixture with a loader from
a higher floor, as an integration test would, without the library itself depending on it.

The rules, each printed with the files that break it:
- every crate (engine, bundler, worker, app, rounds): no import circle between files;
- engine: no import from a lower layer to a higher one. The layers are read from the `layers`
  block of ARCHITECTURE.md, bottom first, one floor a line: its number, then the top-level modules
  (a folder or a root file) on it. Modules of one floor may import each other (the circle rule
  still holds); `lib.rs`, the table of contents, stands above every floor;
- app: no file of one view naming a file of another view (`views/<a>/…` → `views/<b>/…`).

Usage: python3 scripts/imports.py [--root DIR] [--dot CRATE]
Exits 1 naming every problem, 0 with a one-line count per crate.
"""
import argparse
import pathlib
import re
import sys

CRATES = {
    "engine": "engine/src",
    "bundler": "bundler/src",
    "worker": "worker/src",
    "app": "app/src",
    "rounds": "rounds/src",
}


# A `use` item: its visibility (set for a re-export) and its tree.
USE = r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]+);"


# A module compiled for tests only: `#[cfg(test)] mod name` (its name captured).
TEST_MODULE = r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)"


def block_end(code, start):
    """The position just past the `}` closing the block whose `{` ends right before `start`
    (comments and strings are blanked already, so every brace is code)."""
    depth, j = 1, start
    while j < len(code) and depth:
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        j += 1
    return j


def blank_test_blocks(code):
    """The code with every inline `#[cfg(test)] mod x { … }` blanked (newlines kept)."""
    for block in reversed(list(re.finditer(TEST_MODULE + r"\s*\{", code))):
        j = block_end(code, block.end())
        code = code[: block.start()] + re.sub(r"[^\n]", " ", code[block.start() : j]) + code[j:]
    return code


def blank_comments_and_strings(text):
    """The text with comments, string and char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1 : i] or " "):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            close = '"' + hashes
            j = text.find(close, i + len(hashes) + 2)
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            char = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if char:
                out.append(" " * len(char.group(0)))
                i += len(char.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def inline_depths(code):
    """A function of a position: how many inline `mod x { … }` blocks enclose it."""
    spans = []
    for block in re.finditer(r"\bmod\s+\w+\s*\{", code):
        spans.append((block.end(), block_end(code, block.end())))
    return lambda pos: sum(start <= pos < end for start, end in spans)


def expand_use_tree(tree):
    """`a::{b, c::{d as e}}` → ['a::b', 'a::c::d@e'] (spaces removed, an alias after `@`)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", tree))
    start = tree.find("{")
    if start < 0:
        return [tree]
    prefix, depth, parts, current = tree[:start], 0, [], ""
    for ch in tree[start + 1 : tree.rfind("}")]:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    parts.append(current)
    paths = []
    for part in filter(None, parts):
        for sub in expand_use_tree(part):
            paths.append(prefix + sub if not sub.startswith("self") else prefix.rstrip(":") + sub[4:])
    return paths


class Crate:
    """A crate's files as modules, and the edges between them."""

    def __init__(self, src):
        self.src = src
        self.files, self.codes, tests = {}, {}, set()
        for path in sorted(src.rglob("*.rs")):
            module = self.module_of(path)
            code = blank_comments_and_strings(path.read_text(encoding="utf-8"))
            tests.update(module + (m,) for m in re.findall(TEST_MODULE + r"\s*;", code))
            self.files[module], self.codes[module] = path, blank_test_blocks(code)
        for module in list(self.files):
            if any(module[: len(t)] == t for t in tests):
                del self.files[module], self.codes[module]
        self.reexports = {m: self.reexports_of(m) for m in self.files}
        self.edges = {m: self.imports_of(m) for m in self.files}

    def module_of(self, path):
        parts = list(path.relative_to(self.src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        return tuple(parts)

    def resolve(self, parts, seen=()):
        """The file a path leads to: its longest module prefix that is a file, or, where the next
        name is one that file re-exports, the file the re-export leads to."""
        for end in range(len(parts), -1, -1):
            module = tuple(parts[:end])
            if module in self.files:
                name = parts[end] if end < len(parts) else None
                target = self.reexports.get(module, {}).get(name)
                if target is not None and (module, name) not in seen:
                    return self.resolve(target + parts[end + 1 :], seen + ((module, name),)) or module
                return module
        return None

    def children(self, module):
        code = self.codes[module]
        return set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code, re.M))

    def uses(self, module):
        """Each `use` tree's paths, with whether the `use` is a re-export (`pub use`)."""
        code, depth = self.codes[module], inline_depths(self.codes[module])
        for use in re.finditer(USE, code):
            for path in expand_use_tree(use.group(2)):
                path, _, alias = path.partition("@")
                yield path, alias, depth(use.start()), use.group(1) is not None

    def absolute_or_child(self, module, path, inline):
        parts = self.absolute(module, path, inline)
        if parts is None and path.split("::")[0] in self.children(module):
            parts = list(module) + path.split("::")
        return parts

    def reexports_of(self, module):
        """The names a file re-exports (`pub use a::b::C;`, `pub use a::b::C as D;`) and the path
        each leads to. A re-export is the folder's table of contents, not a use of its own: a path
        through it is a use of the file it leads to."""
        names = {}
        for path, alias, inline, public in self.uses(module):
            if not public or inline or path.endswith("*"):
                continue
            parts = self.absolute_or_child(module, path, 0)
            if parts:
                names[alias or parts[-1]] = parts
        return names

    def absolute(self, module, path, inline=0):
        """A `crate::`/`super::`/`self::` path's parts from the crate root, or None. `inline` is
        how many inline `mod x { … }` blocks the path stands in: their `super` is this file."""
        parts = [p for p in path.split("::") if p]
        if not parts:
            return None
        if parts[0] == "crate":
            return parts[1:]
        if parts[0] not in ("super", "self"):
            return None
        base = list(module) + [None] * inline
        while parts and parts[0] in ("super", "self"):
            if parts.pop(0) == "super":
                if not base:
                    return None
                base.pop()
        return None if None in base else base + parts

    def imports_of(self, module):
        code = self.codes[module]
        paths = [(p, inline) for p, _, inline, public in self.uses(module) if not public or p.endswith("*")]
        depth = inline_depths(code)
        code = re.sub(USE, lambda use: re.sub(r"[^\n]", " ", use.group(0)), code)
        for path in re.finditer(r"\b(?:crate|super|self)(?:::\w+)+", code):
            paths.append((path.group(0), depth(path.start())))
        for child in self.children(module):
            for path in re.finditer(rf"(?<![\w:]){child}(?:::\w+)+", code):
                paths.append((path.group(0), depth(path.start())))
        targets = set()
        for p, inline in paths:
            parts = self.absolute_or_child(module, p, inline)
            target = self.resolve(parts) if parts else None
            if target is not None and target != module:
                targets.add(target)
        return targets

    def circles(self):
        """Strongly connected components of more than one file (Tarjan, iterative)."""
        index, low, on, stack, found, counter = {}, {}, set(), [], [], 0
        for root in sorted(self.edges):
            if root in index:
                continue
            work = [(root, iter(sorted(self.edges[root])))]
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on.add(root)
            while work:
                v, it = work[-1]
                w = next(it, None)
                if w is not None:
                    if w not in index:
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on.add(w)
                        work.append((w, iter(sorted(self.edges.get(w, ())))))
                    elif w in on:
                        low[v] = min(low[v], index[w])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
        return found


def name(module):
    return "/".join(module) or "root"


def read_layers(architecture):
    """ARCHITECTURE.md's `layers` block: {top-level module: floor}."""
    text = architecture.read_text(encoding="utf-8")
    block = re.search(r"^```layers\n(.*?)^```", text, re.M | re.S)
    if not block:
        sys.exit(f"imports: {architecture} has no ```layers block")
    floors = {}
    for number, line in enumerate(block.group(1).splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if not fields[0].isdigit():
            sys.exit(f"imports: {architecture}: layers line {number!r} does not start with a floor number")
        for module in fields[1:]:
            if module in floors:
                sys.exit(f"imports: {architecture}: module {module} is on two floors")
            floors[module] = int(fields[0])
    return floors


def layer_problems(crate, floors):
    problems = []
    for module in crate.files:
        if module and module[0] not in floors:
            problems.append(f"engine/{name(module)} is on no floor of ARCHITECTURE.md's layers")
    for source, targets in crate.edges.items():
        if not source:
            continue  # lib.rs: the table of contents
        for target in targets:
            if not target or target[0] == source[0] or source[0] not in floors or target[0] not in floors:
                continue
            if floors[target[0]] > floors[source[0]]:
                problems.append(
                    f"engine/{name(source)} (floor {floors[source[0]]}) imports engine/{name(target)}"
                    f" on a higher floor ({floors[target[0]]})"
                )
    return problems


def view_problems(crate):
    problems = []
    for source, targets in crate.edges.items():
        for target in targets:
            if source[:1] == target[:1] == ("views",) and len(source) > 1 and len(target) > 1:
                if source[1] != target[1]:
                    problems.append(f"app/{name(source)} reaches into app/{name(target)}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    parser.add_argument("--dot", metavar="CRATE", help="print one crate's picture as Graphviz")
    args = parser.parse_args()
    problems, counts = [], []
    for crate_name, src in CRATES.items():
        crate = Crate(args.root / src)
        if args.dot == crate_name:
            print(f"digraph {crate_name} {{")
            for s, ts in sorted(crate.edges.items()):
                for t in sorted(ts):
                    print(f'  "{name(s)}" -> "{name(t)}";')
            print("}")
        for comp in crate.circles():
            problems.append(f"{crate_name}: import circle: " + " <-> ".join(name(m) for m in comp))
        if crate_name == "engine":
            problems.extend(layer_problems(crate, read_layers(args.root / "ARCHITECTURE.md")))
        if crate_name == "app":
            problems.extend(view_problems(crate))
        imports = sum(len(t) for t in crate.edges.values())
        counts.append(f"{crate_name}: {len(crate.files)} files, {imports} imports")
    if not args.dot:
        print("imports: " + "; ".join(counts))
    if problems:
        print("\n".join(sorted(problems)), file=sys.stderr)
        sys.exit(f"imports: {len(problems)} problems")


if __name__ == "__main__":
    main()
