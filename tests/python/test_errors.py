"""Bad input raises ExperimentError (or OutputError) with the command
line's one line, and writes nothing."""

import os
import subprocess

import h5py
import pytest

import pfmab
from conftest import SMALL, cli

PREFIX = "pfmab: error: "


def said(*args):
    """The command line's message for `pfmab ARGS`, without its prefix."""
    done = cli(*args, check=False)
    assert done.returncode == 2, done
    assert done.stderr.startswith(PREFIX) and done.stderr.count("\n") == 1, done.stderr
    return done.stderr[len(PREFIX):-1]


def bad_experiments(folder):
    """The bad experiment files of tests/integration/experiment_errors_test.cpp."""
    subprocess.run([os.environ["PFMAB_WRITE_BAD_EXPERIMENTS"], str(folder)], check=True)
    return sorted(p for p in folder.iterdir() if p.is_dir())


def files(folder):
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_every_bad_file_of_the_command_lines_suite_is_refused_alike(tmp_path):
    cases = bad_experiments(tmp_path)
    assert len(cases) >= 24
    for case in cases:
        experiment = case / "exp.toml"
        message = said("validate", experiment)
        before = files(case)
        with pytest.raises(pfmab.ExperimentError) as validated:
            pfmab.validate(experiment)
        assert str(validated.value) == message, case.name
        with pytest.raises(pfmab.ExperimentError) as ran:
            pfmab.run(experiment, output=case / "out.h5", progress=False)
        assert str(ran.value) == message, case.name
        assert files(case) == before, f"{case.name}: a file was written"
        assert isinstance(ran.value, ValueError)


def test_a_bad_keyword_is_named():
    with pytest.raises(pfmab.ExperimentError, match=r"^alphas=: no such key \(keys: .*alpha"):
        pfmab.run(SMALL, alphas=[0, 1], progress=False)


def test_a_bad_keyword_value_says_what_the_flag_says():
    flag = said("validate", "--means-inline", "0.1,0.2;0.3,0.4", "--horizon", "soon")
    with pytest.raises(pfmab.ExperimentError) as caught:
        pfmab.validate(means=[[0.1, 0.2], [0.3, 0.4]], horizon="soon")
    assert str(caught.value) == flag.replace("--horizon", "horizon=")


def test_a_bad_dict_is_placed_in_the_text_it_stands_for():
    with pytest.raises(pfmab.ExperimentError, match=r"^<dict>:\d+:\d+: key 'alpha': "):
        pfmab.validate({**SMALL, "alpha": 2})


def test_a_foreign_or_broken_file_is_refused_as_summary_refuses_it(tmp_path):
    foreign = tmp_path / "foreign.h5"
    with h5py.File(foreign, "w") as f:
        f["x"] = [1, 2, 3]
    text = tmp_path / "text.h5"
    text.write_text("not HDF5\n")
    for path in [foreign, text, tmp_path / "missing.h5"]:
        message = said("summary", path)
        with pytest.raises(pfmab.OutputError) as caught:
            pfmab.open(path)
        assert str(caught.value) == message


def test_a_run_refused_leaves_no_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(pfmab.ExperimentError):
        pfmab.run(SMALL, shard="3/2", progress=False)
    assert list(tmp_path.iterdir()) == []
