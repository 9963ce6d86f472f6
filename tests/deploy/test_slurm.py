"""Does docs/deploy/slurm/ grade a class on a real Slurm: a job array of shards, then the merge, the same class as
one grade-all?

The test starts a cluster of one node on this machine, as root (slurmd starts each job as the user who submitted
it): munged with a key of its own, then slurmctld and slurmd with a slurm.conf written into a temporary folder (its
own ports, state and spool folders, and no cgroups: proctrack/linuxproc, task/none). It runs grade-class.sh as an
instructor would (sbatch --array=1-3 for the shards, then the merge with --dependency=afterok on the array), waits
for the merge job, and compares its class with one grade-all of the same export. Slurm and munge are Debian's
slurm-wlm and munge (`make tools` installs them as root); without them, not as root, or where the daemons do not
start, the test is skipped and says why. The daemons are stopped, by their pid files, when it ends.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.config import GradingConfig
from autograder.deliver.grade_all import batch

from ..deliver.cohort import NAME, assert_same_class, cohort_on_canvas

pytestmark = pytest.mark.slow
SLURM = KIT_ROOT / "docs" / "deploy" / "slurm"
PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo")
DONE = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "DEADLINE")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def slurm_conf(folder: Path, host: str) -> str:
    """One node, this machine, as root; its own ports and folders; no cgroups; no accounting."""
    megabytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    return f"""ClusterName=kittest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={folder}/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory={megabytes * 9 // 10} State=UNKNOWN
PartitionName=grade Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def log_tails(folder: Path) -> str:
    return "\n".join(
        f"--- {log.name}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        for log in sorted(folder.rglob("*.log"))
    )


def stop(folder: Path) -> None:
    """The daemons this test started, each by its pid file, slurmd first."""
    for name in ("slurmd", "slurmctld", "munged"):
        try:
            pid = int((folder / f"{name}.pid").read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, IndexError):
            continue
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)


@pytest.fixture
def cluster(tmp_path):
    """A one-node Slurm cluster on this machine; the environment that reaches it (SLURM_CONF)."""
    missing = [program for program in PROGRAMS if not shutil.which(program)]
    if missing:
        pytest.skip(f"no {', '.join(missing)}: Debian's slurm-wlm and munge (`make tools` installs them as root)")
    if os.geteuid() != 0:
        pytest.skip("slurmd starts each job as the user who submitted it: a cluster on this machine needs root")
    folder = tmp_path / "slurm"
    for part in ("state", "spool"):
        (folder / part).mkdir(parents=True)
    os.chmod(tmp_path, 0o700)
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    conf = folder / "slurm.conf"
    conf.write_text(slurm_conf(folder, socket.gethostname().split(".")[0]))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    try:
        started = [
            ["munged", "--force", f"--key-file={key}", f"--socket={folder}/munge.socket",
             f"--pid-file={folder}/munged.pid", f"--log-file={folder}/munged.log", f"--seed-file={folder}/munged.seed"],
            ["slurmctld", "-f", str(conf)],
            ["slurmd", "-f", str(conf)],
        ]  # fmt: skip
        for command in started:  # each daemon forks into the background once it is up
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
            if done.returncode != 0:
                pytest.skip(f"{command[0]} did not start here: {done.stderr[-500:]}\n{log_tails(folder)}")
        for _ in range(60):
            state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True, timeout=30)
            if state.stdout.strip() == "idle":
                break
            time.sleep(0.5)
        else:
            pytest.skip(f"the node did not come up: {state.stdout}{state.stderr}\n{log_tails(folder)}")
        yield env
    finally:
        stop(folder)


def show_job(env: dict, job: str) -> str:
    """scontrol's lines for a job (one per array task), which it keeps for MinJobAge (300 s by default) after it ends."""
    return subprocess.run(["scontrol", "-o", "show", "job", job], env=env, capture_output=True, text=True).stdout


def job_state(env: dict, job: str, timeout: float = 600) -> str:
    """The job's state once it has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = re.search(r"JobState=(\S+)", show_job(env, job))
        if state and state.group(1) in DONE:
            return state.group(1)
        time.sleep(1)
    return "still running"


@pytest.mark.slow(seconds=17)
def test_a_job_array_of_shards_and_its_merge_are_one_grade_all(cluster, tmp_path):
    """grade-class.sh on a real Slurm: three array tasks each grade their shard, the merge starts once they have ended, and
    its class (summary.csv, Canvas's file, groups, alike pairs, reports, feedback) is one grade-all's?"""
    export, results = cohort_on_canvas(tmp_path / "canvas"), tmp_path / "results"
    env = {**cluster, "KIT": str(KIT_ROOT), "KIT_PYTHON": sys.executable, "EXPORT": str(export), "ASSIGNMENT": NAME,
           "RESULTS": str(results), "SHARDS": "3", "MERGE_OPTIONS": "--lms-column-id 55"}  # fmt: skip
    submitted = subprocess.run(
        [str(SLURM / "grade-class.sh"), "--cpus-per-task=1", "--mem=2G"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    array, merge = re.search(r"job array (\d+) \(3 tasks\); merge: job (\d+)", submitted.stdout).groups()
    state = job_state(cluster, merge)
    logs = log_tails(results / "logs") + log_tails(tmp_path / "slurm")
    assert state == "COMPLETED", logs
    tasks = re.findall(r"EndTime=(\S+)", show_job(cluster, array))
    assert len(tasks) == 3 and re.search(r"StartTime=(\S+)", show_job(cluster, merge)).group(1) >= max(tasks)
    for i in (1, 2, 3):
        assert f"shard {i}/3: " in (results / "logs" / f"shard-{i}.log").read_text(), logs
    assert "merged 3 shards" in (results / "logs" / "merge.log").read_text(), logs
    one = tmp_path / "one"
    assert batch.grade_all(export, NAME, one, GradingConfig(), jobs=2, progress=False, lms_column_id="55") == 0
    assert_same_class(one, results / "class")
