"""An algorithm written in Python, named "module:Class": run by the command
line (the pfmab binary re-executes itself as `python3 -m pfmab`) and its job
arrays, and by pfmab.run on several worker processes, each with the digest
of the C++ explore-then-commit; the errors of a name that is no class, of a
class workers cannot import, and of a policy failing in one worker; Ctrl-C
on several processes, and the same call resuming."""

import inspect
import json
import os
import subprocess
import sys

import pytest

import pfmab
from conftest import PFMAB, SYNTHETIC, cli, cli_json
from test_interrupt import interrupting
from test_python_algorithm import FLAGS, GAME, ExploreThenCommit

MODULE = "written_policies"  # the module file the tests write
NAME = f"{MODULE}:ExploreThenCommit"


class FailingOnce(ExploreThenCommit):
    """Raises in the one process that first removes the marker file named
    by PFMAB_TEST_FAIL_MARKER: of several workers, exactly one fails."""

    def plan(self, m):
        try:
            os.remove(os.environ["PFMAB_TEST_FAIL_MARKER"])
        except (KeyError, FileNotFoundError):
            return super().plan(m)
        raise ZeroDivisionError("this worker's policy fails")


@pytest.fixture(scope="module")
def module_path(tmp_path_factory):
    """A folder holding written_policies.py, the tests' classes as a user's
    module, put on this process's path (workers take the parent's path)."""
    folder = tmp_path_factory.mktemp("policies")
    (folder / f"{MODULE}.py").write_text(
        "import os\n\nimport pfmab\n\n\n" + inspect.getsource(ExploreThenCommit) + "\n\n" +
        inspect.getsource(FailingOnce))
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))


def with_path(folder):
    return dict(os.environ, PYTHONPATH=f"{folder}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")


def cpp_digest(*extra):
    return cli_json("run", *FLAGS, "--algorithm", "explore-then-commit", "-q", *extra)["digest"]


def test_the_command_line_runs_it_by_name_and_as_an_array_of_shards(module_path, tmp_path):
    env = with_path(module_path)
    expected = cpp_digest()

    def run(*command):
        done = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert run(PFMAB, "run", *FLAGS, "--algorithm", NAME, "-q")["digest"] == expected
    assert run(sys.executable, "-m", "pfmab", "run", *FLAGS, "--algorithm", NAME,
               "-q")["digest"] == expected
    # an experiment file naming it, its option swept, as a job array would run it
    experiment = tmp_path / "experiment.toml"
    experiment.write_text(
        f'seed = 5\nreplications = 20\nhorizon = 1e5\nalpha = [0, 0.5, 1]\n'
        f'[instance]\nmeans = "{SYNTHETIC}"\n'
        f'[algorithm]\nname = "{NAME}"\npulls_per_arm = [50, 200]\n')
    parts = [tmp_path / f"part-{i}.h5" for i in range(2)]
    for i, part in enumerate(parts):
        run(PFMAB, "run", experiment, "--shard", f"{i}/2", "-o", part, "-q")
    merged = run(PFMAB, "merge", *parts, "-o", tmp_path / "merged.h5")
    assert merged["digest"] == cpp_digest("--pulls-per-arm", "50,200")
    assert {cell["keys"]["algorithm"] for cell in merged["cells"]} == {NAME}
    # validate and bounds take it too
    assert run(PFMAB, "bounds", experiment)["cells"]
    done = subprocess.run([PFMAB, "validate", experiment], capture_output=True, text=True,
                          env=env)
    assert "valid: 6 cells x 20 replications" in done.stdout


def test_a_file_naming_no_class_is_refused_at_its_line(tmp_path):
    experiment = tmp_path / "experiment.toml"
    experiment.write_text(f'[instance]\nmeans = "{SYNTHETIC}"\n'
                          '[algorithm]\nname = "no_such_policies:Policy"\npulls_per_arm = 50\n')
    done = cli("run", experiment, "-o", tmp_path / "out.h5", check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pfmab: error: {experiment}:4:8: key 'algorithm.name': algorithm "
        "'no_such_policies:Policy': no module named 'no_such_policies' on the Python path "
        "(PYTHONPATH)"]
    assert not (tmp_path / "out.h5").exists()


@pytest.mark.parametrize("mode", ["aggregated", "per-pull"])
@pytest.mark.parametrize("threads", [1, 2])
def test_processes_1_and_2_give_the_digest_of_the_cpp_one(module_path, mode, threads):
    expected = cpp_digest("--mode", mode)
    for processes in (1, 2):
        r = pfmab.run(**GAME, algorithm=NAME, mode=mode, threads=threads, processes=processes,
                      progress=False)
        assert r.digest == expected, f"processes={processes}"


def test_processes_merge_into_the_output_and_report_progress_as_one(module_path, tmp_path):
    output = tmp_path / "out.h5"
    reports = []
    r = pfmab.run(**GAME, algorithm=NAME, processes=2, output=output, progress=reports.append)
    assert r.digest == cpp_digest()
    assert sorted(os.listdir(tmp_path)) == ["out.h5"]  # the parts merged and removed
    assert reports[-1]["done"] == reports[-1]["total"] == 60
    assert pfmab.open(output).digest == r.digest


def test_a_class_in_main_is_refused_with_processes(tmp_path):
    in_main = type("Policy", (ExploreThenCommit,), {"__module__": "__main__"})
    with pytest.raises(pfmab.ExperimentError,
                       match=r"^processes=2: algorithm '__main__:Policy' is defined in __main__ "
                             r"\(a notebook cell or a script\).*put it in a module"):
        pfmab.run(**GAME, algorithm=in_main, processes=2, output=tmp_path / "out.h5")
    assert os.listdir(tmp_path) == []
    assert pfmab.run(**GAME, algorithm=in_main, processes=1, progress=False).digest == \
        cpp_digest()


def test_a_policy_failing_in_one_worker_is_raised_with_its_traceback(module_path, tmp_path):
    marker = tmp_path / "fail-once"
    marker.touch()
    os.environ["PFMAB_TEST_FAIL_MARKER"] = str(marker)
    try:
        with pytest.raises(ZeroDivisionError) as raised:
            pfmab.run(**GAME, algorithm=f"{MODULE}:FailingOnce", processes=2,
                      output=tmp_path / "out.h5", progress=False)
    finally:
        del os.environ["PFMAB_TEST_FAIL_MARKER"]
    said = str(raised.value)
    assert said.startswith("this worker's policy fails\n\nin worker ")
    assert "Traceback (most recent call last)" in said
    assert 'raise ZeroDivisionError("this worker\'s policy fails")' in said
    assert f"{MODULE}.py" in said and "in plan" in said
    assert not (tmp_path / "out.h5").exists()  # nothing merged
    # the same call, the policy no longer failing, resumes to the whole digest
    assert pfmab.run(**GAME, algorithm=f"{MODULE}:FailingOnce", processes=2,
                     output=tmp_path / "out.h5", progress=False).digest == cpp_digest()


def test_ctrl_c_stops_every_worker_and_the_same_call_resumes(module_path, tmp_path):
    long = dict(GAME, replications=40000)  # 3 cells: a few seconds in Python
    output = tmp_path / "out.h5"
    progress, helper = interrupting(after=1000)
    with pytest.raises(KeyboardInterrupt,
                       match=r"^interrupted: \d+ of 120000 replications are in the 2 parts "
                             r"beside '.*out.h5'; run the same call to continue$") as caught:
        pfmab.run(**long, algorithm=NAME, output=output, processes=2, progress=progress)
    helper.join()
    kept = int(str(caught.value).split()[1])
    assert 1000 <= kept < 120000
    assert sorted(os.listdir(tmp_path)) == ["out.h5.part-0-of-2", "out.h5.part-1-of-2"]
    resumed = pfmab.run(**long, algorithm=NAME, output=output, processes=2, progress=False)
    whole = cli_json("run", "--means", SYNTHETIC, "--alpha", "0,0.5,1", "-T", "1e5", "--seed",
                     "5", "-R", "40000", "-q", "--algorithm", "explore-then-commit")
    assert resumed.digest == whole["digest"]
    assert sorted(os.listdir(tmp_path)) == ["out.h5"]


def test_the_binary_names_what_to_run_if_python_cannot_start(tmp_path):
    env = dict(os.environ, PFMAB_PYTHON=str(tmp_path / "no-python"))
    done = subprocess.run([PFMAB, "run", *FLAGS, "--algorithm", NAME, "-q"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2
    assert done.stderr.startswith(f"pfmab: error: --algorithm (key 'algorithm.name'): algorithm "
                                  f"'{NAME}' is a Python class, which the command line runs "
                                  f"under Python: {tmp_path / 'no-python'} cannot be started")
