#!/usr/bin/python3
"""Measures pf-alloc's processor time per replication and fits its planning cost.

    tests/integration/data/pf_alloc_costs.py measure > tests/integration/data/pf_alloc_costs.csv
    tests/integration/data/pf_alloc_costs.py fit tests/integration/data/pf_alloc_costs.csv [--solve]

`measure` runs pf-alloc (alpha 0.5, seed 2026, one thread) on MovieLens 10x40,
the study's 20x10 game and random games made by tools/random_means.py with
seed 1 (4x9, 50x5, 5x20, 100x20, 20x40, 2x100), at T = 10^5, 10^6 and 10^7,
each cell with R and 3R replications (R chosen so that the difference is
about half a second of processor time, three times over, the median kept):
(3R - R) / 2R is its cost per replication, the set-up cancelling, as
study_costs.sh does. About 5 minutes on the 2-core machine of bench/README.md.

`fit` takes the cost model of engine/src/sim/cost.cpp for a phased
algorithm (its phases, series and replication terms, copied below) and
fits the constant of pf-alloc's planning_cost (engine/src/algorithms/pf_alloc.cpp),
a term per phase after the first in M K (the phase's plan and solve, both
now dominated by the work on every client's arms), by least squares of the
relative error at T = 10^6 (the study's T), and prints it with the worst
under- and over-estimate at each T. With `--solve` it fits the form of
commit e8d01cb beside it, a term in K^2 (the solve, as it was) and one in
M K: on the data of 6f97f12 the K^2 term comes out at 3 ns, nothing.
"""

import math
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
PFMAB = os.environ.get("PFMAB", os.path.join(ROOT, "build/pfmab"))
RANDOM = [(4, 9), (50, 5), (5, 20), (100, 20), (20, 40), (2, 100)]
HORIZONS = [100_000, 1_000_000, 10_000_000]
ALPHA = 0.5
INITIAL_PULLS = 20  # pf-alloc's n0


NAMED = [("movielens_10x40", os.path.join(ROOT, "../shared/data/movielens_10x40.csv"), 10, 40),
         ("means_20x10", os.path.join(ROOT, "results/study/means_20x10.csv"), 20, 10)]


def games(folder, named=NAMED, random=RANDOM):
    """(name, path, M, K) of every game measured: `named`, then an M x K game
    of tools/random_means.py (seed 1) for each (M, K) of `random`, made in folder."""
    out = list(named)
    for m, k in random:
        path = os.path.join(folder, f"random_{m}x{k}.csv")
        subprocess.run([sys.executable, os.path.join(ROOT, "tools/random_means.py"), "--clients",
                        str(m), "--arms", str(k), "--seed", "1", "-o", path], check=True)
        out.append((f"random_{m}x{k}", path, m, k))
    return out


def cpu(args):
    """Processor seconds (user + system) of running pfmab with args."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([PFMAB] + args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_replication(path, horizon, algorithm="pf-alloc"):
    cell = ["run", "--means", path, "--algorithm", algorithm, "--alpha", str(ALPHA), "--horizon",
            str(horizon), "--seed", "2026", "--threads", "1", "--quiet"]
    # a first guess of the cost from 1 and 3 replications (4 and 12 for pf_alloc_costs.csv,
    # too slow for the baselines), then R for ~0.5 s
    guess = max((cpu(cell + ["--replications", "3"]) - cpu(cell + ["--replications", "1"])) / 2,
                1e-4)
    r = max(2, min(2000, round(0.25 / guess)))
    samples = sorted((cpu(cell + ["--replications", str(3 * r)]) -
                      cpu(cell + ["--replications", str(r)])) / (2 * r) for _ in range(3))
    return samples[1], r


def provenance():
    """(commit, date, load) for a data file's header: pfmab's commit, today
    (UTC) and the machine's load average over the last minute, at the start."""
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    date = subprocess.run(["date", "-u", "+%F"], capture_output=True, text=True).stdout.strip()
    return commit, date, load


def measure():
    commit, date, load = provenance()
    print("# Processor seconds per replication of pf-alloc, alpha 0.5, one thread, measured")
    print(f"# by tests/integration/data/pf_alloc_costs.py with pfmab at commit {commit}")
    print(f"# on {date} (load {load} at the start).")
    print("game,clients,arms,horizon,replications,seconds")
    with tempfile.TemporaryDirectory() as folder:
        for name, path, m, k in games(folder):
            for horizon in HORIZONS:
                seconds, r = per_replication(path, horizon)
                print(f"{name},{m},{k},{horizon},{r},{seconds:.6f}", flush=True)


def phased_model(m, k, horizon, alpha=ALPHA, checkpoints=60):
    """engine/src/sim/cost.cpp's cost of a phased replication, in ns, without planning."""
    common = 700.0 + 1.7 * m * k * checkpoints
    phase_slots = k * max(math.log(horizon), 1.0) * ((1.0 - alpha) + m * alpha)
    phases = max(1.0, math.log2(horizon / phase_slots))
    return common + phases * m * (140.0 + 10.5 * k)


def solves(k, horizon):
    """pf-alloc's phases after the first under doubling (planning_cost's)."""
    return math.ceil(math.log2(horizon / (k * INITIAL_PULLS) + 1.0)) - 1.0


def fit(path, with_solve):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("game,"):
                continue
            name, m, k, horizon, _, seconds = line.strip().split(",")
            rows.append((name, int(m), int(k), int(horizon), float(seconds) * 1e9))
    fitted = [r for r in rows if r[3] == 1_000_000]
    # relative error: (base + P (a K^2 + b M K)) / t - 1, linear in a, b
    a = np.array([[solves(k, h) * k * k / t, solves(k, h) * m * k / t] for _, m, k, h, t in fitted])
    y = np.array([1.0 - phased_model(m, k, h) / t for _, m, k, h, t in fitted])
    if with_solve:
        (per_arm_squared, per_client_arm), *_ = np.linalg.lstsq(a, y, rcond=None)
        print(f"per phase: {per_arm_squared:.1f} ns K^2 + {per_client_arm:.1f} ns M K"
              " (fitted at T = 10^6)")
    else:
        per_arm_squared = 0.0
        (per_client_arm,), *_ = np.linalg.lstsq(a[:, 1:], y, rcond=None)
        print(f"kPhasePerClientArm = {per_client_arm:.1f} ns (fitted at T = 10^6)")
    print("game,T,measured_ms,estimated_ms,estimated/measured")
    worst = {}
    for name, m, k, h, t in rows:
        estimate = phased_model(m, k, h) + solves(k, h) * (per_arm_squared * k * k +
                                                           per_client_arm * m * k)
        ratio = estimate / t
        print(f"{name},{h:.0e},{t / 1e6:.3f},{estimate / 1e6:.3f},{ratio:.2f}")
        low, high = worst.get(h, (ratio, ratio))
        worst[h] = (min(low, ratio), max(high, ratio))
    for h, (low, high) in sorted(worst.items()):
        print(f"T = {h:.0e}: within {100 * (low - 1):+.0f}% and {100 * (high - 1):+.0f}%")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "measure":
        measure()
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "fit" and sys.argv[3:] in ([], ["--solve"]):
        fit(sys.argv[2], sys.argv[3:] == ["--solve"])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
