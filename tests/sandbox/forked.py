"""Run a piece of a test in a forked child of the pytest process.

What the sandbox's guest side installs (a seccomp filter, namespaces, rlimits, another
uid, a changed environment, signal handlers) lasts for the life of the process that
installs it: tests do it in a child, never in pytest's own process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class ChildFailed(Exception):
    """The work raised in the child (its type and message), or the child ended without an answer."""


def in_a_child(work: Callable[[], T], hang: float = 120.0) -> T:
    """What work() returns (anything JSON can carry), computed in a forked child; ChildFailed if it raised,
    or if it had not answered after ``hang`` seconds (a guard against a hang, far above any honest run)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            try:
                answer = json.dumps({"value": work()})
            except BaseException as error:
                answer = json.dumps({"error": f"{type(error).__name__}: {error}"})
            with os.fdopen(write, "w") as pipe:
                pipe.write(answer)
        finally:
            os._exit(0)
    os.close(write)
    text = _read_until_closed(read, pid, hang)
    os.waitpid(pid, 0)
    if not text:
        raise ChildFailed("the child ended without an answer")
    answer = json.loads(text)
    if "error" in answer:
        raise ChildFailed(answer["error"])
    return answer["value"]


def _read_until_closed(read: int, pid: int, hang: float) -> str:
    chunks = []
    deadline = time.monotonic() + hang
    with os.fdopen(read, "rb") as pipe:
        while True:
            if not select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise ChildFailed(f"the child had not answered after {hang:g} s")
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                return b"".join(chunks).decode()
            chunks.append(chunk)


def sigterm_as_it_forks(flag: str) -> Callable[[], None]:
    """An at-fork hook (os.register_at_fork, in a child of the test: it lasts for the process): the first child
    forked gets SIGTERM the moment it exists, before any code of its own runs (a pool closing on a worker not yet
    started, Slurm's SIGTERM to the job). Its pid is written to ``flag``."""

    def hook() -> None:
        try:
            written = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(written, str(os.getpid()).encode())
        os.close(written)
        os.kill(os.getpid(), signal.SIGTERM)

    return hook
