#!/usr/bin/env python3
"""Tests scripts/doc-links.py on small Markdown trees built in a temporary folder.

Usage: python3 scripts/doc-links-test.py   (plain unittest; no packages)
"""
import importlib.util
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "doc-links.py"


def load_checker():
    spec = importlib.util.spec_from_file_location("doc_links", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def run(root):
    result = subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True,
                            text=True, check=False)
    return result.returncode, result.stdout.splitlines()


class BrokenLinks(unittest.TestCase):
    def test_flags_exactly_the_broken_file_and_the_broken_anchor(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            write(root, "README.md", """
                # Project

                The [guide](docs/guide.md#getting-started) is good.
                A [missing page](docs/missing.md) is not.
                A [missing heading](docs/guide.md#no-such-heading) is not either.

                ```sh
                see [inside a fence](docs/also-missing.md)
                ```

                The [site](https://example.com/nowhere.md) is not checked.
                """)
            write(root, "docs/guide.md", """
                # Guide

                ## Getting started
                """)
            code, lines = run(root)
            self.assertEqual(code, 1)
            self.assertEqual(lines, [
                "README.md:4: broken link docs/missing.md",
                "README.md:5: broken link docs/guide.md#no-such-heading",
            ])

    def test_a_tree_whose_links_resolve_passes_with_a_count(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            write(root, "README.md", """
                # Project

                See [the guide](docs/guide.md) and [ARCHITECTURE](ARCHITECTURE.md).
                """)
            write(root, "ARCHITECTURE.md", "Back to the [README](README.md#project).\n")
            write(root, "docs/guide.md", "[Up](../README.md), [a folder](sub/), [mail](mailto:a@b)")
            (root / "docs/sub").mkdir()
            code, lines = run(root)
            self.assertEqual(code, 0)
            self.assertEqual(lines, ["doc-links: 5 relative links in 3 files resolve"])

    def test_docs_are_found_at_any_depth_and_links_resolve_from_the_linking_file(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            write(root, "docs/commands/run.md", "[formats](../formats.md) [wrong](formats.md)\n")
            write(root, "docs/formats.md", "# Formats\n")
            code, lines = run(root)
            self.assertEqual(code, 1)
            self.assertEqual(lines, ["docs/commands/run.md:1: broken link formats.md"])

    def test_reference_definitions_and_same_file_anchors_are_checked(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            write(root, "CHANGELOG.md", """
                # Changelog

                ## 2026-12-02

                See [today][today] and [below](#2026-12-02) and [nowhere](#2026-12-03).

                [today]: docs/today.md
                """)
            code, lines = run(root)
            self.assertEqual(code, 1)
            self.assertEqual(lines, [
                "CHANGELOG.md:5: broken link #2026-12-03",
                "CHANGELOG.md:7: broken link docs/today.md",
            ])

    def test_inline_code_is_not_a_link_even_when_it_wraps(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            write(root, "README.md", """
                A span `[x](missing.md) and
                [y](gone.md)` holds no link; [z](absent.md) after it is one.
                """)
            code, lines = run(root)
            self.assertEqual(code, 1)
            self.assertEqual(lines, ["README.md:2: broken link absent.md"])


class Slugs(unittest.TestCase):
    def setUp(self):
        self.checker = load_checker()

    def test_github_style_slugs(self):
        slug = self.checker.slug
        self.assertEqual(slug("`routelens pack`: delivered context"),
                         "routelens-pack-delivered-context")
        self.assertEqual(slug("Context stage (select + pack)"), "context-stage-select--pack")
        self.assertEqual(slug("CodeNib's chunker"), "codenibs-chunker")
        self.assertEqual(slug("In the [browser](x.md): the **Rerank** tab"),
                         "in-the-browser-the-rerank-tab")
        self.assertEqual(slug("snake_case names"), "snake_case-names")

    def test_repeated_headings_are_numbered(self):
        with tempfile.TemporaryDirectory() as temp:
            path = pathlib.Path(temp) / "page.md"
            path.write_text("# Notes\n\n## Notes\n\nSetext\n------\n", encoding="utf-8")
            self.assertEqual(self.checker.anchors(path), {"notes", "notes-1", "setext"})


if __name__ == "__main__":
    unittest.main()
