#!/usr/bin/python3
"""A random PF-MAB game: M x K local means drawn uniformly from [0, 1).

    tools/random_means.py --clients 40 --arms 4 --seed 7 -o means_40x4.csv

numpy's PCG64 seeded with --seed: the same seed gives the same matrix. The
paper draws its large-M game this way (its code's np.random.random((M, K)))
without giving the matrix; results/large-m/ records the seed used.
"""

import argparse
import sys

import numpy as np


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, required=True, help="M")
    parser.add_argument("--arms", type=int, required=True, help="K")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    if args.clients < 1 or args.arms < 1 or args.seed < 0:
        print("random_means: error: --clients and --arms must be at least 1, --seed >= 0",
              file=sys.stderr)
        return 2
    means = np.random.Generator(np.random.PCG64(args.seed)).random((args.clients, args.arms))
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(f"# Local mean rewards mu_{{k,m}}: rows = clients (M={args.clients}), columns = arms "
                f"(K={args.arms}).\n# Uniform on [0, 1), numpy PCG64 seed {args.seed} "
                f"(tools/random_means.py).\n")
        for row in means:
            f.write(",".join(repr(float(v)) for v in row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
