"""Ctrl-C in Python stops a run as SIGINT stops the command line: every
finished replication is kept, and the same call continues to the digest of
a run never interrupted."""

import os
import signal
import threading

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
