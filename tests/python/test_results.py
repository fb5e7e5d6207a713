"""pfmab.open and Results against the command line's and h5py's reads of
the same output."""

import math
import signal
import subprocess
import time

import h5py
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import pfmab
from conftest import PFMAB, SMALL, cli, cli_json


@pytest.fixture(scope="module")
def output(tmp_path_factory):
    """An output of 6 cells (two algorithms x three alphas) of 40 replications."""
    folder = tmp_path_factory.mktemp("results")
    pfmab.run(SMALL, output=folder / "out.h5", progress=False)
    return folder / "out.h5"


def test_the_summary_is_summary_json_field_by_field(output):
    expected = cli_json("summary", output)
    results = pfmab.open(output)
    assert results.digest == expected["digest"]
    summary = results.summary
    assert summary.attrs["varied"] == expected["varied"]
    assert len(summary) == len(expected["cells"])
    compared = 0
    for c, cell in enumerate(expected["cells"]):
        row = summary.loc[c]

        def same(column, value):
            got = row[column]
            if value is None:
                assert pd.isna(got), (c, column, got)
            elif isinstance(value, float):
                assert got == value or (math.isnan(value) and math.isnan(got)), (c, column)
            else:
                assert got == value, (c, column, got, value)

        for key, value in cell["keys"].items():
            same(key, "-" if value is None else value)  # a key without effect
            compared += 1
        for name, value in cell.items():
            if name == "keys" or (name in cell["keys"] and name != "schedule"):
                continue
            column = "schedule_formula" if name == "schedule" else name
            if isinstance(value, dict):
                for sub, v in value.items():
                    if sub == "ci95":
                        same(f"{column}_ci95_low", v[0])
                        same(f"{column}_ci95_high", v[1])
                    else:
                        same(f"{column}_{sub}", v)
                    compared += 1
            else:
                same(column, value)
                compared += 1
    assert compared > 6 * 30


def test_the_export_is_the_summary_and_names_the_instance_alike(output):
    import io
    results = pfmab.open(output)
    summary = results.summary
    exported = pd.read_csv(io.StringIO(cli("export", output).stdout), float_precision="round_trip")
    assert exported.columns[0] == "cell"
    assert set(exported.columns[1:]) == set(summary.columns)
    for column in summary.columns:
        for got, want in zip(exported[column], summary[column]):
            # a key with no effect: an empty field in the CSV, "-" in the summary
            assert got == want or (pd.isna(got) and (pd.isna(want) or want == "-")), \
                (column, got, want)
    # the instance by its file's name in the summary, the export and the cells
    assert list(summary["instance"]) == ["synthetic_4x9"] * len(summary)
    assert list(results.cells["instance"]) == list(summary["instance"])


def test_the_regret_over_c_star_figure_is_the_summarys_ratio(tmp_path):
    results = pfmab.run({**SMALL, "replications": 3, "horizon": [1000, 2000, 4000],
                         "alpha": 0.5, "algorithm": {"name": "pf-ucb"}},
                        output=tmp_path / "ratio.h5", progress=False)
    figure = results.plot.regret_over_c_star(logx=True)
    (panel,) = [ax for ax in figure.axes if ax.axison]
    assert panel.get_xscale() == "log"
    assert [list(line.get_ydata()) for line in panel.lines if line.get_gid() == "one"] \
        == [[1.0, 1.0]]
    (mean,) = [line for line in panel.lines if line.get_gid() != "one"]
    expected = results.summary.sort_values("horizon")["regret_over_c_star_log_T_mean"]
    assert list(mean.get_ydata()) == pytest.approx(list(expected), rel=1e-12)


def test_series_are_what_h5py_reads(output):
    results = pfmab.open(output)
    regret = results.series("regret")
    assert isinstance(regret, xr.DataArray)
    assert regret.dims == ("cell", "replication", "checkpoint")
    with h5py.File(output, "r", swmr=True) as f:  # as the engine opens it
        for c in range(6):
            group = f[f"cells/{c:04d}"]
            done = int(group["replications_done"][0])
            for name in ["regret", "comm_count", "fixed_arm", "phases"]:
                stored = group["replications"].fields(name)[:done]
                mine = results.series(name).isel(cell=c).values[:done]
                np.testing.assert_array_equal(mine[..., :stored.shape[-1]] if stored.ndim > 1
                                              else mine, stored, err_msg=f"{name} of cell {c}")
            np.testing.assert_array_equal(regret.slot.values, group["checkpoints"][:])
    # the cells' keys are coordinates
    assert list(regret.alpha.values) == [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]
    assert list(regret.algorithm.values[:1]) == ["pf-ucb"]


def test_cells_of_different_grids_are_padded_and_say_their_slots(tmp_path):
    out = tmp_path / "two.h5"
    r = pfmab.run(means=[[0.9, 0.1], [0.2, 0.8]], horizon=[100, 100000], replications=[3],
                  alpha=0.5, output=out, progress=False)
    regret = r.series("regret")
    lengths = [int(np.isfinite(regret.slot.values[c]).sum()) for c in range(2)]
    assert lengths[0] < lengths[1] == regret.sizes["checkpoint"]
    assert np.isnan(regret.values[0, :, lengths[0]:]).all()
    assert regret.slot.values[1, -1] == 100000


def test_finals_are_the_series_at_t(output):
    results = pfmab.open(output)
    finals = results.finals()
    regret = results.series("regret")
    assert len(finals) == 6 * 40
    assert list(finals.columns[:2]) == ["cell", "replication"]
    for c in range(6):
        rows = finals[finals.cell == c]
        np.testing.assert_array_equal(rows.regret.values, regret.isel(cell=c).values[:, -1])
        assert list(rows.replication) == list(range(40))
    fixed = results.series("fixed_optimal").values.astype(bool)
    np.testing.assert_array_equal(finals.identified.values, fixed.all(axis=2).reshape(-1))


def test_the_experiment_and_cells_are_the_stored_ones(output):
    results = pfmab.open(output)
    with h5py.File(output, "r", swmr=True) as f:  # as the engine opens it
        assert results.experiment == f.attrs["experiment"].decode()
    cells = results.cells
    assert list(cells.replications_done) == [40] * 6
    assert results.seed == 16
    assert "6 cells, 240 of 240 replications" in repr(results)


def test_the_cells_say_what_their_replications_took(output):
    cells = pfmab.open(output).cells
    summary = pfmab.open(output).summary
    with h5py.File(output, "r", swmr=True) as f:
        stored = [f[f"cells/{c:04d}/time_used"][()] for c in range(len(cells))]
    for c, (cpu, wall, timed) in enumerate(stored):
        row = cells.loc[c]
        assert timed == 40 and row.timed_replications == 40
        assert row.cpu_seconds == cpu > 0 and row.wall_seconds == wall > 0
        assert row.cpu_seconds_per_replication == cpu / 40
        assert row.wall_seconds_per_replication == wall / 40
        # the summary (`summary --json`'s) says the same
        for column in ("cpu_seconds", "wall_seconds", "timed_replications",
                       "cpu_seconds_per_replication", "wall_seconds_per_replication"):
            assert summary.loc[c, column] == row[column], column


def test_an_output_that_records_no_times_reads_them_as_nan(output, tmp_path):
    # as an output made before pfmab recorded them: without the dataset
    older = tmp_path / "older.h5"
    older.write_bytes(output.read_bytes())
    with h5py.File(older, "r+") as f:
        del f["cells/0001/time_used"]
    results = pfmab.open(older)
    cells, summary = results.cells, results.summary
    assert results.digest == pfmab.open(output).digest
    assert cells.loc[1].timed_replications == 0
    for column in ("cpu_seconds", "wall_seconds", "cpu_seconds_per_replication",
                   "wall_seconds_per_replication"):
        assert math.isnan(cells.loc[1, column]), column
        assert pd.isna(summary.loc[1, column]), column
        assert cells.loc[0, column] > 0, column
    table = cli("summary", older).stdout
    assert "nan" not in table and "n/a" in table


def test_an_output_is_read_while_a_run_writes_it(tmp_path, small_toml):
    # a run that cannot end while the test reads (10^9 replications a cell,
    # days of work) but counts rows many times a second: read until the count
    # is seen to grow twice, then interrupted; the clock only guards a hang
    out = tmp_path / "live.h5"
    run = subprocess.Popen([PFMAB, "run", str(small_toml), "-o", str(out), "-q", "-R",
                            "1000000000", "-T", "1e5", "--algorithm", "pf-ucb", "--threads", "1"])
    try:
        seen = []
        guard = time.monotonic() + 600
        while sum(b > a for a, b in zip([0] + seen, seen)) < 2:
            assert run.poll() is None, "the endless run ended"
            assert time.monotonic() < guard, f"hang guard: {seen[-5:]}"
            try:
                seen.append(int(pfmab.open(out).cells.replications_done.sum()))
            except pfmab.OutputError:
                pass  # not created yet
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        assert run.wait(600) == 130
    finally:
        run.kill()
        run.wait()
    assert seen == sorted(seen)
    assert 0 < seen[-1] < 3 * 10**9
    final = pfmab.open(out)
    assert int(final.cells.replications_done.sum()) >= seen[-1]
    assert final.digest == cli_json("summary", out)["digest"]


def test_figures_are_the_plot_tools(output):
    figure = pfmab.open(output).plot.regret(logx=True)
    assert figure.axes and figure.axes[0].get_xscale() == "log"
    with pytest.raises(TypeError, match="no figure option"):
        pfmab.open(output).plot.regret(colour="alpha")


def test_an_unknown_series_is_named(output):
    with pytest.raises(KeyError, match="no series 'regrets'"):
        pfmab.open(output).series("regrets")


def test_without_xarray_a_series_is_a_numpy_array(output, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "xarray", None)  # `import xarray` now fails
    regret = pfmab.open(output).series("regret")
    assert isinstance(regret, np.ndarray) and regret.shape[:2] == (6, 40)
    with h5py.File(output, "r", swmr=True) as f:
        np.testing.assert_array_equal(regret[2], f["cells/0002/replications"].fields("regret")[:40])
