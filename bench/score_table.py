#!/usr/bin/env python3
"""Plain-Python scoring of CodeNib's per-issue results: the baseline for routelens' benchmark.

Standard library only. It does the same work that `engine/benches/score_table.rs` times
(`ScoreTable::score_all`): for every score column (a `base_aligned/` prefix names the corrected
frame; the rest of the name splits at its last '/' into arm and metric; a name without '/' is a
measure of the case) its mean with a repository-cluster bootstrap interval, then for every frame
and metric every pair of arms (each unordered pair once, in column order): the mean difference with
its paired interval, wins/losses/ties and the exact two-sided sign test. One set of draws,
random.Random(seed).choices over the sorted repositories, shared by every interval; a resample's
value is the mean over all issues of the repositories drawn; the interval is
sorted[int(0.025 R)] .. sorted[int(0.975 R) - 1].

Prints each run's wall time, one comparison to twelve decimals (to compare with `routelens score
--pair bm25/typesafe/jev-1.13:grep/typesafe/jev-1.13 --resamples 5000 --format json`), and, last,
`python_ms=<median>`.
Usage: python3 bench/score_table.py [CSV] [--resamples 5000] [--runs 5]
"""

import argparse
import csv
import math
import os
import random
import statistics
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = os.path.join(HERE, "../../shared/data/codenib/jev_candidates_cases.csv")
TEXT = {"instance_id", "repo", "language_group"}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    columns = []
    for name in rows[0].keys():
        if name in TEXT:
            continue
        frame, rest = ("base_aligned", name[len("base_aligned/"):]) if name.startswith("base_aligned/") else ("published", name)
        arm, metric = rest.rsplit("/", 1) if "/" in rest else ("case", rest)
        columns.append((frame, arm, metric, [float(r[name]) for r in rows]))
    return [r["repo"] for r in rows], columns


def sign_test(wins, losses):
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def score_all(repos, columns, resamples, seed):
    names = sorted(set(repos))
    index = {name: i for i, name in enumerate(names)}
    members = [[] for _ in names]
    for case, repo in enumerate(repos):
        members[index[repo]].append(case)
    rng = random.Random(seed)
    draws = [rng.choices(range(len(names)), k=len(names)) for _ in range(resamples)]
    low_at, high_at = int(0.025 * resamples), int(0.975 * resamples) - 1

    def interval(values):
        sums = [sum(values[c] for c in cases) for cases in members]
        counts = [len(cases) for cases in members]
        means = sorted(sum(sums[i] for i in d) / sum(counts[i] for i in d) for d in draws)
        return sum(values) / len(values), means[low_at], means[high_at]

    summaries = [interval(values) for (_, _, _, values) in columns]
    pairs = []
    keys = []
    for frame, arm, metric, _ in columns:
        if (frame, metric) not in keys:
            keys.append((frame, metric))
    for frame, metric in keys:
        arms = [(a, v) for (f, a, m, v) in columns if f == frame and m == metric and a != "case"]
        for i, (left, lv) in enumerate(arms):
            for right, rv in arms[i + 1:]:
                deltas = [a - b for a, b in zip(lv, rv)]
                wins = sum(d > 0 for d in deltas)
                losses = sum(d < 0 for d in deltas)
                pairs.append((left, right, metric, frame) + interval(deltas) + (wins, losses, sign_test(wins, losses)))
    return summaries, pairs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    parser.add_argument("--resamples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    repos, columns = load(args.csv)
    times = []
    for run in range(args.runs):
        started = time.perf_counter()
        summaries, pairs = score_all(repos, columns, args.resamples, args.seed)
        times.append((time.perf_counter() - started) * 1000)
        print(f"run {run + 1}: {times[-1]:.1f} ms")
    jev = next(p for p in pairs if p[:4] == ("bm25/typesafe/jev-1.13", "grep/typesafe/jev-1.13", "span_recall@5", "base_aligned"))
    print(f"columns={len(summaries)} pairs={len(pairs)}")
    print(f"jev bm25-grep base_aligned: {jev[4]:+.12f} [{jev[5]:+.12f}, {jev[6]:+.12f}] wins={jev[7]} losses={jev[8]}")
    print(f"python_ms={statistics.median(times):.1f}")


if __name__ == "__main__":
    main()
