"""pfmab.run, validate and bounds against the command line: the same
experiment, however given, runs to the same digest and report."""

import json
import threading

import pandas as pd
import pytest

import pfmab
from conftest import SMALL, SYNTHETIC, cli, cli_json


@pytest.mark.parametrize("threads", [1, 2])
def test_run_gives_the_command_lines_digest(small_toml, tmp_path, threads):
    expected = cli_json("run", small_toml, "-q", "--threads", threads)
    r = pfmab.run(small_toml, output=tmp_path / "out.h5", threads=threads, progress=False)
    assert r.digest == expected["digest"]
    assert len(r.summary) == 6


def test_a_path_a_text_a_dict_and_keywords_are_the_same_experiment(small_toml):
    digests = {
        "path": pfmab.run(small_toml, progress=False).digest,
        "text": pfmab.run(small_toml.read_text(), progress=False).digest,
        "dict": pfmab.run(SMALL, progress=False).digest,
        "keywords": pfmab.run(means=SYNTHETIC, seed=16, replications=40, horizon=2e4,
                              alpha=[0, 0.5, 1], algorithm=["pf-ucb", "local-ucb"],
                              progress=False).digest,
    }
    assert len(set(digests.values())) == 1, digests


def test_keywords_override_the_experiment_as_flags_do(small_toml):
    flags = cli_json("run", small_toml, "-q", "--alpha", "0.2,0.9", "-C", "0,10", "-T", "1e4")
    r = pfmab.run(small_toml, alpha=[0.2, 0.9], comm_cost=[0, 10], horizon=1e4, progress=False)
    assert r.digest == flags["digest"]
    assert set(r.summary["comm_cost"]) == {0, 10, "-"}  # "-": local-ucb, which C does not touch


def test_a_matrix_of_means_is_given_inline():
    means = [[0.9, 0.1, 0.5], [0.2, 0.8, 0.4]]
    flags = cli_json("run", "-q", "--means-inline", "0.9,0.1,0.5;0.2,0.8,0.4", "-T", "5000",
                     "-R", "10", "--alpha", "0.5")
    r = pfmab.run(means=means, horizon=5000, replications=10, alpha=0.5, progress=False)
    assert r.digest == flags["digest"]


def test_validate_says_what_the_command_says(tmp_path):
    experiment = tmp_path / "e.toml"
    experiment.write_text(
        'replications = 5\nhorizon = 1000\ncomm_cost = [0, 1]\n'
        f'[instance]\nmeans = "{SYNTHETIC}"\n'
        '[algorithm]\nname = ["pf-ucb", "local-ucb"]\n')
    said = cli("validate", experiment).stdout.rstrip("\n")
    validation = pfmab.validate(experiment)
    assert str(validation) == said
    assert validation.cells == 15  # local-ucb not crossed with C
    assert any("comm_cost has no effect on local-ucb" in note for note in validation.notes)


def test_bounds_are_the_commands(small_toml):
    expected = cli_json("bounds", small_toml)
    frame = pfmab.bounds(small_toml)
    assert len(frame) == len(expected["cells"])
    for row, cell in zip(frame.itertuples(), expected["cells"]):
        for name, value in cell["bounds"].items():
            got = getattr(row, f"bounds_{name}")
            assert (pd.isna(got) if value is None else got == value), name
        assert row.alpha == cell["keys"]["alpha"]


def test_progress_reports_reach_a_callback_and_end_at_the_total(small_toml):
    reports = []
    pfmab.run(small_toml, replications=400, progress=reports.append)
    assert reports, "no progress report"
    last = reports[-1]
    assert last["done"] == last["total"] == 6 * 400
    assert last["cells"] == 6
    assert [r["done"] for r in reports] == sorted(r["done"] for r in reports)


def test_an_output_is_continued_by_the_same_call_and_refused_to_another(small_toml, tmp_path):
    out = tmp_path / "out.h5"
    first = pfmab.run(small_toml, output=out, progress=False)
    again = pfmab.run(small_toml, output=out, progress=False)
    assert again.digest == first.digest
    with pytest.raises(pfmab.ExperimentError) as refused:
        pfmab.run(small_toml, output=out, seed=17, progress=False)
    # in the words of the call, not the command line's flags
    assert str(refused.value).endswith("; use overwrite=True to replace it, or choose another "
                                       "output"), refused.value
    assert "--overwrite" not in str(refused.value) and " -o" not in str(refused.value)
    replaced = pfmab.run(small_toml, output=out, seed=17, overwrite=True, progress=False)
    assert replaced.digest != first.digest


def test_a_shard_is_a_share_of_every_cell(small_toml, tmp_path):
    parts = [pfmab.run(small_toml, output=tmp_path / f"p{i}.h5", shard=f"{i}/2", progress=False)
             for i in range(2)]
    cli("merge", tmp_path / "p0.h5", tmp_path / "p1.h5", "-o", tmp_path / "all.h5")
    whole = pfmab.run(small_toml, progress=False)
    assert pfmab.open(tmp_path / "all.h5").digest == whole.digest
    assert all(set(p.cells["replications_done"]) == {20} for p in parts)


def test_the_results_of_a_run_without_output_go_when_it_goes(small_toml):
    import os
    r = pfmab.run(small_toml, progress=False)
    path = r.path
    assert os.path.exists(path)
    del r
    import gc
    gc.collect()
    assert not os.path.exists(path)


def test_the_summary_is_a_dataframe_with_every_key(small_toml):
    summary = pfmab.run(small_toml, progress=False).summary
    expected = cli_json("run", small_toml, "-q")
    assert isinstance(summary, pd.DataFrame)
    for column in ["algorithm", "alpha", "comm_cost", "instance", "horizon", "mode",
                   "regret_mean", "regret_ci95_low", "regret_ci95_high", "replications",
                   "bounds_theorem1_lower", "schedule_formula"]:
        assert column in summary.columns, column
    # local-ucb draws every reward: mode varies with the algorithm
    assert summary.attrs["varied"] == expected["varied"] == ["algorithm", "alpha", "mode"]
    # local-ucb never pays for communication: no value of C, said as `summary` says it
    assert (summary.loc[summary.algorithm == "local-ucb", "comm_cost"] == "-").all()
    assert json.dumps(summary.to_dict())  # plain values throughout


def test_threads_run_in_parallel_with_python(small_toml):
    """Another Python thread makes progress while the engine runs: the GIL
    is released."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    reports = []
    try:
        # about a second and a half: 3 cells of 20,000 aggregated PF-UCB replications
        pfmab.run(small_toml, algorithm="pf-ucb", replications=20000, horizon=1e6, threads=1,
                  progress=lambda r: reports.append((len(ticks), r["done"])))
    finally:
        stop.set()
        ticker.join()
    # the ticker ran between the run's progress reports
    assert len(reports) >= 3
    assert reports[-1][0] - reports[0][0] >= 10, reports
