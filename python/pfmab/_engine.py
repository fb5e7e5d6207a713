"""The engine module (_pfmab, built from python/src/module.cpp into
build/python/), imported when first needed, so that pfmab.plot works where
only h5py and matplotlib are."""

import importlib
import os
import sys

_module = None


def engine():
    """The _pfmab module. PFMAB_BUILD names another build than the one
    tools/setup.sh put on the path (e.g. build-debug)."""
    global _module
    if _module is None:
        build = os.environ.get("PFMAB_BUILD")
        if build:
            sys.path.insert(0, os.path.join(os.path.abspath(build), "python"))
        try:
            _module = importlib.import_module("_pfmab")
        except ImportError as e:
            raise ImportError(
                f"pfmab's engine module is not built or not on the path ({e}): run "
                "tools/setup.sh, which builds it into build/python and puts that on "
                "/usr/bin/python3's path (docs/python.md)") from None
    return _module
