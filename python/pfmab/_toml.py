"""An experiment given as a dict, written as the experiment file it stands
for (Python reads TOML, tomllib, but does not write it)."""

import math
import re

from .errors import ExperimentError

_BARE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")
# The characters a TOML basic string must escape, and how: the quote, the
# backslash and the control characters; every other one is written as it
# is (the text goes to the engine as UTF-8).
_ESCAPED = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
            "\f": "\\f", "\r": "\\r"}
_ESCAPED.update({chr(c): f"\\u{c:04X}" for c in [*range(0x20), 0x7F] if chr(c) not in _ESCAPED})


def _string(text):
    """`text` as a TOML basic string. Not json.dumps: JSON writes a character
    beyond U+FFFF as a surrogate pair of \\u escapes, which TOML refuses (its
    escapes name Unicode scalar values, \\U0001F600)."""
    lone = next((c for c in text if 0xD800 <= ord(c) <= 0xDFFF), None)
    if lone is not None:
        raise ExperimentError(f"<dict>: {text!r} holds a lone surrogate (U+{ord(lone):04X}), "
                              "which is no character: no experiment file can hold it")
    return '"' + "".join(_ESCAPED.get(c, c) for c in text) + '"'


def _key(key):
    if not isinstance(key, str):
        raise TypeError(f"experiment keys are strings, not {key!r}")
    return key if _BARE.match(key) else _string(key)


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
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "__fspath__"):
        return _string(str(value.__fspath__()))
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
