"""An experiment as the Python package takes it: a path to an experiment
file, its TOML text, or a dict with its keys, with keyword overrides laid
over it as the command line's flags are (docs/python.md)."""

import math
import os
from dataclasses import dataclass, field

from . import _arguments, _toml
from ._engine import engine
from .algorithm import registered
from .errors import ExperimentError


def _aliases():
    """Every keyword an override may be given as, with its parameter: the
    long flag without its dashes (comm_cost for --comm-cost), the record
    name (instance) and the dotted key with underscores (algorithm_lambda)."""
    names = {}
    for key, record, flags, _sweeps, _means in engine().parameters():
        spellings = {key.replace(".", "_"), record}
        spellings.update(f[2:].replace("-", "_") for f in flags.split(",") if f.startswith("--"))
        for spelling in spellings:
            names.setdefault(spelling, key)
    return names


def _text(label, value):
    """One value as its flag takes it."""
    if hasattr(value, "item") and not hasattr(value, "__len__"):
        value = value.item()  # a numpy scalar
    if isinstance(value, bool) or not isinstance(value, (int, float, str, os.PathLike)):
        raise TypeError(f"{label}{value!r}: a key's value is a number, a word or a path (or a "
                        f"list of them), not {type(value).__name__}")
    if isinstance(value, float) and value.is_integer() and abs(value) < 2.0**53:
        return str(int(value))  # 1e6 as 1000000: whole keys read it
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return str(value.__fspath__()) if hasattr(value, "__fspath__") else str(value)


def _override(keyword, value, aliases):
    key = aliases.get(keyword)
    label = f"{keyword}="
    if key is None:
        raise ExperimentError(f"{label}: no such key (keys: {', '.join(sorted(aliases))})")
    if hasattr(value, "tolist"):
        value = value.tolist()
    if key == "instance.means" and isinstance(value, (list, tuple)):
        def matrix(rows):  # inline, as --means-inline takes it
            return ";".join(",".join(_text(label, v) for v in row) for row in rows)
        if all(isinstance(row, (list, tuple)) for row in value):
            if value and all(isinstance(row, (list, tuple)) for r in value for row in r):
                return engine().Override(key, label, "|".join(matrix(m) for m in value), True)
            return engine().Override(key, label, matrix(value), True)
        if all(isinstance(path, (str, os.PathLike)) for path in value):
            return engine().Override(key, label, ",".join(_text(label, p) for p in value), False)
        raise TypeError(f"{label}{value!r}: the means are a CSV path, a matrix (a list of rows), "
                        "or a list of either")
    if isinstance(value, (list, tuple)):
        return engine().Override(key, label, ",".join(_text(label, v) for v in value), False)
    return engine().Override(key, label, _text(label, value), False)


def _is_text(experiment):
    """Whether a str is an experiment's TOML text rather than its file's path
    (docs/python.md, "Running"): a str with a newline is text; one that names
    an existing file, ends in .toml or has no "=" is a path (so that
    "alpha=0.5/e.toml", a folder named for a parameter, is a path, and a
    missing one says so); a one-line str with "=" is text ("horizon = 1e4")."""
    if "\n" in experiment:
        return True
    if os.path.isfile(experiment) or experiment.endswith(".toml"):
        return False
    return "=" in experiment


def load(experiment, overrides):
    """The engine's experiment for `experiment` (a path, a TOML text or a
    dict) with `overrides` (keyword: value or list of values) over it.
    Raises ExperimentError with the command line's message. An algorithm
    given as a pfmab.Algorithm class is registered first, so that its
    options are keys of this experiment."""
    overrides = {keyword: registered(value) for keyword, value in overrides.items()}
    skip = overrides.pop("skip_refused", False)
    if not isinstance(skip, bool):
        raise TypeError(f"skip_refused={skip!r}: True or False")
    aliases = _aliases() if overrides else {}
    given = [_override(k, v, aliases) for k, v in overrides.items()]
    if isinstance(experiment, dict):
        table = experiment.get("algorithm")
        if isinstance(table, dict) and "name" in table:  # {"algorithm": {"name": TheClass}}
            experiment = {**experiment, "algorithm": {**table, "name": registered(table["name"])}}
        return engine().load_text(_toml.dumps(experiment), "<dict>", os.getcwd(), given, skip)
    if isinstance(experiment, str) and _is_text(experiment):
        return engine().load_text(experiment, "<text>", os.getcwd(), given, skip)
    if isinstance(experiment, (str, os.PathLike)):
        return engine().load_file(_arguments.path("experiment", experiment), given, skip)
    if experiment is None:
        if not overrides:
            raise ExperimentError("no experiment given (a path, a TOML text, a dict or keywords)")
        if "instance.means" not in (aliases[k] for k in overrides):
            # the engine's message would name the command line's flags
            raise ExperimentError("no instance given (give means=, a CSV path or a matrix of "
                                  "local means, or an experiment)")
        return engine().load_file(None, given, skip)
    raise TypeError(f"an experiment is a path, a TOML text or a dict, not "
                    f"{type(experiment).__name__}")


@dataclass
class Validation:
    """What `pfmab validate` says of an experiment."""
    source: str
    cells: int
    replications: list  # per cell
    seed: int
    notes: list = field(default_factory=list)

    def __str__(self):
        least, most = min(self.replications), max(self.replications)
        if least == most:
            size = f"{self.cells} cell{'' if self.cells == 1 else 's'} x {most} replications"
        else:
            size = (f"{self.cells} cells, {sum(self.replications)} replications "
                    f"({least} to {most} per cell)")
        return "\n".join([f"{self.source}: valid: {size}, seed {self.seed}"] +
                         [f"  note: {note}" for note in self.notes])


def validate(experiment=None, **overrides):
    """Checks an experiment as `pfmab validate` does: returns its Validation
    (printed, the command's lines), or raises ExperimentError."""
    loaded = load(experiment, overrides)
    return Validation(loaded.source, loaded.cells, list(loaded.replications), loaded.seed,
                      list(loaded.notes))


def bounds(experiment=None, **overrides):
    """The paper's bounds of every cell, as `pfmab bounds --json` gives them:
    a DataFrame, a row per cell, its keys then the bounds."""
    import json

    from .results import cell_frame
    return cell_frame(json.loads(load(experiment, overrides).bounds_json))
