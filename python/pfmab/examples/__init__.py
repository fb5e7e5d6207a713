"""Algorithms written in Python against pfmab.Algorithm (docs/python.md,
"Write an algorithm in Python"): PF-UCB with the paper's rules, rule for
rule as the engine's (pf_ucb.PfUcb); UCB1 at each client as phases of one
pull, every slot as the engine's local-ucb (local_ucb.LocalUcbPerPull);
and the worked example, a federated epsilon-greedy
(epsilon_greedy.FederatedEpsilonGreedy)."""
