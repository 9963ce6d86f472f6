"""One cgroup per student process tree: memory, process and CPU limits, CPU time, and a kill switch.

Two implementations behind one interface (``JobCgroup``):

v1  the memory, pids, cpu and cpuacct hierarchies, each job beneath the grader's own
    cgroup in that hierarchy: <own>/autograder/<job>.
v2  the unified hierarchy: a job cgroup beneath the grader's own cgroup, with
    memory.max, memory.swap.max, pids.max and cpu.max where the parent delegates those
    controllers, and always cgroup.procs, cpu.stat and cgroup.kill. To delegate, a
    cgroup must hold no process of its own: when the grader is alone in its cgroup
    (a container's only process, or a scope started for it), it moves itself into a
    leaf beside the jobs and enables the controllers; otherwise the jobs get no
    controllers, and the limits they would have held fall back to rlimits (said so).

The grader, never the student, creates these cgroups, kills what is in them and
removes them.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

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


def v2_folder() -> Path | None:
    own = own_paths().get("")
    for mount in mounts():
        if mount.version == 2 and own is not None:
            folder = mount.path / own.lstrip("/")
            if folder.is_dir():
                return folder
    return None


STUCK: list[Path] = []  # job cgroups the kernel had not freed yet when their job ended


def _rmdir(folder: Path, timeout: float) -> bool:
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


def _write(path: Path, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


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

    def kill_all(self, timeout: float = 10.0) -> None:
        """SIGKILL every process in the job until none is left (forks in flight included)."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                raise OSError(f"processes {sorted(pids)} survived SIGKILL")
            time.sleep(0.002)

    def remove(self) -> None:
        self.kill_all()
        for folder in self.folders():
            if not _rmdir(folder, timeout=5.0):
                STUCK.append(folder)  # tried again when the grader closes

    def folders(self) -> list[Path]:
        raise NotImplementedError

    def describe(self) -> str:
        bounded = [what for what, on in (("memory", self.memory), ("processes", self.processes)) if on]
        return f"cgroup v{self.version}" + (f" ({', '.join(bounded)})" if bounded else " (CPU time and kill only)")


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
            _write(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
            try:  # without swap accounting the file is missing; the limit above still holds
                _write(memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            except OSError:
                pass
            self.memory = True
        if "pids" in self.by_controller:
            _write(self.by_controller["pids"] / "pids.max", str(limits.processes))
            self.processes = True
        if "cpu" in self.by_controller:
            try:
                _write(self.by_controller["cpu"] / "cpu.cfs_period_us", "100000")
                _write(self.by_controller["cpu"] / "cpu.cfs_quota_us", str(int(100000 * limits.cpus)))
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


class JobCgroupV2(JobCgroup):
    version = 2

    def __init__(self, parent: Path, job: str, limits: CgroupLimits, controllers: frozenset[str]):
        self.folder = parent / job
        self.folder.mkdir(exist_ok=True)
        if "memory" in controllers:
            _write(self.folder / "memory.max", str(limits.memory_bytes))
            try:
                _write(self.folder / "memory.swap.max", "0")
            except OSError:
                pass
            self.memory = True
        if "pids" in controllers:
            _write(self.folder / "pids.max", str(limits.processes))
            self.processes = True
        if "cpu" in controllers:
            _write(self.folder / "cpu.max", f"{int(100000 * limits.cpus)} 100000")

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

    def cpu_seconds(self) -> float | None:
        try:
            for line in (self.folder / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def out_of_memory(self) -> bool:
        try:
            for line in (self.folder / "memory.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def kill_all(self, timeout: float = 10.0) -> None:
        try:
            _write(self.folder / "cgroup.kill", "1")  # Linux 5.14 and newer: the whole tree at once
        except OSError:
            pass
        super().kill_all(timeout)


# ------------------------------------------------------------------ where jobs go


@dataclass
class Hierarchy:
    """Where this grader creates job cgroups, and how it cleans up."""

    version: int
    parents: dict[str, Path] = field(default_factory=dict)  # v1: controller -> <own>/autograder; v2: "" -> parent
    controllers: frozenset[str] = frozenset()  # v2: the controllers jobs get
    moved_from: Path | None = None  # v2: the cgroup the grader left to delegate it

    def job(self, name: str, limits: CgroupLimits) -> JobCgroup:
        if self.version == 1:
            return JobCgroupV1(self.parents, name, limits)
        return JobCgroupV2(self.parents[""], name, limits, self.controllers)

    def bounds(self, controller: str) -> bool:
        """Whether the job cgroups made here bound this ("memory", "pids")."""
        return controller in (self.parents if self.version == 1 else self.controllers)

    def describe(self) -> str:
        if self.version == 1:
            return "cgroup v1 (" + ", ".join(sorted(self.parents)) + ")"
        return "cgroup v2 (" + (", ".join(sorted(self.controllers)) or "no controllers: CPU time and kill only") + ")"

    def close(self) -> None:
        while STUCK:
            _rmdir(STUCK.pop(), timeout=10.0)
        if self.version == 1:
            for parent in self.parents.values():
                try:
                    parent.rmdir()  # only once no job is left in it (another grader may still use it)
                except OSError:
                    pass
        elif self.moved_from is not None:
            _restore(self.moved_from, self.parents[""])
        else:
            try:
                self.parents[""].rmdir()
            except OSError:
                pass


def find_hierarchy() -> tuple[Hierarchy | None, str]:
    """Where job cgroups can go here, and a sentence saying what they bound (or why there are none)."""
    folders = v1_folders()
    usable = {c: f for c, f in folders.items() if os.access(f, os.W_OK)}
    if "memory" in usable and "pids" in usable:
        parents = {}
        for controller, folder in usable.items():
            parent = folder / "autograder"
            try:
                parent.mkdir(exist_ok=True)
            except OSError:
                continue
            parents[controller] = parent
        if "memory" in parents and "pids" in parents:
            hierarchy = Hierarchy(1, parents)
            return hierarchy, hierarchy.describe()
    own = v2_folder()
    if own is None:
        return None, "no writable cgroup hierarchy here"
    if not os.access(own, os.W_OK) or not os.access(own / "cgroup.procs", os.W_OK):
        return None, f"cannot create cgroups beneath {own} (not delegated to this user)"
    return _delegate_v2(own)


def _controllers(folder: Path, name: str) -> set[str]:
    try:
        return set((folder / name).read_text().split())
    except OSError:
        return set()


def _delegate_v2(own: Path) -> tuple[Hierarchy | None, str]:
    available = _controllers(own, "cgroup.controllers") & set(WANTED_V2)
    parent = own / f"autograder-{os.getpid()}"
    try:
        parent.mkdir(exist_ok=True)
    except OSError as error:
        return None, f"cannot create cgroups beneath {own}: {error.strerror}"
    moved_from = None
    enabled = _controllers(own, "cgroup.subtree_control") & available
    missing = available - enabled
    if missing and not _enable(own, missing):
        if _alone_in(own):
            leaf = own / f"autograder-{os.getpid()}-grader"
            try:
                leaf.mkdir(exist_ok=True)
                _write(leaf / "cgroup.procs", str(os.getpid()))
                moved_from = own
            except OSError:
                pass
            if moved_from is not None and not _enable(own, missing):
                _restore(own, leaf)
                moved_from = None
    enabled = _controllers(own, "cgroup.subtree_control") & available
    if enabled:
        _enable(parent, enabled)
    jobs = _controllers(parent, "cgroup.subtree_control") & enabled
    hierarchy = Hierarchy(2, {"": parent}, frozenset(jobs), moved_from)
    if {"memory", "pids"} <= jobs:
        return hierarchy, hierarchy.describe()
    why = (
        f"the grader shares its cgroup {own} with other processes, so it cannot delegate controllers to jobs"
        if available - jobs
        else f"no memory or pids controller is available in {own}"
    )
    return hierarchy, f"{hierarchy.describe()}: {why}"


def _enable(folder: Path, controllers: set[str]) -> bool:
    try:
        _write(folder / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(controllers)))
        return True
    except OSError:
        return False


def _alone_in(folder: Path) -> bool:
    try:
        procs = {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
    except OSError:
        return False
    return procs == {os.getpid()}


def _restore(own: Path, parent: Path) -> None:
    """Give back a delegated cgroup: controllers off, the grader back in it, our folders gone."""
    try:
        _write(own / "cgroup.subtree_control", " ".join(f"-{c}" for c in WANTED_V2))
        _write(own / "cgroup.procs", str(os.getpid()))
    except OSError:
        pass
    for folder in (own / f"autograder-{os.getpid()}-grader", parent):
        try:
            folder.rmdir()
        except OSError:
            pass
