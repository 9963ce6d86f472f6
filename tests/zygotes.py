"""The zygotes of the Graders a test process builds, shared: one per kind, started once, kept between Graders.

A Grader starts a zygote (sandbox/host/client.py), a fresh interpreter that imports PyTorch and matplotlib: 2 core-s
on the course machine. A grading command starts one Grader, and so one zygote; a test process builds dozens (each
grade-all a test runs in the process, each Grader a test makes with a configuration of its own), and paid for a
zygote each. A zygote forks each student's process from what it imported, and holds no state of a grading: each
request says all that a process needs (its isolation, its limits, its submission). So the tests' Graders take a
zygote of their kind from here and give it back when they close.

A kind is what a zygote is started with: the probes it preloads (by path, with their size and time of change: a
test that edits them gets a zygote of its own), whether it imports PyTorch, and the environment it is given. A zygote
comes back to the shelf only alive, with every request it was asked answered and nothing left unread on its socket
(an exchange a failing test broke off), and only in the process that started it: a process forked by grade-all inherits the shelf but never uses or
ends its zygotes. The zygote's own lifecycle (start, refusal to start, close) is tested on Zygote itself
(tests/sandbox/host/test_client.py) and by each command the tests run as a user does.
"""

from __future__ import annotations

import atexit
import os
import select

from autograder.grade import engine
from autograder.sandbox.host.client import Zygote, zygote_environment


class SharedZygote:
    """A zygote lent to one Grader: every request goes to it; close() gives it back to the shelf, unless a request
    raised (a Grader broken off mid-exchange may leave a reply on its way), which ends it instead."""

    def __init__(self, shelf: Shelf, key: tuple, zygote: Zygote):
        self._shelf, self._key, self._zygote, self._broken = shelf, key, zygote, False

    def __getattr__(self, name):
        found = getattr(self._zygote, name)
        if not callable(found):
            return found

        def asked(*args, **kwargs):
            try:
                return found(*args, **kwargs)
            except BaseException:
                self._broken = True
                raise

        return asked

    def close(self) -> None:
        zygote, self._zygote = self._zygote, None
        if zygote is None:
            return
        if self._broken:
            zygote.close()
        else:
            self._shelf.give_back(self._key, zygote)


class Shelf:
    """The idle zygotes of this process, one per kind."""

    def __init__(self):
        self.pid = os.getpid()
        self.idle: dict[tuple, Zygote] = {}
        atexit.register(self.close_all)

    def take(self, probes: tuple[str, ...] = (), torch: bool = True) -> SharedZygote:
        key = (probes, tuple(_stamp(path) for path in probes), torch, tuple(sorted(zygote_environment().items())))
        zygote = self.idle.pop(key, None) if os.getpid() == self.pid else None
        if zygote is None or not _healthy(zygote):
            if zygote is not None:
                zygote.close()
            zygote = Zygote(probes=probes, torch=torch)
        return SharedZygote(self, key, zygote)

    def give_back(self, key: tuple, zygote: Zygote) -> None:
        if os.getpid() != self.pid:
            return  # a forked process's copy of the parent's zygote: the parent's to end
        if key in self.idle or not _healthy(zygote):
            zygote.close()
            return
        self.idle[key] = zygote

    def close_all(self) -> None:
        if os.getpid() == self.pid:
            while self.idle:
                self.idle.popitem()[1].close()


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _healthy(zygote: Zygote) -> bool:
    """Alive, and nothing waiting on its socket: a message there answers a request of a Grader gone."""
    if zygote.process is None or zygote.process.poll() is not None:
        return False
    try:
        return not select.select([zygote.sock], [], [], 0)[0]
    except (OSError, ValueError):
        return False


def share_the_graders_zygotes() -> None:
    """From now on, the Graders of this process take their zygotes from its shelf."""
    engine.Zygote = Shelf().take  # type: ignore[assignment,misc]
