#!/usr/bin/python3
"""Measures the slot-by-slot baselines' processor time per replication and fits cost.cpp's terms.

    tests/integration/data/slot_costs.py measure > tests/integration/data/slot_costs.csv
    tests/integration/data/slot_costs.py fit tests/integration/data/slot_costs.csv

`measure` runs local-ucb and centralized-ucb (alpha 0.5, T = 10^5, seed 2026,
one thread) on the synthetic 4x9 game, MovieLens 10x40, the study's 20x10
game and random 2x100, 4x2, 50x5 and 100x20 games (tools/random_means.py,
seed 1), each with R and 3R replications as pf_alloc_costs.py does. About
2 minutes on the 2-core machine of bench/README.md. `fit` fits
per_client_slot and per_client_slot_arm of engine/src/sim/cost.cpp (a
replication costs M T (a + b K) ns besides its series and set-up) by least
squares of the relative error over both algorithms, and prints each
cell's estimate over its measured time.
"""

import os
import sys
import tempfile

import numpy as np

from pf_alloc_costs import ROOT, games, per_replication, provenance

GAMES = [("synthetic_4x9", os.path.join(ROOT, "../shared/data/synthetic_4x9.csv"), 4, 9),
         ("movielens_10x40", os.path.join(ROOT, "../shared/data/movielens_10x40.csv"), 10, 40),
         ("means_20x10", os.path.join(ROOT, "results/study/means_20x10.csv"), 20, 10)]
RANDOM = [(2, 100), (4, 2), (50, 5), (100, 20)]
HORIZON = 100_000


def measure():
    commit, date, load = provenance()
    print("# Processor seconds per replication of the slot-by-slot baselines, alpha 0.5,")
    print("# T = 10^5, one thread, measured by tests/integration/data/slot_costs.py with")
    print(f"# pfmab at commit {commit} on {date} (load {load} at the start).")
    print("game,clients,arms,horizon,algorithm,replications,seconds")
    with tempfile.TemporaryDirectory() as folder:
        measured = games(folder, GAMES, RANDOM)
        for algorithm in ("local-ucb", "centralized-ucb"):
            for name, path, m, k in measured:
                seconds, r = per_replication(path, HORIZON, algorithm)
                print(f"{name},{m},{k},{HORIZON},{algorithm},{r},{seconds:.6f}", flush=True)


def fit(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("game,"):
                continue
            name, m, k, h, algorithm, _, seconds = line.strip().split(",")
            rows.append((name, algorithm, int(m), int(k), int(h), float(seconds) * 1e9))
    common = lambda m, k: 700.0 + 1.7 * m * k * 60  # cost.cpp's replication and series terms
    a = np.array([[m * h / t, m * h * k / t] for _, _, m, k, h, t in rows])
    y = np.array([1.0 - common(m, k) / t for _, _, m, k, _, t in rows])
    (per_slot, per_slot_arm), *_ = np.linalg.lstsq(a, y, rcond=None)
    print(f"per_client_slot = {per_slot:.1f} ns, per_client_slot_arm = {per_slot_arm:.2f} ns")
    print("game,algorithm,measured_ms,estimated/measured")
    for name, algorithm, m, k, h, t in rows:
        estimate = common(m, k) + m * h * (per_slot + per_slot_arm * k)
        print(f"{name},{algorithm},{t / 1e6:.2f},{estimate / t:.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "measure":
        measure()
    elif len(sys.argv) == 3 and sys.argv[1] == "fit":
        fit(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
