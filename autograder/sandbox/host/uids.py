"""Unprivileged uids for student processes, never shared between two graders on one host.

A grader running as root takes a block of uids from 61000 up, each held by an
exclusive lock on a file in a root-only folder for as long as the grader lives:
another grader on the same host takes another block, so the two never see (or kill)
each other's students. After a student, every process of its uid is killed and the
files it left in the shared scratch places are removed.
"""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import time
from pathlib import Path

from ...public import trees

BASE, SPAN = 61000, 4000  # the uids the kit may use: 61000 to 64999
SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")


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
    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 2:
        pids = processes_of(uid)
        quiet = quiet + 1 if not pids else 0
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            raise OSError(f"processes {pids} of uid {uid} survived SIGKILL")
        if pids:
            time.sleep(0.002)


def remove_files_of(uid: int, places=SHARED_SCRATCH, max_depth: int = 64) -> None:
    """Delete what the uid left in the shared scratch places, never following a link.

    Whatever the uid owns is removed whole, however deep (trees.remove_tree keeps no
    recursion); folders of others are searched no more than max_depth levels down.
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
                    trees.remove_tree(entry.path)
                elif stat.S_ISDIR(info.st_mode) and depth < max_depth:
                    pending.append((entry.path, depth + 1))
