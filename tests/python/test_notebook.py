"""docs/notebooks/study.ipynb, executed as Jupyter would (nbclient, a
python3 kernel): it runs without an error, its progress bar reaches the
end, it draws its figure, and its sweep is the command line's, digest for
digest; the outputs it is shipped with are that run's."""

import json
import os
import shutil

import nbclient
import nbformat

from conftest import DATA, ROOT, cli

NOTEBOOK = os.path.join(ROOT, "docs", "notebooks", "study.ipynb")
# the notebook's sweep, as flags
SWEEP = ["--seed", "2026", "--replications", "100", "--means", os.path.join(DATA, "synthetic_4x9.csv"),
         "--algorithm", "pf-ucb,pf-alloc", "--alpha", "0,0.5,0.9", "--horizon", "1e4,1e5,1e6,1e7"]


def outputs(notebook, kind):
    """Every output of `kind` (stream text, a MIME type's data) of every cell."""
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if kind in ("stdout", "stderr") and output.get("name") == kind:
                found.append(output["text"])
            elif kind in output.get("data", {}):
                found.append(output["data"][kind])
    return found


def test_the_study_notebook_runs_and_its_outputs_are_the_command_lines(tmp_path):
    shutil.copy(NOTEBOOK, tmp_path)
    shipped = nbformat.read(NOTEBOOK, as_version=4)
    executed = nbformat.read(tmp_path / "study.ipynb", as_version=4)
    # the kernel inherits this environment: the package and the data
    nbclient.NotebookClient(executed, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()

    digest = json.loads(cli("run", *SWEEP, "--quiet", "--json").stdout)["digest"]
    printed = "".join(outputs(executed, "stdout")).split()
    assert printed[-1] == digest
    # the shipped notebook shows this run's outputs, not an older one's
    assert "".join(outputs(shipped, "stdout")).split()[-1] == digest

    # tqdm's bar, as a notebook shows it: the last report is the whole run
    progress = "".join(outputs(executed, "stderr"))
    assert "2400/2400" in progress, progress[-500:]
    assert "<pfmab.Results 'study.h5': 24 cells, 2400 of 2400 replications>" in \
        outputs(executed, "text/plain")
    # the summary as a table of 24 cells (and its two header rows), the
    # figure drawn
    assert any(html.count("</tr>") == 2 + 24 for html in outputs(executed, "text/html"))
    assert len(outputs(executed, "image/png")) == 1
