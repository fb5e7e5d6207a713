"""Figures and tables from pfmab output files (HDF5).

    tools/pfmab_plot.py regret  OUT.h5 [OUT.h5 ...] -o regret.png  [LAYOUT] [--no-bound]
    tools/pfmab_plot.py rewards OUT.h5 [OUT.h5 ...] -o rewards.png [--where KEY=VALUE,...]
    tools/pfmab_plot.py comm    OUT.h5 [OUT.h5 ...] -o comm.png    [LAYOUT]
    tools/pfmab_plot.py regret-over-log OUT.h5 [OUT.h5 ...] -o ratio.png [LAYOUT]
    tools/pfmab_plot.py regret-over-c-star OUT.h5 [OUT.h5 ...] -o ratio.png [LAYOUT]
    tools/pfmab_plot.py table   OUT.h5 [OUT.h5 ...] --csv summary.csv --md summary.md [--where ...]
    tools/pfmab_plot.py counts  OUT.h5 [OUT.h5 ...] -o counts.md [--where ...]

    LAYOUT: [--where KEY=VALUE,...] [--panels KEY[,KEY]] [--color KEY] [--style KEY]
    every figure also takes --logx, --logy and --title TEXT

Outputs. A figure is written in the format its name's extension says (.png,
.pdf, .svg, or any other matplotlib writes), a table's --csv is .csv and
its --md .md, counts .md: a name of another kind (counts -o p.png, regret
-o r.md) is refused before anything is read or written.

Keys. Every cell of an output has one attribute per parameter (algorithm,
preset, alpha, comm_cost, horizon, instance, schedule_formula, mode, ...;
docs/outputs.md); with several files, `file` names each cell's file. A figure
looks at the keys that vary among the cells it draws: each gets a colour, a
line style or panels, and the headline keys that do not vary (instance,
algorithm, preset, alpha, C, T, f(p)) go once into the subtitle under the
title, with the replications. A key that follows another is not a key of its
own where the other decides it (algorithm_alpha follows alpha, c_B the
preset, q the S given; a baseline records its mode and no schedule whatever
was asked; the schedule's name is in f(p)), nor is `file` unless two files
hold the same cells. Labels name every key: "T = 1e+06", "C = 10",
"alpha = 0.5", "instance = movielens_10x40", "f(p) = 2^p log T". An
instance is named as pfmab's summaries and export name it: its means file's
name without folder and extension, or, where two files of one output share
that name, its path as given (instance_names).

Layout. By default the algorithm colours the curves (with one algorithm,
the varied key with the most values) and the other keys make panels, a grid
of rows and columns for two keys; with more than two panel keys (or more
than 30 panels) the one with the fewest values becomes the line style.
--panels, --color and --style choose instead ('--panels ""': one panel);
with --panels given, the keys left over go to the line style, then join the
colour. Each colour also has its own hollow marker (on a comm line, the
first colour's the largest, so coinciding points nest), so that a curve
another one covers still shows. A panel holds at most 12 curves, a figure 20 colours
and 30 panels; beyond that the tool stops and names the keys that vary, to
split them with --panels or choose cells with --where:
`--where algorithm=pf-ucb,comm_cost=1` keeps the cells with those values (a
key given twice: either value; numbers compare as numbers, the instance by
its name or its path as given). One legend per figure, under the panels; a
constant drawn across the panels (C*, c, the ratio's 1) has one pen, the
same in the legend, whose handles are long enough to show its dashes.

regret:  mean pseudo-regret against the slot, with its 95% confidence band,
         one curve per cell, and Theorem 1's lower bound c log t dotted, in the
         colour of its curves if they share one, grey otherwise (--no-bound:
         without it). The y-limits are the data's: a bound above them is cut
         off and the panel gives its value at T.
rewards: per-step expected rewards per client (local, global, mixed: the
         slopes of the mean cumulative rewards between checkpoints) with the
         best local (mean over clients of max_k mu_{k,m}) and best global
         (max_k mu_k) lines; one panel per cell, titled with its varied keys.
comm:    the mean number of client-server exchanges at T against the horizon,
         with 95% bands: one line per value of the varied keys other than the
         horizon, laid out as above (the cells need several horizons).
regret-over-log:
         the mean pseudo-regret at T divided by log T against the horizon,
         with 95% bands, one line per value of the varied keys other than T
         (the cells need several horizons), and per panel the asymptotic
         constants a uniformly good algorithm's R(T) / log T cannot stay
         below: C* dashed (the tight one, docs/bounds.md) and Theorem 1's c
         dotted, grey as in the legend; a panel with several values of one
         labels each with its value, in the colour of its curves if they
         share one; one outside the data's y-limits is named in the panel.
regret-over-c-star:
         the mean pseudo-regret at T divided by C* log T against the horizon
         (the summary's regret_over_c_star_log_T), with 95% bands, laid out
         as regret-over-log, and a line at 1 (R(T) = C* log T) in C*'s pen:
         how far each algorithm is from the least regret any uniformly good
         one can have, asymptotically. Cells whose C* is n/a (Bernoulli
         rewards) are left out, and the subtitle says how many and why.
table:   one row per cell: its parameters (algorithm, preset, lengths, alpha,
         horizon, comm_cost, instance, schedule, and every other key that
         varies; its file if several), replications, mean regret at T and its
         95% interval, late_slope (the regret's slope over the last tenth of
         the horizon over its average slope: 1 linear, 0 converged),
         exchanges, phases, identified, the bounds (Theorem 1's c log T,
         C* log T, Theorem 2's upper bound) and regret / (C* log T).
counts:  one row per cell: the share of replications that ended with each
         number of exchanges (the paper's Table 2 gives one run's).

Runs on Debian's python3-matplotlib, python3-h5py and python3-numpy. A file
still being written is read as it stands (SWMR); cells not complete yet are
left out. Errors exit with status 2.
"""

import argparse
import csv
import math
import os
import sys
import textwrap

import h5py
import numpy as np


class InputError(ValueError):
    """Input the tool refuses: exit status 2, or from r.plot a ValueError."""


# Attributes of a cell that are not parameters: its index, the instance's
# size (its instance says it), the bounds computed from the parameters, its
# replications and the keys it has no use for (no_effect).
NOT_KEYS = {"index", "clients", "arms", "theorem1_constant", "theorem1_lower_bound",
            "corollary1_constant", "corollary1_lower_bound", "game", "theorem2_upper_bound",
            "theorem2_note", "replications", "no_effect"}
# The output format this tool reads (engine/src/io/results_layout.hpp's
# kFormat, docs/outputs.md): a cell's C* is its game's (games/NNNN).
FORMAT = "pfmab-results-9"
# The order keys are named in (titles, legends, table columns); others follow.
KEY_ORDER = ["file", "instance", "algorithm", "preset", "lengths", "alpha", "algorithm_alpha",
             "comm_cost", "horizon", "schedule_formula", "schedule", "mode"]
# (follower, leader): the follower is left out where the leader decides it:
# defaults derived from another parameter (the algorithm's alpha is alpha, c_B
# is the preset's, q is unset when S is given), what a baseline records
# whatever was asked (mode, no schedule), and the schedule's name beside its
# formula.
FOLLOWERS = [("algorithm_alpha", "alpha"), ("confidence_constant", "preset"),
             ("participation_probability", "participation_clients"), ("mode", "algorithm"),
             ("schedule_formula", "algorithm"), ("schedule", "schedule_formula")]
# What the subtitle says of the keys that do not vary.
HEADLINE = ["instance", "algorithm", "preset", "alpha", "comm_cost", "horizon",
            "schedule_formula"]
NAMES = {"horizon": "T", "comm_cost": "C", "schedule_formula": "f(p)",
         "algorithm_alpha": "algorithm alpha", "participation_probability": "q",
         "participation_clients": "S"}
# The value of a key a cell has no use for (listed in its no_effect).
NO_EFFECT = "-"
MAX_CURVES = 12
MAX_COLOURS = 20
MAX_PANELS = 30
STYLES = ["-", "--", "-.", (0, (5, 1, 1, 1, 1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "p"]
BOUND_STYLE = (0, (1, 2.5))
C_STAR_STYLE = (0, (12, 4))
# The pen of a constant drawn across a panel against T (C*, Theorem 1's c,
# the ratio's 1), the same in the legend as in the panels: dashes scale with
# the line's width, so a legend handle of matplotlib's default width showed
# C*'s dashes as a solid line.
CONSTANT_PEN = dict(color="0.35", linewidth=1.0)
LEGEND_FONT = 8  # points


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def plain(value):
    """An attribute as a comparable Python value: text, int, float, or None
    for NaN (a parameter without a value)."""
    if isinstance(value, (bytes, str)):
        return text(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    value = float(value)
    return None if math.isnan(value) else value


def load(path):
    """Every cell of an output: its keys, checkpoints, summaries, bounds and a
    few per-replication columns."""
    try:
        f = h5py.File(path, "r", libver="latest", swmr=True)
    except OSError as e:
        raise InputError(f"cannot read '{path}' as a pfmab output ({e})") from None
    with f:
        if "format" not in f.attrs or not text(f.attrs["format"]).startswith("pfmab-results-"):
            raise InputError(f"'{path}' is not a pfmab output (no format attribute)")
        if text(f.attrs["format"]) != FORMAT:
            raise InputError(f"'{path}' is {text(f.attrs['format'])}, this tool reads {FORMAT}: "
                             "run its experiment again with this pfmab")
        cells = []
        for name in sorted(f["cells"]):
            g = f["cells"][name]
            done = int(g["replications_done"][0])
            # the fields it uses of the complete records, one read
            rows = g["replications"].fields(["phases", "comm_count", "fixed_optimal"])[:done]
            attrs = {k: plain(v) for k, v in g.attrs.items()}
            game = f["games"][f"{int(g.attrs['game']):04}"].attrs
            c_star = float(game["c_star"])
            keys = {k: v for k, v in attrs.items() if k not in NOT_KEYS}
            keys["file"] = path
            no_effect = set(filter(None, text(g.attrs.get("no_effect", "")).split(",")))
            keys.update((k, NO_EFFECT) for k in no_effect)
            cells.append(dict(
                name=name,
                keys=keys,
                instance_path=keys["instance"],  # as given; keys name it (instance_names)
                no_effect=no_effect,
                theorem1_constant=float(g.attrs["theorem1_constant"]),
                c_star=c_star,
                c_star_note=text(game["c_star_note"]),
                c_star_log_T=c_star * math.log(int(g.attrs["horizon"])),
                theorem1_lower_bound=float(g.attrs["theorem1_lower_bound"]),
                theorem2_upper_bound=float(g.attrs["theorem2_upper_bound"]),
                clients=int(g.attrs["clients"]),
                done=done,
                slots=g["checkpoints"][:].astype(float),
                means=g["means"][:],
                summary=summary_of(g["summary"]),
                phases=rows["phases"],
                exchanges=rows["comm_count"][:, -1],
                identified=np.all(rows["fixed_optimal"] == 1, axis=1)
                if done else np.zeros(0, dtype=bool),
            ))
        for cell, named in zip(cells, instance_names([c["instance_path"] for c in cells])):
            cell["keys"]["instance"] = named
        return cells


def summary_of(dataset):
    """A cell's summary dataset [series, statistic, checkpoint] as
    {series: {statistic: values}}, its axes named by its attributes."""
    values = dataset[:]
    series, statistics = (text(dataset.attrs[a]).split(",") for a in ("series", "statistics"))
    return {s: {stat: values[i, j] for j, stat in enumerate(statistics)}
            for i, s in enumerate(series)}


def instance_names(given):
    """The name of each instance of `given` (the means' paths as given, one
    per cell of an output) as pfmab's summaries and export give it
    (io::instance_names, engine/src/io/report.cpp; this tool reads outputs
    without the engine): the file's name without folder and extension
    (synthetic_4x9), or, where two different paths share that name, each
    path as given."""
    def stem(path):
        return os.path.splitext(os.path.basename(path))[0]

    paths_of = {}
    for path in given:
        paths_of.setdefault(stem(path), set()).add(path)
    return [path if len(paths_of[stem(path)]) > 1 else stem(path) for path in given]


def load_all(paths):
    """The cells of every file, in the order given."""
    return [c for path in paths for c in load(path)]


def beside_every_value(cells):
    """The cells as figures draw them: a cell beside every value of a key it
    has no use for that the other cells take (a baseline, which never pays
    for communication, in the panel of every C), one copy per value."""
    laid_out = set(layout_keys(cells))  # not a follower (the algorithm's alpha is alpha)
    out = []
    for cell in cells:
        copies = [cell]
        for key in sorted(cell["no_effect"] & laid_out):
            values = distinct([c for c in cells if key not in c["no_effect"]], key)
            if values:
                copies = [dict(c, keys=dict(c["keys"], **{key: v})) for c in copies
                          for v in values]
        out.extend(copies)
    return out


# --- keys and their labels ---------------------------------------------------------

def shown(key, value):
    """A value as labels show it."""
    if value is None:
        return "none"
    if key == "file":
        base = os.path.basename(value)
        return base[:-3] if base.endswith(".h5") else base
    if key == "horizon":
        short = f"{value:.3g}"
        return short if float(short) == value else str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def describe(key, value):
    """A key and its value, named: "T = 1e+06", "C = 10", "instance = movielens_10x40"."""
    return f"{NAMES.get(key, key)} = {shown(key, value)}"


def describe_all(keys, values):
    return ", ".join(describe(k, values[k]) for k in keys)


def in_order(values):
    """The distinct values, in the order of first appearance (the sweep's)."""
    return list(dict.fromkeys(values))


def distinct(cells, key):
    return in_order(c["keys"].get(key) for c in cells)


def ordered_keys(cells):
    """Every key of the cells, those of KEY_ORDER first."""
    keys = in_order(k for c in cells for k in c["keys"])
    rank = {k: i for i, k in enumerate(KEY_ORDER)}
    return sorted(keys, key=lambda k: rank.get(k, len(KEY_ORDER)))


def decides(cells, leader, follower):
    """Whether the leader's value fixes the follower's among these cells (a
    cell that has no use for the follower says nothing of it)."""
    seen = {}
    for c in cells:
        value = c["keys"].get(follower)
        if value == NO_EFFECT:
            continue
        if seen.setdefault(c["keys"].get(leader), value) != value:
            return False
    return True


def varied(cells):
    """Every key but `file` that takes more than one value among the cells (a
    cell that has no use for it takes none)."""
    return [k for k in ordered_keys(cells)
            if k != "file" and len([v for v in distinct(cells, k) if v != NO_EFFECT]) > 1]


def layout_keys(cells, named=()):
    """The varied keys a figure tells apart: without the followers their
    leader decides (unless named), with `file` if the other keys leave two
    cells alike or it is named."""
    keys = varied(cells)
    for follower, leader in FOLLOWERS:
        if (follower in keys and leader in keys and follower not in named
                and decides(cells, leader, follower)):
            keys.remove(follower)
    files = len(distinct(cells, "file")) > 1
    alike = len(in_order(tuple(c["keys"].get(k) for k in keys) for c in cells)) < len(cells)
    if files and (alike or "file" in named):
        keys.insert(0, "file")
    return keys


def counted(cells, keys):
    return ", ".join(f"{k} ({len(distinct(cells, k))})" for k in keys) or "none"


def constants(cells, keys):
    """The subtitle: the headline keys that do not vary, and the replications."""
    parts = []
    for k in HEADLINE:
        values = [v for v in distinct(cells, k) if v != NO_EFFECT]  # none where it has no use
        if k not in keys and k in cells[0]["keys"] and len(values) == 1:
            parts.append(describe(k, values[0]))
    done = sorted({c["done"] for c in cells})
    parts.append(f"R = {done[0]}" if len(done) == 1 else f"R = {done[0]} to {done[-1]}")
    return ", ".join(parts)


def select(cells, where):
    """The cells that match every KEY=VALUE of --where (a key given twice:
    either value)."""
    if not where:
        return cells
    wanted = {}
    for clause in where.split(","):
        key, equals, value = clause.partition("=")
        if not equals or not key or not value:
            raise InputError(f"--where: '{clause}' is not KEY=VALUE")
        wanted.setdefault(key.strip(), []).append(value.strip())
    keys = ordered_keys(cells)
    for key, values in wanted.items():
        if key not in keys:
            raise InputError(f"--where: the cells have no key '{key}' (varied: "
                             f"{counted(cells, layout_keys(cells))})")
        for value in values:
            if not any(matches(c, key, value) for c in cells):
                raise InputError(f"--where: no cell has {key} = {value} ({key} takes "
                                 f"{', '.join(shown(key, v) for v in distinct(cells, key))})")
    chosen = [c for c in cells if all(any(matches(c, k, v) for v in values)
                                       for k, values in wanted.items())]
    if not chosen:
        raise InputError(f"--where {where}: no cell has all of these values")
    return chosen


def matches(cell, key, given):
    """Whether the cell's value of `key` is `given`: as labels show it, as
    stored, as a number, or (the instance) as its path."""
    value = cell["keys"].get(key)
    if given in (shown(key, value), str(value)):
        return True
    if key == "instance" and given == cell.get("instance_path"):
        return True
    if isinstance(value, (int, float)):
        try:
            return float(given) == value
        except ValueError:
            return False
    return False


# --- layout --------------------------------------------------------------------------

def named_keys(option):
    return [k.strip() for k in option.split(",") if k.strip()] if option is not None else None


def layout(cells, args, x_key=None):
    """Which keys colour the curves, which set their line style and which
    split the panels: a dict of colour (a list of keys), style (a key or
    None) and panels (a list of keys)."""
    panels = named_keys(args.panels)
    colour = named_keys(args.color)
    style = args.style
    named = (panels or []) + (colour or []) + ([style] if style else [])
    keys_there = ordered_keys(cells)
    for key in named:
        if key not in keys_there:
            raise InputError(f"the cells have no key '{key}' (varied: "
                             f"{counted(cells, layout_keys(cells))})")
        if key == x_key:
            raise InputError(f"{key} is the x axis here: it cannot also be a panel, colour "
                             f"or style")
    twice = [k for k in in_order(named) if named.count(k) > 1]
    if twice:
        raise InputError(f"{', '.join(twice)} given twice among --panels, --color and --style")
    every = layout_keys(cells, named)
    check_distinct(cells, in_order(every + named))
    free = [k for k in every if k not in named and k != x_key]

    def fewest(keys):
        return min(keys, key=lambda k: len(distinct(cells, k)))

    if colour is None:
        colour = []
        if "algorithm" in free:
            colour = ["algorithm"]
        elif free:
            colour = [max(free, key=lambda k: len(distinct(cells, k)))]
        free = [k for k in free if k not in colour]
    if panels is None:
        panels = free
        if style is None and panels:
            n_panels = len(in_order(tuple(c["keys"].get(k) for k in panels) for c in cells))
            if len(panels) > 2 or n_panels > MAX_PANELS:
                candidate = fewest(panels)
                if len(distinct(cells, candidate)) <= len(STYLES):
                    style = candidate
                    panels = [k for k in panels if k != style]
    else:
        if style is None and free and len(distinct(cells, fewest(free))) <= len(STYLES):
            style = fewest(free)
        colour += [k for k in free if k != style]
    if style is not None and len(distinct(cells, style)) > len(STYLES):
        raise InputError(f"--style {style}: {len(distinct(cells, style))} values, but there are "
                         f"{len(STYLES)} line styles; give it to --panels or --color")
    return {"colour": colour, "style": style, "panels": panels}


def arrange(cells, keys, what):
    """The panels: a list of (row, column, values, cells) and the grid's
    rows and columns. Two keys make a grid (the one with more values across);
    otherwise the panels are laid out in rows."""
    if len(keys) == 2:
        across, down = sorted(keys, key=lambda k: len(distinct(cells, k)), reverse=True)
        columns, rows = distinct(cells, across), distinct(cells, down)
        panels = []
        for i, r in enumerate(rows):
            for j, col in enumerate(columns):
                chosen = [c for c in cells if c["keys"].get(down) == r
                          and c["keys"].get(across) == col]
                if chosen:
                    panels.append((i, j, chosen[0]["keys"], chosen))
        shape = (len(rows), len(columns))
    else:
        values = in_order(tuple(c["keys"].get(k) for k in keys) for c in cells)
        n = len(values)
        width = 2 if n == 4 else min(n, 3) if n <= 9 else math.ceil(math.sqrt(n))
        panels = []
        for i, v in enumerate(values):
            chosen = [c for c in cells if tuple(c["keys"].get(k) for k in keys) == v]
            panels.append((i // width, i % width, chosen[0]["keys"], chosen))
        shape = (math.ceil(n / width), width)
    if len(panels) > MAX_PANELS:
        raise InputError(f"{what}: {len(panels)} panels (at most {MAX_PANELS}); choose cells "
                         f"with --where KEY=VALUE[,KEY=VALUE] (varied: "
                         f"{counted(cells, layout_keys(cells))})")
    return panels, shape


def check_curves(panels, curve_of, cells, what):
    """Refuses a panel with more curves, or a figure with more colours, than
    can be told apart."""
    most = max(len(in_order(curve_of(c) for c in chosen)) for _, _, _, chosen in panels)
    colours = len(in_order(curve_of(c)[0] for c in cells))
    if most > MAX_CURVES or colours > MAX_COLOURS:
        problem = (f"{most} curves in a panel (at most {MAX_CURVES})" if most > MAX_CURVES
                   else f"{colours} colours (at most {MAX_COLOURS})")
        raise InputError(f"{what}: {problem}; split them with --panels KEY[,KEY] or choose "
                         f"cells with --where KEY=VALUE (varied: "
                         f"{counted(cells, layout_keys(cells))})")


def check_distinct(cells, keys):
    """Refuses cells that no key tells apart (a value listed twice in a sweep)."""
    values = [tuple(c["keys"].get(k) for k in keys) for c in cells]
    if len(set(values)) < len(values):
        twin = next(v for v in values if values.count(v) > 1)
        raise InputError(f"{values.count(twin)} cells have the same values of every key "
                         f"({describe_all(keys, dict(zip(keys, twin))) or 'no key varies'}); "
                         f"choose one with --where")


# --- figures -------------------------------------------------------------------------

PANEL_WIDTH, PANEL_HEIGHT, MIN_WIDTH = 4.4, 3.1, 6.4


def handle_length(styles):
    """The legend's handle length (in font sizes, matplotlib's default 2)
    that shows two periods of each dash pattern of `styles` drawn with
    CONSTANT_PEN: a handle shorter than one period looks solid."""
    periods = [sum(style[1]) * CONSTANT_PEN["linewidth"] for style in styles]
    return max([2.0] + [2 * p / LEGEND_FONT for p in periods])


def legend_shape(labels, columns, handles_long=2.0):
    """Legend columns and rows for a figure `columns` panels wide."""
    width = max(columns * PANEL_WIDTH, MIN_WIDTH)
    longest = max(len(s) for s in labels)
    entry = 0.06 * longest + 0.6 + (handles_long - 2.0) * LEGEND_FONT / 72
    per_row = max(1, min(len(labels), int(width / entry)))
    return per_row, math.ceil(len(labels) / per_row)


def canvas(shape, positions, handles, title, subtitle, dash_styles=()):
    """A figure of `shape` panels (only those at `positions` drawn), the
    title and subtitle above and one legend of `handles` below, its handles
    long enough to show each of `dash_styles` (handle_length)."""
    from matplotlib.figure import Figure
    rows, columns = shape
    handles_long = handle_length(dash_styles)
    per_row, legend_rows = legend_shape([h.get_label() for h in handles], columns, handles_long)
    width = max(columns * PANEL_WIDTH, MIN_WIDTH)
    heading = "\n".join(([title] if title else [])
                        + textwrap.wrap(subtitle, width=int(width * 13)))
    legend_height = 0.2 * legend_rows + 0.1
    fig = Figure(figsize=(width, rows * PANEL_HEIGHT + legend_height
                              + 0.25 * (heading.count("\n") + 1)), layout="constrained")
    grid = fig.add_gridspec(rows + 1, columns, height_ratios=[PANEL_HEIGHT] * rows
                            + [legend_height])
    axes = {(r, c): fig.add_subplot(grid[r, c]) for r, c in positions}
    legend = fig.add_subplot(grid[rows, :])
    legend.axis("off")
    legend.legend(handles=handles, loc="center", ncol=per_row, frameon=False,
                  fontsize=LEGEND_FONT, handlelength=handles_long)
    fig.suptitle(heading, fontsize=10)
    return fig, axes


def dress(axes, position, title, xlabel, ylabel, args):
    """A panel's title, labels (on the outer panels only) and scales."""
    ax = axes[position]
    r, c = position
    ax.set_title("\n".join(textwrap.wrap(title, width=55)), fontsize=9)
    if (r + 1, c) not in axes:
        ax.set_xlabel(xlabel, fontsize=8)
    if not any((r, left) in axes for left in range(c)):
        ax.set_ylabel(ylabel, fontsize=8)
    if args.logx:
        ax.set_xscale("log")
    if args.logy:
        ax.set_yscale("log")
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)
    return ax


def limit(ax, arrays, logy):
    """The y-limits of the data alone (a bound drawn later does not move
    them); on a log axis, of its positive values."""
    values = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
    values = values[np.isfinite(values)]
    if logy:
        values = values[values > 0]
    if values.size == 0:
        return None
    low, high = values.min(), values.max()
    if logy:
        low, high = (low / 1.5, high * 1.5) if high > low else (low / 2, high * 2)
    else:
        pad = 0.05 * (high - low) if high > low else max(abs(high), 1.0) * 0.05
        low, high = low - pad, high + pad
    ax.set_ylim(low, high)
    return low, high


class Curves:
    """The curves of a regret or comm figure: its layout, panels and grid,
    and the pen of each curve. Each colour also has a hollow marker shape,
    so that a curve another one covers still shows: on every point, the
    first colour's the largest (`sparse` False: coinciding markers nest), or
    spaced along the curve, each colour's offset from the others'."""

    def __init__(self, cells, args, what, x_key=None, sparse=False):
        import matplotlib
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        self.plan = layout(cells, args, x_key)
        self.panels, self.shape = arrange(cells, self.plan["panels"], what)
        check_curves(self.panels, self.of, cells, what)
        colours = in_order(self.of(c)[0] for c in cells)
        n = len(colours)
        step = 0 if sparse else min(1.5, 6 / max(n - 1, 1))
        self.pens = {v: dict(color=f"C{i}" if n <= 10 else matplotlib.colormaps["tab20"](i),
                             linewidth=1.2, marker=MARKERS[i % len(MARKERS)],
                             markersize=4.5 + step * (n - 1 - i), markerfacecolor="none",
                             markevery=(0.1 * i / n, 0.1) if sparse else None)
                     for i, v in enumerate(colours)}
        self.styles = {v: STYLES[i] for i, v in enumerate(in_order(self.of(c)[1] for c in cells))}
        self.handles = [Line2D([], [], **pen, label=describe_all(self.plan["colour"],
                                                                  dict(zip(self.plan["colour"], v)))
                               or "mean") for v, pen in self.pens.items()]
        if self.plan["style"]:
            self.handles += [Line2D([], [], color="0.35", linestyle=style,
                                    label=describe(self.plan["style"], v))
                             for v, style in self.styles.items()]
        self.handles.append(Patch(color="0.5", alpha=0.3, label="95% band of the mean"))
        style = [self.plan["style"]] if self.plan["style"] else []
        self.keys = self.plan["colour"] + self.plan["panels"] + style + ([x_key] if x_key else [])

    def of(self, cell):
        """A cell's curve: its values of the colour keys and of the style key."""
        return (tuple(cell["keys"].get(k) for k in self.plan["colour"]),
                cell["keys"].get(self.plan["style"]))

    def pen(self, cell):
        colour, style = self.of(cell)
        return dict(self.pens[colour], linestyle=self.styles[style])


def complete(cells):
    ready = [c for c in cells if c["done"] > 0 and np.isfinite(c["summary"]["regret"]["mean"]).all()]
    if not ready:
        raise InputError("no cell is complete yet (its summary is written when its last "
                         "replication is in)")
    return ready


def plot_regret(cells, args):
    from matplotlib.lines import Line2D
    cells = select(complete(cells), args.where)
    curves = Curves(cells, args, "regret", sparse=True)
    handles = curves.handles
    if args.bound:
        handles.append(Line2D([], [], color="0.35", linestyle=BOUND_STYLE,
                              label="Theorem 1: c log t (lower bound)"))
    fig, axes = canvas(curves.shape, [(r, c) for r, c, _, _ in curves.panels], handles,
                       args.title, constants(cells, curves.keys))
    for r, col, values, chosen in curves.panels:
        ax = dress(axes, (r, col), describe_all(curves.plan["panels"], values), "slot t",
                   "pseudo-regret", args)
        data = []
        for c in chosen:
            pen = curves.pen(c)
            s = c["summary"]["regret"]
            ax.plot(c["slots"], s["mean"], **pen)
            ax.fill_between(c["slots"], s["ci95_low"], s["ci95_high"], color=pen["color"],
                            alpha=0.2, linewidth=0)
            data += [s["mean"], s["ci95_low"], s["ci95_high"]]
        limits = limit(ax, data, args.logy)
        if args.bound and limits:
            draw_bounds(ax, chosen, curves, limits)
    return fig


def draw_bounds(ax, cells, curves, limits):
    """Theorem 1's c log t for each distinct c among the panel's cells, in
    the colour of its curves if they share one, cut to the data's y-limits
    (set before: a set limit stays); a bound that leaves them says so in the
    panel."""
    beyond = []
    for constant in in_order(c["theorem1_constant"] for c in cells):
        mine = [c for c in cells if c["theorem1_constant"] == constant]
        slots = max((c["slots"] for c in mine), key=lambda s: s[-1])
        slots = slots[slots > 1]  # not log 1 = 0: from there a bound far above would cross the axes
        bound = constant * np.log(slots)
        shades = in_order(curves.pen(c)["color"] for c in mine)
        ax.plot(slots, bound, color=shades[0] if len(shades) == 1 else "0.35",
                linestyle=BOUND_STYLE, linewidth=1.0, gid="theorem1-bound")
        if bound[-1] > limits[1]:
            beyond.append(bound[-1])
    if beyond:
        ax.text(0.02, 0.97, f"Theorem 1's c log T ({max(beyond):.2g}) is above the axes",
                transform=ax.transAxes, fontsize=7, va="top",
                bbox=dict(facecolor="white", alpha=0.8, linewidth=0))


def plot_rewards(cells, args):
    from matplotlib.lines import Line2D
    cells = select(complete(cells), args.where)
    keys = layout_keys(cells)
    check_distinct(cells, keys)
    panels, shape = arrange(cells, keys, "rewards")
    series = (("local_reward", "C0", "local"), ("global_reward", "C1", "global"),
              ("mixed_reward", "C2", "mixed"))
    handles = [Line2D([], [], color=colour, label=name) for _, colour, name in series]
    handles += [Line2D([], [], color="C0", linestyle=":", label="best local"),
                Line2D([], [], color="C1", linestyle=":", label="best global")]
    fig, axes = canvas(shape, [(r, c) for r, c, _, _ in panels], handles, args.title,
                       constants(cells, keys))
    for r, col, values, (c,) in panels:
        ax = dress(axes, (r, col), describe_all(keys, values), "slot t",
                   "expected reward per client and slot", args)
        t = c["slots"]
        widths = np.diff(np.concatenate([[0.0], t]))
        middle = t - widths / 2
        data = []
        for name, colour, _ in series:
            cumulative = np.concatenate([[0.0], c["summary"][name]["mean"]])
            per_step = np.diff(cumulative) / widths / c["clients"]
            ax.plot(middle, per_step, color=colour)
            data.append(per_step)
        means = np.asarray(c["means"])
        best = [means.max(axis=1).mean(), means.mean(axis=0).max()]
        ax.axhline(best[0], color="C0", linestyle=":")
        ax.axhline(best[1], color="C1", linestyle=":")
        limit(ax, data + [best], args.logy)
    return fig


def horizon_curves(cells, args, what, drawable=None, none_drawable=""):
    """The complete cells chosen and their Curves for a figure against the
    horizon (one line per value of the varied keys other than T), and the
    cells left out as not `drawable`(cell) (`none_drawable` says why, if
    none is)."""
    cells = select(complete(cells), args.where)
    left_out = []
    if drawable:
        left_out = [c for c in cells if not drawable(c)]
        cells = [c for c in cells if drawable(c)]
        if not cells:
            raise InputError(f"{what}: {none_drawable}")
    if len(distinct(cells, "horizon")) == 1:
        raise InputError(f"{what}: every cell has "
                         f"{describe('horizon', cells[0]['keys']['horizon'])}; a quantity "
                         f"against T needs several horizons (at one, the table gives it)")
    curves = Curves(cells, args, what, x_key="horizon")
    return curves, cells, left_out


def draw_against_horizon(curves, cells, args, ylabel, at_horizon, handles, note="",
                         dash_styles=()):
    """Each line of `at_horizon`(cell) = (mean, 95% low, 95% high) against T
    with its band; the figure and each panel's (axes, cells, y-limits).
    `note` ends the subtitle."""
    subtitle = constants(cells, curves.keys) + (f"; {note}" if note else "")
    fig, axes = canvas(curves.shape, [(r, c) for r, c, _, _ in curves.panels], handles,
                       args.title, subtitle, dash_styles)
    drawn = []
    for r, col, values, chosen in curves.panels:
        ax = dress(axes, (r, col), describe_all(curves.plan["panels"], values), "horizon T",
                   ylabel, args)
        data = []
        for line in in_order(curves.of(c) for c in chosen):
            points = sorted((c for c in chosen if curves.of(c) == line),
                            key=lambda c: c["keys"]["horizon"])
            x = [float(c["keys"]["horizon"]) for c in points]
            mean, low, high = (list(v) for v in zip(*(at_horizon(c) for c in points)))
            pen = curves.pen(points[0])
            ax.plot(x, mean, **pen)
            ax.fill_between(x, low, high, color=pen["color"], alpha=0.2, linewidth=0)
            data += [mean, low, high]
        drawn.append((ax, chosen, limit(ax, data, args.logy)))
    return fig, drawn


def plot_comm(cells, args):
    curves, cells, _ = horizon_curves(cells, args, "comm")

    def exchanges(c):
        s = c["summary"]["comm_count"]
        return s["mean"][-1], s["ci95_low"][-1], s["ci95_high"][-1]

    fig, _ = draw_against_horizon(curves, cells, args, "client-server exchanges by T",
                                  exchanges, curves.handles)
    return fig


def draw_constant(ax, value, style, gid, label=None, colour=None):
    """A constant across the panel in CONSTANT_PEN; `label` (in `colour`, its
    curves' if they share one) at its right end, where the panel holds
    several of its kind."""
    from matplotlib.transforms import blended_transform_factory
    ax.axhline(value, linestyle=style, gid=gid, **CONSTANT_PEN)
    if label:
        ax.text(0.99, value, label, transform=blended_transform_factory(ax.transAxes,
                                                                         ax.transData),
                ha="right", va="bottom", fontsize=6, color=colour or CONSTANT_PEN["color"],
                gid=f"{gid}-label")


def note_outside(ax, beyond):
    """Names in the panel the constants outside its y-limits."""
    if beyond:
        ax.text(0.02, 0.97, "outside the axes: " + ", ".join(beyond),
                transform=ax.transAxes, fontsize=7, va="top",
                bbox=dict(facecolor="white", alpha=0.8, linewidth=0))


def plot_regret_over_log(cells, args):
    """R(T) / log T against T, with the asymptotic constants it is measured
    against: C* (tight, dashed) and Theorem 1's c (dotted), per panel; where
    a panel holds several values of one, each is labelled with it, in the
    colour of its curves if they share one."""
    from matplotlib.lines import Line2D
    curves, cells, _ = horizon_curves(cells, args, "regret-over-log")

    def per_log(c):
        s, log_t = c["summary"]["regret"], math.log(float(c["keys"]["horizon"]))
        return s["mean"][-1] / log_t, s["ci95_low"][-1] / log_t, s["ci95_high"][-1] / log_t

    constants_drawn = (("c_star", "C*", C_STAR_STYLE, "C* (tight lower bound on R(T) / log T)"),
                       ("theorem1_constant", "c", BOUND_STYLE, "Theorem 1's c (looser)"))
    handles = curves.handles + [Line2D([], [], linestyle=style, label=label, **CONSTANT_PEN)
                                for _, _, style, label in constants_drawn]
    fig, drawn = draw_against_horizon(curves, cells, args, "pseudo-regret / log T", per_log,
                                      handles, dash_styles=[C_STAR_STYLE, BOUND_STYLE])
    for ax, chosen, limits in drawn:
        beyond = []
        for key, symbol, style, _ in constants_drawn:
            values = in_order(c[key] for c in chosen if math.isfinite(c[key]))
            for value in values:
                shades = in_order(curves.pen(c)["color"] for c in chosen if c[key] == value)
                inside = not limits or limits[0] <= value <= limits[1]
                draw_constant(ax, value, style, key,
                              f"{symbol} = {value:.3g}" if len(values) > 1 and inside else None,
                              shades[0] if len(shades) == 1 else None)
                if not inside:
                    beyond.append(f"{symbol} = {value:.3g}")
        note_outside(ax, beyond)
    return fig


def no_c_star_why(c):
    """Why a cell has no C* to divide by: its note, or what its value says
    (0: no alternative makes another arm better, as Bernoulli best arms of
    mean 1)."""
    if c["c_star_note"]:
        return c["c_star_note"]
    if math.isinf(c["c_star_log_T"]):
        return "C* is infinite"
    return "C* = 0" if c["c_star_log_T"] == 0 else "C* is n/a"


def plot_regret_over_c_star(cells, args):
    """R(T) / (C* log T) against T, with its 95% band, and a line at 1 in
    C*'s pen: how far each algorithm is from the least regret a uniformly
    good algorithm can have (C* log T, asymptotically). Cells whose C* is n/a
    (beyond the KL program's limits, docs/bounds.md), infinite or 0 (no
    alternative makes another arm better) are left out, and the subtitle
    says how many and why."""
    from matplotlib.lines import Line2D

    def has_c_star(c):
        return math.isfinite(c["c_star_log_T"]) and c["c_star_log_T"] > 0

    curves, cells, left_out = horizon_curves(
        cells, args, "regret-over-c-star", has_c_star,
        "no cell has a C* (" + "; ".join(in_order(no_c_star_why(c)
                                                  for c in select(complete(cells), args.where)))
        + ")")

    def ratio(c):
        s, scale = c["summary"]["regret"], c["c_star_log_T"]
        return s["mean"][-1] / scale, s["ci95_low"][-1] / scale, s["ci95_high"][-1] / scale

    handles = curves.handles + [Line2D([], [], linestyle=C_STAR_STYLE, label="1: R(T) = C* log T",
                                       **CONSTANT_PEN)]
    # the notes' first clauses (up to a ':'), which say why
    why = in_order(no_c_star_why(c).split(":")[0] for c in left_out)
    note = (f"{len(left_out)} cell{'s' if len(left_out) > 1 else ''} without a C* left out "
            f"({'; '.join(why)})" if left_out else "")
    fig, drawn = draw_against_horizon(curves, cells, args, "pseudo-regret / (C* log T)", ratio,
                                      handles, note, dash_styles=[C_STAR_STYLE])
    for ax, _, limits in drawn:
        draw_constant(ax, 1.0, C_STAR_STYLE, "one")
        if limits and not limits[0] <= 1.0 <= limits[1]:
            note_outside(ax, ["1"])
    return fig


# --- tables --------------------------------------------------------------------------

# The parameter columns every table has (schedule_formula as "schedule"),
# before any other key that varies.
TABLE_KEYS = ["algorithm", "preset", "lengths", "alpha", "horizon", "comm_cost", "instance",
              "schedule_formula"]
STAT_COLUMNS = ["replications", "regret", "ci95_low", "ci95_high", "late_slope", "exchanges",
                "comm_share", "phases", "identified", "theorem1_lower", "c_star_log_T",
                "regret_over_c_star_log_T", "theorem2_upper"]


def column_name(key):
    return "schedule" if key == "schedule_formula" else key


def table_keys(cells):
    """The parameter columns: the file if several, TABLE_KEYS, then every
    other varied key (the schedule's name is in its formula's column)."""
    extra = [k for k in varied(cells) if k not in TABLE_KEYS and k != "schedule"]
    return (["file"] if len(distinct(cells, "file")) > 1 else []) + TABLE_KEYS + extra


def late_slope(cell):
    """The mean regret's slope over the last tenth of the horizon over its
    average slope R(T)/T: 1 for linear growth, 0 once every client has fixed
    its arm, in between for a curve still bending over."""
    t, regret = cell["slots"], cell["summary"]["regret"]["mean"]
    start = min(np.searchsorted(t, 0.9 * t[-1]), len(t) - 2)
    slope = (regret[-1] - regret[start]) / (t[-1] - t[start])
    return float(slope / (regret[-1] / t[-1])) if regret[-1] > 0 else float("nan")


def comm_share(cell):
    """The part of the mean regret at T that is communication: C times the
    mean exchanges over the mean regret (the regret counts C per exchange),
    as the engine's summaries give it (CellReport::comm_share)."""
    exchanges = float(cell["summary"]["comm_count"]["mean"][-1])
    if exchanges == 0:
        return 0.0
    return cell["keys"]["comm_cost"] * exchanges / float(cell["summary"]["regret"]["mean"][-1])


def table_rows(cells, keys):
    rows = []
    for c in cells:
        r = c["summary"]["regret"]
        row = {"cell": c["name"]}
        for key in keys:
            value = c["keys"].get(key)
            row[column_name(key)] = shown(key, value) if key in ("instance", "file") else value
        row.update({
            "replications": c["done"],
            "regret": float(r["mean"][-1]), "ci95_low": float(r["ci95_low"][-1]),
            "ci95_high": float(r["ci95_high"][-1]), "late_slope": late_slope(c),
            "exchanges": float(c["summary"]["comm_count"]["mean"][-1]),
            "comm_share": comm_share(c),
            "phases": float(np.mean(c["phases"])) if c["done"] else float("nan"),
            "identified": float(np.mean(c["identified"])) if c["done"] else float("nan"),
            "theorem1_lower": c["theorem1_lower_bound"],
            "c_star_log_T": c["c_star_log_T"],
            # none where C* is 0 (every best arm unbeatable: Bernoulli means of 1),
            # as the engine's summary has none
            "regret_over_c_star_log_T": (float(r["mean"][-1]) / c["c_star_log_T"]
                                         if c["c_star_log_T"] != 0 else float("nan")),
            "theorem2_upper": c["theorem2_upper_bound"],
        })
        rows.append(row)
    return rows


def write_table(cells, csv_path=None, md_path=None, where=None):
    cells = select(complete(cells), where)
    keys = table_keys(cells)
    columns = ["cell"] + [column_name(k) for k in keys] + STAT_COLUMNS
    rows = table_rows(cells, keys)
    if csv_path:
        with open(csv_path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
    if md_path:
        def cell_text(column, value):
            if column in ("identified", "comm_share"):
                return f"{100 * value:.1f}%"
            if column in ("late_slope", "regret_over_c_star_log_T"):
                return f"{value:.3f}"
            if column in STAT_COLUMNS and isinstance(value, float):
                return "nan" if math.isnan(value) else f"{value:.1f}"
            key = "schedule_formula" if column == "schedule" else column
            return value if isinstance(value, str) else shown(key, value)
        lines = ["| " + " | ".join(columns) + " |",
                 "| " + " | ".join("---" for _ in columns) + " |"]
        lines += ["| " + " | ".join(cell_text(k, r[k]) for k in columns) + " |" for r in rows]
        with open(md_path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def write_counts(cells, path, where=None):
    """How often each number of exchanges at T occurred, per cell: the paper's
    Table 2 reports one number per alpha, this its distribution."""
    cells = select(complete(cells), where)
    keys = layout_keys(cells) or ["alpha"]
    lines = ["| " + " | ".join(keys) + " | replications | mean | exchanges at T: share |",
             "| " + " | ".join("---" for _ in keys) + " | --- | --- | --- |"]
    for c in cells:
        values, counts = np.unique(c["exchanges"], return_counts=True)
        shares = ", ".join(f"{v:g}: {100 * n / c['done']:.1f}%" for v, n in zip(values, counts))
        lines.append("| " + " | ".join(shown(k, c["keys"].get(k)) for k in keys)
                     + f" | {c['done']} | {np.mean(c['exchanges']):.1f} | {shares} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# --- command line --------------------------------------------------------------------

FIGURES = {"regret": plot_regret, "rewards": plot_rewards, "comm": plot_comm,
           "regret-over-log": plot_regret_over_log,
           "regret-over-c-star": plot_regret_over_c_star}
FIGURE_DEFAULTS = dict(where=None, panels=None, color=None, style=None, logx=False, logy=False,
                       bound=True, title=None)


def settings(**given):
    """A figure's options as the command line's defaults with `given` over
    them, for callers that draw without it (tools/reproduce.py)."""
    unknown = set(given) - set(FIGURE_DEFAULTS)
    if unknown:
        raise TypeError(f"no figure option {', '.join(sorted(unknown))}")
    return argparse.Namespace(**{**FIGURE_DEFAULTS, **given})


def parser():
    top = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                  epilog="See the top of python/pfmab/plot.py for the layout rules.")
    sub = top.add_subparsers(dest="what", required=True)
    where_help = ("only the cells with these values, e.g. algorithm=pf-ucb,comm_cost=1 "
                  "(a key given twice: either value)")
    for what in FIGURES:
        p = sub.add_parser(what)
        p.add_argument("files", nargs="+", metavar="OUT.h5")
        p.add_argument("-o", "--output", required=True,
                       help="the figure, in the format of its extension (.png, .pdf, .svg, ...)")
        p.add_argument("--where", help=where_help)
        if what != "rewards":
            p.add_argument("--panels", help="keys, comma-separated, whose values split panels "
                                            "('' for one panel; default: chosen from the "
                                            "varied keys)")
            p.add_argument("--color", help="the key whose values colour the curves")
            p.add_argument("--style", help="the key whose values set the line style")
        p.add_argument("--logx", action="store_true", help="logarithmic x axis")
        p.add_argument("--logy", action="store_true", help="logarithmic y axis")
        if what == "regret":
            p.add_argument("--bound", action=argparse.BooleanOptionalAction, default=True,
                           help="Theorem 1's lower bound, cut to the data's y-limits "
                                "(default: on)")
        p.add_argument("--title")
    p = sub.add_parser("table")
    p.add_argument("files", nargs="+", metavar="OUT.h5")
    p.add_argument("--csv", help="the table as CSV (.csv)")
    p.add_argument("--md", help="the table as Markdown (.md)")
    p.add_argument("--where", help=where_help)
    p = sub.add_parser("counts")
    p.add_argument("files", nargs="+", metavar="OUT.h5")
    p.add_argument("-o", "--output", required=True, help="the table (Markdown, .md)")
    p.add_argument("--where", help=where_help)
    return top


def check_outputs(args):
    """Refuses, before anything is read or written, an output whose name
    says another kind of file than the one asked for writes: a figure is an
    image (any format matplotlib writes, by the name's extension), a table
    .csv or .md as its option says, counts Markdown."""
    if args.what == "table":
        if not (args.csv or args.md):
            raise InputError("give --csv, --md or both")
        wanted = [("--csv", args.csv, [".csv"], "a CSV table"),
                  ("--md", args.md, [".md"], "a Markdown table")]
    elif args.what == "counts":
        wanted = [("-o", args.output, [".md"], "a Markdown table")]
    else:
        from matplotlib.backend_bases import FigureCanvasBase
        common = [".png", ".pdf", ".svg"]
        images = common + ["." + k for k in sorted(FigureCanvasBase.get_supported_filetypes())
                           if "." + k not in common]
        wanted = [("-o", args.output, images, "a figure")]
    for option, path, suffixes, written in wanted:
        if path is None:
            continue
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in suffixes:
            given = f"'{suffix}'" if suffix else "no extension"
            shown_suffixes = ", ".join(suffixes[:3]) + (", ..." if len(suffixes) > 3 else "")
            raise InputError(f"{option} {path}: {args.what} writes {written}, but the name has "
                             f"{given} (give {shown_suffixes})")


def main(argv):
    args = parser().parse_args(argv)
    try:
        check_outputs(args)
        cells = load_all(args.files)
        if args.what == "table":
            write_table(cells, args.csv, args.md, args.where)
        elif args.what == "counts":
            write_counts(cells, args.output, args.where)
        else:
            figure = FIGURES[args.what](beside_every_value(cells), args)
            try:
                figure.savefig(args.output, dpi=100)
            except OSError:
                raise
            except Exception as e:  # a backend that cannot work here (pgf without LaTeX)
                raise InputError(f"cannot write '{args.output}': matplotlib's "
                                 f"{type(e).__name__}: {e}") from None
    except OSError as e:  # an output that cannot be written
        print(f"pfmab_plot: error: cannot write '{e.filename}': {e.strerror}", file=sys.stderr)
        return 2
    except InputError as e:
        print(f"pfmab_plot: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
