"""pfmab.run(processes=N): the experiment run by N worker processes, each
one shard (run's shard="I/N") written to a part file beside the output,
then merged by the engine into the output and the parts removed. A Python
policy holds the GIL in each of its calls, so threads do not run it any
faster; processes do. The shards' contract (docs/cluster.md) makes the
digest the same for any N."""

import builtins
import json
import os
import pickle
import selectors
import subprocess
import sys

from ._engine import engine
from .algorithm import registered
from .errors import ExperimentError

def part_paths(output, processes):
    """The part files of `processes` workers beside `output`."""
    return [f"{output}.part-{i}-of-{processes}" for i in range(processes)]


def check_importable(names, processes):
    """Refuses an algorithm that a worker cannot import by its name: a class
    of __main__ (a notebook cell, a script) or one defined in a function."""
    for name in names:
        if name.startswith("__main__:") or "<locals>" in name:
            where = ("in __main__ (a notebook cell or a script)" if name.startswith("__main__:")
                     else "inside a function")
            raise ExperimentError(
                f"processes={processes}: algorithm '{name}' is defined {where}, and worker "
                f"processes import a class by its module:Class name: put it in a module on the "
                f"Python path and import it from there (or run with processes=1)")


def by_name(experiment, overrides):
    """pfmab.run's experiment and overrides with every pfmab.Algorithm class
    replaced by its registered "module:Class", as a worker loads them."""
    if isinstance(experiment, dict):
        table = experiment.get("algorithm")
        if isinstance(table, dict) and "name" in table:
            experiment = {**experiment, "algorithm": {**table, "name": registered(table["name"])}}
    return experiment, {keyword: registered(value) for keyword, value in overrides.items()}


class _Worker:
    """A worker process, its job sent, its pipe read line by line."""

    def __init__(self, index, job):
        self.index = index
        self.report = None  # its latest progress report
        self.ended = None  # its last line: finished, interrupted or error
        read, write = os.pipe()
        # the parent's import path, so that a worker imports what the parent can
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
            os.path.abspath(p) if p else os.getcwd() for p in sys.path))
        # A session of its own: Ctrl-C at a terminal reaches the parent
        # alone, which stops every worker by a "stop" line.
        self.process = subprocess.Popen([sys.executable, "-m", "pfmab._worker", str(write)],
                                        stdin=subprocess.PIPE, pass_fds=(write,),
                                        env=environment, start_new_session=True)
        os.close(write)
        self.pipe = os.fdopen(read, "r")
        job = pickle.dumps(job)
        self.process.stdin.write(len(job).to_bytes(8, "little") + job)
        self.process.stdin.flush()

    def take(self, line):
        message = json.loads(line)
        if "progress" in message:
            self.report = message["progress"]
        else:
            self.ended = message

    def stop(self):
        if self.ended is not None:
            return
        try:
            self.process.stdin.write(b"stop\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # it has ended

    def close(self):
        self.process.wait()
        self.process.stdin.close()
        self.pipe.close()


def _aggregate(workers):
    """The workers' reports as one: replications done and asked summed, the
    longest remaining time, the cell of the worker furthest behind."""
    if any(w.report is None and w.ended is None for w in workers):
        return None  # a total of some workers' alone would shrink the bar's
    reports = [w.report for w in workers if w.report is not None]
    if not reports:
        return None
    behind = min(reports, key=lambda r: r["done"] / max(r["total"], 1))
    remaining = [r["remaining"] for r in reports]
    return {"done": sum(r["done"] for r in reports),
            "total": sum(r["total"] for r in reports),
            "elapsed": max(r["elapsed"] for r in reports),
            "remaining": None if None in remaining else max(remaining),
            "cell": behind["cell"], "cells": behind["cells"], "cell_name": behind["cell_name"]}


def _follow(workers, callback):
    """Reads the workers' lines until every one has ended, handing the
    aggregated progress to `callback`; the first error stops the others."""
    selector = selectors.DefaultSelector()
    for worker in workers:
        selector.register(worker.pipe, selectors.EVENT_READ, worker)
    stopped = False
    while selector.get_map():
        for key, _ in selector.select(timeout=0.1):
            worker = key.data
            line = worker.pipe.readline()
            if not line:
                selector.unregister(worker.pipe)
                continue
            worker.take(line)
            if worker.ended and "error" in worker.ended and not stopped:
                stopped = True
                for other in workers:
                    other.stop()
        if callback is not None:
            report = _aggregate(workers)
            if report is not None:
                callback(report)


def _raised(worker, processes):
    """The exception a worker's error is raised as in the parent: its own
    type (a builtin's or pfmab's), its message, then the worker's traceback."""
    error = worker.ended["error"]
    kinds = {"builtins": builtins, "pfmab.errors": sys.modules["pfmab.errors"]}
    kind = getattr(kinds.get(error["module"]), error["type"], None)
    message = (f"{error['message']}\n\nin worker {worker.index} of {processes} "
               f"(shard {worker.index}/{processes}); its traceback:\n{error['traceback']}")
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
        message = f"{error['module']}.{error['type']}: {message}"
    try:
        return kind(message)
    except TypeError:  # a constructor that takes more than a message
        return RuntimeError(f"{error['module']}.{error['type']}: {message}")


def _kept(parts):
    """The replications the parts hold, and those they are to hold."""
    kept = asked = 0
    for part in parts:
        if os.path.exists(part):
            for cell in engine().Output(part).cells():
                kept, asked = kept + cell["done"], asked + cell["expected"]
    return kept, asked


def run_on_processes(experiment, overrides, output, threads, overwrite, processes, callback):
    """Runs the experiment on `processes` workers into part files beside
    `output`, merges them into it and returns run --json's report of it
    (its summary). Ctrl-C (KeyboardInterrupt) stops every worker, keeping
    their finished replications in their parts: the same call continues."""
    experiment, overrides = by_name(experiment, overrides)
    parts = part_paths(output, processes)
    jobs = [dict(overrides, experiment=experiment, output=part, threads=threads,
                 shard=f"{i}/{processes}", overwrite=overwrite, processes=1)
            for i, part in enumerate(parts)]
    workers = []
    try:
        for i, job in enumerate(jobs):
            workers.append(_Worker(i, job))
        _follow(workers, callback)
    except KeyboardInterrupt:
        for worker in workers:
            worker.stop()
        _follow(workers, None)
        kept, asked = _kept(parts)
        raise KeyboardInterrupt(
            f"interrupted: {kept} of {asked} replications are in the {processes} parts beside "
            f"'{output}'; run the same call to continue") from None
    finally:
        for worker in workers:
            if worker.process.poll() is None:
                worker.stop()
            worker.close()
    for worker in workers:
        if worker.ended and "error" in worker.ended:
            raise _raised(worker, processes)
    for worker in workers:
        if not (worker.ended and "finished" in worker.ended):
            raise RuntimeError(f"worker {worker.index} of {processes} ended with status "
                               f"{worker.process.returncode} and said nothing")
    engine().merge(parts, output, overwrite)
    for part in parts:
        os.remove(part)
    return engine().Output(output).summary_json()
