"""The engine module (_pfmab, built from python/src/module.cpp into
build/python/), imported when first needed, so that pfmab.plot works where
only h5py and matplotlib are.

The module must come from the clone this package comes from: a package of
one clone with the module of another would run one version's experiments
on another's engine. So the module is looked for in PFMAB_BUILD/python if
set (another build of this clone: build-debug), else in this clone's
build/python, else on the path; and one built from another clone's sources
is refused (docs/python.md, "A second clone or another build")."""

import importlib
import os
import sys

_module = None

# the clone this package is in: python/pfmab/_engine.py -> the clone's top
_CLONE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build_folder():
    """Where the module is looked for first."""
    build = os.environ.get("PFMAB_BUILD")
    return os.path.join(os.path.abspath(build) if build else os.path.join(_CLONE, "build"),
                        "python")


def engine():
    """The _pfmab module of this package's clone."""
    global _module
    if _module is None:
        folder = _build_folder()
        sys.path.insert(0, folder)
        try:
            module = importlib.import_module("_pfmab")
        except ImportError as e:
            raise ImportError(
                f"pfmab's engine module is not built or not on the path ({e}): run "
                "tools/setup.sh, which builds it into build/python and puts that on "
                "/usr/bin/python3's path (docs/python.md)") from None
        finally:
            sys.path.remove(folder)
        built_from = os.path.realpath(module.source_dir)
        if built_from != os.path.realpath(_CLONE):
            raise ImportError(
                f"pfmab's engine module {module.__file__} was built from {built_from}, but this "
                f"package is {os.path.join(_CLONE, 'python', 'pfmab')}: build this clone "
                f"(cmake --preset release && cmake --build build, or tools/setup.sh), or set "
                f"PFMAB_BUILD to a build of it (docs/python.md, \"A second clone or another "
                f"build\")")
        _module = module
    return _module
