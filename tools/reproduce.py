#!/usr/bin/python3
"""Reproduce every experiment of the paper: run, then draw and tabulate.

    tools/reproduce.py [--only NAME[,NAME...]] [--movielens PATH]
                       [--replications N] [--max-horizon T]
                       [--out results] [--work build/reproduce] [--pfmab build/pfmab]

For each experiment folder under results/ (synthetic, movielens,
enhancement, communication, large-m, tight-bound) it runs its experiment.toml with
`pfmab run -o WORK/NAME.h5`, then writes into OUT/NAME/ the summary table
(summary.csv, summary.md) and the figures (PNG) of the paper's figures it
stands for, and prints the time each step took. The HDF5 outputs stay in
WORK (they are large and rebuilt in minutes).

--replications and --max-horizon run a reduced version (fewer replications,
every horizon capped), for a quick look or a test; the experiment files are
then copied to WORK with those values, never changed in place. --movielens
runs the MovieLens experiment on another means matrix (e.g. one built by
tools/movielens_means.py). Errors exit with status 2.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
import tomllib

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, os.path.join(ROOT, "python"))

from pfmab import plot as pfmab_plot  # noqa: E402  (python/pfmab/plot.py)

# Each experiment and what is drawn from its output: (file name, kind, options);
# every kind but "counts" (a Markdown table) is a figure.
EXPERIMENTS = {
    "synthetic": [
        ("fig1_regret.png", "regret", {"title": "Fig. 1: synthetic 4x9, regret"}),
        ("fig1_regret_logx.png", "regret", {"logx": True, "title": "Fig. 1, log slot axis"}),
        ("fig5_rewards.png", "rewards", {"logx": True, "title": "Fig. 5: synthetic 4x9, rewards"}),
        ("table2_exchanges.md", "counts", {}),
    ],
    "movielens": [
        ("fig2_regret.png", "regret", {"title": "Fig. 2: MovieLens 10x40, regret"}),
        ("fig2_regret_logx.png", "regret", {"logx": True, "title": "Fig. 2, log slot axis"}),
        ("fig3_rewards.png", "rewards", {"logx": True, "title": "Fig. 3: MovieLens, rewards"}),
    ],
    "enhancement": [
        ("fig4_regret.png", "regret", {"title": "Fig. 4: enhanced vs plain PF-UCB"}),
    ],
    "communication": [
        ("fig6_communication.png", "comm", {"logx": True,
                                            "title": "Fig. 6: communications vs horizon"}),
    ],
    "large-m": [
        ("fig7_regret.png", "regret", {"panels": "preset,lengths",
                                       "title": "Fig. 7: M = 40, K = 4, regret"}),
    ],
    "tight-bound": [
        figure
        for name, instance, rewards, title in (
            ("synthetic_4x9", "synthetic_4x9", "gaussian", "Synthetic 4x9"),
            ("movielens_10x40", "movielens_10x40", "gaussian", "MovieLens 10x40"),
            ("enhancement_4x9", "enhancement_4x9", "gaussian", "Enhancement instance 4x9"),
            ("synthetic_4x9_bernoulli", "synthetic_4x9", "bernoulli",
             "Synthetic 4x9, Bernoulli rewards"))
        for figure in (
            (f"regret_over_log_T_{name}.png", "regret-over-log",
             {"where": f"instance={instance},rewards={rewards}", "logx": True, "logy": True,
              "panels": "alpha", "color": "algorithm", "style": "preset",
              "title": f"{title}: R(T) / log T against T, and the tight constant C*"}),
            (f"regret_over_c_star_{name}.png", "regret-over-c-star",
             {"where": f"instance={instance},rewards={rewards}", "logx": True, "logy": True,
              "panels": "alpha", "color": "algorithm", "style": "preset",
              "title": f"{title}: R(T) / (C* log T) against T"}))
    ],
}


class InputError(Exception):
    pass


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def toml_lines(table, prefix=""):
    """`key = value` lines of a table's scalars and lists, nested tables as
    dotted keys (how a [[sweep]] block gives `instance.means`)."""
    lines = []
    for key, value in table.items():
        if isinstance(value, dict):
            lines += toml_lines(value, f"{prefix}{key}.")
        else:
            lines.append(f"{prefix}{key} = {toml_value(value)}")
    return lines


def toml_text(table):
    """A TOML rendering of an experiment: top-level keys, its tables, then
    its [[sweep]] blocks."""
    top = {k: v for k, v in table.items() if not isinstance(v, (dict, list)) or
           (isinstance(v, list) and not any(isinstance(x, dict) for x in v))}
    lines = toml_lines(top)
    for name, sub in table.items():
        if isinstance(sub, dict):
            lines += ["", f"[{name}]"] + toml_lines(sub)
        elif isinstance(sub, list) and any(isinstance(x, dict) for x in sub):
            for block in sub:
                lines += ["", f"[[{name}]]"] + toml_lines(block)
    return "\n".join(lines) + "\n"


def reduced(source, work, replications, max_horizon):
    """The experiment at `source` with fewer replications and capped horizons
    (in its [[sweep]] blocks too), written to `work`; relative paths made
    absolute."""
    with open(source, "rb") as f:
        table = tomllib.load(f)
    for part in [table] + table.get("sweep", []):
        if replications and (part is table or "replications" in part):
            part["replications"] = replications
        if max_horizon and (part is table or "horizon" in part):
            horizons = part.get("horizon", 1e6)
            capped = sorted({min(float(h), max_horizon) for h in
                             (horizons if isinstance(horizons, list) else [horizons])})
            part["horizon"] = capped if len(capped) > 1 else capped[0]
        means = part.get("instance", {}).get("means")
        if isinstance(means, str) and not os.path.isabs(means):
            part["instance"]["means"] = os.path.normpath(
                os.path.join(os.path.dirname(source), means))
    path = os.path.join(work, os.path.basename(os.path.dirname(source)) + ".toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(toml_text(table))
    return path


def run(name, args):
    source = os.path.join(ROOT, "results", name, "experiment.toml")
    experiment = source
    if args.replications or args.max_horizon:
        experiment = reduced(source, args.work, args.replications, args.max_horizon)
    output = os.path.join(args.work, name + ".h5")
    command = [args.pfmab, "run", experiment, "-o", output, "--overwrite", "--quiet"]
    if name == "movielens" and args.movielens:
        command += ["--means", args.movielens]
    if args.threads:
        command += ["--threads", str(args.threads)]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise InputError(f"{name}: pfmab run failed (exit {done.returncode}): "
                         f"{done.stderr.strip()}")
    return output, time.monotonic() - start


def draw(name, output, folder):
    cells = pfmab_plot.load(output)
    pfmab_plot.write_table(cells, os.path.join(folder, "summary.csv"),
                           os.path.join(folder, "summary.md"))
    for file_name, kind, options in EXPERIMENTS[name]:
        if kind == "counts":
            pfmab_plot.write_counts(cells, os.path.join(folder, file_name))
            continue
        figure = pfmab_plot.FIGURES[kind](cells, pfmab_plot.settings(**options))
        figure.savefig(os.path.join(folder, file_name), dpi=100)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated experiments (default: all)")
    parser.add_argument("--movielens", help="the MovieLens means matrix to run on")
    parser.add_argument("--replications", type=int, help="a reduced run: replications per cell")
    parser.add_argument("--max-horizon", type=float, help="a reduced run: cap every horizon")
    parser.add_argument("--out", default=os.path.join(ROOT, "results"),
                        help="where the tables and figures go (default: results/)")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "reproduce"),
                        help="where the HDF5 outputs go (default: build/reproduce/)")
    parser.add_argument("--pfmab", default=os.path.join(ROOT, "build", "pfmab"))
    parser.add_argument("--threads", type=int, help="worker threads (default: all cores)")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(EXPERIMENTS)
    try:
        unknown = [n for n in names if n not in EXPERIMENTS]
        if unknown:
            raise InputError(f"unknown experiment {', '.join(unknown)} "
                             f"(expected some of {', '.join(EXPERIMENTS)})")
        if args.replications is not None and args.replications < 1:
            raise InputError("--replications must be at least 1")
        if args.max_horizon is not None and args.max_horizon < 2:
            raise InputError("--max-horizon must be at least 2")
        if not shutil.which(args.pfmab):
            raise InputError(f"no pfmab at '{args.pfmab}' (build it: tools/setup.sh)")
        os.makedirs(args.work, exist_ok=True)
        total = time.monotonic()
        for name in names:
            output, ran = run(name, args)
            start = time.monotonic()
            folder = os.path.join(args.out, name)
            os.makedirs(folder, exist_ok=True)
            draw(name, output, folder)
            print(f"{name}: ran in {ran:.1f} s, tables and figures in "
                  f"{time.monotonic() - start:.1f} s -> {os.path.relpath(folder)}", flush=True)
        print(f"all: {time.monotonic() - total:.1f} s")
    except (InputError, pfmab_plot.InputError) as e:
        print(f"reproduce: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
