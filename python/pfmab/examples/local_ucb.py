"""UCB1 at each client on its own rewards, the engine's local-ucb
(engine/src/algorithms/baselines.cpp), as a phased policy of one pull a
phase: how a policy that must see every reward is written against
pfmab.Algorithm. It plays every slot as local-ucb does
(tests/python/test_python_policies.py), and bench/python_bench.cpp times it
against local-ucb: what a per-pull Python policy costs (docs/python.md)."""

import math

from pfmab import Algorithm


class LocalUcbPerPull(Algorithm):
    """Each client's phase t is its slot t: one pull, of the arm of the
    largest index mu_hat + sqrt(2 log t / n) (each arm once first). Nothing
    is exchanged: run it with comm_cost 0, as local-ucb never pays."""

    def __init__(self, context):
        super().__init__(context)
        self.sums = [[0.0] * self.arms for _ in range(self.clients)]
        self.pulls = [[0] * self.arms for _ in range(self.clients)]
        self.t = 0

    def finished(self):
        return False

    def begin_phase(self, phase, participants):
        self.t = phase  # phase t is slot t

    def plan(self, m):  # each arm once, then argmax mu_hat + sqrt(2 log t / n)
        n = self.pulls[m]
        if 0 in n:
            return [([n.index(0)], 1)]
        index = [self.sums[m][k] / n[k] + math.sqrt(2.0 * math.log(self.t) / n[k])
                 for k in range(self.arms)]
        return [([max(range(self.arms), key=index.__getitem__)], 1)]

    def record(self, m, arm, pulls, total):
        self.sums[m][arm] += total
        self.pulls[m][arm] += pulls

    def exploit_arm(self, m):
        return 0

    def aggregate(self, participants):
        pass

    def update(self, m):
        pass

    def fixed_arm(self, m):
        return None
