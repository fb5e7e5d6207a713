"""A federated epsilon-greedy, the worked example of docs/python.md ("Write
an algorithm in Python"). Phase p lasts K n 2^(p-1) slots of each client;
in it every client pulls each arm ceil(c p) times (an exploration share
epsilon_p = c p K / length, decaying as p / 2^p) and its best mixed
estimate alpha mu_hat_m + (1 - alpha) mu_bar for the rest; the server
averages the clients' sample means into mu_bar. It never stops exploring,
so its regret grows as (log T)^2."""

import math

from pfmab import Algorithm, Option


class FederatedEpsilonGreedy(Algorithm):
    options = [Option("exploration", "real", 10.0, least=0.0,
                      help="c: pulls of each arm per client in phase p, ceil(c p)"),
               Option("first_phase", "whole", 10, least=1,
                      help="n: phase p lasts K n 2^(p - 1) slots of each client")]

    def __init__(self, context):
        super().__init__(context)
        self.c, self.n = context.options.exploration, context.options.first_phase
        self.sums = [[0.0] * self.arms for _ in range(self.clients)]
        self.pulls = [[0] * self.arms for _ in range(self.clients)]
        self.global_means = [0.0] * self.arms
        self.best = [0] * self.clients
        self.phase = 0

    def finished(self):
        return False

    def begin_phase(self, phase, participants):
        self.phase = phase

    def plan(self, m):  # each arm ceil(c p) times, then the best mixed estimate
        explore = math.ceil(self.c * self.phase)
        length = self.arms * self.n * 2 ** (self.phase - 1)
        return [(range(self.arms), explore),
                ([self.best[m]], max(0, length - self.arms * explore))]

    def record(self, m, arm, pulls, total):
        self.sums[m][arm] += total
        self.pulls[m][arm] += pulls

    def mean(self, m, k):
        return self.sums[m][k] / self.pulls[m][k] if self.pulls[m][k] else 0.0

    def exploit_arm(self, m):
        return self.best[m]

    def aggregate(self, participants):
        for k in range(self.arms):
            self.global_means[k] = sum(self.mean(m, k) for m in range(self.clients)) / self.clients

    def update(self, m):
        mixed = [self.alpha * self.mean(m, k) + (1 - self.alpha) * self.global_means[k]
                 for k in range(self.arms)]
        self.best[m] = max(range(self.arms), key=mixed.__getitem__)

    def fixed_arm(self, m):
        return None
