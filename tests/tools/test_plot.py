"""pfmab.plot (tools/pfmab_plot.py) on small outputs of the real pfmab: which keys vary,
how they are laid out (colour, line style, panels), what the labels say,
that Theorem 1's bound never sets the y-limits, several files at once, the
communication lines against T, the table's columns, and bad input refused
with exit status 2 and nothing written.

Run by CTest (label integration) as
    /usr/bin/python3 tests/tools/test_plot.py -v
with PFMAB_BINARY set to build/pfmab.
"""

import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from pfmab import plot as pfmab_plot  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

PFMAB = os.environ.get("PFMAB_BINARY", os.path.join(ROOT, "build", "pfmab"))
PLOT = os.path.join(ROOT, "tools", "pfmab_plot.py")

# Two instances; on other_2x3 at alpha = 0.5 Theorem 1's c log T (about
# 1.1e4 at T = 2000) is far above any regret the game can have (under 2,000).
SMALL = "0.9,0.5,0.3,0.1\n0.2,0.8,0.4,0.6\n0.5,0.45,0.9,0.3\n"
OTHER = "0.7,0.6,0.2\n0.1,0.5,0.65\n"
# 2 clients x 67 arms: 132 pulls to plan, beyond the KL program's 128, so its
# Bernoulli cells have no C* (docs/limits.md); its Gaussian ones have one.
WIDE = "0.9,0.5" + ",0.1" * 65 + "\n0.5,0.9" + ",0.1" * 65 + "\n"
# 2 instances x 2 algorithms x 2 alphas x 2 C: 16 cells
SWEEP = """name = "plot-sweep"
seed = {seed}
replications = 3
horizon = 2000
alpha = [0, 0.5]
comm_cost = [0, 10]
[instance]
means = ["small_3x4.csv", "other_2x3.csv"]
[algorithm]
name = ["pf-ucb", "pf-ucb-enhanced"]
"""
# 2 algorithms x 2 C x 4 horizons: 16 cells, 4 lines against T
HORIZONS = """name = "plot-horizons"
seed = 5
replications = 3
horizon = [500, 1000, 2000, 4000]
alpha = 0.5
comm_cost = [1, 10]
[instance]
means = "small_3x4.csv"
[algorithm]
name = ["pf-ucb", "pf-ucb-enhanced"]
"""
# a baseline beside PF-UCB: 2 cells
BASELINE = """name = "plot-baseline"
seed = 7
replications = 3
horizon = 2000
alpha = 0.5
[instance]
means = "small_3x4.csv"
[algorithm]
name = ["pf-ucb", "local-ucb"]
"""
# the baseline, which never pays for communication, beside PF-UCB at two
# costs: 3 cells (local-ucb is not crossed with C)
BASELINE_C = BASELINE.replace('alpha = 0.5', 'alpha = 0.5\ncomm_cost = [0, 10]')
# 2 alphas x 2 reward families x 3 horizons: 12 cells; on the wide game C* is
# n/a for Bernoulli rewards
RATIO = """name = "plot-ratio"
seed = 9
replications = 3
horizon = [500, 1000, 2000]
alpha = [0, 0.5]
[instance]
means = "wide_2x67.csv"
rewards = ["gaussian", "bernoulli"]
"""
# two means files of one name in two folders, and a third: 3 cells
NAMED = """name = "plot-named"
seed = 11
replications = 2
horizon = 500
alpha = 0.5
[instance]
means = ["a/game.csv", "b/game.csv", "small_3x4.csv"]
"""


def texts(fig):
    """Every text of a figure: its title, panel titles, legend entries and notes."""
    found = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        found.append(ax.get_title())
        found += [t.get_text() for t in ax.texts]
        if ax.get_legend():
            found += [t.get_text() for t in ax.get_legend().get_texts()]
    return found


def legend_texts(fig):
    return [t.get_text() for ax in fig.axes if ax.get_legend()
            for t in ax.get_legend().get_texts()]


def panels(fig):
    """The axes that hold data (the legend has an axes of its own, hidden)."""
    return [ax for ax in fig.axes if ax.axison]


def curves(ax):
    """The mean curves of a panel (not Theorem 1's bounds)."""
    return [line for line in ax.lines if line.get_gid() != "theorem1-bound"]


def bounds(ax):
    return [line for line in ax.lines if line.get_gid() == "theorem1-bound"]


class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temp = tempfile.TemporaryDirectory()
        cls.dir = cls.temp.name
        for name, text in (("small_3x4.csv", SMALL), ("other_2x3.csv", OTHER),
                           ("wide_2x67.csv", WIDE),
                           ("sweep.toml", SWEEP.format(seed=3)),
                           ("sweep_again.toml", SWEEP.format(seed=4)),
                           ("horizons.toml", HORIZONS), ("baseline.toml", BASELINE),
                           ("baseline_c.toml", BASELINE_C), ("ratio.toml", RATIO),
                           ("named.toml", NAMED), ("a/game.csv", SMALL), ("b/game.csv", OTHER)):
            os.makedirs(os.path.dirname(os.path.join(cls.dir, name)), exist_ok=True)
            with open(os.path.join(cls.dir, name), "w", encoding="utf-8") as f:
                f.write(text)
        for toml, out, extra in (("sweep", "sweep", []), ("sweep_again", "again", []),
                                 ("horizons", "horizons", []), ("baseline", "baseline", []),
                                 ("baseline_c", "baseline_c", []), ("ratio", "ratio", []),
                                 ("named", "named", []),
                                 ("sweep", "small", ["--means", "small_3x4.csv"]),
                                 ("sweep", "other", ["--means", "other_2x3.csv"])):
            done = subprocess.run([PFMAB, "run", toml + ".toml", "-o", out + ".h5", "-q",
                                   "--threads", "2", *extra], cwd=cls.dir, capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr
        cls.cells = {name: pfmab_plot.load(cls.path(name))
                     for name in ("sweep", "again", "horizons", "baseline", "baseline_c", "small",
                                  "other", "ratio", "named")}

    @classmethod
    def tearDownClass(cls):
        cls.temp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name + ".h5")

    def draw(self, kind, cells, **options):
        return pfmab_plot.FIGURES[kind](cells, pfmab_plot.settings(**options))

    def command(self, *args):
        return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True,
                              cwd=self.dir)

    def refused(self, args, message):
        out = os.path.join(self.dir, "refused.png")
        done = self.command(*args, "-o", out)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(message, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertFalse(os.path.exists(out))

    # --- which keys vary ---------------------------------------------------------

    def test_varied_keys_are_those_with_several_values_without_followers(self):
        cells = self.cells["sweep"]
        self.assertEqual(len(cells), 16)
        varied = pfmab_plot.varied(cells)
        for key in ("instance", "algorithm", "alpha", "comm_cost", "algorithm_alpha"):
            self.assertIn(key, varied)
        for key in ("horizon", "preset", "schedule", "file"):
            self.assertNotIn(key, varied)
        # algorithm_alpha is alpha here: not a key of its own
        self.assertEqual(pfmab_plot.layout_keys(cells),
                         ["instance", "algorithm", "alpha", "comm_cost"])
        self.assertEqual(pfmab_plot.layout_keys(self.cells["horizons"]),
                         ["algorithm", "comm_cost", "horizon"])

    def test_a_follower_stays_where_its_leader_does_not_decide_it(self):
        cells = [c for c in self.cells["sweep"] if c["keys"]["alpha"] == 0.5]
        moved = [dict(c, keys=dict(c["keys"], algorithm_alpha=0.0 if i % 2 else 0.5))
                 for i, c in enumerate(cells)]  # mis-specified in every other cell
        self.assertIn("algorithm_alpha", pfmab_plot.layout_keys(moved))

    # --- layout --------------------------------------------------------------------

    def test_default_layout_colours_by_algorithm_and_splits_the_rest(self):
        cells = self.cells["sweep"]
        plan = pfmab_plot.layout(cells, pfmab_plot.settings())
        # three keys left: the one with fewest values (the first of equals) is the style
        self.assertEqual(plan, {"colour": ["algorithm"], "style": "instance",
                                "panels": ["alpha", "comm_cost"]})
        fig = self.draw("regret", cells)
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)),
                         ["alpha = 0, C = 0", "alpha = 0, C = 10", "alpha = 0.5, C = 0",
                          "alpha = 0.5, C = 10"])
        legend = legend_texts(fig)
        for entry in ("algorithm = pf-ucb", "algorithm = pf-ucb-enhanced",
                      "instance = small_3x4", "instance = other_2x3", "95% band of the mean",
                      "Theorem 1: c log t (lower bound)"):
            self.assertIn(entry, legend)
        for ax in panels(fig):
            # 2 algorithms x 2 instances, each a distinct (colour, style)
            means = curves(ax)
            self.assertEqual(len(means), 4)
            self.assertEqual(len({(line.get_color(), str(line.get_linestyle()))
                                  for line in means}), 4)

    def test_with_one_algorithm_the_key_with_most_values_is_the_colour(self):
        cells = [c for c in self.cells["horizons"] if c["keys"]["algorithm"] == "pf-ucb"]
        plan = pfmab_plot.layout(cells, pfmab_plot.settings())
        self.assertEqual(plan["colour"], ["horizon"])  # 4 values against C's 2
        self.assertEqual(plan["panels"], ["comm_cost"])

    def test_the_legend_is_one_per_figure_and_covers_no_panel(self):
        for kind, cells in (("regret", self.cells["sweep"]), ("rewards", self.cells["baseline"]),
                            ("comm", self.cells["horizons"])):
            with self.subTest(kind=kind):
                fig = self.draw(kind, cells)
                FigureCanvasAgg(fig).draw()  # lays the figure out as savefig does
                legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()]
                self.assertEqual(len(legends), 1)
                box = legends[0].get_window_extent()
                for ax in panels(fig):
                    self.assertFalse(box.overlaps(ax.get_window_extent()),
                                     f"the legend covers the panel '{ax.get_title()}'")

    def test_overrides_and_keys_left_over_join_the_style_then_the_colour(self):
        cells = self.cells["sweep"]
        plan = pfmab_plot.layout(cells, pfmab_plot.settings(panels="instance", color="alpha",
                                                             style="comm_cost"))
        self.assertEqual(plan, {"colour": ["alpha", "algorithm"], "style": "comm_cost",
                                "panels": ["instance"]})
        fig = self.draw("regret", cells, panels="instance", color="alpha", style="comm_cost")
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)),
                         ["instance = other_2x3", "instance = small_3x4"])
        self.assertIn("alpha = 0.5, algorithm = pf-ucb-enhanced", legend_texts(fig))
        self.assertIn("C = 10", legend_texts(fig))
        plan = pfmab_plot.layout(cells, pfmab_plot.settings(panels="instance,alpha"))
        self.assertEqual(plan, {"colour": ["algorithm"], "style": "comm_cost",
                                "panels": ["instance", "alpha"]})

    def test_too_many_curves_in_a_panel_are_refused_with_a_way_out(self):
        with self.assertRaises(pfmab_plot.InputError) as caught:
            self.draw("regret", self.cells["sweep"], panels="")
        message = str(caught.exception)
        self.assertIn("16 curves in a panel (at most 12)", message)
        self.assertIn("--panels", message)
        self.assertIn("--where", message)
        self.assertIn("algorithm (2)", message)
        # the same through the command line: one line, status 2, no figure
        self.refused(["regret", "sweep.h5", "--panels", ""], "16 curves in a panel")

    def test_where_keeps_the_cells_with_those_values(self):
        cells = self.cells["sweep"]
        chosen = pfmab_plot.select(cells, "algorithm=pf-ucb,comm_cost=10")
        self.assertEqual(len(chosen), 4)
        self.assertTrue(all(c["keys"]["algorithm"] == "pf-ucb" and c["keys"]["comm_cost"] == 10
                            for c in chosen))
        # a key given twice takes either value; the instance by its shown name
        self.assertEqual(len(pfmab_plot.select(cells, "alpha=0,alpha=0.5,instance=small_3x4")), 8)
        self.assertEqual(len(pfmab_plot.select(self.cells["horizons"], "horizon=2e3")), 4)
        fig = self.draw("regret", cells, where="instance=other_2x3")
        self.assertIn("instance = other_2x3", fig._suptitle.get_text())

    # --- labels --------------------------------------------------------------------

    def test_labels_name_every_key_and_show_instances_by_name(self):
        fig = self.draw("regret", self.cells["sweep"])
        subtitle = fig._suptitle.get_text()
        self.assertIn("T = 2e+03", subtitle)
        self.assertIn("R = 3", subtitle)
        for text in texts(fig):
            self.assertNotIn(".csv", text)
            self.assertNotIn("/", text)
        fig = self.draw("regret", self.cells["horizons"], where="algorithm=pf-ucb")
        self.assertIn("T = 500", legend_texts(fig))
        self.assertIn("T = 4e+03", legend_texts(fig))
        self.assertIn("instance = small_3x4", fig._suptitle.get_text())
        self.assertEqual(pfmab_plot.describe("horizon", 1000000), "T = 1e+06")
        self.assertEqual(pfmab_plot.describe("horizon", 12345), "T = 12345")
        self.assertEqual(pfmab_plot.describe("comm_cost", 10.0), "C = 10")

    def test_instances_are_named_as_the_engine_names_them(self):
        self.assertEqual(pfmab_plot.instance_names(["../../data/movielens_10x40.csv", "inline",
                                                    "x/synthetic_4x9.csv", "synthetic_4x9.csv",
                                                    "g.txt"]),
                         ["movielens_10x40", "inline", "x/synthetic_4x9.csv",
                          "synthetic_4x9.csv", "g"])
        # two files of one name in two folders keep their paths; summary --json,
        # the export and the figures' keys say the same
        for name in ("named", "sweep"):
            with self.subTest(output=name):
                plotted = [c["keys"]["instance"] for c in self.cells[name]]
                summary = subprocess.run([PFMAB, "summary", self.path(name), "--json"],
                                         capture_output=True, text=True, check=True)
                engine = [c["keys"]["instance"] for c in json.loads(summary.stdout)["cells"]]
                exported = subprocess.run([PFMAB, "export", self.path(name)], capture_output=True,
                                          text=True, check=True)
                rows = list(csv.DictReader(io.StringIO(exported.stdout)))
                self.assertEqual(plotted, engine)
                self.assertEqual(plotted, [r["instance"] for r in rows])
        self.assertEqual([c["keys"]["instance"] for c in self.cells["named"]],
                         ["a/game.csv", "b/game.csv", "small_3x4"])
        # --where takes the name or the path as given
        for given in ("small_3x4", "small_3x4.csv"):
            self.assertEqual(len(pfmab_plot.select(self.cells["named"], f"instance={given}")), 1)
        self.assertEqual(len(pfmab_plot.select(self.cells["named"], "instance=a/game.csv")), 1)

    def test_a_baseline_is_drawn_in_the_panel_of_every_cost_it_ignores(self):
        cells = self.cells["baseline_c"]
        self.assertEqual(len(cells), 3)
        local = [c for c in cells if c["keys"]["algorithm"] == "local-ucb"]
        self.assertEqual(local[0]["keys"]["comm_cost"], pfmab_plot.NO_EFFECT)
        self.assertEqual(pfmab_plot.layout_keys(cells), ["algorithm", "comm_cost"])
        fig = self.draw("regret", pfmab_plot.beside_every_value(cells))
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)), ["C = 0", "C = 10"])
        for ax in panels(fig):
            self.assertEqual(len(curves(ax)), 2, ax.get_title())  # pf-ucb and local-ucb
        # the table keeps one row for it, "-" where C has no effect
        out = os.path.join(self.dir, "baseline_c.csv")
        pfmab_plot.write_table(cells, csv_path=out)
        with open(out, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(sorted(r["comm_cost"] for r in rows), ["-", "0.0", "10.0"])

    def test_rewards_panels_name_the_algorithm_of_every_cell(self):
        fig = self.draw("rewards", self.cells["baseline"])
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)),
                         ["algorithm = local-ucb", "algorithm = pf-ucb"])
        self.assertIn("alpha = 0.5", fig._suptitle.get_text())

    # --- Theorem 1's bound ---------------------------------------------------------

    def test_the_bound_never_sets_the_y_limits(self):
        cells = self.cells["sweep"]
        highest = max(c["summary"]["regret"]["ci95_high"].max() for c in cells)
        with_bound = self.draw("regret", cells)
        without = self.draw("regret", cells, bound=False)
        above = 0
        for ax, bare in zip(panels(with_bound), panels(without)):
            self.assertEqual(ax.get_title(), bare.get_title())
            self.assertEqual(ax.get_ylim(), bare.get_ylim())
            self.assertLess(ax.get_ylim()[1], 1.1 * highest)
            self.assertEqual(bounds(bare), [])
            top = max(max(line.get_ydata()) for line in bounds(ax))
            if top > ax.get_ylim()[1]:
                above += 1
                self.assertTrue(any("above the axes" in t.get_text() for t in ax.texts))
        self.assertGreater(above, 0, "no panel where the bound exceeds the data: the test "
                                     "checks nothing")
        self.assertNotIn("Theorem 1: c log t (lower bound)", legend_texts(without))
        fig = self.draw("regret", cells, logy=True)
        self.assertTrue(all(ax.get_yscale() == "log" for ax in panels(fig)))

    # --- several files -------------------------------------------------------------

    def test_several_files_tell_their_cells_apart_by_file_only_if_needed(self):
        both = self.cells["sweep"] + self.cells["again"]  # the same cells, another seed
        self.assertEqual(pfmab_plot.layout_keys(both)[0], "file")
        fig = self.draw("regret", both, where="instance=small_3x4,alpha=0", panels="comm_cost")
        plan = pfmab_plot.layout(both, pfmab_plot.settings(panels="comm_cost"))
        self.assertEqual(plan["style"], "file")  # of the keys left, the first with fewest values
        for entry in ("file = sweep", "file = again", "algorithm = pf-ucb"):
            self.assertIn(entry, legend_texts(fig))
        # one instance per file: the instance tells them apart
        split = self.cells["small"] + self.cells["other"]
        self.assertNotIn("file", pfmab_plot.layout_keys(split))
        self.assertEqual(pfmab_plot.layout_keys(split), pfmab_plot.layout_keys(self.cells["sweep"]))
        out = os.path.join(self.dir, "two.png")
        done = self.command("regret", "small.h5", "other.h5", "-o", out, "--logx")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    # --- communication against T ---------------------------------------------------

    def test_comm_draws_one_line_per_group_each_rising_in_T(self):
        fig = self.draw("comm", self.cells["horizons"])
        lines = [line for ax in panels(fig) for line in ax.lines]
        self.assertEqual(len(lines), 4)  # 2 algorithms x 2 C
        for line in lines:
            x = list(line.get_xdata())
            self.assertEqual(x, [500.0, 1000.0, 2000.0, 4000.0])
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)), ["C = 1", "C = 10"])
        self.refused(["comm", "horizons.h5", "--panels", "horizon"], "horizon is the x axis")

    def test_regret_over_log_divides_by_log_t_and_draws_c_star_and_theorem_1(self):
        fig = self.draw("regret-over-log", self.cells["horizons"])
        cells = self.cells["horizons"]
        for ax in panels(fig):
            c_star = [line for line in ax.lines if line.get_gid() == "c_star"]
            theorem1 = [line for line in ax.lines if line.get_gid() == "theorem1_constant"]
            # one instance and alpha: one C* and one Theorem 1 constant per panel
            self.assertEqual([line.get_ydata()[0] for line in c_star], [cells[0]["c_star"]])
            self.assertEqual([line.get_ydata()[0] for line in theorem1],
                             [cells[0]["theorem1_constant"]])
            self.assertGreater(cells[0]["c_star"], cells[0]["theorem1_constant"])
            for line in ax.lines:
                if line.get_gid() in ("c_star", "theorem1_constant"):
                    continue
                self.assertEqual(list(line.get_xdata()), [500.0, 1000.0, 2000.0, 4000.0])
                # each point is its cell's mean regret at T over log T
                for x, y in zip(line.get_xdata(), line.get_ydata()):
                    matching = [c for c in cells if c["keys"]["horizon"] == x
                                and abs(c["summary"]["regret"]["mean"][-1] / math.log(x) - y)
                                < 1e-12]
                    self.assertTrue(matching, (x, y))
        self.assertIn("C* (tight lower bound on R(T) / log T)", legend_texts(fig))
        self.refused(["regret-over-log", "baseline.h5"], "needs several horizons")

    def assert_legend_draws_as_panels(self, fig, label, gid):
        """The legend's line `label` has the pen of every panel line `gid`
        (colour, width, dashes as drawn), and is long enough to show two of
        its dashes (a shorter handle looks solid)."""
        from matplotlib.colors import to_rgba
        legend = next(ax.get_legend() for ax in fig.axes if ax.get_legend())
        handle = next(line for line in legend.get_lines() if line.get_label() == label)
        drawn = [line for ax in panels(fig) for line in ax.lines if line.get_gid() == gid]
        self.assertTrue(drawn, gid)
        for line in drawn:
            self.assertEqual(to_rgba(handle.get_color()), to_rgba(line.get_color()))
            self.assertEqual(handle.get_linewidth(), line.get_linewidth())
            self.assertEqual(handle._dash_pattern, line._dash_pattern)  # scaled by the width
        period = sum(handle._dash_pattern[1])
        self.assertGreaterEqual(legend.handlelength * legend.prop.get_size_in_points(),
                                2 * period)

    def test_the_legend_draws_c_star_and_c_as_the_panels_do(self):
        for kind, cells, options in (("regret-over-log", self.cells["horizons"], {}),
                                     ("regret-over-log", self.cells["ratio"],
                                      {"where": "rewards=gaussian", "panels": ""}),
                                     ("regret-over-log", self.cells["horizons"],
                                      {"where": "algorithm=pf-ucb,comm_cost=1"})):
            with self.subTest(cells=len(cells), **options):
                fig = self.draw(kind, cells, **options)
                self.assert_legend_draws_as_panels(fig, "C* (tight lower bound on R(T) / log T)",
                                                   "c_star")
                self.assert_legend_draws_as_panels(fig, "Theorem 1's c (looser)",
                                                   "theorem1_constant")
        fig = self.draw("regret-over-c-star", self.cells["ratio"])
        self.assert_legend_draws_as_panels(fig, "1: R(T) = C* log T", "one")

    def test_several_constants_in_a_panel_are_labelled_in_their_curves_colour(self):
        from matplotlib.colors import to_rgba
        # one panel, coloured by alpha: a C* and a c per alpha
        fig = self.draw("regret-over-log", self.cells["ratio"], where="rewards=gaussian")
        (ax,) = panels(fig)
        labels = {t.get_text(): to_rgba(t.get_color()) for t in ax.texts
                  if t.get_gid() == "c_star-label"}
        checked = 0
        for alpha in (0, 0.5):
            mine = [c for c in self.cells["ratio"]
                    if c["keys"]["rewards"] == "gaussian" and c["keys"]["alpha"] == alpha]
            at_t = max(mine, key=lambda c: c["keys"]["horizon"])
            y = at_t["summary"]["regret"]["mean"][-1] / math.log(at_t["keys"]["horizon"])
            (line,) = [line for line in ax.lines
                       if line.get_gid() is None and line.get_ydata()[-1] == y]
            c_star = at_t["c_star"]
            if ax.get_ylim()[0] <= c_star <= ax.get_ylim()[1]:
                self.assertEqual(labels[f"C* = {c_star:.3g}"], to_rgba(line.get_color()))
                checked += 1
        self.assertGreater(checked, 0, "no C* inside the axes: the test checks nothing")

    def test_regret_over_c_star_is_the_summarys_ratio_against_t(self):
        cells = self.cells["ratio"]
        summary = subprocess.run([PFMAB, "summary", self.path("ratio"), "--json"],
                                 capture_output=True, text=True, check=True)
        engine = {(c["keys"]["alpha"], c["keys"]["horizon"]): c["regret_over_c_star_log_T"]
                  for c in json.loads(summary.stdout)["cells"]
                  if c["keys"]["rewards"] == "gaussian"}
        fig = self.draw("regret-over-c-star", cells, logx=True, panels="alpha")
        self.assertEqual(sorted(ax.get_title() for ax in panels(fig)), ["alpha = 0",
                                                                        "alpha = 0.5"])
        for ax in panels(fig):
            self.assertEqual(ax.get_xscale(), "log")
            alpha = float(ax.get_title().split("= ")[1])
            (one,) = [line for line in ax.lines if line.get_gid() == "one"]
            self.assertEqual(list(one.get_ydata()), [1.0, 1.0])
            (mean,) = [line for line in ax.lines if line.get_gid() != "one"]
            self.assertEqual(list(mean.get_xdata()), [500.0, 1000.0, 2000.0])
            for x, y in zip(mean.get_xdata(), mean.get_ydata()):
                self.assertAlmostEqual(y, engine[(alpha, int(x))]["mean"], delta=1e-12 * y)
            (band,) = ax.collections
            low, high = band.get_paths()[0].vertices[:, 1].min(), \
                band.get_paths()[0].vertices[:, 1].max()
            ends = [v for (a, _), r in engine.items() if a == alpha for v in r["ci95"]]
            self.assertAlmostEqual(low, min(ends), delta=1e-9)
            self.assertAlmostEqual(high, max(ends), delta=1e-9)
        # the Bernoulli cells have no C*: left out, and the subtitle says so
        self.assertIn("6 cells without a C* left out (2 clients x 66 other arms = 132 pulls to "
                      "plan", fig._suptitle.get_text().replace("\n", " "))  # wrapped
        self.assertNotIn("rewards", " ".join(legend_texts(fig)))
        out = os.path.join(self.dir, "ratio.png")
        done = self.command("regret-over-c-star", "ratio.h5", "-o", out, "--logx", "--panels",
                            "alpha")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.refused(["regret-over-c-star", "ratio.h5", "--where", "rewards=bernoulli"],
                     "regret-over-c-star: no cell has a C* (2 clients x 66 other arms = 132 "
                     "pulls to plan; ")
        self.refused(["regret-over-c-star", "baseline.h5"], "needs several horizons")

    def test_an_output_named_for_another_kind_is_refused_before_anything_is_read(self):
        figures = sorted(pfmab_plot.FIGURES)
        self.assertIn("regret-over-c-star", figures)
        cases = [(kind, ["-o", name], f"-o {name}: {kind} writes a figure")
                 for kind in figures for name in ("f.md", "f.csv", "f")]
        cases += [("counts", ["-o", name], f"-o {name}: counts writes a Markdown")
                  for name in ("c.png", "c.csv", "c.pdf", "c")]
        cases += [("table", ["--csv", "t.png"], "--csv t.png: table writes a CSV"),
                  ("table", ["--csv", "t.md"], "--csv t.md: table writes a CSV"),
                  ("table", ["--md", "t.csv"], "--md t.csv: table writes a Markdown"),
                  ("table", ["--csv", "t.csv", "--md", "t.svg"],
                   "--md t.svg: table writes a Markdown")]
        for kind, output, message in cases:
            for given in ("sweep.h5", "no_such.h5"):  # refused before the input is read
                with self.subTest(kind=kind, output=output, given=given):
                    done = self.command(kind, given, *output)
                    self.assertEqual(done.returncode, 2, done.stderr)
                    self.assertIn(message, done.stderr)
                    self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                    for name in ("f.md", "f.csv", "f", "c.png", "c.csv", "c.pdf", "c", "t.png",
                                 "t.md", "t.csv", "t.svg"):
                        self.assertFalse(os.path.exists(os.path.join(self.dir, name)), name)
        # each kind writes the file its name says
        for args, name in ([["regret", "sweep.h5", "-o"], "ok.svg"],
                           [["regret-over-c-star", "ratio.h5", "-o"], "ok.PDF"],
                           [["counts", "sweep.h5", "-o"], "ok.md"],
                           [["table", "sweep.h5", "--csv"], "ok.csv"]):
            done = self.command(*args, name)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertTrue(os.path.exists(os.path.join(self.dir, name)), name)

    # --- tables --------------------------------------------------------------------

    def test_table_has_a_column_per_varied_key(self):
        csv_path, md_path = os.path.join(self.dir, "t.csv"), os.path.join(self.dir, "t.md")
        done = self.command("table", "sweep.h5", "again.h5", "--csv", csv_path, "--md", md_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(csv_path, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 32)
        for column in ["file", "comm_cost", "instance", "algorithm", "alpha", "algorithm_alpha",
                       "horizon", "regret", "ci95_low", "ci95_high"]:
            self.assertIn(column, rows[0])
        self.assertEqual({r["instance"] for r in rows}, {"small_3x4", "other_2x3"})
        self.assertEqual({r["file"] for r in rows}, {"sweep", "again"})
        self.assertEqual({float(r["comm_cost"]) for r in rows}, {0.0, 10.0})
        with open(md_path, encoding="utf-8") as f:
            header = f.readline()
        self.assertIn("| comm_cost |", header)
        self.assertIn("| instance |", header)

    def test_table_has_no_ratio_where_c_star_is_zero(self):
        # a Bernoulli game whose every best arm has mean 1 at alpha 1: no
        # alternative makes another arm better, so C* = 0 and the engine's
        # summary has no ratio (null); the table leaves it empty, not a
        # division by zero
        means = os.path.join(self.dir, "sure_2x2.csv")
        with open(means, "w", encoding="utf-8") as f:
            f.write("1,0\n0,1\n")
        out = os.path.join(self.dir, "sure.h5")
        subprocess.run([PFMAB, "run", "--means", means, "--rewards", "bernoulli", "--alpha", "1",
                        "-T", "1000,2000", "-R", "2", "--quiet", "-o", out], check=True,
                       capture_output=True)
        summary = subprocess.run([PFMAB, "summary", out, "--json"], capture_output=True,
                                 text=True, check=True)
        self.assertTrue(all(c["regret_over_c_star_log_T"]["mean"] is None
                            for c in json.loads(summary.stdout)["cells"]))
        csv_path = os.path.join(self.dir, "sure.csv")
        done = self.command("table", "sure.h5", "--csv", csv_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(csv_path, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([float(r["c_star_log_T"]) for r in rows], [0.0, 0.0])
        self.assertTrue(all(r["regret_over_c_star_log_T"] in ("", "nan") for r in rows), rows)
        # and the figure against C* has nothing to draw, and says why
        self.refused(["regret-over-c-star", "sure.h5"], "no cell has a C* (C* = 0")

    def test_table_comm_share_is_the_summarys(self):
        csv_path = os.path.join(self.dir, "share.csv")
        done = self.command("table", "sweep.h5", "--csv", csv_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(csv_path, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        summary = subprocess.run([PFMAB, "summary", self.path("sweep"), "--json"],
                                 capture_output=True, text=True, check=True)
        engine = json.loads(summary.stdout)["cells"]
        self.assertEqual(len(rows), len(engine))
        # the cells are in the file's order in both; C = 10 cells pay for their exchanges
        for row, cell in zip(rows, engine):
            self.assertAlmostEqual(float(row["comm_share"]), cell["comm_share"], delta=1e-12)
        self.assertTrue(any(float(r["comm_share"]) > 0 for r in rows))
        self.assertTrue(all(float(r["comm_share"]) == 0 for r in rows
                            if float(r["comm_cost"]) == 0))

    # --- bad input -----------------------------------------------------------------

    def test_another_format_is_refused(self):
        import shutil

        import h5py
        import numpy

        old = os.path.join(self.dir, "old.h5")
        shutil.copy(self.path("sweep"), old)
        with h5py.File(old, "r+") as f:
            f.attrs["format"] = numpy.bytes_("pfmab-results-8")
        self.refused(["regret", "old.h5"],
                     "'old.h5' is pfmab-results-8, this tool reads pfmab-results-9")

    def test_bad_keys_and_filters_are_refused(self):
        self.refused(["regret", "sweep.h5", "--panels", "colour"],
                     "the cells have no key 'colour' (varied: instance (2), algorithm (2), "
                     "alpha (2), comm_cost (2))")
        self.refused(["regret", "sweep.h5", "--where", "C=1"], "--where: the cells have no key 'C'")
        self.refused(["regret", "sweep.h5", "--where", "alpha=0.3"],
                     "--where: no cell has alpha = 0.3 (alpha takes 0, 0.5)")
        self.refused(["regret", "sweep.h5", "--where", "alpha"],
                     "--where: 'alpha' is not KEY=VALUE")
        self.refused(["regret", "sweep.h5", "--where", "algorithm=pf-ucb,algorithm=x"],
                     "no cell has algorithm = x")
        self.refused(["regret", "sweep.h5", "--color", "alpha", "--style", "alpha"],
                     "alpha given twice")
        self.refused(["rewards", "sweep.h5", "again.h5"], "rewards: 32 panels (at most 30)")
        self.refused(["regret", "small_3x4.csv"], "cannot read 'small_3x4.csv' as a pfmab output")
        for args, message in ((["regret", "sweep.h5", "-o", "no/such/folder/x.png"],
                               "cannot write 'no/such/folder/x.png': No such file or directory"),
                              (["regret", "sweep.h5", "-o", "x.unknown"],
                               "-o x.unknown: regret writes a figure, but the name has "
                               "'.unknown' (give .png, .pdf, .svg, ...)"),
                              (["table", "sweep.h5", "--md", "no/such/folder/t.md"],
                               "cannot write 'no/such/folder/t.md': No such file or directory")):
            done = self.command(*args)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(message, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "x.unknown")))


if __name__ == "__main__":
    unittest.main()
