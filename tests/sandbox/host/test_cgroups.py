"""Job cgroups: what the kernel's files say read right, the limits written in each version's words, and a real job
killed and removed where this machine has a hierarchy the grader may use."""

import os
import signal
from pathlib import Path

import pytest

from autograder.sandbox.host import cgroups
from autograder.sandbox.host.cgroups import CgroupLimits, Hierarchy, JobCgroupV1, JobCgroupV2

GiB = 1024**3
LIMITS = CgroupLimits(memory_bytes=2 * GiB, processes=32, cpus=0.5)


@pytest.fixture
def proc(monkeypatch, tmp_path):
    """Stand-ins for /proc/self/mountinfo and /proc/self/cgroup: write(name, text)."""
    files = {}

    def fake_path(path, *more):
        return Path(files.get(str(path), path), *more)

    def write(name: str, text: str) -> None:
        files[f"/proc/self/{name}"] = tmp_path / name
        (tmp_path / name).write_text(text)

    monkeypatch.setattr(cgroups, "Path", fake_path)
    return write


MOUNTINFO = """\
25 30 0:23 / /sys rw,nosuid shared:7 - sysfs sysfs rw
33 25 0:28 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
34 25 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
35 25 0:30 / /sys/fs/cgroup/freezer rw,nosuid - cgroup cgroup rw,freezer
36 25 0:31 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
a line the kernel never writes
"""


def test_the_mounted_hierarchies_are_read_with_the_controllers_wanted(proc):
    """From mountinfo: is each cgroup mount found with its version and the wanted controllers it holds only,
    and every other mount and a malformed line passed over?"""
    proc("mountinfo", MOUNTINFO)
    assert cgroups.mounts() == [
        cgroups.Mount(Path("/sys/fs/cgroup/memory"), 1, frozenset({"memory"})),
        cgroups.Mount(Path("/sys/fs/cgroup/cpu,cpuacct"), 1, frozenset({"cpu", "cpuacct"})),
        cgroups.Mount(Path("/sys/fs/cgroup/freezer"), 1, frozenset()),
        cgroups.Mount(Path("/sys/fs/cgroup/unified"), 2, frozenset()),
    ]


def test_the_graders_own_cgroups_are_read_per_controller(proc):
    """From /proc/self/cgroup: is each v1 controller's path found (joined ones apart), and v2's under ''?"""
    proc("cgroup", "12:memory:/job/a\n4:cpu,cpuacct:/job/b\n1:name=systemd:/c\n0::/user.slice/d\n")
    assert cgroups.own_paths() == {
        "memory": "/job/a",
        "cpu": "/job/b",
        "cpuacct": "/job/b",
        "name=systemd": "/c",
        "": "/user.slice/d",
    }


def test_a_v2_job_writes_its_limits_and_reads_its_counters(tmp_path):
    """In a v2 job: are memory.max, memory.swap.max, pids.max and cpu.max written in v2's words, and CPU
    time, processes and an out-of-memory kill read from its files?"""
    job = JobCgroupV2(tmp_path, "job", LIMITS, frozenset({"memory", "pids", "cpu"}))
    folder = tmp_path / "job"
    assert {name: (folder / name).read_text() for name in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")} == {
        "memory.max": str(2 * GiB),
        "memory.swap.max": "0",
        "pids.max": "32",
        "cpu.max": "50000 100000",
    }
    assert job.memory and job.processes and job.describe() == "cgroup v2 (memory, processes)"
    assert job.procs_files == [str(folder / "cgroup.procs")]
    (folder / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n")
    (folder / "cgroup.procs").write_text("12\n34\n")
    assert job.cpu_seconds() == 2.5 and not job.out_of_memory() and job.pids() == {12, 34}
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert job.out_of_memory()


def test_a_v2_job_without_controllers_bounds_nothing_and_says_so(tmp_path):
    """Where the jobs get no controllers: is nothing written but the folder, and the job described as CPU time and
    kill only (its counters absent read as unknown, not as zero)?"""
    job = JobCgroupV2(tmp_path, "job", LIMITS, frozenset())
    assert sorted(os.listdir(tmp_path / "job")) == []
    assert not job.memory and not job.processes
    assert job.describe() == "cgroup v2 (CPU time and kill only)"
    assert job.cpu_seconds() is None and not job.out_of_memory() and job.pids() == set()


def test_a_v1_job_writes_each_controllers_limits_and_reads_its_counters(tmp_path):
    """In a v1 job: are the memory (with swap), pids and CFS limits written in each controller's folder, CPU time
    read in nanoseconds, and an out-of-memory kill or a failed charge with nothing left read as out of memory?"""
    parents = {c: tmp_path / c for c in ("memory", "pids", "cpu", "cpuacct")}
    job = JobCgroupV1(parents, "job", LIMITS)
    assert (tmp_path / "memory" / "job" / "memory.limit_in_bytes").read_text() == str(2 * GiB)
    assert (tmp_path / "memory" / "job" / "memory.memsw.limit_in_bytes").read_text() == str(2 * GiB)
    assert (tmp_path / "pids" / "job" / "pids.max").read_text() == "32"
    assert (tmp_path / "cpu" / "job" / "cpu.cfs_quota_us").read_text() == "50000"
    assert (tmp_path / "cpu" / "job" / "cpu.cfs_period_us").read_text() == "100000"
    assert job.describe() == "cgroup v1 (memory, processes)"
    assert sorted(job.procs_files) == sorted(str(parents[c] / "job" / "cgroup.procs") for c in parents)
    (tmp_path / "cpuacct" / "job" / "cpuacct.usage").write_text("1500000000\n")
    assert job.cpu_seconds() == 1.5
    memory = tmp_path / "memory" / "job"
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 0\n")
    (memory / "memory.failcnt").write_text("0\n")
    (memory / "cgroup.procs").write_text("7\n")
    assert not job.out_of_memory()
    (memory / "memory.failcnt").write_text("4\n")
    assert not job.out_of_memory(), "a failed charge while its process still runs is no kill"
    (memory / "cgroup.procs").write_text("")
    for folder in parents.values():
        (folder / "job" / "cgroup.procs").write_text("")
    assert job.out_of_memory()
    (memory / "memory.failcnt").write_text("0\n")
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    assert job.out_of_memory()


def test_a_v1_job_without_memory_or_pids_bounds_neither(tmp_path):
    """With only the cpu controllers: is the job's memory unbounded (rlimits then), and its CPU time still read?"""
    job = JobCgroupV1({"cpuacct": tmp_path / "cpuacct"}, "job", LIMITS)
    assert not job.memory and not job.processes and not job.out_of_memory()
    assert job.describe() == "cgroup v1 (CPU time and kill only)"


def test_a_hierarchy_says_what_its_jobs_bound():
    """Does a hierarchy bound memory or processes exactly when its jobs get that controller, and say which?"""
    v1 = Hierarchy(1, {"memory": Path("/m"), "pids": Path("/p"), "cpuacct": Path("/c")})
    assert v1.bounds("memory") and v1.bounds("pids") and v1.describe() == "cgroup v1 (cpuacct, memory, pids)"
    v2 = Hierarchy(2, {"": Path("/x")}, frozenset({"pids", "cpu"}))
    assert not v2.bounds("memory") and v2.bounds("pids") and v2.describe() == "cgroup v2 (cpu, pids)"
    assert Hierarchy(2, {"": Path("/x")}).describe() == "cgroup v2 (no controllers: CPU time and kill only)"


def test_without_a_writable_hierarchy_there_are_no_jobs_and_it_is_said(monkeypatch):
    """With no v1 memory and pids the grader may use and no v2 cgroup of its own: no hierarchy, said so?"""
    monkeypatch.setattr(cgroups, "v1_folders", lambda: {})
    monkeypatch.setattr(cgroups, "v2_folder", lambda: None)
    assert cgroups.find_hierarchy() == (None, "no writable cgroup hierarchy here")


def test_v1_with_memory_and_pids_gets_jobs_beneath_the_graders_own(monkeypatch, tmp_path):
    """With writable v1 memory and pids folders: are the jobs put in an 'autograder' folder beneath each, and is
    that folder removed on close once no job is left?"""
    folders = {c: tmp_path / c for c in ("memory", "pids", "cpuacct")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.setattr(cgroups, "v1_folders", lambda: folders)
    hierarchy, said = cgroups.find_hierarchy()
    assert hierarchy is not None and hierarchy.version == 1
    assert hierarchy.parents == {c: folder / "autograder" for c, folder in folders.items()}
    assert said == "cgroup v1 (cpuacct, memory, pids)"
    hierarchy.close()
    assert not any((folder / "autograder").exists() for folder in folders.values())


def test_v2_without_controllers_to_delegate_says_which_are_missing(tmp_path):
    """Where the grader's v2 cgroup offers no memory or pids controller: jobs for CPU time and kill only, and the
    sentence says so, naming the cgroup?"""
    (tmp_path / "cgroup.controllers").write_text("io rdma\n")
    (tmp_path / "cgroup.subtree_control").write_text("io\n")
    hierarchy, said = cgroups._delegate_v2(tmp_path)
    assert hierarchy is not None and not hierarchy.bounds("memory") and not hierarchy.bounds("pids")
    assert said.endswith(f"no memory or pids controller is available in {tmp_path}")
    assert hierarchy.parents[""] == tmp_path / f"autograder-{os.getpid()}"
    hierarchy.close()
    assert not hierarchy.parents[""].exists()


def real_hierarchy() -> Hierarchy:
    hierarchy, said = cgroups.find_hierarchy()
    if hierarchy is None or not hierarchy.bounds("pids"):
        pytest.skip(f"no cgroup hierarchy with the pids controller for this user here: {said}")
    return hierarchy


def test_a_real_job_holds_its_forks_and_kill_all_ends_them(monkeypatch):
    """In a real job cgroup: does a process put in it, and the child it forks, show in pids(), and does
    kill_all end both and remove leave no folder?"""
    hierarchy = real_hierarchy()
    job = hierarchy.job(f"{os.getpid()}-test-cgroups", CgroupLimits(256 * 1024**2, 8))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # joins the job, forks, says so, then waits to be killed
        try:
            for procs in job.procs_files:
                with open(procs, "w") as file:
                    file.write(str(os.getpid()))
            if os.fork() == 0:
                signal.pause()
            os.write(write, b"x")
            signal.pause()
        finally:
            os._exit(1)
    os.close(write)
    try:
        assert os.read(read, 1) == b"x", "the child could not join the job"
        assert len(job.pids()) == 2 and pid in job.pids()
        job.kill_all()
        assert job.pids() == set()
    finally:
        os.close(read)
        for leftover in job.pids() | {pid}:  # whatever a failing kill_all left
            try:
                os.kill(leftover, signal.SIGKILL)
            except ProcessLookupError:
                pass
        status = os.waitpid(pid, 0)[1]
        job.remove()
        hierarchy.close()
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL
    assert not any(folder.exists() for folder in job.folders())
