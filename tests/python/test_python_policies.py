"""The policies of python/pfmab/examples/, written in Python against
pfmab.Algorithm. PF-UCB with the paper's rules (Algorithms 1 and 2, Sec. 4)
plays exactly as the engine's pf-ucb: the same digest in both fidelity
modes, on 1 and 2 threads, at every alpha of the paper; it is what a
researcher would write from the paper, so it also checks that the
interface says everything PF-UCB needs. UCB1 as phases of one pull plays
every slot as the engine's local-ucb. The worked example of docs/python.md
runs and sweeps."""

import pytest

import pfmab
from conftest import SYNTHETIC, cli_json
from pfmab.examples.epsilon_greedy import FederatedEpsilonGreedy
from pfmab.examples.local_ucb import LocalUcbPerPull
from pfmab.examples.pf_ucb import PfUcb


ALPHAS = [0, 0.2, 0.5, 0.9, 1]


@pytest.mark.parametrize("mode, horizon", [("aggregated", 1e6), ("per-pull", 1e5)])
@pytest.mark.parametrize("threads", [1, 2])
def test_pf_ucb_in_python_gives_the_digest_of_the_engines(mode, horizon, threads):
    expected = cli_json("run", "--means", SYNTHETIC, "--alpha", ",".join(map(str, ALPHAS)),
                        "-T", horizon, "-R", 20, "--seed", 11, "--mode", mode,
                        "--algorithm", "pf-ucb", "--threads", threads, "-q")
    r = pfmab.run(means=SYNTHETIC, alpha=ALPHAS, horizon=horizon, replications=20, seed=11,
                  mode=mode, algorithm=PfUcb, threads=threads, progress=False)
    assert r.digest == expected["digest"]
    # the same phases, exchanges and identifications, cell by cell
    assert list(r.summary["phases_mean"]) == [c["phases"]["mean"] for c in expected["cells"]]


def test_the_worked_example_runs_on_any_thread_count_and_sweeps():
    # docs/python.md's federated epsilon-greedy: one digest on 1 and 2
    # threads, its option a swept key, and at c = 10 below PF-UCB at 10^6 as
    # the docs show (1.11 against 10.86 of C* log T there; seed 28, 100
    # replications: the two are ten times apart, far beyond their intervals)
    game = dict(means=SYNTHETIC, alpha=0.5, horizon=1e6, replications=100, seed=28,
                progress=False)
    one = pfmab.run(**game, algorithm=[FederatedEpsilonGreedy, "pf-ucb"], threads=1)
    assert pfmab.run(**game, algorithm=[FederatedEpsilonGreedy, "pf-ucb"], threads=2).digest \
        == one.digest
    greedy, pf_ucb = one.summary["regret_ci95_high"][0], one.summary["regret_ci95_low"][1]
    assert greedy < pf_ucb
    swept = pfmab.run(**game, algorithm=FederatedEpsilonGreedy, exploration=[1, 10])
    assert list(swept.summary["exploration"]) == [1.0, 10.0]


def test_a_policy_of_one_pull_phases_plays_every_slot_as_the_engines_local_ucb():
    # the same pulls and rewards in every replication (the digests differ:
    # the engine's local-ucb has no phases or exchanges to record)
    game = dict(means=SYNTHETIC, alpha=[0.5, 1], horizon=2000, replications=10, seed=12,
                threads=2, progress=False)
    python = pfmab.run(**game, algorithm=LocalUcbPerPull, comm_cost=0).finals()
    engine = pfmab.run(**game, algorithm="local-ucb").finals()
    assert list(python["regret"]) == list(engine["regret"])
    assert list(python["phases"]) == [2000] * 20
