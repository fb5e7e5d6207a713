"""pfmab from Python: run personalized federated bandit sweeps on the
engine of the command line, and read their results as pandas and xarray.

    import pfmab
    r = pfmab.run("results/synthetic-quickstart/experiment.toml", replications=100)
    r.summary                  # a DataFrame, a row per cell
    r.series("regret")         # an xarray DataArray (cell, replication, checkpoint)
    pfmab.open("out.h5")       # the same Results from an output file

docs/python.md has the whole of it.
"""

from .errors import ExperimentError, OutputError
from .experiment import Validation, bounds, validate
from .results import Results, open  # noqa: A004
from .running import run

__all__ = ["ExperimentError", "OutputError", "Results", "Validation", "bounds", "open", "run",
           "validate"]
