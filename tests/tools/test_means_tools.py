"""tools/movielens_means.py and tools/random_means.py: the matrices they build
are what their documentation says, seeded, and bad input is refused with
exit status 2 and no output written or changed.

The MovieLens tests write a small ratings file in the HetRec 2011 layout
(tab-separated, header userID movieID rating ...) whose ratings follow a
formula, and recompute the matrix independently from the groups the tool
reports. Run by CTest (label integration) through /usr/bin/python3.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOVIELENS = os.path.join(ROOT, "tools", "movielens_means.py")
RANDOM = os.path.join(ROOT, "tools", "random_means.py")
HEADER = "userID\tmovieID\trating\tdate_day\tdate_month\tdate_year\tdate_hour\tdate_minute\tdate_second\n"
USERS = range(75, 87)            # 12 users, ids as in the real file (not 0-based)
MOVIES = range(1, 25)            # 24 movies


def rating(user, movie):
    """A rating in {0.5, 1, ..., 5} that differs between users and movies."""
    return 0.5 * (1 + (3 * user + 7 * movie + user * movie) % 10)


def rated(user, movie):
    """Not every user rates every movie (the real file is sparse)."""
    return (user + movie) % 5 != 0


def write_ratings(path, lines=None):
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for line in lines if lines is not None else (
                f"{u}\t{i}\t{rating(u, i)}\t29\t10\t2006\t23\t17\t16\n"
                for u in USERS for i in MOVIES if rated(u, i)):
            f.write(line)


def run(tool, *args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)


def read_matrix(path):
    return np.loadtxt(path, delimiter=",", comments="#", ndmin=2)


class MovieLensMeans(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.dir = self.temp.name
        self.ratings = os.path.join(self.dir, "user_ratedmovies.dat")
        write_ratings(self.ratings)

    def tearDown(self):
        self.temp.cleanup()

    def build(self, name, *args):
        out = os.path.join(self.dir, name + ".csv")
        groups = os.path.join(self.dir, name + ".json")
        done = run(MOVIELENS, self.ratings, "-o", out, "--clients", "3", "--arms", "4",
                   "--groups", groups, *args)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(groups, encoding="utf-8") as f:
            return out, json.load(f)

    def test_matrix_is_the_normalised_group_averages_of_its_groups(self):
        out, groups = self.build("a", "--seed", "5")
        means = read_matrix(out)
        self.assertEqual(means.shape, (3, 4))
        # the groups partition the users and the movies, sizes within one
        for key, ids, count in (("users", USERS, 3), ("movies", MOVIES, 4)):
            members = groups[key]
            self.assertEqual(len(members), count)
            self.assertEqual(sorted(x for g in members for x in g), list(ids))
            self.assertLessEqual(max(map(len, members)) - min(map(len, members)), 1)
        expected = np.array([[np.mean([rating(u, i) for u in users for i in movies if rated(u, i)])
                              for movies in groups["movies"]] for users in groups["users"]])
        expected /= expected.max(axis=1, keepdims=True)
        # the file holds repr() of each double: read back exactly, up to the
        # order of summation (np.add.at against np.mean): 1e-12
        np.testing.assert_allclose(means, expected, rtol=0, atol=1e-12)
        self.assertTrue(np.all(means.max(axis=1) == 1.0))
        self.assertTrue(np.all((means > 0) & (means <= 1)))

    def test_same_seed_same_bytes_other_seed_other_split(self):
        a, groups_a = self.build("a", "--seed", "5")
        b, _ = self.build("b", "--seed", "5")
        c, groups_c = self.build("c", "--seed", "6")
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        self.assertNotEqual(groups_a["users"], groups_c["users"])

    def refused(self, args, message, ratings_lines=None):
        """Exit 2, one line naming the problem, and an existing output untouched."""
        if ratings_lines is not None:
            write_ratings(self.ratings, ratings_lines)
        out = os.path.join(self.dir, "out.csv")
        with open(out, "w", encoding="utf-8") as f:
            f.write("before\n")
        done = run(MOVIELENS, *args, "-o", out)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(message, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "before\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.csv", "user_ratedmovies.dat"])

    def test_missing_file(self):
        self.refused([os.path.join(self.dir, "nope.dat")], "cannot read ratings file")

    def test_not_a_hetrec_file(self):
        with open(self.ratings, "w", encoding="utf-8") as f:
            f.write("user,movie,rating\n1,2,3\n")
        self.refused([self.ratings], f"{self.ratings}:1: expected a header starting userID")

    def test_malformed_line_is_named(self):
        self.refused([self.ratings], f"{self.ratings}:3: expected userID, movieID and rating",
                     ["75\t1\t4.5\n", "75\tTwo\t3\n"])

    def test_rating_not_a_number(self):
        self.refused([self.ratings], f"{self.ratings}:2: rating 'nan' is not a number",
                     ["75\t1\tnan\n"])

    def test_no_ratings(self):
        self.refused([self.ratings], "no ratings after the header", [])

    def test_more_groups_than_users(self):
        self.refused([self.ratings, "--clients", "13"], "12 users cannot make 13 groups")

    def test_a_group_pair_without_ratings(self):
        self.refused([self.ratings, "--clients", "2", "--arms", "2"],
                     "the file is too small for this many groups",
                     ["75\t1\t4\n", "76\t2\t3\n"])

    def test_no_groups(self):
        self.refused([self.ratings, "--arms", "0"], "--clients and --arms must be at least 1")


class RandomMeans(unittest.TestCase):
    def test_the_recorded_large_m_matrix_is_its_seed(self):
        # results/large-m/ says its matrix is random_means.py --seed 7: check it is
        with tempfile.TemporaryDirectory() as temp:
            out = os.path.join(temp, "m.csv")
            done = run(RANDOM, "--clients", "40", "--arms", "4", "--seed", "7", "-o", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(out, "rb") as f, open(os.path.join(ROOT, "results", "large-m",
                                                         "means_40x4.csv"), "rb") as g:
                self.assertEqual(f.read(), g.read())
            means = read_matrix(out)
            self.assertEqual(means.shape, (40, 4))
            self.assertTrue(np.all((means >= 0) & (means < 1)))

    def test_bad_sizes_are_refused_and_nothing_written(self):
        with tempfile.TemporaryDirectory() as temp:
            out = os.path.join(temp, "m.csv")
            done = run(RANDOM, "--clients", "0", "--arms", "4", "--seed", "7", "-o", out)
            self.assertEqual(done.returncode, 2)
            self.assertIn("--clients and --arms must be at least 1", done.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
