"""The checks of the public functions' own arguments (those that are not
experiment keys), made before anything reaches the engine: a wrong type is
a TypeError, a wrong value an ExperimentError (a ValueError), each naming
the argument as it was given."""

import numbers
import os

import numpy as np

from .errors import ExperimentError


def _shown(value):
    return f"{value!r} ({type(value).__name__})"


def flag(name, value):
    """True or False (a numpy bool too): not a truthy 'yes' or 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {_shown(value)}")


def count(name, value, least, most):
    """A whole number in [least, most] (a numpy integer too; not a float,
    a bool or a string)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number, not {_shown(value)}")
    value = int(value)
    if not least <= value <= most:
        raise ExperimentError(f"{name}={value}: must be from {least} to {most}")
    return value


def text(name, value, example):
    """A string, or None."""
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{name} must be a string such as {example!r}, not {_shown(value)}")


def path(name, value, error=ExperimentError):
    """A file's path: a str or an os.PathLike naming one, not empty."""
    if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str):
        raise TypeError(f"{name} must be a path (a str or a pathlib.Path), not {_shown(value)}")
    value = os.fspath(value)
    if not value:
        raise error(f"{name}='': the path is empty (name a file)")
    return value


def progress(value):
    """None, True, False or a callable."""
    if value is None or callable(value) or isinstance(value, (bool, np.bool_)):
        return value
    raise TypeError(f"progress must be None, True, False or a callable, not {_shown(value)}")
