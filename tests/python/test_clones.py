"""A second clone or another build from Python (docs/python.md, "A second
clone or another build"): the package loads the engine module of its own
clone, needs no path to it, and refuses one built from another clone."""

import os
import shutil
import subprocess
import sys

from conftest import PFMAB, ROOT

BUILD = os.path.dirname(os.path.abspath(PFMAB))  # this build's folder
SHOW = "import pfmab._engine as e; print(e.engine().__file__)"


def python(code, package_parent, **env):
    """/usr/bin/python3 -c CODE seeing only Debian's packages and the
    package under `package_parent` (no user site: no pfmab.pth)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PFMAB_BUILD")}
    clean.update(PYTHONPATH=package_parent, PYTHONNOUSERSITE="1", **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean,
                          cwd="/")


def test_the_package_loads_the_module_its_clone_built_without_a_path_to_it():
    # this build is the clone's build/ (the README's), or PFMAB_BUILD names it
    env = {} if BUILD == os.path.join(ROOT, "build") else {"PFMAB_BUILD": BUILD}
    done = python(SHOW, os.path.join(ROOT, "python"), **env)
    assert done.returncode == 0, done.stderr
    assert os.path.dirname(done.stdout.strip()) == os.path.join(BUILD, "python")


def test_pfmab_build_names_the_build_to_load_and_no_other(tmp_path):
    # a build folder without the module: the clone's own build/ is not taken
    # in its place
    done = python(SHOW, os.path.join(ROOT, "python"), PFMAB_BUILD=str(tmp_path))
    assert done.returncode != 0
    assert "pfmab's engine module is not built or not on the path" in done.stderr, done.stderr


def test_a_module_built_from_another_clone_is_refused(tmp_path):
    # a second clone whose package would load this clone's module
    clone = tmp_path / "clone"
    shutil.copytree(os.path.join(ROOT, "python", "pfmab"), clone / "python" / "pfmab")
    (clone / "build" / "python").mkdir(parents=True)
    for name in os.listdir(os.path.join(BUILD, "python")):
        if name.startswith("_pfmab"):
            os.symlink(os.path.join(BUILD, "python", name), clone / "build" / "python" / name)
    done = python(SHOW, str(clone / "python"))
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: pfmab's engine module "), message
    assert f"was built from {os.path.realpath(ROOT)}, but this package is {clone}" in message
    assert "PFMAB_BUILD" in message
