#!/usr/bin/env python3
"""Plain-Python re-score of the paper's archived study: the baseline for routelens' benchmark.

Standard library only. It does the same work that `engine/benches/rescore.rs` times
(`rescore_everything`): every arm x 82 issues x k = 1..16 (file recall, precision, complete
cases, ceiling, micro recall), then four paired comparisons at k = 8 (tree-fts5, tree-rg,
tree+fts5-fts5, tree+fts5-tree), each with a 10,000-resample repository-cluster bootstrap drawn
with random.Random(0).choices, wins/losses/ties, the exact sign test and the exact sign-flip test.

Written from the paper's definitions (seed 000, section 3.3 and Table 4):
  recall@k    = |G & R[:k]| / |G|       (G: distinct gold files, R: ranked paths)
  precision@k = |G & R[:k]| / |R[:k]|   (0 when nothing is returned)
  complete    = G is a subset of R[:k];  ceiling: |G| > k
  RRF         = sum over lists of 1 / (60 + rank) over each list's top 16, ties by path ascending
  bootstrap   = resample the repositories with replacement, mean over all their issues; the
                interval is sorted[int(0.025 R)] .. sorted[int(0.975 R) - 1]

Loading the JSON and building the arms (the fusion included) happens once, outside the timed part,
as the engine's benchmark also loads the study outside its timed loop. Before timing, the results
are checked against the paper's Table 2 and the intervals the archive stores, so the two
implementations are known to compute the same numbers.

Prints each run's wall time and, last, `python_ms=<median>`.
"""

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import time

DATA = "paper/data"
MAX_K = 16
PAIRS = [("tree", "fts5"), ("tree", "rg"), ("tree+fts5", "fts5"), ("tree+fts5", "tree")]

# (arm, file, row filter field, value); None keeps every row.
ARM_SOURCES = [
    ("tree", "contextbench-paper-tree.json", "variant", "wide"),
    ("fts5", "contextbench-paper-fts5.json", "query_mode", "first500"),
    ("fts5-full", "contextbench-paper-fts5.json", "query_mode", "full"),
    ("rg", "contextbench-paper-rg.json", "query_mode", "full"),
    ("rg-first500", "contextbench-paper-rg.json", "query_mode", "first500"),
    ("rg-feedback", "contextbench-paper-rg-feedback.json", None, None),
    ("path-fts5", "contextbench-paper-path-fts5.json", "query_mode", "first500"),
    ("flat-jev", "contextbench-paper-flat-paths.json", None, None),
]


def default_archive():
    env = os.environ.get("ROUTELENS_FASTINDEX")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "shared", "data", "fastindex"))


def read(archive, name):
    with open(os.path.join(archive, DATA, name), encoding="utf-8") as handle:
        return json.load(handle)


def rrf(lists, rank_constant=60.0, depth=16):
    scores = {}
    for ranking in lists:
        for rank, path in enumerate(ranking[:depth], start=1):
            scores[path] = scores.get(path, 0.0) + 1.0 / (rank_constant + rank)
    return [path for path, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


def load(archive):
    """Cases (id, repo, gold set) in ledger order, and each arm's rankings in that order."""
    ledger = read(archive, "contextbench-case-ledger.json")["cases"]
    ids = [case["id"] for case in ledger]
    repos = [case["repo"] for case in ledger]
    gold = [frozenset(span["path"] for span in case["gold"]) for case in ledger]
    arms = {}
    for name, file, field, value in ARM_SOURCES:
        by_id = {
            row["id"]: row["paths"]
            for row in read(archive, file)["results"]
            if field is None or row.get(field) == value
        }
        arms[name] = [by_id.get(case_id, []) for case_id in ids]
    arms["tree+fts5"] = [rrf([t, f]) for t, f in zip(arms["tree"], arms["fts5"])]
    post = read(archive, "contextbench-paper-poststudy.json")
    by_id = {row["id"]: row["paths"] for row in post["basename_rankings"]}
    arms["basename"] = [by_id.get(case_id, []) for case_id in ids]
    return repos, gold, arms


def summarize(gold, rankings, k):
    """File recall (macro and micro), precision, complete and ceiling counts at k."""
    recall_sum = precision_sum = 0.0
    found_all = gold_all = complete = ceiling = 0
    for gold_set, ranking in zip(gold, rankings):
        top = ranking[:k]
        found = sum(1 for path in top if path in gold_set)
        recall_sum += found / len(gold_set)
        precision_sum += found / len(top) if top else 0.0
        found_all += found
        gold_all += len(gold_set)
        complete += found == len(gold_set)
        ceiling += len(gold_set) > k
    n = len(gold)
    return {
        "file_recall": recall_sum / n,
        "precision": precision_sum / n,
        "micro_recall": found_all / gold_all,
        "full": complete,
        "ceiling": ceiling,
    }


def recalls(gold, rankings, k):
    out = []
    for gold_set, ranking in zip(gold, rankings):
        out.append(sum(1 for path in ranking[:k] if path in gold_set) / len(gold_set))
    return out


def cluster_bootstrap(clusters, resamples, seed):
    rng = random.Random(seed)
    sums = [(sum(values), len(values)) for values in clusters]
    indices = range(len(clusters))
    means = []
    for _ in range(resamples):
        total = 0.0
        count = 0
        for index in rng.choices(indices, k=len(clusters)):
            cluster_sum, cluster_n = sums[index]
            total += cluster_sum
            count += cluster_n
        means.append(total / count)
    means.sort()
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def sign_test(wins, losses):
    n = wins + losses
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1))
    return min(1.0, 2.0 * tail / 2**n)


def sign_flip(contrasts):
    observed = abs(sum(contrasts))
    tolerance = 1e-12 * max(1.0, sum(abs(c) for c in contrasts))
    extreme = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(contrasts)):
        if abs(sum(s * c for s, c in zip(signs, contrasts))) >= observed - tolerance:
            extreme += 1
    return extreme / 2 ** len(contrasts)


def compare(repos, gold, arms, left, right, k, resamples, seed):
    deltas = [a - b for a, b in zip(recalls(gold, arms[left], k), recalls(gold, arms[right], k))]
    by_repo = {}
    for repo, delta in zip(repos, deltas):
        by_repo.setdefault(repo, []).append(delta)
    clusters = [by_repo[repo] for repo in sorted(by_repo)]
    low, high = cluster_bootstrap(clusters, resamples, seed)
    wins = sum(1 for d in deltas if d > 0)
    losses = sum(1 for d in deltas if d < 0)
    return {
        "mean": sum(deltas) / len(deltas),
        "ci_low": low,
        "ci_high": high,
        "wins": wins,
        "losses": losses,
        "ties": len(deltas) - wins - losses,
        "sign_test_p": sign_test(wins, losses),
        "sign_flip_p": sign_flip([sum(c) / len(c) for c in clusters]),
    }


def rescore(repos, gold, arms, resamples, seed):
    """The timed work: every arm at every k, then the four paired comparisons at k = 8."""
    summaries = {(arm, k): summarize(gold, rankings, k)
                 for k in range(1, MAX_K + 1) for arm, rankings in arms.items()}
    paired = {(left, right): compare(repos, gold, arms, left, right, 8, resamples, seed)
              for left, right in PAIRS}
    return summaries, paired


def check(archive, summaries, paired, resamples, seed):
    """Fails loudly unless this script reproduces the paper (so the timing compares like work)."""
    published = {("rg", 8): ("0.245", 12), ("fts5", 8): ("0.352", 17), ("tree", 8): ("0.465", 25),
                 ("tree+fts5", 8): ("0.491", 23), ("rg", 16): ("0.328", 16),
                 ("fts5", 16): ("0.421", 19), ("tree", 16): ("0.591", 32),
                 ("tree+fts5", 16): ("0.571", 30)}
    for key, (recall, full) in published.items():
        got = summaries[key]
        if (f"{got['file_recall']:.3f}", got["full"]) != (recall, full):
            sys.exit(f"mismatch at {key}: {got['file_recall']:.3f} / {got['full']}")
    if paired[("tree", "fts5")]["sign_flip_p"] != 16 / 2048:
        sys.exit(f"sign-flip p {paired[('tree', 'fts5')]['sign_flip_p']} is not 16/2048")
    if (resamples, seed) != (10_000, 0):
        return "published Table 2 (intervals not checked: not the paper's resamples and seed)"
    stored = read(archive, "contextbench-paper-study.json")["paired"]
    for (left, right), got in paired.items():
        want = stored[f"{left}-{right}@8/file_recall"]
        for ours, theirs in (("mean", "mean_delta"), ("ci_low", "lower_95"), ("ci_high", "upper_95")):
            if abs(got[ours] - want[theirs]) > 1e-12:
                sys.exit(f"{left}-{right}@8 {ours}: {got[ours]} vs archived {want[theirs]}")
    return "published Table 2, sign-flip 16/2048 and the four archived intervals"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", default=default_archive(),
                        help="the archive folder (default: $ROUTELENS_FASTINDEX or "
                             "../shared/data/fastindex beside the checkout)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs; the median is reported")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.archive, DATA, "README.md")):
        sys.exit(f"the paper archive is not at {args.archive} (set ROUTELENS_FASTINDEX)")

    repos, gold, arms = load(args.archive)
    summaries, paired = rescore(repos, gold, arms, args.resamples, args.seed)
    print(f"checked: {check(args.archive, summaries, paired, args.resamples, args.seed)}")
    print(f"work: {len(arms)} arms x {len(gold)} issues x k=1..{MAX_K}, "
          f"{len(PAIRS)} paired bootstraps x {args.resamples} resamples")
    times = []
    for run in range(args.runs):
        start = time.perf_counter()
        rescore(repos, gold, arms, args.resamples, args.seed)
        times.append((time.perf_counter() - start) * 1000.0)
        print(f"run {run + 1}: {times[-1]:.1f} ms")
    print(f"python_ms={statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
