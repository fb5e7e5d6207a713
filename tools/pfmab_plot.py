#!/usr/bin/python3
"""Figures and tables from a pfmab output file (HDF5).

    tools/pfmab_plot.py regret  OUT.h5 -o regret.png  [--logx] [--panels KEY] [--title T]
    tools/pfmab_plot.py rewards OUT.h5 -o rewards.png [--logx]
    tools/pfmab_plot.py comm    OUT.h5 -o comm.png    [--logx]
    tools/pfmab_plot.py table   OUT.h5 --csv summary.csv --md summary.md
    tools/pfmab_plot.py counts  OUT.h5 -o counts.md

regret:  mean pseudo-regret against the slot, with its 95% confidence band,
         one curve per cell, and Theorem 1's lower bound c log t dashed in the
         curve's colour; one panel per value of --panels (default: preset; several
         attributes comma-separated).
rewards: per-step expected rewards per client (local, global, mixed: the
         slopes of the mean cumulative rewards between checkpoints) with the
         best local (mean over clients of max_k mu_{k,m}) and best global
         (max_k mu_k) lines; one panel per cell.
comm:    the mean number of client-server exchanges at T against the horizon,
         with 95% bands, one line per schedule; one panel per preset.
table:   one row per cell: its parameters, replications, mean regret at T and
         its 95% interval, late_slope (the regret's slope over the last tenth
         of the horizon over its average slope: 1 linear, 0 converged),
         exchanges, phases, identified, the bounds.
counts:  one row per cell: the share of replications that ended with each
         number of exchanges (the paper's Table 2 gives one run's).

Runs on Debian's python3-matplotlib, python3-h5py and python3-numpy. A file
still being written is read as it stands (SWMR). Errors exit with status 2.
"""

import argparse
import csv
import math
import sys

import h5py
import numpy as np


class InputError(Exception):
    pass


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def load(path):
    """Every cell of an output: its attributes, checkpoints, summaries and
    a few per-replication columns."""
    try:
        f = h5py.File(path, "r", libver="latest", swmr=True)
    except OSError as e:
        raise InputError(f"cannot read '{path}' as a pfmab output ({e})") from None
    with f:
        if "format" not in f.attrs or not text(f.attrs["format"]).startswith("pfmab-results-"):
            raise InputError(f"'{path}' is not a pfmab output (no format attribute)")
        cells = []
        for name in sorted(f["cells"]):
            g = f["cells"][name]
            done = int(g["replications_done"][0])
            rows = g["replications"]
            cell = {k: (text(v) if isinstance(v, (bytes, str)) else v) for k, v in g.attrs.items()}
            cell.update(
                name=name,
                done=done,
                slots=g["checkpoints"][:].astype(float),
                means=g["means"][:],
                summary={s: {stat: g["summary"][s][stat][:] for stat in g["summary"][s]}
                         for s in g["summary"]},
                phases=rows["phases"][:done],
                exchanges=rows["comm_count"][:done, -1],
                identified=np.all(rows["fixed_optimal"][:done] == 1, axis=1)
                if done else np.zeros(0, dtype=bool),
            )
            cells.append(cell)
        return cells


def is_number(value):
    return isinstance(value, (float, np.floating))


def value_text(value):
    return f"{value:g}" if is_number(value) else str(value)


def label(cell, keys):
    """A curve's legend: numbers named ("alpha 0.5"), names as they are."""
    return ", ".join(f"{key} {value_text(cell[key])}" if is_number(cell[key])
                     else value_text(cell[key]) for key in keys)


def varying(cells, candidates):
    """The attributes among `candidates` whose value differs between cells
    (the algorithm's alpha only where it is not the measured one)."""
    keys = [k for k in candidates if len({str(c[k]) for c in cells}) > 1]
    if all(c["algorithm_alpha"] == c["alpha"] for c in cells) and "algorithm_alpha" in keys:
        keys.remove("algorithm_alpha")
    return keys


def in_order(values):
    """The distinct values, in the order of first appearance (the sweep's)."""
    return list(dict.fromkeys(values))


CURVE_KEYS = ["algorithm", "preset", "alpha", "algorithm_alpha", "lengths", "horizon",
              "schedule_formula", "comm_cost", "instance"]


def panel_of(cell, keys):
    """The panel a cell is drawn in: its values of `keys`, as a title."""
    return ", ".join(f"{key} {cell[key]}" for key in keys)


def figure(panels, width=5.2, height=4.0):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    columns = 2 if len(panels) == 4 else min(len(panels), 3)
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False,
                             layout="constrained")  # room for the suptitle
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def dress(ax, title, xlabel, ylabel, logx):
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def titled(fig, args):
    if args.title:
        fig.suptitle(args.title)
    return fig


def complete(cells):
    ready = [c for c in cells if c["done"] > 0 and np.isfinite(c["summary"]["regret"]["mean"]).all()]
    if not ready:
        raise InputError("no cell is complete yet (its summary is written when its last "
                         "replication is in)")
    return ready


def plot_regret(cells, args):
    cells = complete(cells)
    panel_keys = [k for k in args.panels.split(",") if k]
    values = in_order(panel_of(c, panel_keys) for c in cells)
    curve_keys = [k for k in varying(cells, CURVE_KEYS) if k not in panel_keys] or ["alpha"]
    fig, axes = figure(values)
    for ax, value in zip(axes, values):
        chosen = [c for c in cells if panel_of(c, panel_keys) == value]
        for i, c in enumerate(chosen):
            colour = f"C{i % 10}"
            s = c["summary"]["regret"]
            ax.plot(c["slots"], s["mean"], color=colour, label=label(c, curve_keys))
            ax.fill_between(c["slots"], s["ci95_low"], s["ci95_high"], color=colour, alpha=0.25,
                            linewidth=0)
            bound = float(c["theorem1_constant"]) * np.log(np.maximum(c["slots"], 1.0))
            ax.plot(c["slots"], bound, color=colour, linestyle="--", linewidth=0.9)
        ax.plot([], [], color="grey", linestyle="--", linewidth=0.9,
                label="Theorem 1: c log t (lower bound)")
        dress(ax, value, "slot t", "pseudo-regret, mean and 95% band", args.logx)
    return titled(fig, args)


def plot_rewards(cells, args):
    cells = complete(cells)
    fig, axes = figure(cells)
    for ax, c in zip(axes, cells):
        clients = float(c["clients"])
        t = c["slots"]
        widths = np.diff(np.concatenate([[0.0], t]))
        middle = t - widths / 2
        for series, colour in (("local_reward", "C0"), ("global_reward", "C1"),
                               ("mixed_reward", "C2")):
            cumulative = np.concatenate([[0.0], c["summary"][series]["mean"]])
            ax.plot(middle, np.diff(cumulative) / widths / clients, color=colour,
                    label=series.split("_")[0])
        means = np.asarray(c["means"])
        ax.axhline(means.max(axis=1).mean(), color="C0", linestyle=":", label="best local")
        ax.axhline(means.mean(axis=0).max(), color="C1", linestyle=":", label="best global")
        dress(ax, label(c, [k for k in ("preset", "alpha") if k in c]), "slot t",
              "expected reward per client and slot", args.logx)
    return titled(fig, args)


def plot_comm(cells, args):
    cells = complete(cells)
    presets = in_order(c["preset"] for c in cells)
    fig, axes = figure(presets)
    for ax, preset in zip(axes, presets):
        chosen = [c for c in cells if c["preset"] == preset]
        for i, schedule in enumerate(in_order(c["schedule_formula"] for c in chosen)):
            line = sorted((c for c in chosen if c["schedule_formula"] == schedule),
                          key=lambda c: c["horizon"])
            x = [float(c["horizon"]) for c in line]
            s = [c["summary"]["comm_count"] for c in line]
            ax.plot(x, [v["mean"][-1] for v in s], marker="o", color=f"C{i}",
                    label=f"f(p) = {schedule}")
            ax.fill_between(x, [v["ci95_low"][-1] for v in s], [v["ci95_high"][-1] for v in s],
                            color=f"C{i}", alpha=0.25, linewidth=0)
        dress(ax, f"preset {preset}", "horizon T", "client-server exchanges by T (95% band)",
              args.logx)
    return titled(fig, args)


TABLE_COLUMNS = ["cell", "algorithm", "preset", "lengths", "alpha", "horizon", "schedule",
                 "replications", "regret", "ci95_low", "ci95_high", "late_slope", "exchanges",
                 "phases", "identified", "theorem1_lower", "theorem2_upper"]


def late_slope(cell):
    """The mean regret's slope over the last tenth of the horizon over its
    average slope R(T)/T: 1 for linear growth, 0 once every client has fixed
    its arm, in between for a curve still bending over."""
    t, regret = cell["slots"], cell["summary"]["regret"]["mean"]
    start = min(np.searchsorted(t, 0.9 * t[-1]), len(t) - 2)
    slope = (regret[-1] - regret[start]) / (t[-1] - t[start])
    return float(slope / (regret[-1] / t[-1])) if regret[-1] > 0 else float("nan")


def table_rows(cells):
    rows = []
    for c in cells:
        r = c["summary"]["regret"]
        rows.append({
            "cell": c["name"], "algorithm": c["algorithm"], "preset": c["preset"],
            "lengths": c["lengths"],
            "alpha": float(c["alpha"]), "horizon": int(c["horizon"]),
            "schedule": c["schedule_formula"], "replications": c["done"],
            "regret": float(r["mean"][-1]), "ci95_low": float(r["ci95_low"][-1]),
            "ci95_high": float(r["ci95_high"][-1]), "late_slope": late_slope(c),
            "exchanges": float(c["summary"]["comm_count"]["mean"][-1]),
            "phases": float(np.mean(c["phases"])) if c["done"] else float("nan"),
            "identified": float(np.mean(c["identified"])) if c["done"] else float("nan"),
            "theorem1_lower": float(c["theorem1_lower_bound"]),
            "theorem2_upper": float(c["theorem2_upper_bound"]),
        })
    return rows


def write_table(cells, args):
    rows = table_rows(complete(cells))
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=TABLE_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    if args.md:
        def cell_text(key, value):
            if key == "identified":
                return f"{100 * value:.1f}%"
            if key == "late_slope":
                return f"{value:.3f}"
            if isinstance(value, float) and key not in ("alpha",):
                return "nan" if math.isnan(value) else f"{value:.1f}"
            return f"{value:g}" if isinstance(value, float) else str(value)
        lines = ["| " + " | ".join(TABLE_COLUMNS) + " |",
                 "| " + " | ".join("---" for _ in TABLE_COLUMNS) + " |"]
        lines += ["| " + " | ".join(cell_text(k, r[k]) for k in TABLE_COLUMNS) + " |" for r in rows]
        with open(args.md, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def write_counts(cells, path):
    """How often each number of exchanges at T occurred, per cell: the paper's
    Table 2 reports one number per alpha, this its distribution."""
    keys = varying(cells, CURVE_KEYS) or ["alpha"]
    lines = ["| " + " | ".join(keys) + " | replications | mean | exchanges at T: share |",
             "| " + " | ".join("---" for _ in keys) + " | --- | --- | --- |"]
    for c in complete(cells):
        values, counts = np.unique(c["exchanges"], return_counts=True)
        shares = ", ".join(f"{v:g}: {100 * n / c['done']:.1f}%" for v, n in zip(values, counts))
        lines.append("| " + " | ".join(value_text(c[k]) for k in keys)
                     + f" | {c['done']} | {np.mean(c['exchanges']):.1f} | {shares} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    for what in ("regret", "rewards", "comm"):
        p = sub.add_parser(what)
        p.add_argument("file")
        p.add_argument("-o", "--output", required=True, help="the figure (PNG)")
        p.add_argument("--logx", action="store_true", help="logarithmic slot axis")
        p.add_argument("--title")
        if what == "regret":
            p.add_argument("--panels", default="preset",
                           help="the cell attributes, comma-separated, that split panels "
                                "('' for one panel)")
    p = sub.add_parser("table")
    p.add_argument("file")
    p.add_argument("--csv")
    p.add_argument("--md")
    p = sub.add_parser("counts")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="the table (Markdown)")
    args = parser.parse_args(argv)
    try:
        cells = load(args.file)
        if args.what == "table":
            if not (args.csv or args.md):
                raise InputError("give --csv, --md or both")
            write_table(cells, args)
            return 0
        if args.what == "counts":
            write_counts(cells, args.output)
            return 0
        if args.what == "regret":
            unknown = [k for k in args.panels.split(",") if k and k not in cells[0]]
            if unknown:
                raise InputError(f"--panels: cells have no attribute {', '.join(unknown)}")
        fig = {"regret": plot_regret, "rewards": plot_rewards, "comm": plot_comm}[args.what](
            cells, args)
        fig.savefig(args.output, dpi=110)
    except InputError as e:
        print(f"pfmab_plot: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
