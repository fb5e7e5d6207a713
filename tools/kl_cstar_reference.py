#!/usr/bin/python3
"""C* of a small game with exponential rewards, by brute force, independently
of the engine's solver (theory::kl_optimal_allocation): the reference value
tests/unit/theory/kl_allocation_test.cpp cites.

The program is docs/allocation.md's ("Other reward families: the KL
program"): a variable x_{k,n} for each arm k that client n explores, and for
each such (k, m) the constraint that every alternative moving arm k's means
up at the clients exploring it, and client m's best arm's down at the
clients exploring that, until arm k leads at m, has sum x KL >= 1.

Here each constraint's closest alternative is found by a dense grid over all
moves but one (the last closes the lead), zoomed three times around the
grid's least (no convexity assumed: the exponential KL(mu, .) is concave
past 2 mu), and C* by Kelley's cutting planes: a linear program (scipy's
HiGHS) over the cuts sum_n x_n KL_n(alternative) >= 1 of every alternative
found, re-solved with the closest alternatives at its solution until they
meet their cuts to 1e-10. Every cut is an alternative's, so the LP value is a
lower bound of C*; its solution scaled by the least constraint value is
feasible (to the grid's accuracy), an upper bound. Both are printed.

    tools/kl_cstar_reference.py "1,0.3,0.1;0.2,1,0.15" 0.5
"""
import sys

import numpy as np
from scipy.optimize import linprog


def kl(mu, lam):
    """KL of the exponential laws of means mu and lam."""
    r = mu / lam
    return r - 1.0 - np.log(r)


def program(rows, alpha):
    means = np.array(rows, dtype=float)
    clients, arms = means.shape
    other = (1.0 - alpha) / clients
    weight = np.full((clients, clients), other) + alpha * np.eye(clients)  # w[n, m]
    mixed = weight.T @ means  # mixed[m, k] = sum_n w[n, m] mu[n, k]
    best = mixed.argmax(axis=1)
    variables = [(n, k) for n in range(clients) for k in range(arms) if k != best[n]]
    index = {v: i for i, v in enumerate(variables)}
    cost = np.array([mixed[n, best[n]] - mixed[n, k] for n, k in variables])
    constraints = []
    for m in range(clients):
        b = best[m]
        for k in range(arms):
            if k == b:
                continue
            terms = []  # (variable, mean, weight, direction, reach)
            for moved, direction in ((k, 1.0), (b, -1.0)):
                for n in range(clients):
                    if (n, moved) in index and weight[n, m] > 0:
                        mu = means[n, moved]
                        reach = np.inf if direction > 0 else mu
                        terms.append((index[(n, moved)], mu, weight[n, m], direction, reach))
            constraints.append((mixed[m, b] - mixed[m, k], terms))
    return cost, constraints, variables


def closest(x, gap, terms, points=801, zooms=3):
    """The least sum x_n KL_n over alternatives closing the lead, and its
    divergences, by a zoomed grid over all moves but the last."""
    free, last = terms[:-1], terms[-1]
    lo = [0.0] * len(free)
    hi = [min(t[4], gap / t[2]) for t in free]
    best = None
    for _ in range(zooms + 1):
        axes = [np.linspace(l, h, points if len(free) == 1 else 401) for l, h in zip(lo, hi)]
        grids = np.meshgrid(*axes, indexing="ij")
        rest = gap - sum(t[2] * g for t, g in zip(free, grids))
        move_last = rest / last[2]
        ok = (move_last >= 0) & (move_last <= last[4] * (1 - 1e-12))
        value = np.zeros_like(rest)
        divergences = []
        for t, g in zip(free, grids):
            d = kl(t[1], t[1] + t[3] * g)
            divergences.append(d)
            value += x[t[0]] * d
        d_last = kl(last[1], last[1] + last[3] * np.where(ok, move_last, 0.0))
        divergences.append(d_last)
        value = np.where(ok, value + x[last[0]] * d_last, np.inf)
        at = np.unravel_index(np.argmin(value), value.shape)
        if best is None or value[at] <= best[0]:
            moves = [g[at] for g in grids] + [move_last[at]]
            best = (value[at], [d[at] for d in divergences], moves)
        steps = [(h - l) / (len(a) - 1) for l, h, a in zip(lo, hi, axes)]
        centre = [a[i] for a, i in zip(axes, at)]
        lo = [max(0.0, c - 3 * s) for c, s in zip(centre, steps)]
        hi = [min(h, c + 3 * s) for c, s, h in zip(centre, steps, hi)]
    return best


def solve(rows, alpha):
    cost, constraints, variables = program(rows, alpha)
    cuts = []
    x = np.ones(len(cost))
    lower = upper = None
    for _ in range(500):
        worst = np.inf
        for gap, terms in constraints:
            value, divergences, _ = closest(x, gap, terms)
            worst = min(worst, value)
            row = np.zeros(len(cost))
            for t, d in zip(terms, divergences):
                row[t[0]] += d
            cuts.append(row)
        if lower is not None and worst > 0:
            upper = cost @ x / worst
            if worst >= 1.0 - 1e-10:
                break
        result = linprog(cost, A_ub=-np.array(cuts), b_ub=-np.ones(len(cuts)),
                         bounds=[(0, None)] * len(cost), method="highs")
        x, lower = result.x, result.fun
    # the closest alternatives at the solution: a move up past mu (lambda past
    # 2 mu) is in the KL's concave stretch
    concave = [(i, t[1], move) for i, (gap, terms) in enumerate(constraints)
               for t, move in zip(terms, closest(x, gap, terms)[2]) if t[3] > 0 and move > t[1]]
    return lower, upper, dict(zip(variables, x)), concave


def main():
    rows = [[float(v) for v in row.split(",")] for row in sys.argv[1].split(";")]
    alpha = float(sys.argv[2])
    lower, upper, pulls, concave = solve(rows, alpha)
    print(f"C* in [{lower:.10g}, {upper:.10g}]")
    for (n, k), p in sorted(pulls.items()):
        print(f"  client {n} arm {k}: x = {p:.8g}")
    for j, mu, move in concave:
        print(f"  constraint {j}: a mean {mu:g} moves up by {move:.6g}, past 2 mu")


if __name__ == "__main__":
    main()
