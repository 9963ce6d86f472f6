"""Run a piece of a test in a forked child of the pytest process.

What the sandbox's guest side installs (a seccomp filter, namespaces, rlimits, another
uid, a changed environment, signal handlers) lasts for the life of the process that
installs it: tests do it in a child, never in pytest's own process.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class ChildFailed(Exception):
    """The work raised in the child (its type and message), or the child ended without an answer."""


def in_a_child(work: Callable[[], T]) -> T:
    """What work() returns (anything JSON can carry), computed in a forked child; ChildFailed if it raised."""
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
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    if not text:
        raise ChildFailed("the child ended without an answer")
    answer = json.loads(text)
    if "error" in answer:
        raise ChildFailed(answer["error"])
    return answer["value"]
