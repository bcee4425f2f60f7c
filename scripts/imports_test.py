#!/usr/bin/env python3
"""The import checker's own test: on small synthetic workspaces it must find a circle between
files, an import from a lower engine floor to a higher one and a view reaching into another, must
see through re-exports, braces, aliases and test code, and must pass a clean tree.

Usage: python3 scripts/imports_test.py
"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "imports.py"

LAYERS = """# Architecture

```layers
1  error
2  corpus
3  study
```
"""

CLEAN = {
    "ARCHITECTURE.md": LAYERS,
    "engine/src/lib.rs": "pub mod error;\npub mod corpus;\npub mod study;\n",
    "engine/src/error.rs": "pub struct Error;\n",
    "engine/src/corpus/mod.rs": "//! The corpus.\npub mod bundle;\npub use bundle::Manifest;\n",
    "engine/src/corpus/bundle.rs": "use crate::error::Error;\npub struct Manifest(Error);\n",
    "engine/src/study/mod.rs": (
        "pub mod subset;\n"
        "use crate::{corpus::Manifest, error::Error as E};\n"
        "pub struct Study(Manifest, E);\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"
    ),
    "engine/src/study/subset.rs": "use super::Study;\npub fn all(_: &Study) {}\n",
    "bundler/src/main.rs": "mod a;\nmod b;\nfn main() { a::run(); }\n",
    "bundler/src/a.rs": "use crate::b::helper;\npub fn run() { helper() }\n",
    "bundler/src/b.rs": "pub fn helper() {}\n",
    "worker/src/main.rs": "fn main() {}\n",
    "app/src/lib.rs": "pub mod views;\n",
    "app/src/views/mod.rs": "pub mod search;\npub mod route;\n",
    "app/src/views/search/mod.rs": "mod state;\nuse state::Shown;\npub fn view(_: Shown) {}\n",
    "app/src/views/search/state.rs": "pub struct Shown;\n",
    "app/src/views/route/mod.rs": "pub fn view() {}\n",
}


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            path = pathlib.Path(root, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--root", root], capture_output=True, text=True
        )
        return done.returncode, done.stdout + done.stderr


def changed(**edits):
    files = dict(CLEAN)
    files.update(edits)
    return files


class ImportChecker(unittest.TestCase):
    def test_a_clean_tree_passes(self):
        code, out = run(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("engine: 6 files", out)

    def test_a_circle_between_files_fails(self):
        code, out = run(changed(**{"bundler/src/b.rs": "use crate::a::run;\npub fn helper() {}\n"}))
        self.assertEqual(code, 1, out)
        self.assertIn("bundler: import circle: a <-> b", out)

    def test_an_upward_import_fails(self):
        code, out = run(
            changed(**{"engine/src/corpus/bundle.rs": "use crate::study::Study;\npub struct Manifest;\n"})
        )
        self.assertEqual(code, 1, out)
        self.assertIn(
            "engine/corpus/bundle (floor 2) imports engine/study on a higher floor (3)", out
        )

    def test_an_upward_import_through_braces_and_an_alias_fails(self):
        code, out = run(
            changed(**{"engine/src/error.rs": "use crate::{corpus::{bundle as b}};\npub struct Error;\n"})
        )
        self.assertEqual(code, 1, out)
        self.assertIn("engine/error (floor 1) imports engine/corpus/bundle", out)

    def test_a_circle_through_a_re_export_is_found_at_the_file_that_defines_it(self):
        # study/subset imports Study through the parent, which defines it; the parent using
        # subset makes the two a circle.
        code, out = run(
            changed(**{"engine/src/study/mod.rs": "pub mod subset;\npub struct Study;\npub fn f() { subset::all(&Study) }\n"})
        )
        self.assertEqual(code, 1, out)
        self.assertIn("engine: import circle: study <-> study/subset", out)

    def test_a_module_on_no_floor_fails(self):
        code, out = run(changed(**{"engine/src/stray.rs": "pub fn f() {}\n"}))
        self.assertEqual(code, 1, out)
        self.assertIn("engine/stray is on no floor", out)

    def test_a_view_reaching_into_another_fails(self):
        code, out = run(
            changed(**{"app/src/views/route/mod.rs": "use crate::views::search::state::Shown;\npub fn view(_: Shown) {}\n"})
        )
        self.assertEqual(code, 1, out)
        self.assertIn("app/views/route reaches into app/views/search/state", out)

    def test_paths_in_comments_strings_and_tests_are_not_imports(self):
        text = (
            '//! See crate::study::Study.\n'
            'pub struct Manifest;\n'
            'pub const S: &str = "crate::study::Study";\n'
            "#[cfg(test)]\nmod tests {\n    use crate::study::Study;\n}\n"
        )
        code, out = run(changed(**{"engine/src/corpus/bundle.rs": text}))
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
