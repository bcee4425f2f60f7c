#!/usr/bin/env python3
"""Checks routelens' ranking metrics against ir_measures (PyPI), cell for cell.

Generates TREC runs and qrels from a seeded generator (three arms, 60 queries in 12 repositories,
rankings of 1 to 16 paths drawn from a pool of 40, one to five relevant paths per query, some
queries with no relevant path retrieved at all), scores them with `routelens score RUN --qrels QRELS
--metric ... --format json`, and with ir_measures' Success@k, P@k, R@k, RR and nDCG@k, and requires
every arm x metric mean to agree to 1e-9. Usage: check.py ROUTELENS_BIN [SEED...]
"""

import json
import os
import random
import subprocess
import sys
import tempfile

import ir_measures
from ir_measures import Qrel, ScoredDoc

PAIRS = [  # routelens' name, ir_measures' measure
    ("hit@1", "Success@1"), ("hit@5", "Success@5"), ("hit@10", "Success@10"),
    ("precision@1", "P@1"), ("precision@5", "P@5"), ("precision@10", "P@10"),
    ("file_recall@5", "R@5"), ("file_recall@10", "R@10"), ("file_recall@16", "R@16"),
    ("mrr", "RR"),
    ("ndcg@5", "nDCG@5"), ("ndcg@10", "nDCG@10"), ("ndcg@16", "nDCG@16"),
]


def generate(seed):
    rng = random.Random(seed)
    pool = [f"src/mod{i // 8}/file{i}.rs" for i in range(40)]
    qrels, runs = [], []
    for q in range(60):
        qid = f"repo{q % 12}::{q}"
        relevant = rng.sample(pool, rng.randint(1, 5))
        for path in relevant:
            qrels.append((qid, path))
        for arm in ("alpha", "beta", "gamma"):
            depth = rng.randint(1, 16)
            # Most rankings favour relevant paths a little; some miss them entirely.
            candidates = [p for p in pool if p not in relevant] if rng.random() < 0.15 else pool[:]
            weights = [3.0 if p in relevant else 1.0 for p in candidates]
            ranking = []
            while len(ranking) < min(depth, len(candidates)):
                pick = rng.choices(candidates, weights)[0]
                if pick not in ranking:
                    ranking.append(pick)
            for rank, path in enumerate(ranking, 1):
                runs.append((qid, path, rank, 100.0 - rank, arm))
    return qrels, runs


def main():
    cli = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2:]] or [1, 2, 3]
    checked = 0
    for seed in seeds:
        qrels, runs = generate(seed)
        with tempfile.TemporaryDirectory() as tmp:
            run_path, qrels_path = os.path.join(tmp, "run.trec"), os.path.join(tmp, "qrels.txt")
            with open(run_path, "w") as f:
                for qid, path, rank, score, arm in runs:
                    f.write(f"{qid} Q0 {path} {rank} {score} {arm}\n")
            with open(qrels_path, "w") as f:
                for qid, path in qrels:
                    f.write(f"{qid} 0 {path} 1\n")
            args = [cli, "score", run_path, "--qrels", qrels_path, "--format", "json", "--k", "5,10",
                    "--resamples", "100", "--pair", "alpha:beta"]
            for ours, _ in PAIRS:
                args += ["--metric", ours]
            report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        ours = {(m["arm"], m["metric"]): m["mean"] for m in report["metrics"]}
        judged = [Qrel(qid, path, 1) for qid, path in qrels]
        for arm in ("alpha", "beta", "gamma"):
            scored = [ScoredDoc(qid, path, score) for qid, path, _, score, a in runs if a == arm]
            measures = [ir_measures.parse_measure(name) for _, name in PAIRS]
            theirs = ir_measures.calc_aggregate(measures, judged, scored)
            for (our_name, their_name), measure in zip(PAIRS, measures):
                a, b = ours[(arm, our_name)], theirs[measure]
                if abs(a - b) > 1e-9:
                    sys.exit(f"seed {seed}, arm {arm}: routelens {our_name} = {a!r}, "
                             f"ir_measures {their_name} = {b!r}")
                checked += 1
    print(f"ir_measures agrees with routelens on {checked} arm x metric means "
          f"({len(PAIRS)} metrics, 3 arms, {len(seeds)} generated studies)")


if __name__ == "__main__":
    main()
