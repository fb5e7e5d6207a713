"""pfmab.run: an experiment run by the engine, as `pfmab run` runs it."""

import json
import os
import sys
import tempfile

from . import _arguments, _processes
from ._engine import engine
from .errors import ExperimentError
from .experiment import load
from .results import Results


def _duration(seconds):
    """As the command line's progress line: "19s", "12m05s", "3h02m"."""
    s = round(seconds)
    if s < 100:
        return f"{s}s"
    if s < 6000:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s // 60 % 60:02d}m"


class _Bar:
    """A tqdm bar fed with the engine's progress reports: replications done
    of the run's, the engine's cost-weighted ETA (tqdm's own, from the rate
    of replications, is wrong for sweeps whose cells differ in cost) and
    the cell being handed on."""

    def __init__(self, tqdm):
        self._tqdm = tqdm
        self._bar = None

    def __call__(self, report):
        if self._bar is None:
            # the bar's share is of the replications; the text after it, the
            # engine's ETA and cell, as the command line's line has them
            self._bar = self._tqdm(total=report["total"], unit="rep", dynamic_ncols=True,
                                   bar_format="{percentage:3.0f}%|{bar:20}| {n_fmt}/{total_fmt}"
                                              "  {desc}")
        self._bar.total = report["total"]  # several processes' grows as each reports
        self._bar.n = report["done"]
        eta = "-" if report["remaining"] is None else _duration(report["remaining"])
        cell = (f"  cell {report['cell'] + 1}/{report['cells']}: {report['cell_name']}"
                if report["cells"] else "")
        self._bar.set_description_str(f"ETA {eta}{cell}", refresh=False)
        self._bar.refresh()

    def close(self):
        if self._bar is not None:
            self._bar.close()


def _progress(progress):
    """(stderr_progress, callback, bar) for run's `progress`: None shows
    progress where someone watches (a terminal, a notebook), as a tqdm bar
    if tqdm is there, else the engine's line on stderr; a callable gets the
    engine's reports (dicts)."""
    if callable(progress):
        return False, progress, None
    if progress is None:
        progress = "ipykernel" in sys.modules or sys.stderr.isatty()
    if not progress:
        return False, None, None
    try:
        tqdm = _tqdm()
    except ImportError:
        return True, None, None
    bar = _Bar(tqdm)
    return False, bar, bar


def _tqdm():
    """tqdm's notebook bar (a widget) in a Jupyter kernel with ipywidgets 7
    or later, which tqdm's widget needs; else its text bar, which a
    notebook shows as it shows stderr. (Debian 12's ipywidgets is 6.0, whose
    widget messages a current Jupyter cannot read: nbclient fails on them.)"""
    if "ipykernel" in sys.modules:
        try:
            import ipywidgets
            if int(ipywidgets.__version__.split(".")[0]) >= 7:
                from tqdm.notebook import tqdm
                return tqdm
        except (ImportError, ValueError):
            pass
    from tqdm.std import tqdm
    return tqdm


def _threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _stderr_line(report):
    """The progress of several processes where no tqdm is: one line."""
    eta = "-" if report["remaining"] is None else _duration(report["remaining"])
    sys.stderr.write(f"\r{report['done']}/{report['total']} replications  ETA {eta}  ")
    sys.stderr.flush()


def run(experiment=None, *, output=None, threads=None, shard=None, overwrite=False,
        progress=None, processes=None, **overrides):
    """Runs `experiment` (a path, a TOML text or a dict with the experiment
    file's keys; lists sweep) with keyword overrides laid over it as the
    command line's flags (alpha=[0, 0.5], horizon=1e6, comm_cost=[0, 1],
    algorithm="local-ucb" or a pfmab.Algorithm class, means="m.csv" or a
    matrix), and returns its Results.

    output:    the HDF5 output; an existing one of the same experiment is
               continued (overwrite=True replaces one of another). None: a
               temporary file, removed with the Results.
    threads:   worker threads (default: the cores this process may use;
               with processes=N, each process's, default the cores / N).
    shard:     "I/N", run share I of N of every cell's replications.
    processes: worker processes (default 1), each running one shard into
               a part file beside the output, merged into it at the end:
               what runs a Python algorithm (whose calls hold the GIL) on
               several cores. Its class must be importable by name (not
               defined in __main__). An output that exists with no parts
               beside it is continued by this process alone.
    progress:  None (a bar where someone watches), True, False, or a
               callable given the engine's progress reports.

    Ctrl-C (KeyboardInterrupt) stops the run as it stops `pfmab run`: every
    finished replication is kept in the output, and the same call continues
    it. The engine runs without the GIL. Raises ExperimentError for an
    experiment or an output the command line would refuse (nothing run,
    no file written), TypeError for an argument of the wrong type."""
    if output is not None:
        output = _arguments.path("output", output)
    processes = 1 if processes is None else _arguments.count("processes", processes, 1, 1024)
    threads = (max(1, _threads() // processes) if threads is None else
               _arguments.count("threads", threads, 1, engine().max_threads()))
    shard = _arguments.text("shard", shard, "0/4")
    overwrite = _arguments.flag("overwrite", overwrite)
    progress = _arguments.progress(progress)
    loaded = load(experiment, overrides)
    if processes > 1:
        if shard:
            raise ExperimentError(f"shard={shard!r} with processes={processes}: each process "
                                  "runs a shard of its own; give one or the other")
        _processes.check_importable(loaded.algorithms, processes)
        if (output is not None and os.path.exists(output) and not overwrite and
                not any(map(os.path.exists, _processes.part_paths(output, processes)))):
            processes = 1  # an output of one process (complete, or continued here)
    temporary = None
    if output is None:
        temporary = tempfile.mkdtemp(prefix="pfmab-")
        output = os.path.join(temporary, "results.h5")
    stderr_progress, callback, bar = _progress(progress)
    try:
        if processes > 1:
            report = _processes.run_on_processes(
                experiment, overrides, output, threads, overwrite, processes,
                _stderr_line if stderr_progress else callback)
            if stderr_progress:
                sys.stderr.write("\n")
        else:
            report = engine().run(loaded, output, threads, shard or "",
                                  overwrite, stderr_progress, callback)
    except BaseException as e:
        if not temporary:
            raise
        import shutil
        shutil.rmtree(temporary, ignore_errors=True)
        if isinstance(e, KeyboardInterrupt):
            raise KeyboardInterrupt("interrupted: nothing kept (no output= given)") from None
        raise
    finally:
        if bar is not None:
            bar.close()
    return Results(output, json.loads(report), temporary)
