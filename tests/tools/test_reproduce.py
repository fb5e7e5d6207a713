"""tools/reproduce.py end to end, at a reduced setting: every experiment runs,
and every figure and table it stands for is produced, from the real pfmab.

Run by CTest (label integration) as
    /usr/bin/python3 -m unittest tests/tools/test_reproduce.py
with PFMAB_BINARY set to build/pfmab.
"""

import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import reproduce  # noqa: E402

PFMAB = os.environ.get("PFMAB_BINARY", os.path.join(ROOT, "build", "pfmab"))
REPLICATIONS = 20
MAX_HORIZON = 20000


def command(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "reproduce.py"),
                           "--pfmab", PFMAB, *args], capture_output=True, text=True)


def cells_of(experiment):
    """How many cells an experiment file makes, as `pfmab validate` counts
    them ([[sweep]] blocks, keys not crossed with an algorithm), and its
    table."""
    done = subprocess.run([PFMAB, "validate", experiment], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    count = int(re.search(r"valid: (\d+) cells", done.stdout).group(1))
    with open(experiment, "rb") as f:
        return count, tomllib.load(f)


class ReducedReproduction(unittest.TestCase):
    """One reduced run of everything (20 replications, T <= 2e4), shared by the tests."""

    @classmethod
    def setUpClass(cls):
        cls.temp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.temp.name, "results")
        cls.work = os.path.join(cls.temp.name, "work")
        cls.done = command("--replications", str(REPLICATIONS), "--max-horizon", str(MAX_HORIZON),
                           "--out", cls.out, "--work", cls.work, "--threads", "2")

    @classmethod
    def tearDownClass(cls):
        cls.temp.cleanup()

    def test_runs_and_prints_each_experiments_time(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        lines = self.done.stdout.splitlines()
        for name in reproduce.EXPERIMENTS:
            self.assertTrue(any(line.startswith(f"{name}: ran in ") for line in lines),
                            f"no timing line for {name} in {lines}")
        self.assertTrue(lines[-1].startswith("all: "), lines)

    def test_every_figure_is_a_png_and_every_extra_table_has_its_rows(self):
        for name, outputs in reproduce.EXPERIMENTS.items():
            cells, _ = cells_of(os.path.join(self.work, name + ".toml"))
            for file_name, kind, _ in outputs:
                path = os.path.join(self.out, name, file_name)
                with self.subTest(output=path):
                    if kind == "counts":
                        with open(path, encoding="utf-8") as f:
                            rows = [line for line in f if line.startswith("|")][2:]
                        self.assertEqual(len(rows), cells)
                        for row in rows:
                            self.assertIn(f"| {REPLICATIONS} |", row)
                        continue
                    with open(path, "rb") as f:
                        self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
                    # a drawn figure, not an empty canvas (those are ~2 kB)
                    self.assertGreater(os.path.getsize(path), 10_000)

    def test_every_table_has_a_row_per_cell_at_the_reduced_setting(self):
        for name in reproduce.EXPERIMENTS:
            with self.subTest(experiment=name):
                # the reduced experiment file reproduce.py wrote, not the committed one
                cells, table = cells_of(os.path.join(self.work, name + ".toml"))
                self.assertEqual(table["replications"], REPLICATIONS)
                self.assertTrue(os.path.exists(os.path.join(self.work, name + ".h5")))
                with open(os.path.join(self.out, name, "summary.csv"), encoding="utf-8") as f:
                    rows = list(csv.DictReader(f))
                self.assertEqual(len(rows), cells)
                for row in rows:
                    self.assertEqual(int(row["replications"]), REPLICATIONS)
                    self.assertLessEqual(int(row["horizon"]), MAX_HORIZON)
                    self.assertTrue(math.isfinite(float(row["regret"])))
                    self.assertGreater(float(row["regret"]), 0.0)
                    self.assertLessEqual(float(row["ci95_low"]), float(row["regret"]))
                    self.assertLessEqual(float(row["regret"]), float(row["ci95_high"]))
                with open(os.path.join(self.out, name, "summary.md"), encoding="utf-8") as f:
                    markdown = [line for line in f if line.startswith("|")]
                self.assertEqual(len(markdown), cells + 2)  # header and rule


    def test_the_plot_tool_draws_from_any_output_and_refuses_bad_input(self):
        plot = [sys.executable, os.path.join(ROOT, "tools", "pfmab_plot.py")]
        output = os.path.join(self.work, "communication.h5")
        figures = os.path.join(self.temp.name, "plots")
        os.makedirs(figures, exist_ok=True)
        for what, extra in (("regret", ["--logx", "--panels", "preset,schedule_formula"]),
                            ("rewards", []), ("comm", ["--title", "T"])):
            path = os.path.join(figures, what + ".png")
            done = subprocess.run(plot + [what, output, "-o", path] + extra, capture_output=True,
                                  text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(path, "rb") as f:
                self.assertEqual(f.read(4), b"\x89PNG")
        for args, message in (
                (["regret", output, "--panels", "colour"], "the cells have no key 'colour'"),
                (["comm", os.path.join(self.work, "communication.toml")], "cannot read"),
                (["table", output], "give --csv, --md or both")):
            path = os.path.join(figures, "refused.png")
            done = subprocess.run(plot + args + ([] if args[0] == "table" else ["-o", path]),
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(message, done.stderr)
            self.assertFalse(os.path.exists(path))


# The experiments that stand for the paper's figures (tight-bound is not one:
# its 580 cells, T up to 10^12, run 200 replications each, 100 the baselines).
PAPERS = ["synthetic", "movielens", "enhancement", "communication", "large-m"]


class CommittedExperiments(unittest.TestCase):
    def test_are_valid_and_the_papers_run_at_least_100_times_its_replications(self):
        for name in reproduce.EXPERIMENTS:
            with self.subTest(experiment=name):
                cells, table = cells_of(os.path.join(ROOT, "results", name, "experiment.toml"))
                self.assertGreater(cells, 0)
                if name in PAPERS:
                    self.assertGreaterEqual(table["replications"], 1000)  # the paper ran 10


class BadInvocations(unittest.TestCase):
    def check_refused(self, args, message):
        with tempfile.TemporaryDirectory() as temp:
            out = os.path.join(temp, "results")
            done = command(*args, "--out", out, "--work", os.path.join(temp, "work"))
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(message, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertFalse(os.path.exists(out))

    def test_unknown_experiment(self):
        self.check_refused(["--only", "synthetic,fig9"], "unknown experiment fig9")

    def test_no_replications(self):
        self.check_refused(["--replications", "0"], "--replications must be at least 1")

    def test_horizon_too_small(self):
        self.check_refused(["--max-horizon", "1"], "--max-horizon must be at least 2")

    def test_missing_program(self):
        self.check_refused(["--pfmab", "/nonexistent/pfmab"], "no pfmab at '/nonexistent/pfmab'")

    def test_missing_movielens_matrix(self):
        self.check_refused(["--only", "movielens", "--movielens", "/nonexistent/means.csv",
                            "--replications", "2", "--max-horizon", "100"],
                           "movielens: pfmab run failed (exit 2)")


if __name__ == "__main__":
    unittest.main()
