"""Job cgroups: what the kernel's files say read right, the limits written in each version's words, and a real job
killed and removed where this machine has a hierarchy the grader may use."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.host import arrangement, cgroups
from autograder.sandbox.host.cgroups import CgroupLimits, JobCgroupV1, JobCgroupV2

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
    assert job.reached_memory_limit(), "memory.events' max: a charge met memory.max"
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert job.out_of_memory()
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    assert not job.reached_memory_limit()


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
    (memory / "memory.max_usage_in_bytes").write_text(f"{GiB}\n")
    (memory / "cgroup.procs").write_text("7\n")
    assert not job.out_of_memory() and not job.reached_memory_limit()
    (memory / "memory.failcnt").write_text("4\n")
    assert not job.out_of_memory(), "a failed charge while its process still runs is no kill"
    assert job.reached_memory_limit()
    (memory / "memory.failcnt").write_text("0\n")
    (memory / "memory.memsw.failcnt").write_text("0\n")
    (memory / "memory.memsw.max_usage_in_bytes").write_text(f"{2 * GiB}\n")
    assert job.reached_memory_limit(), "Linux 6.18 kills at the limit with failcnt 0: the peak says it"
    (memory / "memory.memsw.max_usage_in_bytes").write_text(f"{GiB}\n")
    assert not job.reached_memory_limit()
    (memory / "memory.failcnt").write_text("4\n")
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
    assert not job.memory and not job.processes and not job.out_of_memory() and not job.reached_memory_limit()
    assert job.describe() == "cgroup v1 (CPU time and kill only)"


def test_a_real_job_past_its_memory_limit_is_seen_to_have_reached_it():
    """Where this machine has a hierarchy that bounds memory: is a process that allocates past its job's limit seen to
    have reached it (on Linux 6.18's cgroup v1 the failcnt files stay 0 though the OOM killer ran), and a job whose
    process stays well under it not?"""
    hierarchy, found = arrangement.arrange()
    if hierarchy is None or not hierarchy.bounds("memory"):
        pytest.skip(f"no cgroup hierarchy here bounds a job's memory: {found}")
    try:
        for name, allocated, reached in (("over", 400, True), ("under", 16, False)):
            job = hierarchy.job(f"{os.getpid()}-reach-{name}", CgroupLimits(256 << 20, 32))
            try:
                script = "import sys; sys.stdin.read(1); b = bytearray(%d << 20); b[::4096] = b'x' * len(b[::4096])"
                child = subprocess.Popen([sys.executable, "-S", "-c", script % allocated], stdin=subprocess.PIPE)
                for procs in job.procs_files:
                    Path(procs).write_text(str(child.pid))
                child.communicate(b"x", timeout=60)
                assert job.reached_memory_limit() is reached, (name, child.returncode)
            finally:
                job.remove()
    finally:
        hierarchy.close()
