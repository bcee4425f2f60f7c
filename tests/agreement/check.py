#!/usr/bin/env python3
"""`routelens agreement` against scikit-learn and krippendorff (tests/agreement/run.sh).

For generated tasks (questions with candidate files; two labellers who grade each file 0 to 3 or
leave it out, and sometimes add a file the pool missed) and for the degenerate ones (every grade
the same, nothing judged by both, one pair judged by both), every statistic routelens prints is
compared: Cohen's kappa at the cut and linear-weighted kappa over the grades with
sklearn.metrics.cohen_kappa_score (labels=[0, 1, 2, 3] for the grades, so distances are the
grades' own), Krippendorff's alpha with krippendorff.alpha (nominal and ordinal; its own default
level is interval), and percent agreement, positive specific agreement and the mean per-question
Jaccard with plain Python. A statistic the reference cannot compute (nan, or an error) must be
undefined in routelens, never a number.
"""
import hashlib
import json
import math
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

CLI = sys.argv[1]
CUT = 2
warnings.simplefilter("ignore")


def task_and_labels(questions, grades_a, grades_b):
    """The task file's bytes and both labels files' texts."""
    task = {"format": "routelens-label-task/1", "questions_sha256": "0" * 64, "bundle_commit": "c",
            "questions": [{"id": q, "question": f"question {q}", "candidates": c} for q, c in questions],
            "labellers": [{"seed": 1, "order": []}, {"seed": 2, "order": []}]}
    data = json.dumps(task).encode()
    sha = hashlib.sha256(data).hexdigest()

    def labels(who, grades):
        lines = [json.dumps({"format": "routelens-labels/1", "task": sha, "labeller": who, "app": "test"})]
        for (q, path), grade in grades.items():
            lines.append(json.dumps({"question": q, "path": path, "grade": grade}))
        return "\n".join(lines) + "\n"

    return data, labels("a", grades_a), labels("b", grades_b)


def run(questions, grades_a, grades_b):
    data, a, b = task_and_labels(questions, grades_a, grades_b)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "task.json").write_bytes(data)
        (tmp / "a.jsonl").write_text(a)
        (tmp / "b.jsonl").write_text(b)
        out = subprocess.run([CLI, "agreement", tmp / "task.json", tmp / "a.jsonl", tmp / "b.jsonl",
                              "--cut", str(CUT), "--resamples", "20", "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
    return {s["name"]: s for s in json.loads(out)["statistics"]}


def reference(questions, grades_a, grades_b):
    """Every statistic from the references, None where they cannot compute one."""
    items = []
    for q, candidates in questions:
        paths = list(candidates)
        for (qq, path) in list(grades_a) + list(grades_b):
            if qq == q and path not in paths:
                paths.append(path)
        items += [(q, p, grades_a.get((q, p)), grades_b.get((q, p))) for p in paths]
    both = [(a, b) for _, _, a, b in items if a is not None and b is not None]
    binary = [(int(a >= CUT), int(b >= CUT)) for a, b in both]

    def safe(compute):
        try:
            value = float(compute())
        except (ValueError, ZeroDivisionError, IndexError):
            return None
        return None if math.isnan(value) else value

    out = {}
    out["percent_agreement"] = sum(a == b for a, b in binary) / len(binary) if binary else None
    out["grade_agreement"] = sum(a == b for a, b in both) / len(both) if both else None
    out["cohen_kappa"] = safe(lambda: cohen_kappa_score([a for a, _ in binary], [b for _, b in binary],
                                                        labels=[0, 1])) if binary else None
    out["weighted_kappa"] = safe(lambda: cohen_kappa_score([a for a, _ in both], [b for _, b in both],
                                                           labels=[0, 1, 2, 3], weights="linear")) if both else None
    matrix = np.array([[np.nan if a is None else a for _, _, a, _ in items],
                       [np.nan if b is None else b for _, _, _, b in items]], dtype=float)
    for level in ["nominal", "ordinal"]:
        out[f"alpha_{level}"] = safe(lambda: krippendorff.alpha(reliability_data=matrix,
                                                                level_of_measurement=level)) if both else None
    pos = sum(1 for a, b in binary if a and b)
    one = sum(1 for a, b in binary if a != b)
    out["positive_agreement"] = 2 * pos / (2 * pos + one) if binary and 2 * pos + one else None
    jaccards = []
    for q, _ in questions:
        pairs = [(a >= CUT, b >= CUT) for qq, _, a, b in items if qq == q and a is not None and b is not None]
        either = sum(1 for a, b in pairs if a or b)
        if either:
            jaccards.append(sum(1 for a, b in pairs if a and b) / either)
    out["mean_jaccard"] = sum(jaccards) / len(jaccards) if jaccards else None
    return out


def generated(seed):
    rng = random.Random(seed)
    questions = [(f"q{i}", [f"src/f{i}_{j}.py" for j in range(rng.randint(2, 7))]) for i in range(rng.randint(3, 14))]
    grades_a, grades_b = {}, {}
    for q, candidates in questions:
        for path in candidates:
            truth = rng.choice([0, 0, 0, 1, 2, 3])
            for grades, miss in [(grades_a, 0.15), (grades_b, 0.25)]:
                if rng.random() < miss:
                    continue
                noise = rng.choice([0, 0, 0, 1, -1, 2])
                grades[(q, path)] = min(3, max(0, truth + noise))
        if rng.random() < 0.3:
            grades_a[(q, f"src/added_{q}.py")] = rng.randint(0, 3)
    return questions, grades_a, grades_b


def degenerate():
    qs = [("q1", ["a.py", "b.py"]), ("q2", ["c.py"])]
    every = [("q1", "a.py"), ("q1", "b.py"), ("q2", "c.py")]
    yield "every grade 0", qs, {k: 0 for k in every}, {k: 0 for k in every}
    yield "every grade 3", qs, {k: 3 for k in every}, {k: 3 for k in every}
    yield "nothing judged by both", qs, {every[0]: 2, every[1]: 1}, {every[2]: 3}
    yield "one pair judged by both", qs, {every[0]: 2}, {every[0]: 3, every[2]: 1}
    yield "constant but different", qs, {k: 3 for k in every}, {k: 0 for k in every}


def main():
    cases = [(f"generated seed {seed}", *generated(seed)) for seed in range(40)] + list(degenerate())
    compared = 0
    for name, questions, grades_a, grades_b in cases:
        got = run(questions, grades_a, grades_b)
        want = reference(questions, grades_a, grades_b)
        for statistic, expected in want.items():
            value = got[statistic]["value"]
            if expected is None:
                assert value is None, f"{name}: {statistic} is {value}, the reference has none"
                assert got[statistic]["undefined"].startswith("undefined ("), got[statistic]
            else:
                assert value is not None, f"{name}: {statistic} undefined ({got[statistic]['undefined']}), reference {expected}"
                assert abs(value - expected) < 1e-9, f"{name}: {statistic} {value} against {expected}"
            compared += 1
    print(f"agreement: {compared} statistics over {len(cases)} label sets match scikit-learn "
          f"and krippendorff (or plain Python), undefined where they are")


main()
