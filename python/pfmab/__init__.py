"""pfmab from Python: run personalized federated bandit sweeps on the
engine of the command line, and read their results as pandas and xarray.

    import pfmab
    r = pfmab.run("results/synthetic-quickstart/experiment.toml", replications=100)
    r.summary                  # a DataFrame, a row per cell
    r.series("regret")         # an xarray DataArray (cell, replication, checkpoint)
    pfmab.open("out.h5")       # the same Results from an output file

docs/python.md has the whole of it.
"""

from . import _requirements

_requirements.check()  # before the first module that needs numpy

from .algorithm import Algorithm, Context, Option  # noqa: E402
from .errors import ExperimentError, OutputError, PolicyError  # noqa: E402
from .experiment import Validation, bounds, validate  # noqa: E402
from .results import Results, open  # noqa: A004,E402
from .running import run  # noqa: E402

__all__ = ["Algorithm", "Context", "ExperimentError", "Option", "OutputError", "PolicyError",
           "Results", "Validation", "bounds", "open", "run", "validate"]
