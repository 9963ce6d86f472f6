"""Unprivileged uids for student processes, never shared between two graders on one host.

A grader running as root takes a block of uids from 61000 up, each held by an
exclusive lock on a file in a root-only folder for as long as the grader lives:
another grader on the same host takes another block, so the two never see (or kill)
each other's students. After a student, every process of its uid is killed, and what
it left behind is removed: its files in the shared scratch places (POSIX shared
memory is files in /dev/shm) and its System V shared-memory segments, semaphore sets
and message queues. Uids are reused, so nothing of one student is left for the next.
While a student runs, what it holds in the shared places is counted (``usage_of``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ...interrupts import held_while_forking
from ...public import trees
from .disk import cost, held_under
from .kill import kill_until_gone

BASE, SPAN = 61000, 4000  # the uids the kit may use: 61000 to 64999
SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # where any uid may write on most hosts
IPC_RMID = 0


def _lock_folder() -> Path:
    for candidate in (Path("/run/autograder-uids"), Path("/tmp/autograder-uids")):
        try:
            candidate.mkdir(mode=0o700, exist_ok=True)
            info = candidate.lstat()
            if info.st_uid == 0 and (info.st_mode & 0o077) == 0 and candidate.is_dir() and not candidate.is_symlink():
                return candidate
        except OSError:
            continue
    raise OSError("no root-only folder for the uid locks (/run/autograder-uids or /tmp/autograder-uids)")


class UidPool:
    """A block of uids held by this grader; next() hands them out in turn."""

    def __init__(self, size: int = 8):
        folder = _lock_folder()
        self.uids: list[int] = []
        self._files = []
        for uid in range(BASE, BASE + SPAN):
            if len(self.uids) == size:
                break
            handle = open(folder / str(uid), "a")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            if processes_of(uid):  # a process of a grader that died still runs as it: leave it be
                handle.close()
                continue
            self.uids.append(uid)
            self._files.append(handle)
        if not self.uids:
            raise OSError(f"every uid from {BASE} to {BASE + SPAN - 1} is taken by another grader")
        self._turn = 0

    def next(self) -> int:
        uid = self.uids[self._turn % len(self.uids)]
        self._turn += 1
        return uid

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        self._files.clear()


def processes_of(uid: int) -> list[int]:
    """The pids of every process whose real or effective uid is ``uid``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as status:
                for line in status:
                    if line.startswith("Uid:"):
                        real, effective = line.split()[1:3]
                        if int(real) == uid or int(effective) == uid:
                            found.append(int(entry.name))
                        break
        except (OSError, ValueError):
            continue
    return found


def kill_all(uid: int, timeout: float = 10.0) -> None:
    """SIGKILL every process of the uid until none is left (forks in flight included)."""
    kill_until_gone(lambda: processes_of(uid), f"uid {uid}", timeout)


def owned_entries(uid: int, places=SHARED_SCRATCH, max_depth: int = 64) -> Iterator[tuple[str, os.stat_result]]:
    """Each entry the uid owns in the shared places (a folder of its own named, not entered), never following a link.

    Only folders the uid could write into are searched (world-writable ones, its own
    group's, no deeper than max_depth): nowhere else can it have made anything.
    """
    for place in places:
        try:
            device = os.lstat(place).st_dev
        except OSError:
            continue
        pending = [(place, 0)]
        while pending:
            folder, depth = pending.pop()
            try:
                with os.scandir(folder) as scan:
                    entries = list(scan)
            except OSError:
                continue
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_dev != device:
                    continue
                if info.st_uid == uid:
                    yield entry.path, info
                elif stat.S_ISDIR(info.st_mode) and depth < max_depth and _writable_by(uid, info):
                    pending.append((entry.path, depth + 1))


def _writable_by(uid: int, info: os.stat_result) -> bool:
    return bool(info.st_mode & stat.S_IWOTH) or (info.st_gid == uid and bool(info.st_mode & stat.S_IWGRP))


def remove_files_of(uid: int, places=SHARED_SCRATCH) -> None:
    """Delete what the uid left in the shared scratch places, however deep (trees.remove_tree keeps no recursion)."""
    for path, _ in list(owned_entries(uid, places)):
        trees.remove_tree(path)


def usage_of(uid: int, stop_at: int, places=SHARED_SCRATCH) -> int:
    """Bytes the uid holds in the shared places, and in files its processes keep open after deleting
    them (memfds included), counting no further than stop_at."""
    total = 0
    for path, info in owned_entries(uid, places):
        total += held_under(path, stop_at - total) if stat.S_ISDIR(info.st_mode) else cost(info)
        if total >= stop_at:
            return total
    seen = set()
    for pid in processes_of(uid):
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                info = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += cost(info)
                if total >= stop_at:
                    return total
    return total


# ------------------------------------------------------------------ System V IPC

IPC_KINDS = {"shm": "shmid", "sem": "semid", "msg": "msqid"}  # each kind's file in /proc/sysvipc, and its id column


def ipc_of(uid: int) -> list[tuple[str, int]]:
    """(kind, id) of every System V object the uid owns or created, from /proc/sysvipc."""
    found = []
    for kind, id_column in IPC_KINDS.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        columns = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(columns, line.split()))
            try:
                if int(row["uid"]) == uid or int(row["cuid"]) == uid:
                    found.append((kind, int(row[id_column])))
            except (KeyError, ValueError):
                continue
    return found


def remove_ipc_of(uid: int) -> None:
    """Remove the uid's System V shared-memory segments, semaphore sets and message queues.

    Root removes another uid's objects only with CAP_SYS_ADMIN, which a container's root lacks (Docker's and
    Kubernetes' default capabilities, Gradescope): what root could not remove, a child running as the uid, their
    creator, removes (the uid's processes are all gone by now; the child has no capability and exits at once)."""
    left = _remove_ipc(ipc_of(uid))
    if not left:
        return
    with held_while_forking():  # a signal now would run the grader's own code in the child: it waits, and ends with it
        pid = os.fork()
        if pid == 0:  # pragma: no cover (a child, measured by its effect)
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                _remove_ipc(left)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)  # reaped before what was held comes through


def _remove_ipc(objects: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Remove each (kind, id); those this process may not remove."""
    libc = ctypes.CDLL(None, use_errno=True)
    refused = []
    for kind, ident in objects:
        if kind == "shm":
            done = libc.shmctl(ident, IPC_RMID, None)
        elif kind == "sem":
            done = libc.semctl(ident, 0, IPC_RMID)
        else:
            done = libc.msgctl(ident, IPC_RMID, None)
        if done != 0 and ctypes.get_errno() == errno.EPERM:
            refused.append((kind, ident))
    return refused
