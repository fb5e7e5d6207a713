#!/usr/bin/python3
"""Figures and tables from pfmab output files: the command line of
pfmab.plot (python/pfmab/plot.py, which says what each draws), for use
without installing the package.

    tools/pfmab_plot.py regret OUT.h5 [OUT.h5 ...] -o regret.png [LAYOUT] [--no-bound]
    tools/pfmab_plot.py {rewards,comm,regret-over-log,regret-over-c-star,table,counts} ...
                        (--help for each)
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from pfmab.plot import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
