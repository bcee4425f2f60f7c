"""Prints, as JSON, the numpy outputs that engine/tests/numpy_bootstrap.rs holds the Rust port
(engine/src/scoring/numpy_bootstrap/) to, bit for bit.

CodeNib's paired repository-bootstrap intervals come from numpy's `default_rng(20260923)`,
`integers`, `mean` and `percentile`; the Rust port replays each of those steps, and this script
records what numpy itself gives for each step, plus a whole bootstrap. Floats are written as the
16 hex digits of their IEEE-754 bits, so that no decimal parser stands between numpy and the test;
128-bit generator states as hex too. tests/numpy_bootstrap/run.sh runs this under a pinned numpy
and compares its output with the committed reference.json.

Usage: python reference.py > reference.json
"""

import json
import sys

import numpy as np

SEED = 20260923
RESAMPLES = 500


def bits(value):
    """A float64 as its IEEE-754 bits, 16 hex digits."""
    return format(int(np.float64(value).view(np.uint64)), "016x")


def seed_sequences():
    """SeedSequence's pool and generated words for entropies of one and two 32-bit words."""
    out = []
    for entropy in (SEED, 0, 1, 2**32 - 1, 2**32, 123456789012345, 2**64 - 1):
        sequence = np.random.SeedSequence(entropy)
        out.append(
            {
                "entropy": entropy,
                "pool": [int(word) for word in sequence.pool],
                "state_u32": [int(w) for w in sequence.generate_state(8, np.uint32)],
                "state_u64": [int(w) for w in sequence.generate_state(4, np.uint64)],
            }
        )
    return out


def generators():
    """PCG64's state right after seeding and its first raw 64-bit outputs."""
    out = []
    for seed, count in ((SEED, 20), (0, 5), (2**64 - 1, 5)):
        bit_generator = np.random.default_rng(seed).bit_generator
        state = bit_generator.state["state"]
        out.append(
            {
                "seed": seed,
                "state": format(state["state"], "032x"),
                "inc": format(state["inc"], "032x"),
                "raw": [int(x) for x in bit_generator.random_raw(count)],
            }
        )
    return out


def integer_calls(calls):
    """Consecutive `integers(0, high, size)` calls on one fresh generator: the 32-bit half that
    a call leaves unused is the next call's first."""
    rng = np.random.default_rng(SEED)
    return {
        "seed": SEED,
        "calls": [
            {"high": high, "size": size, "values": rng.integers(0, high, size).tolist()}
            for high, size in calls
        ],
    }


def awkward_floats(count):
    """Signed values over 16 decades with some exact and cancelling ones mixed in, so that any
    other order of summation gives another result."""
    rng = np.random.default_rng(1)
    values = rng.standard_normal(count) * 10.0 ** rng.integers(-8, 9, count)
    specials = [0.1, 1 / 3, -0.0, 1e16, -1e16, 2.0**-1074, 0.7, -0.3, 1.0, 5e-324]
    for index, special in enumerate(specials):
        values[index * 97 % count] = special
    return values


def sums(values):
    """np.sum and np.mean of prefixes: every branch of numpy's pairwise summation."""
    lengths = list(range(0, 21)) + [31, 32, 33, 127, 128, 129, 130, 136, 255, 256, 257]
    lengths += [300, 512, 999, len(values)]
    return [
        {
            "length": n,
            "sum": bits(np.sum(values[:n])),
            "mean": bits(np.mean(values[:n])) if n else None,
        }
        for n in lengths
    ]


def percentiles(values):
    """np.percentile (its default 'linear' method) of prefixes at awkward percents."""
    percents = [0.0, 2.5, 12.34, 25.0, 50.0, 97.5, 99.9, 100.0]
    return [
        {
            "length": n,
            "percents": [bits(p) for p in percents],
            "values": [bits(v) for v in np.percentile(values[:n], percents)],
        }
        for n in (1, 2, 3, 7, 10, 100, 1000)
    ]


def bootstraps(values):
    """Whole paired repository bootstraps with CodeNib's rule: fresh generator, `integers(0, G,
    G)` group indices per draw, the mean over every drawn value, the 2.5th and 97.5th
    percentiles. One has a single group (numpy then draws no random numbers at all)."""
    out = []
    for sizes in ((3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5), (8,)):
        groups, start = [], 0
        for size in sizes:
            groups.append(values[start : start + size])
            start += size
        rng = np.random.default_rng(SEED)
        draws = [
            np.mean(np.concatenate([groups[j] for j in rng.integers(0, len(groups), len(groups))]))
            for _ in range(RESAMPLES)
        ]
        out.append(
            {
                "groups": [[bits(v) for v in group] for group in groups],
                "seed": SEED,
                "resamples": RESAMPLES,
                "difference": bits(np.mean(np.concatenate(groups))),
                "first_draws": [bits(d) for d in draws[:10]],
                "ci95": [bits(v) for v in np.percentile(draws, [2.5, 97.5])],
            }
        )
    return out


def main():
    values = awkward_floats(1000)
    reference = {
        "numpy_version": np.__version__,
        "seed_sequences": seed_sequences(),
        "generators": generators(),
        "integers": integer_calls([(25, 25)] * 4),
        "integers_mixed": integer_calls(
            [(3, 7), (1, 5), (2**31 + 1, 6), (2**32, 5), (25, 1), (1000, 9), (2, 3)]
        ),
        "floats": [bits(v) for v in values],
        "sums": sums(values),
        "percentiles": percentiles(values),
        "bootstraps": bootstraps(values),
    }
    json.dump(reference, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
