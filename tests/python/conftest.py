"""What the Python package's tests share: the program they compare it with,
the paper's instances, and a small experiment."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PFMAB = os.environ.get("PFMAB_BINARY", os.path.join(ROOT, "build", "pfmab"))
DATA = os.environ.get("PFMAB_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
SYNTHETIC = os.path.join(DATA, "synthetic_4x9.csv")


def cli(*args, check=True):
    """`pfmab ARGS`, its stdout, stderr and exit status."""
    done = subprocess.run([PFMAB, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"pfmab {' '.join(map(str, args))}: {done.stderr}")
    return done


def cli_json(*args):
    return json.loads(cli(*args, "--json").stdout)


# Two algorithms x three alphas of the synthetic game, short: 6 cells of
# 40 replications (a 256-row chunk, part of one), every key the output holds.
SMALL = {
    "seed": 16,
    "replications": 40,
    "horizon": 20000,
    "alpha": [0, 0.5, 1],
    "instance": {"means": SYNTHETIC},
    "algorithm": {"name": ["pf-ucb", "local-ucb"]},
}


@pytest.fixture
def small_toml(tmp_path):
    """SMALL as an experiment file."""
    path = tmp_path / "small.toml"
    path.write_text(
        'seed = 16\nreplications = 40\nhorizon = 20000\nalpha = [0, 0.5, 1]\n'
        f'[instance]\nmeans = "{SYNTHETIC}"\n[algorithm]\nname = ["pf-ucb", "local-ucb"]\n')
    return path
