#!/usr/bin/env python3
"""Checks that the engine's folders include only themselves and the folders
below them (docs/internals.md, "Layers"): every `#include "pfmab/X/..."` in
engine/include/pfmab/F/ and engine/src/F/ must have X at or below F.
Prints each include against the order and exits 1 if there is one.

    tools/check_layers.py [REPOSITORY]   (default: the one holding this script)
"""
import pathlib
import re
import sys

# Bottom to top; a folder may include itself and those before it.
ORDER = ["util", "rng", "families", "model", "theory", "sim", "algorithms", "io", "mpi", "run"]
# stats stands beside the order: it reads util alone, and any folder above
# util may read it.
BESIDE = {"stats": {"util"}}

# Includes that run against the order until another piece of issue 27 lands:
# (including file, included folder, what removes it). The check fails on a
# listed include that no longer exists, so that the list cannot outlive it.
PENDING = [
    ("engine/include/pfmab/algorithms/registry.hpp", "io",
     "an option declaration of the algorithms' own that io converts into its Parameter "
     "(pf_alloc.cpp and baselines.cpp spell io::Parameter and io::CellValues)"),
]

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"pfmab/([a-z_]+)/', re.MULTILINE)


def allowed(folder, included):
    """The folders `folder` may include."""
    if folder in BESIDE:
        return included == folder or included in BESIDE[folder]
    if included in BESIDE:
        return folder != "util"
    if folder not in ORDER or included not in ORDER:
        return False
    return ORDER.index(included) <= ORDER.index(folder)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    known = set(ORDER) | set(BESIDE)
    pending = {(path, included): why for path, included, why in PENDING}
    seen_pending = set()
    problems = []
    for top in ("engine/include/pfmab", "engine/src"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".hpp", ".cpp", ".h"):
                continue
            folder = path.relative_to(root / top).parts[0]
            name = path.relative_to(root).as_posix()
            if folder not in known:
                problems.append(f"{name}: folder '{folder}' has no place in the layers")
                continue
            text = path.read_text(encoding="utf-8")
            for match in INCLUDE.finditer(text):
                included = match.group(1)
                if allowed(folder, included):
                    continue
                if (name, included) in pending:
                    seen_pending.add((name, included))
                    continue
                line = text.count("\n", 0, match.start()) + 1
                problems.append(f"{name}:{line}: {folder}/ includes pfmab/{included}/, "
                                f"which is not below it")
    for key in sorted(set(pending) - seen_pending):
        problems.append(f"{key[0]} no longer includes pfmab/{key[1]}/: remove it from PENDING")
    if problems:
        print("Includes against the layers (" + " < ".join(ORDER) +
              "; stats beside, on util):", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        return 1
    print(f"layers hold: {' < '.join(ORDER)}, stats beside ({len(seen_pending)} pending)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
