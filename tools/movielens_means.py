#!/usr/bin/python3
"""Build a PF-MAB means matrix from the HetRec 2011 MovieLens ratings.

The paper's preprocessing (Sec. 7 and Appendix): the users are split at random
into M groups (the clients) and the rated movies into K groups (the arms); the
local mean of arm k at client m is the average of every rating a user of group
m gave a movie of group k; each row is then divided by its maximum, so that
every client's best arm has mean 1.

    tools/movielens_means.py user_ratedmovies.dat -o movielens_10x40.csv \\
        [--clients 10] [--arms 40] [--seed 1] [--groups groups.json]

The input is the tab-separated user_ratedmovies.dat of
https://grouplens.org/datasets/hetrec-2011/ (header line first; columns
userID, movieID, rating, ...). The split is drawn from numpy's PCG64 seeded
with --seed, so the same file and seed give the same matrix; --groups writes
which users and movies went to which group. Errors name the file and line and
exit with status 2, leaving no output behind.
"""

import argparse
import json
import os
import sys
import tempfile

import numpy as np


class InputError(Exception):
    pass


def read_ratings(path):
    """(user ids, movie ids, ratings) as arrays, from a HetRec ratings file."""
    users, movies, ratings = [], [], []
    try:
        with open(path, encoding="utf-8") as f:
            header = f.readline().split("\t")
            if [h.strip() for h in header[:3]] != ["userID", "movieID", "rating"]:
                raise InputError(
                    f"{path}:1: expected a header starting userID, movieID, rating "
                    "(the tab-separated user_ratedmovies.dat of HetRec 2011)")
            for number, line in enumerate(f, start=2):
                if not line.strip():
                    continue
                fields = line.split("\t")
                try:
                    user, movie, rating = int(fields[0]), int(fields[1]), float(fields[2])
                except (IndexError, ValueError):
                    raise InputError(f"{path}:{number}: expected userID, movieID and rating "
                                     f"separated by tabs, got {line.strip()!r}") from None
                if not np.isfinite(rating):
                    raise InputError(f"{path}:{number}: rating {fields[2].strip()!r} is not a number")
                users.append(user)
                movies.append(movie)
                ratings.append(rating)
    except OSError as e:
        raise InputError(f"cannot read ratings file '{path}' ({e.strerror})") from None
    if not ratings:
        raise InputError(f"{path}: no ratings after the header")
    return np.array(users), np.array(movies), np.array(ratings)


def split(ids, groups, rng, what):
    """A random split of the distinct ids into `groups` groups of sizes within one."""
    distinct = np.unique(ids)
    if len(distinct) < groups:
        raise InputError(f"{len(distinct)} {what} cannot make {groups} groups")
    return [np.sort(g) for g in np.array_split(rng.permutation(distinct), groups)]


def means_matrix(users, movies, ratings, clients, arms, seed):
    """The normalised group-average matrix, and the groups it was built from."""
    rng = np.random.Generator(np.random.PCG64(seed))
    user_groups = split(users, clients, rng, "users")
    movie_groups = split(movies, arms, rng, "rated movies")
    user_group = {u: g for g, members in enumerate(user_groups) for u in members}
    movie_group = {i: g for g, members in enumerate(movie_groups) for i in members}
    rows = np.fromiter((user_group[u] for u in users), dtype=np.int64, count=len(users))
    cols = np.fromiter((movie_group[i] for i in movies), dtype=np.int64, count=len(movies))
    sums = np.zeros((clients, arms))
    counts = np.zeros((clients, arms))
    np.add.at(sums, (rows, cols), ratings)
    np.add.at(counts, (rows, cols), 1)
    empty = np.argwhere(counts == 0)
    if len(empty):
        m, k = empty[0]
        raise InputError(f"no user of group {m + 1} rated a movie of group {k + 1}: "
                         "the file is too small for this many groups")
    averages = sums / counts
    peaks = averages.max(axis=1, keepdims=True)
    if np.any(peaks <= 0):
        raise InputError("a group's best average rating is not positive: cannot divide by it")
    return averages / peaks, user_groups, movie_groups


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(dir=folder, prefix=".movielens-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ratings", help="user_ratedmovies.dat of HetRec 2011")
    parser.add_argument("-o", "--output", required=True, help="the means matrix (CSV)")
    parser.add_argument("--clients", type=int, default=10, help="user groups, M (default 10)")
    parser.add_argument("--arms", type=int, default=40, help="movie groups, K (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random split (default 1)")
    parser.add_argument("--groups", help="also write the groups' members here (JSON)")
    args = parser.parse_args(argv)
    try:
        if args.clients < 1 or args.arms < 1:
            raise InputError("--clients and --arms must be at least 1")
        if args.seed < 0:
            raise InputError("--seed must be a whole number >= 0")
        users, movies, ratings = read_ratings(args.ratings)
        means, user_groups, movie_groups = means_matrix(users, movies, ratings, args.clients,
                                                        args.arms, args.seed)
    except InputError as e:
        print(f"movielens_means: error: {e}", file=sys.stderr)
        return 2
    lines = [
        f"# Local mean rewards mu_{{k,m}}: rows = user groups (M={args.clients}), "
        f"columns = movie groups (K={args.arms}).",
        f"# From {os.path.basename(args.ratings)}: {len(ratings)} ratings by "
        f"{sum(len(g) for g in user_groups)} users of {sum(len(g) for g in movie_groups)} movies;",
        f"# users and movies split at random (numpy PCG64, seed {args.seed}); entry = average "
        "rating of the group pair, divided by the row maximum.",
    ]
    lines += [",".join(repr(float(v)) for v in row) for row in means]
    write_atomically(args.output, "\n".join(lines) + "\n")
    if args.groups:
        write_atomically(args.groups, json.dumps({
            "seed": args.seed,
            "users": [[int(u) for u in g] for g in user_groups],
            "movies": [[int(i) for i in g] for g in movie_groups],
        }) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
