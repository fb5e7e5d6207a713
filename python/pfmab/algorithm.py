"""pfmab.Algorithm: an algorithm written in Python and run by the engine
through its phased protocol (docs/algorithms.md, "The algorithm interface";
docs/python.md, "Write an algorithm in Python").

The engine reads a phase's rewards only through each arm's sum, and in the
aggregated mode draws those sums at once, so a Python policy is called a
few times per client and phase, not per pull. Each replication gets an
object of its own; the engine calls its methods from its worker threads,
each call holding the GIL, and checks what they return."""

import importlib
import types
from dataclasses import dataclass

from ._engine import engine
from .errors import ExperimentError

_TYPES = {"real": (int, float), "whole": (int,), "word": (str,)}
_LONGEST = 2**62  # the engine's largest whole value (a horizon's)


@dataclass(frozen=True)
class Option:
    """An option of a Python algorithm, the experiment key
    algorithm.<name> (keyword <name>= in pfmab.run): sweepable, in the
    summary, the output's cell attributes and the canonical record, and
    refused for other algorithms. `type` is "real", "whole" or "word";
    `least` and `most` bound a number, `words` lists a word's choices
    (empty: any word)."""
    name: str
    type: str
    default: object
    help: str = ""
    least: object = None
    most: object = None
    words: tuple = ()

    def declaration(self, owner):
        """The engine's (name, type, default, help, least, most), checked."""
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"{owner}: option name {self.name!r} is not an identifier")
        if self.type not in _TYPES:
            raise ValueError(f"{owner}: option {self.name}: type {self.type!r} (expected "
                             f"real, whole or word)")
        if isinstance(self.default, bool) or not isinstance(self.default, _TYPES[self.type]):
            raise ValueError(f"{owner}: option {self.name}: default {self.default!r} is not "
                             f"a {self.type}")
        try:
            self.check(self.default)
        except ValueError as e:
            raise ValueError(f"{owner}: the default of {e}") from None
        whole = self.type == "whole"
        least = self.least if whole and self.least is not None else 0
        most = self.most if whole and self.most is not None else _LONGEST
        default = repr(float(self.default)) if self.type == "real" else str(self.default)
        return (self.name, self.type, default, self.help, least, most)

    def check(self, value):
        """Raises ValueError for a value outside the option's range."""
        if self.least is not None and value < self.least:
            raise ValueError(f"algorithm.{self.name} must be at least {self.least} "
                             f"(got {value!r})")
        if self.most is not None and value > self.most:
            raise ValueError(f"algorithm.{self.name} must be at most {self.most} (got {value!r})")
        if self.words and value not in self.words:
            raise ValueError(f"algorithm.{self.name} must be one of {', '.join(self.words)} "
                             f"(got {value!r})")


@dataclass(frozen=True)
class Context:
    """What a replication's object is made with: the game's size, the alpha
    the algorithm runs with, the horizon, and its options' values (by
    name: context.options.pulls_per_arm)."""
    clients: int
    arms: int
    alpha: float
    horizon: int
    options: types.SimpleNamespace


class Algorithm:
    """The base of an algorithm written in Python. A subclass declares its
    options (`options`, a sequence of Option) and implements the phased
    protocol's methods, which mirror the engine's PhasedState
    (engine/include/pfmab/sim/phased.hpp). Each phase p = 1, 2, ...:

      begin_phase(p, participants)  the server: who takes part (optional)
      plan(m) -> runs               the server, per participant m: its runs
                                    of pulls, a list of (arms, rounds), each
                                    arm of `arms` pulled `rounds` times round
                                    robin (or rounds[i] times: a list)
      record(m, arm, pulls, total)  client m: the rewards of `pulls` pulls
                                    of `arm` summed to `total`
      exploit_arm(m) -> arm         the arm client m plays while it waits
      aggregate(participants)       the server: the reports in, its
                                    broadcast out
      update(m)                     client m, on the broadcast
      end_phase()                   the server, after every update (optional)

    until finished() is true; then every client plays exploit_arm(m) to the
    horizon. fixed_arm(m) is client m's committed arm, or None. Client
    methods touch client m's state and the broadcast only; the server's run
    alone."""

    options = ()

    def __init__(self, context):
        self.context = context
        self.clients = context.clients
        self.arms = context.arms
        self.alpha = context.alpha
        self.horizon = context.horizon

    def finished(self):
        raise NotImplementedError

    def begin_phase(self, phase, participants):
        pass

    def plan(self, m):
        raise NotImplementedError

    def record(self, m, arm, pulls, total):
        raise NotImplementedError

    def exploit_arm(self, m):
        raise NotImplementedError

    def aggregate(self, participants):
        raise NotImplementedError

    def update(self, m):
        raise NotImplementedError

    def end_phase(self):
        pass

    def fixed_arm(self, m):
        raise NotImplementedError

    @classmethod
    def _context(cls, clients, arms, alpha, horizon, values):
        """The engine's call, once per cell: `values` checked against what
        the engine's declaration cannot say (a real's range, a word's
        choices), as a Context."""
        for option in cls.options:
            option.check(values[option.name])
        return Context(clients, arms, alpha, horizon, types.SimpleNamespace(**values))


def algorithm_name(cls):
    """The name an experiment records a Python algorithm by: "module:Class"."""
    return f"{cls.__module__}:{cls.__qualname__}"


def _is_algorithm(cls):
    return isinstance(cls, type) and issubclass(cls, Algorithm) and cls is not Algorithm


def register(cls, name=None):
    """Registers `cls` with the engine as `name` (default: its own
    "module:Class"; again: the same name, the new class) and returns the
    name, for the experiments loaded after it."""
    if not _is_algorithm(cls):
        raise TypeError(f"an algorithm class is a subclass of pfmab.Algorithm, not {cls!r}")
    name = name or algorithm_name(cls)
    names = [option.name for option in cls.options]
    if len(set(names)) != len(names):
        raise ValueError(f"{name}: an option is declared twice ({', '.join(names)})")
    engine().register_algorithm(name, cls, [option.declaration(name) for option in cls.options])
    return name


def registered(value):
    """A keyword's value with every Algorithm class in it (alone or in a
    list) registered and replaced by its name."""
    if isinstance(value, type) and issubclass(value, Algorithm):
        return register(value)
    if isinstance(value, (list, tuple)):
        return [registered(v) for v in value]
    return value


def resolve(name):
    """The engine's call for an algorithm named "module:Class" that this
    process has not registered (an experiment file's algorithm.name, the
    command line's --algorithm, a worker of pfmab.run(processes=N)): imports
    the module from the Python path, takes the class and registers it under
    that name. Raises ExperimentError naming `name` and why it names no
    pfmab.Algorithm class."""
    module_name, _, qualname = name.partition(":")
    if not module_name or not qualname:
        raise ExperimentError(f"algorithm '{name}': a Python algorithm is named module:Class")
    if module_name == "__main__":
        raise ExperimentError(
            f"algorithm '{name}': a class defined in __main__ (a script or a notebook) cannot be "
            f"imported by another process: put it in a module on the Python path "
            f"(PYTHONPATH) and name it module:Class")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and module_name.startswith(e.name):
            raise ExperimentError(f"algorithm '{name}': no module named '{module_name}' on the "
                                  f"Python path (PYTHONPATH)") from None
        raise ExperimentError(f"algorithm '{name}': importing module '{module_name}' failed: "
                              f"{type(e).__name__}: {e}") from None
    except Exception as e:  # the module's own error: its import runs its code
        raise ExperimentError(f"algorithm '{name}': importing module '{module_name}' failed: "
                              f"{type(e).__name__}: {e}") from None
    found = module
    for part in qualname.split("."):  # a nested class: Outer.Inner
        if not hasattr(found, part):
            where = getattr(module, "__file__", None) or "built in"
            raise ExperimentError(f"algorithm '{name}': module '{module_name}' ({where}) has no "
                                  f"attribute '{qualname}'")
        found = getattr(found, part)
    if not _is_algorithm(found):
        raise ExperimentError(f"algorithm '{name}': {module_name}.{qualname} is not a subclass "
                              f"of pfmab.Algorithm (it is {found!r})")
    try:
        register(found, name)
    except ValueError as e:
        raise ExperimentError(f"algorithm '{name}': {e}") from None
