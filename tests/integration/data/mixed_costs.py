#!/usr/bin/python3
"""Measures what each cell of mixed_sweep.toml costs, for the ETA test to replay.

    tests/integration/data/mixed_costs.py > tests/integration/data/mixed_costs.csv

Runs the sweep (a Python algorithm, pfmab.examples.epsilon_greedy's, with
its first_phase swept; pf-ucb and pf-alloc; local-ucb and centralized-kl-ucb
at five alphas; MovieLens 10x40) with `build/pfmab run --json` on one
thread, and prints each cell's processor seconds per replication (what its
replications' threads used, set-up excluded: summary's
cpu_seconds_per_replication) and the share of them that holds the GIL: a
Python policy's calls hold it, the engine's work between them (the
rewards, the series) does not, and that work is taken as pf-ucb's
replication on the same game and alpha (both are phased, in aggregated
mode); 0 for the engine's algorithms. (Measured instead from the wall
times on one and two threads, the share came out between 0.65 and 0.89
at load 14, and between 0.21 and 1.36 for the engine's algorithms, which
hold no GIL: other jobs stretch two threads more than one.) About a
minute on the 2-core machine of bench/README.md.
"""

import json
import os
import subprocess
import sys

from pf_alloc_costs import PFMAB, provenance

HERE = os.path.dirname(os.path.abspath(__file__))


def cells():
    """The sweep's cells as run --json reports them, run on one thread."""
    report = subprocess.run([PFMAB, "run", os.path.join(HERE, "mixed_sweep.toml"), "--json",
                             "--quiet", "--threads", "1"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(report)["cells"]


def main():
    commit, date, load = provenance()
    measured = cells()
    engine = {c["alpha"]: c["cpu_seconds_per_replication"]
              for c in measured if c["algorithm"] == "pf-ucb"}
    print("# Processor seconds per replication of each cell of mixed_sweep.toml on one")
    print("# thread, and the share of them holding the GIL, measured by")
    print(f"# tests/integration/data/mixed_costs.py with pfmab at commit {commit} on {date}")
    print(f"# (load {load} at the start).")
    print("cell,algorithm,alpha,first_phase,horizon,seconds,gil")
    for c, cell in enumerate(measured):
        seconds = cell["cpu_seconds_per_replication"]
        gil = max(0.0, 1 - engine[cell["alpha"]] / seconds) if ":" in cell["algorithm"] else 0.0
        first_phase = cell["keys"].get("first_phase")
        print(f"{c},{cell['algorithm']},{cell['alpha']:g},"
              f"{'-' if first_phase is None else first_phase},{cell['horizon']},{seconds:.6f},"
              f"{gil:.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main()
