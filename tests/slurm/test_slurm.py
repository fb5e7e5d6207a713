"""tools/slurm/'s scripts under a real Slurm cluster: one node on this
machine, started for these tests and stopped after them
(tools/slurm/local-cluster.sh). Each job's output must carry the digest of
the same experiment run by one process, as a researcher's cluster would
give it (docs/cluster.md).

The scripts are submitted as docs/cluster.md shows, from a working folder
with build/ in it (here a link to this build), with the options a 2-core
node needs over their #SBATCH lines (fewer cores and tasks). Nothing here
depends on timing: each wait is for a job's end, bounded only to fail
rather than hang (a job that cannot start), and the cancelled task is
cancelled a few seconds into work of tens of seconds."""

import json
import os
import re
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PFMAB = os.path.abspath(os.environ.get("PFMAB_BINARY", os.path.join(ROOT, "build", "pfmab")))
DATA = os.environ.get("PFMAB_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
SLURM = os.path.join(ROOT, "tools", "slurm")
# a job waits for the other tests of the suite to leave it cores: long
# enough for any load, short enough to fail rather than hang
WAIT_SECONDS = 900

# Three cells of PF-UCB on the synthetic game: a second or two of work.
QUICK = f"""seed = 29
replications = 40
horizon = 100000
alpha = [0, 0.5, 1]
[instance]
means = "{DATA}/synthetic_4x9.csv"
"""
# local-ucb draws every slot: about 0.1 s a replication, 20 s a task of two
SLOW = f"""seed = 30
replications = 400
horizon = 1000000
alpha = 0.5
[algorithm]
name = "local-ucb"
[instance]
means = "{DATA}/synthetic_4x9.csv"
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """SLURM_CONF's environment for the one-node cluster, running."""
    folder = tmp_path_factory.mktemp("cluster")
    started = subprocess.run([os.path.join(SLURM, "local-cluster.sh"), "start", str(folder)],
                             capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"),
               # Open MPI refuses root without these; CI runs as root
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        yield env
    finally:
        stopped = subprocess.run([os.path.join(SLURM, "local-cluster.sh"), "stop", str(folder)],
                                 capture_output=True, text=True)
        # each daemon was recognised as the cluster's own, and signalled
        assert stopped.returncode == 0 and stopped.stderr == "", stopped.stderr


@pytest.fixture
def workdir(tmp_path):
    """A folder to submit from, as a repository's root: build/ in it."""
    os.symlink(os.path.dirname(PFMAB), tmp_path / "build")
    return tmp_path


def run(args, env, cwd, check=True):
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    if check:
        assert done.returncode == 0, f"{' '.join(map(str, args))}: {done.stderr}"
    return done


def sbatch(env, cwd, *args):
    """The job id of `sbatch --parsable ARGS`."""
    return run(["sbatch", "--parsable", *args], env, cwd).stdout.strip().split(";")[0]


def states(job, env):
    """{job or array task id: state} of a job Slurm still knows."""
    shown = run(["scontrol", "show", "job", "-o", job], env, "/").stdout
    found = {}
    for line in shown.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        task = fields.get("ArrayTaskId")
        key = f"{fields['ArrayJobId']}_{task}" if task else fields["JobId"]
        found[key] = fields["JobState"]
    return found


def wait(job, env, until=("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                          "OUT_OF_MEMORY")):
    """Waits until every task of `job` is in a state of `until`."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        now = states(job, env)
        if now and all(s in until for s in now.values()):
            return now
        assert time.monotonic() < deadline, f"job {job} still {now} after {WAIT_SECONDS} s"
        time.sleep(0.5)


def digest(path):
    return json.loads(subprocess.run([PFMAB, "summary", str(path), "--json"], capture_output=True,
                                     text=True, check=True).stdout)["digest"]


def one_process(experiment, folder):
    """The digest of the experiment run by one process, the reference."""
    out = folder / "one-process.h5"
    subprocess.run([PFMAB, "run", str(experiment), "-o", str(out), "--quiet"], check=True,
                   capture_output=True)
    return digest(out)


def test_a_job_array_and_its_merge_give_one_process_digest(cluster, tmp_path):
    # submitted from a folder without build/: the jobs run this clone's
    workdir = tmp_path
    experiment = workdir / "quick.toml"
    experiment.write_text(QUICK)
    submitted = run([os.path.join(SLURM, "submit-array.sh"), str(experiment), "out.h5",
                     "--array=0-3", "--cpus-per-task=1"], cluster, workdir).stdout
    # its last line: what it submitted (the first: the experiment is valid)
    array, merge = re.fullmatch(r"array job (\d+), merge job (\d+) \(afterok\) -> out.h5",
                                submitted.splitlines()[-1]).groups()
    assert set(wait(merge, cluster).values()) == {"COMPLETED"}
    assert set(wait(array, cluster).values()) == {"COMPLETED"}
    assert len(states(array, cluster)) == 4  # four tasks, four shards
    assert sorted(os.listdir(workdir / "parts")) == [f"part-{i}.h5" for i in range(4)]
    assert digest(workdir / "out.h5") == one_process(experiment, workdir)


def test_an_mpi_job_of_two_ranks_gives_one_process_digest(cluster, workdir):
    experiment = workdir / "quick.toml"
    experiment.write_text(QUICK)
    job = sbatch(cluster, workdir, "--nodes=1", "--ntasks-per-node=2", "--cpus-per-task=1",
                 f"--export=ALL,EXPERIMENT={experiment},OUT=mpi.h5",
                 os.path.join(SLURM, "mpi.sbatch"))
    assert wait(job, cluster) == {job: "COMPLETED"}, (workdir / f"pfmab-mpi-{job}.out").read_text()
    shown = run(["scontrol", "show", "job", "-o", job], cluster, "/").stdout
    assert " NumTasks=2 " in shown
    assert digest(workdir / "mpi.h5") == one_process(experiment, workdir)


def test_a_cancelled_array_task_continues_where_it_stopped(cluster, workdir):
    experiment = workdir / "slow.toml"
    experiment.write_text(SLOW)
    array = sbatch(cluster, workdir, "--array=0-1", "--cpus-per-task=1",
                   f"--export=ALL,EXPERIMENT={experiment}", os.path.join(SLURM, "array.sbatch"))
    task = f"{array}_0"
    part = workdir / "parts" / "part-0.h5"
    # cancelled two seconds into its 20 s of work, once its part exists
    deadline = time.monotonic() + WAIT_SECONDS
    while not (states(array, cluster).get(task) == "RUNNING" and part.exists()):
        assert time.monotonic() < deadline, f"task {task} never ran: {states(array, cluster)}"
        time.sleep(0.2)
    time.sleep(2)
    run(["scancel", task], cluster, "/")
    wait(array, cluster)
    assert states(array, cluster)[task] == "CANCELLED"
    # the part is kept, unfinished: merging refuses it
    refused = run([PFMAB, "merge", *sorted(map(str, (workdir / "parts").iterdir())), "-o",
                   "out.h5"], cluster, workdir, check=False)
    assert refused.returncode == 2, refused.stderr
    assert "part-0.h5" in refused.stderr and not (workdir / "out.h5").exists()
    # the same task again (same array, same index: the same shard) continues it
    run(["scontrol", "requeue", task], cluster, "/")
    # Slurm holds a requeued job two minutes before it may start again
    run(["scontrol", "update", f"JobId={task}", "StartTime=now"], cluster, "/")
    assert wait(array, cluster)[task] == "COMPLETED"
    merged = run([PFMAB, "merge", *sorted(map(str, (workdir / "parts").iterdir())), "-o",
                  "out.h5"], cluster, workdir)
    assert merged.returncode == 0
    assert digest(workdir / "out.h5") == one_process(experiment, workdir)


def test_stop_signals_no_process_a_stale_pid_file_names(tmp_path):
    """A pid file left by a cluster that ended without stop may name a
    number since given to another process: stop leaves that process alone
    (no cluster needed)."""
    bystander = subprocess.Popen(["sleep", "300"])
    try:
        for daemon in ("slurmd", "slurmctld", "munged"):
            (tmp_path / f"{daemon}.pid").write_text(f"{bystander.pid}\n")
        stopped = subprocess.run([os.path.join(SLURM, "local-cluster.sh"), "stop", str(tmp_path)],
                                 capture_output=True, text=True)
        assert stopped.returncode == 0, stopped.stderr
        assert bystander.poll() is None  # still running
        assert stopped.stderr.count("which is not this cluster's") == 3, stopped.stderr
        assert not list(tmp_path.glob("*.pid"))
    finally:
        bystander.kill()
        bystander.wait()
