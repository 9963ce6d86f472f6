"""One cgroup per student process tree: memory, process and CPU limits, CPU time, and a kill switch.

Two implementations behind one interface (``JobCgroup``):

v1  the memory, pids, cpu and cpuacct hierarchies, each job beneath the grader's own
    cgroup in that hierarchy: <own>/autograder/<job>.
v2  the unified hierarchy: a job cgroup beneath a parent the grader makes, with
    memory.max, memory.swap.max, pids.max and cpu.max where the parent delegates those
    controllers, and always cgroup.procs, cpu.stat and cgroup.kill.

Where the jobs go, and what the grader does to have a parent that delegates, is
arrangement.py's. The grader, never the student, creates these cgroups, kills what is in
them and removes them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .kill import kill_until_gone

WANTED_V1 = ("memory", "pids", "cpu", "cpuacct")
WANTED_V2 = ("memory", "pids", "cpu")


@dataclass(frozen=True)
class Mount:
    path: Path
    version: int
    controllers: frozenset[str]


def mounts() -> list[Mount]:
    """The cgroup hierarchies mounted here, from /proc/self/mountinfo."""
    found: list[Mount] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, extra = left.split(), right.split()
        if len(fields) < 5 or len(extra) < 3:
            continue
        fstype, options = extra[0], set(extra[2].split(","))
        if fstype == "cgroup2":
            found.append(Mount(Path(fields[4]), 2, frozenset()))
        elif fstype == "cgroup":
            found.append(Mount(Path(fields[4]), 1, frozenset(options & set(WANTED_V1))))
    return found


def own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and under "" for v2."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def v1_folders() -> dict[str, Path]:
    """The grader's own cgroup folder in each wanted v1 controller that is mounted."""
    own = own_paths()
    folders = {}
    for mount in mounts():
        if mount.version != 1:
            continue
        for controller in mount.controllers:
            if controller in own:
                folder = mount.path / own[controller].lstrip("/")
                if folder.is_dir():
                    folders[controller] = folder
    return folders


STUCK: list[Path] = []  # job cgroups the kernel had not freed yet when their job ended


def remove_empty(folder: Path, timeout: float) -> bool:
    """Remove an empty cgroup, waiting for the kernel to free it (a moment after its last process)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)


def write_value(path: Path, text: str) -> None:
    """Write a cgroup file (a limit, a controller list, a pid)."""
    with open(path, "w") as file:
        file.write(text)


def make_folder(folder: Path) -> None:
    """Create a cgroup (a folder of the hierarchy); one already there is taken as it is."""
    folder.mkdir(exist_ok=True)


# ------------------------------------------------------------------ the interface


@dataclass
class CgroupLimits:
    memory_bytes: int
    processes: int
    cpus: float = 1.0  # at most this many cores at once


class JobCgroup:
    """The cgroup(s) of one student process tree."""

    memory: bool = False  # whether the cgroup bounds its memory
    processes: bool = False  # ... and how many processes it may hold
    version: int = 0

    @property
    def procs_files(self) -> list[str]:
        raise NotImplementedError

    def pids(self) -> set[int]:
        raise NotImplementedError

    def cpu_seconds(self) -> float | None:
        raise NotImplementedError

    def out_of_memory(self) -> bool:
        raise NotImplementedError

    def reached_memory_limit(self) -> bool:
        """Whether a charge of its memory ever met the limit. A hog near it can spend its CPU time or its wall time
        in the kernel's reclaim (evicting the pages of the libraries it runs, faulting them back) before any
        kill: a time limit met after this is told as the memory it is."""
        return False

    def kill_all(self, timeout: float = 10.0) -> None:
        """SIGKILL every process in the job until none is left (forks in flight included)."""
        kill_until_gone(lambda: sorted(self.pids()), f"the job cgroup {self.folders()[0]}", timeout)

    def remove(self) -> None:
        self.kill_all()
        for folder in self.folders():
            if not remove_empty(folder, timeout=5.0):
                STUCK.append(folder)  # tried again when the grader closes

    def folders(self) -> list[Path]:
        raise NotImplementedError

    def describe(self) -> str:
        bounded = [what for what, on in (("memory", self.memory), ("processes", self.processes)) if on]
        return f"cgroup v{self.version}" + (f" ({', '.join(bounded)})" if bounded else " (CPU time and kill only)")


NEAR_THE_LIMIT = 2 << 20  # a peak this close to the limit met it: the last charge may be a huge page's that failed


class JobCgroupV1(JobCgroup):
    version = 1

    def __init__(self, parents: dict[str, Path], job: str, limits: CgroupLimits):
        self.by_controller = {}
        for controller, parent in parents.items():
            folder = parent / job
            folder.mkdir(parents=True, exist_ok=True)
            self.by_controller[controller] = folder
        if "memory" in self.by_controller:
            memory = self.by_controller["memory"]
            write_value(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
            try:  # without swap accounting the file is missing; the limit above still holds
                write_value(memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            except OSError:
                pass
            self.memory = True
        if "pids" in self.by_controller:
            write_value(self.by_controller["pids"] / "pids.max", str(limits.processes))
            self.processes = True
        if "cpu" in self.by_controller:
            try:
                write_value(self.by_controller["cpu"] / "cpu.cfs_period_us", "100000")
                write_value(self.by_controller["cpu"] / "cpu.cfs_quota_us", str(int(100000 * limits.cpus)))
            except OSError:
                pass

    def folders(self) -> list[Path]:
        return list(self.by_controller.values())

    @property
    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.by_controller.values()]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.by_controller.values():
            try:
                found |= {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        return found

    def cpu_seconds(self) -> float | None:
        folder = self.by_controller.get("cpuacct")
        try:
            return int((folder / "cpuacct.usage").read_text()) / 1e9 if folder else None
        except (OSError, ValueError):
            return None

    def out_of_memory(self) -> bool:
        folder = self.by_controller.get("memory")
        if folder is None:
            return False
        try:
            for line in (folder / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return int((folder / "memory.failcnt").read_text()) > 0 and self.pids() == set()
        except OSError:
            return False

    def reached_memory_limit(self) -> bool:
        """A failed charge counted, or the peak within NEAR_THE_LIMIT of the limit: for memory, and for memory
        and swap together where swap is accounted. The peak is what tells it on recent kernels (6.18 here), whose
        v1 failcnt stays 0 even as the limit kills (a charge met the limit: the OOM killer ran, failcnt 0)."""
        folder = self.by_controller.get("memory")
        if folder is None:
            return False
        try:
            limit = int((folder / "memory.limit_in_bytes").read_text())
        except (OSError, ValueError):
            return False
        for counter in ("memory", "memory.memsw"):
            try:
                failed = int((folder / f"{counter}.failcnt").read_text())
                peak = int((folder / f"{counter}.max_usage_in_bytes").read_text())
            except (OSError, ValueError):
                continue
            if failed > 0 or peak >= limit - NEAR_THE_LIMIT:
                return True
        return False


class JobCgroupV2(JobCgroup):
    version = 2

    def __init__(self, parent: Path, job: str, limits: CgroupLimits, controllers: frozenset[str]):
        self.folder = parent / job
        make_folder(self.folder)
        if "memory" in controllers:
            write_value(self.folder / "memory.max", str(limits.memory_bytes))
            try:
                write_value(self.folder / "memory.swap.max", "0")
            except OSError:
                pass
            self.memory = True
        if "pids" in controllers:
            write_value(self.folder / "pids.max", str(limits.processes))
            self.processes = True
        if "cpu" in controllers:
            write_value(self.folder / "cpu.max", f"{int(100000 * limits.cpus)} 100000")

    def folders(self) -> list[Path]:
        return [self.folder]

    @property
    def procs_files(self) -> list[str]:
        return [str(self.folder / "cgroup.procs")]

    def pids(self) -> set[int]:
        try:
            return {int(pid) for pid in (self.folder / "cgroup.procs").read_text().split()}
        except OSError:
            return set()

    def _counter(self, file: str, key: str) -> int | None:
        """One counter of a flat keyed file (cpu.stat, memory.events: "key value" lines); None where unread."""
        try:
            for line in (self.folder / file).read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except (OSError, ValueError):
            pass
        return None

    def cpu_seconds(self) -> float | None:
        usage = self._counter("cpu.stat", "usage_usec")
        return None if usage is None else usage / 1e6

    def out_of_memory(self) -> bool:
        return (self._counter("memory.events", "oom_kill") or 0) > 0

    def reached_memory_limit(self) -> bool:
        return self.memory and (self._counter("memory.events", "max") or 0) > 0

    def kill_all(self, timeout: float = 10.0) -> None:
        try:
            write_value(self.folder / "cgroup.kill", "1")  # Linux 5.14 and newer: the whole tree at once
        except OSError:
            pass
        super().kill_all(timeout)
