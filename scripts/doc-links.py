#!/usr/bin/env python3
"""Checks that every relative link in the project's Markdown resolves.

The files checked are README.md, ARCHITECTURE.md, CHANGELOG.md and every docs/**/*.md under the
root (the repository, or the folder given). A link is `[text](path)`, `[text](path#anchor)`, an
image `![alt](path)` or a reference definition `[name]: path`. Each path must name an existing
file or folder, relative to the linking file (a path starting with `/` is relative to the root,
as on GitHub). A `#anchor` into a Markdown file (or a bare `#anchor` into the linking file
itself) must equal the GitHub-style slug of one of that file's headings. Absolute URLs
(`https://…`, `mailto:…`, any `scheme:`), links inside fenced code blocks and inside inline code
are not checked.

Prints each broken link as `FILE:LINE: broken link TARGET` and exits 1 if there is any; otherwise
prints one line with the count and exits 0.

Usage: python3 scripts/doc-links.py [ROOT]   (default: the repository holding this script)
"""
import pathlib
import re
import sys
import urllib.parse

TOP_LEVEL = ("README.md", "ARCHITECTURE.md", "CHANGELOG.md")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# `[text](destination "title")` or `![alt](…)`; the text may hold one level of brackets.
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def blank_fences(text):
    """The text with every fenced code block's lines (fences included) emptied, line count kept."""
    out = []
    fence = None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                out.append("")
            else:
                out.append(line)
        else:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and line.strip() == match.group(1):
                fence = None
            out.append("")
    return "\n".join(out)


def blank_code_spans(text):
    """The text with every inline code span replaced by spaces, newlines kept. A span opens with a
    run of backticks and closes with the next run of the same length in the same paragraph (so it
    may wrap); a run with no closer is literal text."""
    out = []
    i = 0
    while i < len(text):
        if text[i] != "`":
            out.append(text[i])
            i += 1
            continue
        run = len(text[i:]) - len(text[i:].lstrip("`"))
        paragraph_end = re.compile(r"\n[ \t]*\n").search(text, i)
        limit = paragraph_end.start() if paragraph_end else len(text)
        closer = re.compile(r"(?<!`)" + "`" * run + r"(?!`)").search(text, i + run, limit)
        if closer is None:
            out.append("`" * run)
            i += run
            continue
        out.append("".join("\n" if c == "\n" else " " for c in text[i:closer.end()]))
        i = closer.end()
    return "".join(out)


def slug(heading):
    """GitHub's anchor for a heading's text: markup dropped, lower case, punctuation removed,
    each space a hyphen."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_ANCHORS = {}


def anchors(path):
    """Every anchor a Markdown file offers: its headings' slugs (repeats numbered -1, -2, … as
    GitHub does) and any `<a name>`/`id`."""
    if path in _ANCHORS:
        return _ANCHORS[path]
    text = blank_fences(path.read_text(encoding="utf-8"))
    lines = text.split("\n")
    found = set()
    seen = {}

    def add(heading):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")

    for number, line in enumerate(lines):
        match = ATX_HEADING.match(line)
        if match:
            add(match.group(2) or "")
        elif (number + 1 < len(lines) and line.strip() and not line.startswith("    ")
              and SETEXT_UNDERLINE.match(lines[number + 1])
              and not re.match(r"^ {0,3}([-*+]|\d+[.)])\s", line)
              and not line.lstrip().startswith("|")):
            add(line.strip())
        found.update(HTML_ANCHOR.findall(line))
    _ANCHORS[path] = found
    return found


def links(path):
    """(line number, target) of every link in a Markdown file, outside code."""
    text = blank_code_spans(blank_fences(path.read_text(encoding="utf-8")))
    found = []
    for match in INLINE_LINK.finditer(text):
        line = text.count("\n", 0, match.start(1)) + 1
        found.append((line, match.group(1)))
    for number, line in enumerate(text.split("\n"), start=1):
        match = REFERENCE.match(line)
        if match:
            found.append((number, match.group(1)))
    return sorted(found)


def unwrap(target):
    """A link destination without its optional angle brackets."""
    return target[1:-1] if target.startswith("<") and target.endswith(">") else target


def is_absolute(target):
    """Whether a destination is an absolute URL (`https://…`, `mailto:…`, `//host/…`)."""
    target = unwrap(target)
    return bool(SCHEME.match(target)) or target.startswith("//")


def resolves(root, source, target):
    """Whether a relative link from `source` names an existing file or folder and, for an anchor
    into a Markdown file, one of its headings."""
    target = unwrap(target)
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    anchor = urllib.parse.unquote(anchor)
    if not path_part:
        resolved = source
    elif path_part.startswith("/"):
        resolved = root / path_part.lstrip("/")
    else:
        resolved = source.parent / path_part
    if not resolved.exists():
        return False
    if anchor and resolved.is_file() and resolved.suffix.lower() == ".md":
        return anchor in anchors(resolved.resolve())
    return True


def markdown_files(root):
    """The files checked: the top-level README, ARCHITECTURE and CHANGELOG, then docs/**/*.md."""
    files = [root / name for name in TOP_LEVEL if (root / name).is_file()]
    docs = root / "docs"
    if docs.is_dir():
        files.extend(sorted(p for p in docs.rglob("*.md") if p.is_file()))
    return files


def main(argv):
    if len(argv) > 2:
        sys.exit("usage: doc-links.py [ROOT]")
    default_root = pathlib.Path(__file__).resolve().parent.parent
    root = pathlib.Path(argv[1]) if len(argv) > 1 else default_root
    if not root.is_dir():
        sys.exit(f"doc-links: {root}: not a folder")
    files = markdown_files(root)
    checked = 0
    failures = []
    for path in files:
        for line, target in links(path):
            if is_absolute(target):
                continue
            checked += 1
            if not resolves(root, path, target):
                failures.append(f"{path.relative_to(root)}:{line}: broken link {target}")
    for failure in failures:
        print(failure)
    if failures:
        print(f"doc-links: {len(failures)} of {checked} relative links in {len(files)} files "
              "are broken", file=sys.stderr)
        return 1
    print(f"doc-links: {checked} relative links in {len(files)} files resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
