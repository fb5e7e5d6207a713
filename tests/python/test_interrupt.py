"""Ctrl-C in Python stops a run as SIGINT stops the command line: every
finished replication is kept, and the same call continues to the digest of
a run never interrupted; during a run's set-up or the bounds' C* solve it
ends them at once, writing nothing."""

import os
import signal
import threading
import time

import pytest

import pfmab
from conftest import cli_json

# 3 cells of 50,000 aggregated PF-UCB replications: a few seconds
LONG = dict(algorithm="pf-ucb", replications=50000, horizon=1e6)


def interrupting(after):
    """A progress callback, and the helper thread that sends this process
    SIGINT once the run has handed on `after` replications."""
    started = threading.Event()

    def progress(report):
        if report["done"] >= after:
            started.set()

    def interrupt():
        started.wait(60)
        os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=interrupt)
    helper.start()
    return progress, helper


def test_sigint_from_a_helper_thread_keeps_the_rows_and_the_call_resumes(small_toml, tmp_path):
    out = tmp_path / "out.h5"
    progress, helper = interrupting(after=1000)
    with pytest.raises(KeyboardInterrupt,
                       match=r"^interrupted: \d+ of 150000 replications are in '.*out.h5'; "
                             r"run the same call to continue$") as caught:
        pfmab.run(small_toml, output=out, threads=2, progress=progress, **LONG)
    helper.join()
    kept = int(pfmab.open(out).cells.replications_done.sum())
    assert 1000 <= kept < 150000
    assert f"interrupted: {kept} of" in str(caught.value)

    resumed = pfmab.run(small_toml, output=out, threads=2, progress=False, **LONG)
    whole = cli_json("run", small_toml, "-q", "--algorithm", "pf-ucb", "-R", "50000", "-T", "1e6")
    assert resumed.digest == whole["digest"]


def test_sigint_without_an_output_keeps_nothing_and_says_so(small_toml):
    progress, helper = interrupting(after=1000)
    with pytest.raises(KeyboardInterrupt, match="nothing kept"):
        pfmab.run(small_toml, threads=2, progress=progress, **LONG)
    helper.join()


def slow_game():
    """256 clients x 256 arms, each client's best arm its own (as
    tests/integration/setup_stop_test.cpp's), the most distinct best arms
    the C* solver takes: each solve takes about 1 s of processor time, and
    SLOW_ALPHAS asks 19 of them."""
    return [[0.1 + 0.8 * ((k * 37 + m * 101) % 256) / 256.0 for k in range(256)]
            for m in range(256)]


SLOW_ALPHAS = [a / 20 for a in range(1, 20)]


def interrupting_the_setup():
    """The helper thread that sends this process SIGINT once it has used a
    second of processor time more than now: well into a solve, whatever the
    machine's load. Returns it and the processor time at the start."""
    start = time.process_time()

    def interrupt():
        while time.process_time() - start < 1.0:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=interrupt)
    helper.start()
    return helper, start


# The solves take about 19 s of processor time: a stop honoured within one
# returns long before (the margin is the point, not a speed).
SOLVE_CPU = 8.0


def test_sigint_during_the_bounds_solve_raises_at_once(tmp_path):
    helper, start = interrupting_the_setup()
    with pytest.raises(KeyboardInterrupt):
        pfmab.bounds(means=slow_game(), alpha=SLOW_ALPHAS)
    helper.join()
    assert time.process_time() - start < SOLVE_CPU


def test_sigint_during_a_runs_setup_writes_nothing(tmp_path):
    out = tmp_path / "out.h5"
    helper, start = interrupting_the_setup()
    with pytest.raises(KeyboardInterrupt,
                       match="^interrupted while setting up the run: nothing written$"):
        pfmab.run(means=slow_game(), alpha=SLOW_ALPHAS, replications=2, output=out,
                  progress=False)
    helper.join()
    assert time.process_time() - start < SOLVE_CPU
    assert os.listdir(tmp_path) == []  # no output, no temporary file
