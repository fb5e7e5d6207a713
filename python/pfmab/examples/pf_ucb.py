"""PF-UCB with the paper's rules (Algorithms 1 and 2, Sec. 4 of the paper),
written in Python against pfmab.Algorithm as a researcher would write it
from the paper: it plays exactly as the engine's pf-ucb (same digest;
tests/python/test_python_policies.py), and it is what bench/python_bench.cpp
times against the engine's to say what a Python policy costs.

    pfmab.run(..., algorithm=pfmab.examples.pf_ucb.PfUcb)
    pfmab run ... --algorithm pfmab.examples.pf_ucb:PfUcb
"""

import math

from pfmab import Algorithm


class PfUcb(Algorithm):
    """engine/src/algorithms/pf_ucb.cpp's paper preset, rule for rule, with
    f(p) = 2^p log T, c_B = 4, L = log T and full participation. Each
    number is computed as the C++ computes it (the engine is built with
    -ffp-contract=off), so the bits are the same."""

    def __init__(self, context):
        super().__init__(context)
        M, K = self.clients, self.arms
        self.log_t = math.log(float(self.horizon))
        self.phase = 0
        self.sums = [[0.0] * K for _ in range(M)]
        self.pulls = [[0] * K for _ in range(M)]
        self.mixed = [[0.0] * K for _ in range(M)]
        self.active = [list(range(K)) for _ in range(M)]  # A_m(p)
        self.fixed = [None] * M                           # O_m
        self.server_active = list(range(K))               # A(p)
        self.reports = [[None] * K for _ in range(M)]     # each client's latest means
        self.global_means = [0.0] * K                     # mu_bar(p)

    def finished(self):
        return not self.server_active

    def begin_phase(self, phase, participants):
        self.phase = phase

    def rounds(self, weight):
        """ceil(weight f(p)), no pulls at weight 0."""
        return 0 if weight == 0.0 else math.ceil(weight * (self.log_t * 2.0**self.phase))

    def plan(self, m):
        # global exploration of A(p): n_g = ceil((1 - alpha) f(p)); then local
        # exploration of A_m(p): n_l = ceil(M alpha f(p))
        return [(self.server_active, self.rounds(1.0 - self.alpha)),
                (self.active[m], self.rounds(float(self.clients) * self.alpha))]

    def record(self, m, arm, pulls, total):
        self.sums[m][arm] += total
        self.pulls[m][arm] += pulls

    def mean(self, m, k):
        return self.sums[m][k] / float(self.pulls[m][k])

    def exploit_arm(self, m):
        if self.fixed[m] is not None:
            return self.fixed[m]
        best = self.active[m][0]
        for k in self.active[m]:
            if self.mixed[m][k] > self.mixed[m][best]:
                best = k
        return best

    def aggregate(self, participants):
        # step 5: the average over clients of their latest means of each arm of A(p)
        for m in participants:
            for k in self.server_active:
                if self.pulls[m][k] > 0:
                    self.reports[m][k] = self.mean(m, k)
        for k in self.server_active:
            total, count = 0.0, 0
            for n in range(self.clients):
                if self.reports[n][k] is not None:
                    total += self.reports[n][k]
                    count += 1
            if count > 0:
                self.global_means[k] = total / float(count)

    def update(self, m):
        # step 6, Eqn. (8): drop k when max_l mu'_l - mu'_k >= 2 B_p,
        # B_p = sqrt(c_B L / (M F(p))), F(p) = sum_{q <= p} f(q)
        if not self.active[m]:
            return
        cumulative = self.log_t * (2.0**(self.phase + 1) - 2.0)
        radius = math.sqrt(4.0 * self.log_t / (float(self.clients) * cumulative))
        mixed = self.mixed[m]
        leader = self.active[m][0]
        for k in self.active[m]:
            mixed[k] = self.alpha * self.mean(m, k) + (1.0 - self.alpha) * self.global_means[k]
            if mixed[k] > mixed[leader]:
                leader = k
        best = mixed[leader]
        self.active[m] = [k for k in self.active[m]
                          if k == leader or not best - mixed[k] >= 2.0 * radius]
        if len(self.active[m]) == 1:
            self.fixed[m] = self.active[m][0]
            self.active[m] = []

    def end_phase(self):
        # step 7: A(p + 1) is the union of the clients' A_m(p + 1)
        self.server_active = sorted(set().union(*self.active))

    def fixed_arm(self, m):
        return self.fixed[m]
