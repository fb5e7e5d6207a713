"""An algorithm written in Python (pfmab.Algorithm), run by the engine:
explore-then-commit in Python plays exactly as the C++ one, its option is
an experiment key like any algorithm's, and a policy's error or impossible
plan reaches the caller."""

import json

import h5py
import pytest

import pfmab
from conftest import SYNTHETIC, cli_json


class ExploreThenCommit(pfmab.Algorithm):
    """engine/src/algorithms/explore_then_commit.cpp, rule for rule: every
    client pulls each arm n times, the server averages the clients' sample
    means, each client commits to its best mixed estimate (lowest index on
    ties). The sums are added in the C++ order, so the bits are the same."""

    options = [pfmab.Option("pulls_per_arm", "whole", 100, least=1,
                            help="pulls of each arm by each client before it commits")]

    def __init__(self, context):
        super().__init__(context)
        self.n = context.options.pulls_per_arm
        self.sums = [[0.0] * self.arms for _ in range(self.clients)]
        self.reported = [False] * self.clients
        self.global_means = [0.0] * self.arms
        self.committed = [None] * self.clients

    def finished(self):
        return all(arm is not None for arm in self.committed)

    def plan(self, m):
        return [] if self.committed[m] is not None else [(range(self.arms), self.n)]

    def record(self, m, arm, pulls, total):
        self.sums[m][arm] += total

    def exploit_arm(self, m):
        return 0 if self.committed[m] is None else self.committed[m]

    def aggregate(self, participants):
        for m in participants:
            self.reported[m] = True
        for k in range(self.arms):
            total, reporting = 0.0, 0.0
            for m in range(self.clients):
                if self.reported[m]:
                    total += self.sums[m][k] / self.n
                    reporting += 1.0
            self.global_means[k] = total / reporting

    def update(self, m):
        if self.committed[m] is not None:
            return
        best, best_value = 0, float("-inf")
        for k in range(self.arms):
            mixed = (self.alpha * self.sums[m][k] / self.n
                     + (1.0 - self.alpha) * self.global_means[k])
            if mixed > best_value:
                best, best_value = k, mixed
        self.committed[m] = best

    def fixed_arm(self, m):
        return self.committed[m]


GAME = dict(means=SYNTHETIC, alpha=[0, 0.5, 1], horizon=1e5, replications=20, seed=5)
FLAGS = ["--means", SYNTHETIC, "--alpha", "0,0.5,1", "-T", "1e5", "-R", "20", "--seed", "5"]


@pytest.mark.parametrize("mode", ["aggregated", "per-pull"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("participation", [[], ["--participation", "0.6"]])
def test_explore_then_commit_in_python_gives_the_digest_of_the_cpp_one(mode, threads,
                                                                       participation):
    expected = cli_json("run", *FLAGS, "--algorithm", "explore-then-commit", "--mode", mode,
                        "--threads", threads, "-q", *participation)
    extra = {"participation": 0.6} if participation else {}
    r = pfmab.run(**GAME, algorithm=ExploreThenCommit, mode=mode, threads=threads,
                  progress=False, **extra)
    assert r.digest == expected["digest"]
    assert set(r.summary["algorithm"]) == {"test_python_algorithm:ExploreThenCommit"}


def test_its_option_sweeps_and_appears_in_the_summary(tmp_path):
    output = tmp_path / "out.h5"
    r = pfmab.run(**GAME, algorithm=ExploreThenCommit, pulls_per_arm=[50, 200], output=output,
                  progress=False)
    assert len(r.summary) == 6  # 3 alphas x 2 values
    assert sorted(set(r.summary["pulls_per_arm"])) == [50, 200]
    expected = cli_json("run", *FLAGS, "--algorithm", "explore-then-commit", "-q",
                        "--pulls-per-arm", "50,200")
    assert r.digest == expected["digest"]
    as_dict = {"seed": 5, "replications": 20, "horizon": 1e5, "alpha": [0, 0.5, 1],
               "instance": {"means": SYNTHETIC},
               "algorithm": {"name": ExploreThenCommit, "pulls_per_arm": [50, 200]}}
    assert pfmab.run(as_dict, progress=False).digest == r.digest
    # a process that never registered the class reads the output
    summary = cli_json("summary", output)
    assert summary["digest"] == r.digest
    assert {cell["keys"]["algorithm"] for cell in summary["cells"]} == {
        "test_python_algorithm:ExploreThenCommit"}


class Greedy(ExploreThenCommit):
    """A new option of its own (a key no compiled-in algorithm has)."""
    options = [pfmab.Option("pulls_per_arm", "whole", 100, least=1),
               pfmab.Option("greed", "real", 0.5, least=0.0, most=1.0)]


def test_a_new_option_is_a_key_refused_for_other_algorithms_and_checked(tmp_path):
    r = pfmab.run(**GAME, algorithm=Greedy, greed=[0.25, 0.75], progress=False)
    assert sorted(set(r.summary["greed"])) == [0.25, 0.75]
    with pytest.raises(pfmab.ExperimentError, match="greed.*test_python_algorithm:Greedy's option"):
        pfmab.run(**GAME, algorithm="pf-ucb", greed=0.25, progress=False)
    with pytest.raises(pfmab.ExperimentError, match="pulls_per_arm.*explore-then-commit's option"):
        pfmab.run(**GAME, algorithm="pf-ucb", pulls_per_arm=50, progress=False)
    with pytest.raises(pfmab.ExperimentError,
                       match=r"Greedy: algorithm.greed must be at most 1.0 \(got 2.0\)"):
        pfmab.run(**GAME, algorithm=Greedy, greed=2, progress=False)
    # only its own cells' records hold it: registering it changes no other record
    pfmab.run(**GAME, algorithm=["pf-ucb", Greedy], output=tmp_path / "out.h5", progress=False)
    with h5py.File(tmp_path / "out.h5") as output:
        canonical = json.loads(output.attrs["experiment_canonical"])
    assert ["greed" in cell for cell in canonical["cells"]] == [False] * 3 + [True] * 3


class Failing(ExploreThenCommit):
    def plan(self, m):
        if m == 2:
            raise ZeroDivisionError("client 2 cannot plan")
        return super().plan(m)


def test_an_exception_in_plan_reaches_the_caller_with_its_traceback():
    with pytest.raises(ZeroDivisionError, match="client 2 cannot plan") as raised:
        pfmab.run(**GAME, algorithm=Failing, progress=False)
    assert raised.traceback[-1].name == "plan"  # the policy's own frame, where it raised
    assert "raise ZeroDivisionError" in str(raised.traceback[-1].statement)


def bad(method, value):
    """A class named Bad whose `method` returns `value` (each one registered
    again under the same name, as a class defined again in a notebook)."""
    return type("Bad", (ExploreThenCommit,), {method: lambda self, m: value,
                                              "__module__": __name__})


@pytest.mark.parametrize("method, value, said", [
    ("plan", [(range(9), -3)], r"Bad.plan\(m=0\) returned run 0's arms pulls -3: pulls are at "
                               r"least 0"),
    ("plan", [(range(9), 2.5)], r"Bad.plan\(m=0\) returned run 0's arms pulls 2.5: pulls are "
                                r"whole numbers \(an int\), not float"),
    ("plan", [([0, 9], 4)], r"Bad.plan\(m=0\) returned arm 9: the arms are 0 to 8"),
    ("plan", [(range(9), 2**70)], r"Bad.plan\(m=0\) returned run 0's arms pulls "
                                  r"1180591620717411303424: more than the longest horizon's "
                                  r"4611686018427387904 slots"),
    ("plan", [(range(9), [1, 2])], r"Bad.plan\(m=0\) returned run 0: 2 counts for 9 arms"),
    ("plan", 7, r"Bad.plan\(m=0\) returned 7: a plan is a list of \(arms, rounds\) runs"),
    ("exploit_arm", -1, r"Bad.exploit_arm\(m=0\) returned arm -1: the arms are 0 to 8"),
    ("fixed_arm", "2", r"Bad.fixed_arm\(m=0\) returned arm '2': an arm is an int, not str"),
])
def test_an_impossible_value_is_named_with_its_method_and_value(method, value, said):
    with pytest.raises(pfmab.PolicyError, match=said):
        pfmab.run(**GAME, algorithm=bad(method, value), progress=False)


def test_a_failed_run_keeps_its_finished_replications_and_the_same_call_resumes(tmp_path):
    made = [0]

    class Flaky(ExploreThenCommit):
        def __init__(self, context):
            made[0] += 1
            if made[0] == 25:  # the 25th replication's object, at 1 thread
                raise RuntimeError("replication 25 fails")
            super().__init__(context)

    output = tmp_path / "out.h5"
    with pytest.raises(RuntimeError, match="replication 25 fails"):
        pfmab.run(**GAME, algorithm=Flaky, output=output, threads=1, progress=False)
    assert list(pfmab.open(output).cells["replications_done"]) == [20, 4, 0]
    made[0] = -10**9  # fixed
    resumed = pfmab.run(**GAME, algorithm=Flaky, output=output, threads=1, progress=False)
    assert resumed.digest == pfmab.run(**GAME, algorithm=ExploreThenCommit, progress=False).digest


def test_ctrl_c_keeps_the_finished_replications_and_the_same_call_resumes(tmp_path):
    from test_interrupt import interrupting

    long = dict(GAME, replications=40000)  # 3 cells: a few seconds in Python
    output = tmp_path / "out.h5"
    progress, helper = interrupting(after=1000)
    with pytest.raises(KeyboardInterrupt, match=r"^interrupted: \d+ of 120000 replications"):
        pfmab.run(**long, algorithm=ExploreThenCommit, output=output, threads=2,
                  progress=progress)
    helper.join()
    kept = int(pfmab.open(output).cells.replications_done.sum())
    assert 1000 <= kept < 120000
    resumed = pfmab.run(**long, algorithm=ExploreThenCommit, output=output, threads=2,
                        progress=False)
    whole = cli_json("run", "--means", SYNTHETIC, "--alpha", "0,0.5,1", "-T", "1e5", "--seed",
                     "5", "-R", "40000", "-q", "--algorithm", "explore-then-commit")
    assert resumed.digest == whole["digest"]
