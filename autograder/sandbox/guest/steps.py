"""What a student process tells the grader while it loads the submission: each step as it begins, and why a
step of the kit's own failed.

    {"op": "step", "step": S}                           step S begins (STEPS, in order; some may be skipped)
    {"op": "failed", "problem": P, "detail": text}      the step begun last failed, for a reason of kind P
    {"op": "ready", "notes": [...]}                     loaded (child.py)

Every step before "running" is the kit's own code, in a process where no code of the
submission has run yet: what the process says then is the kit's word. From "running"
on, the submission's code runs in this same process and may send anything, so the
grader believes nothing it says but "ready" (sandbox/host/loading.py): no later
message can claim that an earlier step failed.
"""

from __future__ import annotations

import errno
import socket

from ...public import wire
from ...public.loader import LOAD_STEPS, STUDENT_CODE, SubmissionError

STEPS = ("isolating", *LOAD_STEPS)  # entering the sandbox's tier (and starting PyTorch) comes first
# Why a step failed: the submission itself (a notebook that does not parse, a bound passed), a file the
# sandbox may not read, memory, CUDA that did not start, or anything else of the kit's.
PROBLEMS = ("submission", "unreadable", "memory", "device", "kit")
DETAIL_CHARS = 2000


class DeviceFailed(Exception):
    """CUDA did not start in the student's process (the kit's code, before any of the student's)."""


def problem_of(error: BaseException) -> tuple[str, str]:
    """The kind of a failure (PROBLEMS) and what it says, bounded."""
    if isinstance(error, SubmissionError):
        kind = "submission"
    elif isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM):
        kind = "unreadable"
    elif isinstance(error, MemoryError):
        kind = "memory"
    elif isinstance(error, DeviceFailed):
        kind = "device"
    else:
        kind = "kit"
    text = str(error) if kind in ("submission", "device") else f"{type(error).__name__}: {error}"
    return kind, text[:DETAIL_CHARS]


class Steps:
    """Tells the grader, over the student process's socket, each step as it begins and a step that failed."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.current: str | None = None

    def begin(self, step: str) -> None:
        self.current = step
        wire.send(self.sock, {"op": "step", "step": step})

    def failed(self, error: BaseException) -> None:
        """Say why the step begun last failed, where that is a step of the kit's; once the submission's code runs,
        nothing (its failures are the grader's to measure)."""
        if self.current is None or self.current == STUDENT_CODE:
            return
        problem, detail = problem_of(error)
        try:
            wire.send(self.sock, {"op": "failed", "problem": problem, "detail": detail})
        except OSError:
            pass  # the grader is gone
