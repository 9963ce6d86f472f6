"""Are processes killed until none is left, a fork that appears meanwhile included, and are survivors named?"""

import os
import time

import pytest

from autograder.sandbox.host import kill
from autograder.sandbox.host.kill import kill_until_gone


def _sleeper() -> int:
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    return pid


def _alive(pid: int) -> bool:
    """Whether a child of this process still runs (one that ended is reaped)."""
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def test_every_process_listed_is_killed_and_one_that_appears_meanwhile_too():
    """A fork in flight: the listing after the first process is killed is empty, and only the one after it shows
    the child. Is the child killed too (an empty listing is believed only when the next is empty as well)?"""
    first, second = _sleeper(), None

    def find():
        nonlocal second
        if second is None and not _alive(first):
            second = _sleeper()  # not listed yet: it shows from the next listing on
            return []
        return [pid for pid in (first, second) if pid and _alive(pid)]

    kill_until_gone(find, "a test")
    assert second is not None and not _alive(first) and not _alive(second)


def test_a_process_that_survives_the_timeout_is_named(monkeypatch):
    """Is a process still listed after the timeout an OSError naming it and whose it is?"""
    monkeypatch.setattr(kill.os, "kill", lambda pid, number: None)  # a process in uninterruptible sleep
    with pytest.raises(OSError, match=r"processes \[4242\] of uid 61000 survived SIGKILL"):
        kill_until_gone(lambda: [4242], "uid 61000", timeout=0.05)
