"""Memory and process limits for one student process tree, with cgroup v1.

Each job's cgroups live beneath the grader's own cgroups (read from /proc/self/cgroup),
never at the root of a hierarchy: <own>/attention-kit/<job> in the memory and pids
controllers. The grader, not the student, creates them, kills what is in them and
removes them.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")


def own_cgroup(controller: str) -> Path | None:
    """This process's cgroup folder in a v1 controller, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            folder = CGROUP_ROOT / controller / path.lstrip("/")
            return folder if folder.is_dir() else None
    return None


class JobCgroups:
    """The memory and pids cgroups of one student process tree."""

    def __init__(self, job: str, memory_bytes: int, max_processes: int):
        self.folders: dict[str, Path] = {}
        for controller in CONTROLLERS:
            own = own_cgroup(controller)
            if own is None:
                raise OSError(f"no cgroup v1 {controller} controller is mounted")
            folder = own / "attention-kit" / job
            folder.mkdir(parents=True, exist_ok=True)
            self.folders[controller] = folder
        memory = self.folders["memory"]
        (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
        try:  # without swap accounting the file is missing; the limit above still holds
            (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        except OSError:
            pass
        (self.folders["pids"] / "pids.max").write_text(str(max_processes))

    @property
    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.folders.values()]

    def pids(self) -> set[int]:
        found = set()
        for folder in self.folders.values():
            try:
                found |= {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        return found

    def out_of_memory(self) -> bool:
        """Whether the kernel had to kill a process of this job for memory."""
        try:
            for line in (self.folders["memory"] / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return int((self.folders["memory"] / "memory.failcnt").read_text()) > 0 and self.pids() == set()
        except OSError:
            return False

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
            time.sleep(0.005)

    def remove(self) -> None:
        self.kill_all()
        for folder in self.folders.values():
            for _ in range(200):  # the kernel frees a cgroup a moment after its last process
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)


def remove_parents() -> None:
    """Remove the kit's parent cgroups once no job is left in them (another grader may still use them)."""
    for controller in CONTROLLERS:
        own = own_cgroup(controller)
        if own is not None:
            try:
                (own / "attention-kit").rmdir()
            except OSError:
                pass


def hardened_support() -> str | None:
    """None when the hardened sandbox can run here, else why it cannot."""
    if not sys_is_linux():
        return "the hardened sandbox needs Linux"
    if os.geteuid() != 0:
        return "the hardened sandbox needs root (to create namespaces and cgroups, then drop to an unprivileged uid)"
    for controller in CONTROLLERS:
        own = own_cgroup(controller)
        if own is None:
            return f"no cgroup v1 {controller} controller is mounted at {CGROUP_ROOT / controller}"
        if not os.access(own, os.W_OK):
            return f"cannot create cgroups beneath {own}"
    return _probe_namespaces()


def sys_is_linux() -> bool:
    return os.uname().sysname == "Linux"


def _probe_namespaces() -> str | None:
    from .isolation import CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUTS, SandboxError, _call

    pid = os.fork()
    if pid == 0:
        try:
            _call("unshare", CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET)
            os._exit(0)
        except SandboxError:
            os._exit(1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else "this machine does not allow new namespaces (unshare failed)"
