"""Sweeps with refused combinations and lists of means from Python (issue 38,
items 6 and 7): pfmab.run refuses a sweep one of whose cells is refused,
naming it; with skip_refused=True (or the dict's skip_refused = true) it runs
the others with the digest of the sweep that never asked for the refused
cell, and Results.refused says which and why, from the run and from the
file; means= takes a list of CSV paths or of matrices, as the command line's
flag does."""

import os

import pytest

import pfmab
from conftest import DATA, SYNTHETIC, cli_json

ENHANCEMENT = os.path.join(DATA, "enhancement_4x9.csv")

# pf-alloc plans with a convex KL divergence, which exponential rewards lack
REFUSING = {
    "seed": 9,
    "replications": 4,
    "horizon": 2000,
    "alpha": 0.5,
    "instance": {"means": ENHANCEMENT, "rewards": ["bernoulli", "poisson", "exponential"]},
    "algorithm": {"name": "pf-alloc"},
}


def test_a_refused_cell_refuses_the_sweep_naming_it(tmp_path):
    out = tmp_path / "r.h5"
    with pytest.raises(pfmab.ExperimentError,
                       match=r"1 of 3 cells is refused: \(rewards exponential\) pf-alloc"):
        pfmab.run(REFUSING, output=out)
    assert not out.exists()


@pytest.mark.parametrize("how", ["keyword", "dict"])
def test_skipped_the_others_run_as_if_never_asked(tmp_path, how):
    out = tmp_path / "r.h5"
    if how == "keyword":
        r = pfmab.run(REFUSING, output=out, skip_refused=True)
    else:
        r = pfmab.run({**REFUSING, "skip_refused": True}, output=out)
    alone = pfmab.run({**REFUSING, "instance": {**REFUSING["instance"],
                                                "rewards": ["bernoulli", "poisson"]}})
    assert r.digest == alone.digest
    assert len(r.summary) == 2
    for refused in (r.refused, pfmab.open(out).refused):
        assert [c["name"] for c in refused] == ["rewards exponential"]
        assert refused[0]["cell"]["rewards"] == "exponential"
        assert "plans with the rewards' KL divergence" in refused[0]["why"]
    assert alone.refused == []


def test_skip_refused_takes_true_or_false():
    with pytest.raises(TypeError, match="skip_refused='yes'"):
        pfmab.validate(REFUSING, skip_refused="yes")


def test_validate_lists_the_skipped_cells():
    said = str(pfmab.validate(REFUSING, skip_refused=True))
    assert "valid: 2 cells x 4 replications" in said
    assert "1 of 3 cells refused, skipped (skip_refused):\n    (rewards exponential)" in said


def test_means_take_a_list_of_paths_or_of_matrices():
    run = {"alpha": 0.5, "horizon": 10000, "replications": 3, "seed": 5}
    listed = pfmab.run(means=[SYNTHETIC, ENHANCEMENT], **run)
    assert len(listed.summary) == 2
    assert listed.digest == cli_json("run", "--means", f"{SYNTHETIC},{ENHANCEMENT}", "--alpha",
                                     "0.5", "-T", "1e4", "-R", "3", "--seed", "5",
                                     "--quiet")["digest"]
    matrices = pfmab.run(means=[[[0, 1], [1, 0]], [[0.5, 0], [0, 0.5]]], **run)
    assert len(matrices.summary) == 2
    assert matrices.digest == cli_json("run", "--means-inline", "0,1;1,0|0.5,0;0,0.5", "--alpha",
                                       "0.5", "-T", "1e4", "-R", "3", "--seed", "5",
                                       "--quiet")["digest"]
    with pytest.raises(TypeError, match="a list of either"):
        pfmab.run(means=[SYNTHETIC, [[0, 1]]], **run)
