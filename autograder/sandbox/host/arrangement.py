"""Where a grader's job cgroups go (``arrange``), and what it does to have a parent that delegates.

v1: beneath the grader's own cgroup in each of the memory, pids, cpu and cpuacct
hierarchies. v2: a cgroup delegates controllers only while it holds no process of its
own (cgroup v2's "no internal processes" rule; the root alone is exempt), so the grader
arranges the parent before it starts any child: beneath the root where it runs there;
beneath its own cgroup where it is alone in it (a container's only process, a scope
started for it), once it has moved into a leaf of it; else beside its own cgroup or
beneath an ancestor that holds no process. Where none can, the jobs get no controllers,
and the limits they would have held fall back to rlimits (said so, with the command that
gives the kit a cgroup of its own). What a grader killed before it could clean up left
(its pid in the name) is removed by the next grader to start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import cgroups
from .cgroups import STUCK, WANTED_V2, CgroupLimits, JobCgroup, JobCgroupV1, JobCgroupV2
from .kill import kill_until_gone

# ------------------------------------------------------------------ where jobs go


@dataclass
class Hierarchy:
    """Where this grader creates job cgroups, what it did to have them, and how it gives them back."""

    version: int
    parents: dict[str, Path] = field(default_factory=dict)  # v1: controller -> <own>/autograder; v2: "" -> parent
    controllers: frozenset[str] = frozenset()  # v2: the controllers jobs get
    moved_from: Path | None = None  # v2: the cgroup the grader left for a leaf of it, to delegate it
    how: str = ""  # what the grader did to have these cgroups, in words (doctor says it)
    pid: int = field(default_factory=os.getpid)  # the grader whose pid its cgroups' names carry
    owner: int = field(default_factory=os.getpid)  # the process that arranged it: only it gives it back (not a fork)
    users: int = 1  # graders of this process that share it (arrange): the last one to close gives it back

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
        global _ARRANGED
        self.users -= 1
        if self.users > 0 or self.owner != os.getpid():
            return
        if _ARRANGED is self:
            _ARRANGED = None
        while STUCK:
            cgroups.remove_empty(STUCK.pop(), timeout=10.0)
        if self.version == 1:
            for parent in self.parents.values():
                try:
                    parent.rmdir()  # only once no job is left in it (another grader may still use it)
                except OSError:
                    pass
        elif self.moved_from is not None:
            _restore(self.moved_from, self.parents[""], self.pid)
        else:
            cgroups.remove_empty(self.parents[""], timeout=1.0)


_ARRANGED: Hierarchy | None = None  # this process's arrangement, shared by its graders


def arrange() -> tuple[Hierarchy | None, str]:
    """Where this process's job cgroups go, and a sentence saying what they bound (or why there are none).

    Called before the grader starts any child process (a zygote, a worker): on cgroup v2 a
    cgroup can delegate controllers to its children only while it holds no process of its
    own, and each child of the grader would be one. The first call arranges; later calls
    of the same process share what it arranged (each closes it once). Job cgroups that a
    grader no longer running left behind are removed first."""
    global _ARRANGED
    if _ARRANGED is not None and _ARRANGED.owner == os.getpid() and _ARRANGED.users > 0:
        _ARRANGED.users += 1
        return _ARRANGED, _ARRANGED.describe()
    hierarchy, said = find_hierarchy()
    _ARRANGED = hierarchy
    return hierarchy, said


def find_hierarchy() -> tuple[Hierarchy | None, str]:
    """Job cgroups beneath the grader's own in v1 (memory and pids), else arranged in v2."""
    folders = cgroups.v1_folders()
    usable = {c: f for c, f in folders.items() if os.access(f, os.W_OK)}
    if "memory" in usable and "pids" in usable:
        parents = {}
        for controller, folder in usable.items():
            parent = folder / "autograder"
            try:
                parent.mkdir(exist_ok=True)
            except OSError:
                continue
            remove_leftovers_v1(parent)
            parents[controller] = parent
        if "memory" in parents and "pids" in parents:
            hierarchy = Hierarchy(
                1,
                parents,
                how=f"job cgroups beneath its own cgroup in each v1 hierarchy ({', '.join(sorted(parents))})",
            )
            return hierarchy, hierarchy.describe()
    place = v2_place()
    if place is None:
        return None, "no writable cgroup hierarchy here"
    top, own = place
    remove_leftovers_v2(top, own)
    if not _writable(own) and os.geteuid() != 0:
        return None, f"cannot create cgroups beneath {own} (not delegated to this user): {DELEGATE_HINT}"
    return arrange_v2(top, own, os.getpid())


# ------------------------------------------------------------------ cgroup v2: a cgroup of the kit's own

# What an ordinary user on a systemd host runs to have a cgroup delegated to the kit.
DELEGATE_HINT = (
    "on a systemd host, start the kit in a delegated scope of its own: "
    "systemd-run --user --scope -p Delegate=yes python -m autograder ..."
)
NEEDED = frozenset({"memory", "pids"})


def v2_place() -> tuple[Path, Path] | None:
    """(the cgroup2 file system's mount point, the grader's own cgroup folder in it)."""
    own = cgroups.own_paths().get("")
    for mount in cgroups.mounts():
        if mount.version == 2 and own is not None:
            folder = mount.path / own.lstrip("/")
            if folder.is_dir():
                return mount.path, folder
    return None


def arrange_v2(top: Path, own: Path, pid: int) -> tuple[Hierarchy | None, str]:
    """A parent for the jobs whose children get memory and pids, found in this order:

    1. beneath the hierarchy's root, where the grader runs in it (the root cgroup may hold
       processes and still delegate);
    2. beneath its own cgroup, where the grader is alone in it (a container's only process,
       a scope started for it): it moves into a leaf of that cgroup, which then delegates;
    3. beside its own cgroup, else beneath an ancestor, nearest first: a cgroup that holds
       no process of its own (or the root) and offers memory and pids, enabled there in
       cgroup.subtree_control where they are not yet (root, or a user whose cgroups they are);
    4. otherwise jobs beneath its own cgroup with no controller (CPU time and kill only),
       and the sentence says why and what would give the kit one.
    """
    arranged = None
    if own == top and _is_root(own):
        arranged = _beneath(own, pid, "job cgroups beneath the hierarchy's root, where the grader runs")
    elif NEEDED <= _controllers(own, "cgroup.controllers") and _alone_in(own, pid) and _writable(own):
        arranged = _into_leaf(own, pid)
    if arranged is None:
        for ancestor in _ancestors(top, own):
            how = "beside its own cgroup" if ancestor == own.parent else f"beneath {ancestor}"
            arranged = _beneath(ancestor, pid, f"job cgroups {how} (its own, {own}, holds other processes too)")
            if arranged is not None:
                break
    if arranged is not None:
        return arranged, arranged.describe()
    return _without_controllers(own, pid)


def _beneath(folder: Path, pid: int, how: str) -> Hierarchy | None:
    """A jobs' parent, folder/autograder-<pid>, whose children get memory and pids; None where folder cannot give them.

    The controllers folder offers are enabled in its cgroup.subtree_control where they are not yet, only
    where that is allowed: the root, or a cgroup that holds no process of its own."""
    if not _writable(folder):
        return None
    offered = _controllers(folder, "cgroup.controllers") & set(WANTED_V2)
    if not NEEDED <= offered:
        return None
    missing = offered - _controllers(folder, "cgroup.subtree_control")
    if missing and (_is_root(folder) or not _procs(folder)):
        _enable(folder, missing)
    given = _controllers(folder, "cgroup.subtree_control") & offered
    if not NEEDED <= given:
        return None
    parent = folder / f"autograder-{pid}"
    try:
        cgroups.make_folder(parent)
    except OSError:
        return None
    jobs = _enable(parent, given)
    if not NEEDED <= jobs:
        cgroups.remove_empty(parent, timeout=1.0)
        return None
    return Hierarchy(2, {"": parent}, frozenset(jobs), how=how, pid=pid)


def _into_leaf(own: Path, pid: int) -> Hierarchy | None:
    """Alone in its cgroup: the grader moves into own/autograder-<pid>-grader, and own delegates to the jobs' parent."""
    leaf = own / f"autograder-{pid}-grader"
    try:
        cgroups.make_folder(leaf)
        cgroups.write_value(leaf / "cgroup.procs", str(pid))
    except OSError:
        cgroups.remove_empty(leaf, timeout=1.0)
        return None
    arranged = _beneath(own, pid, f"job cgroups beneath its own cgroup {own}, the grader moved into a leaf of it")
    if arranged is None:
        _restore(own, None, pid)
        return None
    arranged.moved_from = own
    return arranged


def _without_controllers(own: Path, pid: int) -> tuple[Hierarchy | None, str]:
    parent = own / f"autograder-{pid}"
    try:
        cgroups.make_folder(parent)
    except OSError as error:
        return None, f"cannot create cgroups beneath {own}: {error.strerror}"
    hierarchy = Hierarchy(2, {"": parent}, how=f"job cgroups beneath its own cgroup {own}, with no controller", pid=pid)
    if not NEEDED <= _controllers(own, "cgroup.controllers"):
        why = f"no memory or pids controller is available in {own}"
    else:
        others = sorted(_procs(own) - {pid})
        why = (
            f"the grader shares its cgroup {own} with other processes ({', '.join(map(str, others[:5]))}"
            f"{', ...' if len(others) > 5 else ''}) and no cgroup above it could take the jobs, so it cannot "
            "delegate controllers to them"
        )
    fix = (
        "start the kit alone in a cgroup of its own (a container's only process, or under systemd: "
        "systemd-run --scope -p Delegate=yes python -m autograder ...)"
        if os.geteuid() == 0
        else DELEGATE_HINT
    )
    return hierarchy, f"{hierarchy.describe()}: {why}; {fix}"


def _ancestors(top: Path, own: Path) -> list[Path]:
    """own's parent, its parent, ... up to the mount point (the hierarchy's root as this process sees it)."""
    found = []
    folder = own
    while folder != top and top in folder.parents:
        folder = folder.parent
        found.append(folder)
    return found


def _is_root(folder: Path) -> bool:
    """Whether this is the hierarchy's real root: the only cgroup without cgroup.type (a cgroup namespace's root has one)."""
    return (folder / "cgroup.controllers").exists() and not (folder / "cgroup.type").exists()


def _controllers(folder: Path, name: str) -> set[str]:
    try:
        return set((folder / name).read_text().split())
    except OSError:
        return set()


def _procs(folder: Path) -> set[int]:
    try:
        return {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
    except (OSError, ValueError):
        return set()


def _writable(folder: Path) -> bool:
    """Whether this process may create cgroups in folder and move processes through it."""
    return os.access(folder, os.W_OK) and os.access(folder / "cgroup.procs", os.W_OK)


def _enable(folder: Path, controllers: set[str]) -> set[str]:
    """Enable each controller for folder's children, one at a time (one refused leaves the others on); those now on."""
    for controller in sorted(controllers - _controllers(folder, "cgroup.subtree_control")):
        try:
            cgroups.write_value(folder / "cgroup.subtree_control", f"+{controller}")
        except OSError:
            pass
    return _controllers(folder, "cgroup.subtree_control") & controllers


def _alone_in(folder: Path, pid: int) -> bool:
    return _procs(folder) == {pid}


def _restore(own: Path, parent: Path | None, pid: int) -> None:
    """Give back a delegated cgroup: the jobs' parent gone, controllers off, the grader back in it, its leaf gone."""
    if parent is not None:
        cgroups.remove_empty(parent, timeout=1.0)
    enabled = _controllers(own, "cgroup.subtree_control")
    try:
        if enabled:
            cgroups.write_value(own / "cgroup.subtree_control", " ".join(f"-{c}" for c in sorted(enabled)))
        cgroups.write_value(own / "cgroup.procs", str(pid))
    except OSError:
        pass
    cgroups.remove_empty(own / f"autograder-{pid}-grader", timeout=1.0)


# ------------------------------------------------------------------ what a grader no longer running left


def _dead(pid: int) -> bool:
    """Whether no process has this pid (here: another namespace's graders are not seen, nor touched)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _grader_of(name: str, prefix: str = "") -> int | None:
    """The pid in a name the kit gives its cgroups: autograder-<pid>, autograder-<pid>-grader, <pid>-<n>."""
    if not name.startswith(prefix):
        return None
    head = name[len(prefix) :].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _remove_job(folder: Path) -> None:
    """Kill what is left in a job cgroup, then remove it (one that still holds a process stays, for the next try)."""
    try:
        cgroups.write_value(folder / "cgroup.kill", "1")
    except OSError:
        pass
    try:
        kill_until_gone(lambda: sorted(_procs(folder)), f"the job cgroup {folder}", timeout=1.0)
    except OSError:
        pass
    cgroups.remove_empty(folder, timeout=2.0)


def remove_leftovers_v2(top: Path, own: Path) -> list[Path]:
    """Remove the cgroups a dead grader made, beneath own or any ancestor: its jobs' parent
    (autograder-<pid>) with the jobs left in it, its leaf (autograder-<pid>-grader) once empty,
    and in a living grader's parent the jobs of a dead worker (<pid>-<n>). The removed, in order."""
    removed = []
    for folder in [own, *_ancestors(top, own)]:
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
        for child in children:
            grader = _grader_of(child.name, "autograder-")
            if grader is None:
                continue
            dead = _dead(grader)
            if child.name.endswith("-grader"):
                if dead and not _procs(child) and cgroups.remove_empty(child, timeout=0.1):
                    removed.append(child)
                continue
            for job in sorted(p for p in child.iterdir() if p.is_dir()):
                worker = _grader_of(job.name)
                if dead or (worker is not None and _dead(worker)):
                    _remove_job(job)
                    removed.append(job)
            if dead and cgroups.remove_empty(child, timeout=0.5):
                removed.append(child)
    return removed


def remove_leftovers_v1(parent: Path) -> list[Path]:
    """In a v1 hierarchy's autograder folder, remove the jobs of graders no longer running (<pid>-<n>)."""
    removed: list[Path] = []
    try:
        jobs = sorted(p for p in parent.iterdir() if p.is_dir())
    except OSError:
        return removed
    for job in jobs:
        grader = _grader_of(job.name)
        if grader is not None and _dead(grader):
            _remove_job(job)
            removed.append(job)
    return removed
