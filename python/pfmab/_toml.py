"""An experiment given as a dict, written as the experiment file it stands
for (Python reads TOML, tomllib, but does not write it)."""

import json
import math
import re

_BARE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


def _key(key):
    if not isinstance(key, str):
        raise TypeError(f"experiment keys are strings, not {key!r}")
    return key if _BARE.match(key) else json.dumps(key)


def _value(value):
    if hasattr(value, "tolist"):  # a numpy array or scalar
        value = value.tolist()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "__fspath__"):
        return json.dumps(str(value.__fspath__()))
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) in an experiment")


def _table(lines, prefix, table):
    """`table`'s plain keys, then its tables, each under its header."""
    nested = []
    for key, value in table.items():
        if isinstance(value, dict):
            nested.append((key, value))
        elif key == "sweep" and not prefix and isinstance(value, (list, tuple)) \
                and all(isinstance(v, dict) for v in value):
            nested.append((key, list(value)))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in nested:
        name = f"{prefix}.{_key(key)}" if prefix else _key(key)
        for block in value if isinstance(value, list) else [value]:
            lines.append("")
            lines.append(f"[[{name}]]" if isinstance(value, list) else f"[{name}]")
            _table(lines, name, block)


def dumps(experiment):
    """The TOML text of `experiment`, a dict with the experiment file's keys
    (tables as dicts, [[sweep]] blocks as a list of dicts under "sweep")."""
    lines = []
    _table(lines, "", experiment)
    return "\n".join(lines) + "\n"
