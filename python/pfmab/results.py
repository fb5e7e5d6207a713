"""The results of a run, or of an output file: its summary as a DataFrame,
its series as xarray DataArrays, its per-replication scalars, its figures.
Read through the engine's own reader, also while a run is still writing the
file (each property reads it as it stands then)."""

import json
import shutil
import weakref

import numpy as np

from . import _arguments
from ._engine import engine
from .errors import OutputError

# Rows read at a time (a replication's row is about 2.4 KB).
_BLOCK_ROWS = 4096

# A report's fields that repeat one of the cell's keys, and the one that
# names something else than the key of its name.
_RENAMED = {"schedule": "schedule_formula"}

# A key's value in a cell it has no effect on (comm_cost for local-ucb), in
# every table and coordinate, as `pfmab summary` and the plot tool show it:
# a value, not None or NaN, which pandas' groupby (and xarray's) would drop
# with the cell.
NOT_APPLICABLE = "-"


def keys_of(keys):
    """A cell's keys (a report's "keys", null where a key has no effect on
    the cell) as the tables show them."""
    return {key: NOT_APPLICABLE if value is None else value for key, value in keys.items()}


def _flatten(prefix, value, row):
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}_{k}", v, row)
    elif isinstance(value, list) and len(value) == 2 and prefix.endswith("ci95"):
        row[f"{prefix}_low"], row[f"{prefix}_high"] = value
    else:
        row[prefix] = value


def cell_frame(report):
    """A DataFrame of a report's cells (`summary --json`, `run --json`,
    `bounds --json`): a row per cell, its keys first, then every other field,
    nested ones joined by "_" (regret_mean, regret_ci95_low, bounds_log_T)."""
    import pandas as pd

    rows = []
    for cell in report["cells"]:
        keys = cell.get("keys", {})
        row = keys_of(keys)
        for name, value in cell.items():
            if name == "keys" or (name in keys and name not in _RENAMED):
                continue
            _flatten(_RENAMED.get(name, name), value, row)
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame.index.name = "cell"
    frame.attrs["varied"] = list(report.get("varied", []))
    return frame


def _time_used(cell):
    """A cell's time columns from Output.cells()'s record of it."""
    timed = cell["timed_replications"] or 0
    nan = float("nan")
    cpu = cell["cpu_seconds"] if timed else nan
    wall = cell["wall_seconds"] if timed else nan
    return {"cpu_seconds": cpu, "wall_seconds": wall, "timed_replications": timed,
            "cpu_seconds_per_replication": cpu / timed if timed else nan,
            "wall_seconds_per_replication": wall / timed if timed else nan}


class Plots:
    """The plot tool's figures of a Results (pfmab.plot): each returns a
    matplotlib Figure; options as the tool's flags (where="alpha=0.5",
    panels="instance", color=..., style=..., logx=, logy=, bound=, title=)."""

    def __init__(self, results):
        self._path = results.path

    def _figure(self, kind, options):
        from . import plot
        given = plot.settings(**options)  # an unknown option is refused first
        for name, value in options.items():
            if name in ("logx", "logy", "bound"):
                _arguments.flag(name, value)
            else:
                _arguments.text(name, value, "alpha=0.5" if name == "where" else "alpha")
        cells = plot.beside_every_value(plot.load(self._path))
        return plot.FIGURES[kind](cells, given)

    def regret(self, **options):
        """Mean regret against the slot, 95% bands, Theorem 1's bound."""
        return self._figure("regret", options)

    def rewards(self, **options):
        """Per-step expected rewards per client, a panel per cell."""
        return self._figure("rewards", options)

    def comm(self, **options):
        """Exchanges at T against the horizon (cells of several horizons)."""
        return self._figure("comm", options)

    def regret_over_log(self, **options):
        """R(T) / log T against the horizon, with C* and Theorem 1's c."""
        return self._figure("regret-over-log", options)

    def regret_over_c_star(self, **options):
        """R(T) / (C* log T) against the horizon, with a line at 1 (cells
        without a C* left out, the subtitle says how many)."""
        return self._figure("regret-over-c-star", options)


class Results:
    """An output of pfmab run (docs/outputs.md) as Python reads it."""

    def __init__(self, path, report=None, temporary=None):
        self.path = _arguments.path("path", path, OutputError)
        self._report = report  # run --json's object, for the run that just made the file
        # a run without output= writes to a temporary folder, removed with its Results
        self._temporary = (weakref.finalize(self, shutil.rmtree, temporary, True)
                           if temporary else None)
        self._output()  # an unreadable file is refused now

    def _output(self):
        return engine().Output(self.path)

    def _report_object(self):
        if self._report is not None:
            return self._report
        return json.loads(self._output().summary_json())  # as the file stands now

    def __repr__(self):
        cells = self._output().cells()
        done = sum(c["done"] for c in cells)
        asked = sum(c["requested"] for c in cells)
        return (f"<pfmab.Results '{self.path}': {len(cells)} cells, {done} of {asked} "
                f"replications>")

    @property
    def digest(self):
        """The digest `pfmab run` and `pfmab summary` print: of every
        replication's results, in order."""
        return self._report_object()["digest"]

    @property
    def seed(self):
        return self._output().seed

    @property
    def experiment(self):
        """The experiment's text as the output stores it (its file's text
        and any overrides)."""
        return self._output().attribute("experiment")

    @property
    def varied(self):
        """The keys that vary among the cells, as the output records them."""
        text = self._output().attribute("sweep_keys")
        return text.split(",") if text else []

    @property
    def summary(self):
        """A DataFrame, a row per cell: every key of the cell ("-" where it
        has no effect), then `pfmab summary --json`'s statistics at T."""
        return cell_frame(self._report_object())

    @property
    def refused(self):
        """The cells of the sweep that were refused and skipped
        (skip_refused): a list of dicts, each with the cell's keys ("cell"),
        the keys that tell it apart ("name") and why it was refused ("why");
        empty for a sweep that refused none."""
        return self._report_object().get("refused", [])

    @property
    def cells(self):
        """A DataFrame, a row per cell: its keys, replications asked and done,
        and what computing them took (docs/outputs.md, time_used): the
        total cpu_seconds and wall_seconds, the timed_replications they
        cover, and their means per replication; NaN where the output
        records no time (made before pfmab did) or none was measured."""
        import pandas as pd

        cells = self._output().cells()
        frame = pd.DataFrame([{**keys_of(json.loads(c["keys"])),
                               "replications_requested": c["requested"],
                               "replications_done": c["done"],
                               **_time_used(c)} for c in cells])
        frame.index.name = "cell"
        return frame

    def _rows(self, output, cell, done):
        """Every complete row of `cell`, block by block: (its first row, the block)."""
        for first in range(0, done, _BLOCK_ROWS):
            yield first, output.rows(cell, first, min(_BLOCK_ROWS, done - first))

    def series(self, name):
        """Column `name` of every replication (regret, local_reward,
        global_reward, mixed_reward, comm_count by checkpoint; fixed_arm,
        fixed_optimal by client; phases, exploration_pulls, fixation_slot)
        as an xarray DataArray of dims (cell, replication[, checkpoint or
        client]), with the cells' keys and slots as coordinates (where every
        cell has one grid, the checkpoints are labelled by their slots); a
        numpy array without xarray. Cells of fewer replications or
        checkpoints than others are padded with NaN."""
        widths = {column: width for column, width, _ in engine().columns()}
        _arguments.text("name", name, "regret")
        if name not in widths:
            raise KeyError(f"no series '{name}' (there are {', '.join(widths)})")
        width = widths[name]
        output = self._output()
        cells = output.cells()
        parts = []
        for c, cell in enumerate(cells):
            blocks = [rows[name] for _, rows in self._rows(output, c, cell["done"])]
            parts.append(np.concatenate(blocks) if blocks else None)
        inner = {"checkpoints": lambda cell: len(cell["checkpoints"]),
                 "clients": lambda cell: cell["clients"], "one": lambda cell: None}[width]
        shape = (len(cells), max((c["done"] for c in cells), default=0))
        sizes = [inner(c) for c in cells]
        if width != "one":
            shape += (max(sizes, default=0),)
        ragged = any(c["done"] != shape[1] for c in cells) or any(
            s != shape[-1] for s in sizes if s is not None)
        dtype = np.float64 if ragged else (parts[0].dtype if parts and parts[0] is not None
                                           else np.float64)
        values = np.full(shape, np.nan, dtype=np.float64) if ragged else np.empty(shape, dtype)
        for c, part in enumerate(parts):
            if part is not None:
                values[(c, slice(0, part.shape[0])) + tuple(slice(0, n) for n in part.shape[1:])] \
                    = part
        try:
            import xarray as xr
        except ImportError:
            return values
        dims = ("cell", "replication") + {"checkpoints": ("checkpoint",), "clients": ("client",),
                                          "one": ()}[width]
        coords = {"cell": np.arange(len(cells)), "replication": np.arange(shape[1])}
        keys = [keys_of(json.loads(c["keys"])) for c in cells]
        for key in (keys[0] if keys else {}):
            coords[key] = ("cell", np.array([k[key] for k in keys], dtype=object))
        coords["replications_done"] = ("cell", np.array([c["done"] for c in cells]))
        if width == "checkpoints":
            grids = [c["checkpoints"] for c in cells]
            if all(g == grids[0] for g in grids):
                # one grid: a checkpoint is named by its slot, regret.sel(checkpoint=10**6)
                slots = np.array(grids[0] if grids else [], np.uint64)
                coords["checkpoint"] = slots
                coords["slot"] = ("checkpoint", slots)
            else:
                slots = np.full((len(cells), shape[-1]), np.nan)
                for c, grid in enumerate(grids):
                    slots[c, :len(grid)] = grid
                coords["slot"] = (("cell", "checkpoint"), slots)
        return xr.DataArray(values, dims=dims, coords=coords, name=name)

    def finals(self):
        """A DataFrame, a row per replication done: its cell, the keys that
        vary, the series' values at T, phases, exploration_pulls,
        fixation_slot and identified (every client fixed on its optimal arm)."""
        import pandas as pd

        output = self._output()
        cells = output.cells()
        varied = self.varied
        columns = engine().columns()
        frames = []
        for c, cell in enumerate(cells):
            keys = keys_of(json.loads(cell["keys"]))
            for first, rows in self._rows(output, c, cell["done"]):
                count = len(rows["phases"])
                frame = {"cell": np.full(count, c), "replication": np.arange(first, first + count)}
                frame.update({key: [keys[key]] * count for key in varied})
                for column, width, _ in columns:
                    if width == "checkpoints":
                        frame[column] = rows[column][:, -1]
                    elif width == "one":
                        frame[column] = rows[column]
                frame["identified"] = rows["fixed_optimal"].all(axis=1)
                frames.append(pd.DataFrame(frame))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    @property
    def plot(self):
        return Plots(self)


def open(path):  # noqa: A001  (pfmab.open, as h5py.File or xarray.open_dataset)
    """The Results of an output file (also one a run is still writing).
    Raises OutputError for a file that is not a readable pfmab output,
    with `pfmab summary`'s message."""
    return Results(path)
