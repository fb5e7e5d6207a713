"""`python3 -m pfmab ARGS`: the command line, `pfmab ARGS`, run in this
interpreter, so that an experiment may name an algorithm written in Python
as "module:Class" (imported from the Python path). The pfmab binary
re-executes itself this way when it meets such a name (docs/python.md,
"A Python algorithm from the command line")."""

import sys

from ._engine import engine

sys.exit(engine().run_program(["pfmab", *sys.argv[1:]]))
