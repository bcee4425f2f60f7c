#!/usr/bin/env python3
"""A generated corpus of material-ui's scale for the split index's sizes (issue 36).

Writes FILES files (default 50,000) under OUT, in folders three deep like a large JavaScript
monorepo's (`packages/<package>/src/<Component>/<Component>.js`), each 20 to 200 lines of
identifiers drawn from a Zipf-distributed vocabulary of 40,000 words and their camelCase and
snake_case compounds, seeded so every run writes the same bytes. Then:

    routelens bundle OUT --out BUNDLE --chunkers none
    routelens search BUNDLE --arm fts5 --query-file ISSUE --format json   # fetched_bytes

docs/benchmarks.md gives what it measured. Run by hand; not a test.
"""
import argparse
import itertools
import os
import random

SYLLABLES = ["ba", "co", "de", "fi", "go", "hu", "ja", "ke", "li", "mo", "nu", "pa", "qui", "ro",
             "sa", "ti", "vo", "wa", "xe", "yo", "zu", "an", "el", "in", "or", "ux"]


def vocabulary(rng, size):
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    words = vocabulary(rng, 40_000)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(words))))
    packages = [f"{rng.choice(words)}-{rng.choice(words)}" for _ in range(120)]
    for at in range(args.files):
        component = rng.choice(words).capitalize() + rng.choice(words).capitalize()
        folder = os.path.join(args.out, "packages", rng.choice(packages), "src", component)
        os.makedirs(folder, exist_ok=True)
        lines = []
        for _ in range(rng.randint(20, 200)):
            picked = rng.choices(words, cum_weights=cumulative, k=rng.randint(2, 9))
            style = rng.random()
            if style < 0.2:
                picked[0] = picked[0] + picked[-1].capitalize()
            elif style < 0.3:
                picked[0] = picked[0] + "_" + picked[-1]
            lines.append("  " * rng.randint(0, 3) + " ".join(picked) + ";")
        name = f"{component}{at}.js"
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
