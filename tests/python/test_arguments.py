"""The package's own arguments, checked in Python's words before anything
reaches the engine; paths that look like TOML; text beyond the BMP; two runs
of one process on one output; summaries grouped by their keys; the hint of
a Python without numpy."""

import os
import subprocess
import sys
import tomllib

import pytest

import pfmab
from conftest import ROOT, SMALL, SYNTHETIC, cli, cli_json
from pfmab import _toml


def files(folder):
    return sorted(p.name for p in folder.rglob("*"))


@pytest.mark.parametrize("given, error, said", [
    (dict(threads=0), pfmab.ExperimentError, "threads=0: must be from 1 to "),
    (dict(threads=-1), pfmab.ExperimentError, "threads=-1: must be from 1 to "),
    (dict(threads=2**64), pfmab.ExperimentError, f"threads={2**64}: must be from 1 to "),
    (dict(threads=1.5), TypeError, "threads must be a whole number, not 1.5 (float)"),
    (dict(threads="2"), TypeError, "threads must be a whole number, not '2' (str)"),
    (dict(threads=True), TypeError, "threads must be a whole number, not True (bool)"),
    (dict(overwrite="yes"), TypeError, "overwrite must be True or False, not 'yes' (str)"),
    (dict(overwrite=1), TypeError, "overwrite must be True or False, not 1 (int)"),
    (dict(shard=1), TypeError, "shard must be a string such as '0/4', not 1 (int)"),
    (dict(shard="3/2"), pfmab.ExperimentError, "shard '3/2' is not I/N with 0 <= I < N"),
    (dict(shard="0/241"), pfmab.ExperimentError,
     "shard 0/241: 241 shards of a sweep of 240 replications would leave shards empty"),
    (dict(output=""), pfmab.ExperimentError, "output='': the path is empty"),
    (dict(output=3), TypeError, "output must be a path (a str or a pathlib.Path), not 3 (int)"),
    (dict(progress="x"), TypeError, "progress must be None, True, False or a callable"),
    (dict(alpha=True), TypeError, "alpha=True: a key's value is a number, a word or a path"),
    (dict(alpha=None), TypeError, "alpha=None: a key's value is a number, a word or a path"),
    (dict(alpha=[[0.5]]), TypeError, "alpha=[0.5]: a key's value is a number, a word or a path"),
    (dict(means=[SYNTHETIC, 0.5]), TypeError,
     f"means={[SYNTHETIC, 0.5]!r}: the means are a CSV path, a matrix (a list of rows), or a "
     "list of either"),
    (dict(means=[0.1, 0.2]), TypeError, "means=[0.1, 0.2]: the means are a CSV path, a matrix"),
])
def test_a_bad_argument_of_run_is_named_in_pythons_words(tmp_path, monkeypatch, given, error,
                                                         said):
    monkeypatch.chdir(tmp_path)
    if "progress" not in given:
        given["progress"] = False
    with pytest.raises(error) as caught:
        pfmab.run(SMALL, **given)
    assert str(caught.value).startswith(said), caught.value
    assert "incompatible function arguments" not in str(caught.value)
    assert files(tmp_path) == []


def test_keywords_without_an_instance_are_told_to_give_means():
    with pytest.raises(pfmab.ExperimentError, match=r"^no instance given \(give means=, "):
        pfmab.run(horizon=100, progress=False)


def test_zero_threads_are_refused_as_the_command_line_refuses_them():
    assert cli("run", "--means", SYNTHETIC, "-T", "100", "-R", "2", "--threads", "0",
               check=False).returncode == 2
    with pytest.raises(pfmab.ExperimentError, match="^threads=0: "):
        pfmab.run(SMALL, threads=0, progress=False)


def test_a_numpy_integer_and_bool_are_taken(tmp_path):
    import numpy as np
    r = pfmab.run(SMALL, threads=np.int64(2), overwrite=np.bool_(False),
                  output=tmp_path / "out.h5", progress=False)
    assert r.digest == cli_json("run", "--means", SYNTHETIC, "--seed", 16, "-R", 40, "-T", 20000,
                                "--alpha", "0,0.5,1", "--algorithm", "pf-ucb,local-ucb",
                                "-q")["digest"]


def test_bad_arguments_of_open_series_and_figures_are_named(tmp_path):
    with pytest.raises(pfmab.OutputError, match=r"^path='': the path is empty"):
        pfmab.open("")
    with pytest.raises(TypeError, match=r"^path must be a path .*not 3 \(int\)"):
        pfmab.open(3)
    r = pfmab.run(SMALL, replications=2, output=tmp_path / "out.h5", progress=False)
    with pytest.raises(TypeError, match=r"^name must be a string such as 'regret', not 3"):
        r.series(3)
    with pytest.raises(TypeError, match=r"^logx must be True or False, not 'yes' \(str\)"):
        r.plot.regret(logx="yes")
    with pytest.raises(TypeError, match=r"^where must be a string such as 'alpha=0.5', not "):
        r.plot.regret(where={"alpha": 0.5})
    with pytest.raises(TypeError, match=r"^no figure option colour"):
        r.plot.regret(colour=1)
    with pytest.raises(ValueError, match=r"no cell has alpha = 0.7"):
        r.plot.regret(where="alpha=0.7")


def test_a_path_with_an_equals_sign_is_a_path(tmp_path, monkeypatch, small_toml):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "alpha=0.5"
    folder.mkdir()
    (folder / "e.toml").write_text(small_toml.read_text())
    expected = cli_json("run", small_toml, "-q")["digest"]
    assert pfmab.run("alpha=0.5/e.toml", progress=False).digest == expected
    # a missing one is said to be missing, not read as TOML
    with pytest.raises(pfmab.ExperimentError) as caught:
        pfmab.validate("alpha=0.5/missing.toml")
    assert str(caught.value) == ("cannot read experiment file 'alpha=0.5/missing.toml' (it does "
                                 "not exist or is not readable)")
    # a file named as the text of a key is still a file
    (tmp_path / "seed=16").write_text(small_toml.read_text())
    assert pfmab.run("seed=16", progress=False).digest == expected
    # and a line of TOML that names no file is text
    assert pfmab.validate("replications = 3", means=SYNTHETIC).replications[0] == 3


def test_text_beyond_the_bmp_round_trips_through_a_dict(tmp_path):
    name = "study \U0001F600 \U00010348 é \"q\" \\ \t\x01\x7f"
    experiment = {"name": name, "strange key \U0001F600": {"k": "\U0010FFFF"}}
    assert tomllib.loads(_toml.dumps(experiment)) == experiment
    r = pfmab.run({**SMALL, "name": "run \U0001F600"}, output=tmp_path / "out.h5",
                  progress=False)
    assert tomllib.loads(r.experiment)["name"] == "run \U0001F600"
    assert r.digest == pfmab.run(SMALL, progress=False).digest
    with pytest.raises(pfmab.ExperimentError, match=r"lone surrogate \(U\+D83D\)"):
        pfmab.validate({**SMALL, "name": "\ud83d"})


def test_a_second_run_of_this_process_on_an_output_being_written_is_refused(tmp_path):
    out = tmp_path / "out.h5"
    refusals = []

    class Enough(Exception):
        pass

    def second_run(report):
        # the first run is writing `out` (it asked for far more than can be
        # done by now): another experiment, and then with overwrite=True
        assert report["done"] < report["total"]
        for overwrite in [False, True]:
            with pytest.raises(pfmab.ExperimentError) as caught:
                pfmab.run(SMALL, seed=99, output=out, overwrite=overwrite, progress=False)
            refusals.append(str(caught.value))
        raise Enough  # stops the first run

    with pytest.raises(Enough):
        pfmab.run(SMALL, replications=10**9, output=out, progress=second_run)
    assert refusals == [f"output '{out}' is being written by another run in this process (wait "
                        "for it, or choose another output)"] * 2
    # what the first run kept is its own, and the same call continues it
    assert pfmab.open(out).seed == 16


def test_a_summary_grouped_by_its_keys_keeps_every_cell():
    study = {"seed": 3, "replications": 2, "horizon": 2000, "alpha": [0, 0.5, 1],
             "comm_cost": [0, 1, 10], "instance": {"means": SYNTHETIC},
             "algorithm": {"name": ["pf-ucb", "local-ucb", "pf-alloc"]}}
    r = pfmab.run(study, progress=False)
    summary = r.summary
    assert len(summary) == 3 * 3 + 3 + 3 * 3  # local-ucb is not crossed with C
    assert (summary.loc[summary.algorithm == "local-ucb", "comm_cost"] == "-").all()
    by_keys = summary.groupby(["algorithm", "alpha", "comm_cost"])["regret_mean"].mean()
    assert len(by_keys) == len(summary)
    assert summary.groupby(summary.attrs["varied"]).ngroups == len(summary)
    assert r.finals().groupby(["algorithm", "comm_cost"]).size().sum() == 2 * len(summary)
    assert r.cells.groupby(["algorithm", "comm_cost"]).size().sum() == len(summary)
    assert len(r.series("phases").groupby("comm_cost").mean()) == 4  # 0, 1, 10 and "-"


def test_a_python_without_numpy_is_told_what_is_missing_and_which_python_has_it():
    # -S: without the site module, Debian's dist-packages (numpy) are not on the path
    done = subprocess.run(
        [sys.executable, "-S", "-c",
         f"import sys; sys.path.insert(0, {os.path.join(ROOT, 'python')!r}); import pfmab"],
        capture_output=True, text=True)
    assert done.returncode == 1
    last = done.stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith("ImportError: pfmab needs numpy, which this Python ("), last
    assert "use Debian's /usr/bin/python3" in last and "tools/setup.sh" in last
    assert "python3-numpy" in last
