"""Kill a set of processes until none is left: a job cgroup's, or every process of a student's uid.

A process being killed may be forking: its child appears after the list was read. So
the list is read again after each round of SIGKILL, until it has been found empty twice
in a row; processes that outlive the timeout are an error of the host (a process stuck
in the kernel), never silently left running.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable


def kill_until_gone(find: Callable[[], list[int]], what: str, timeout: float = 10.0) -> None:
    """SIGKILL every process ``find()`` lists until it lists none twice in a row (forks in flight included);
    OSError naming them and ``what`` (whose processes they are) when some survive ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 2:
        pids = find()
        quiet = quiet + 1 if not pids else 0
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            raise OSError(f"processes {sorted(pids)} of {what} survived SIGKILL")
        if pids:
            time.sleep(0.002)
