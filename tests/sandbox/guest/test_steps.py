"""What a student process tells the grader of its loading: each step as it begins, and why a step of the kit's
failed, bounded; nothing once the student's code runs."""

import errno
import socket

import pytest

from autograder.public import wire
from autograder.public.loader import LOAD_STEPS, SubmissionError
from autograder.sandbox.guest.steps import DETAIL_CHARS, STEPS, DeviceFailed, Steps, problem_of


@pytest.mark.parametrize(
    "error, kind, words",
    [
        (SubmissionError("the notebook w.ipynb could not be parsed"), "submission", "the notebook w.ipynb could"),
        (PermissionError(errno.EACCES, "Permission denied", "/sandbox/submission/w.ipynb"), "unreadable", "Permission"),
        (OSError(errno.EPERM, "Operation not permitted"), "unreadable", "PermissionError: [Errno 1]"),
        (MemoryError(), "memory", "MemoryError"),
        (DeviceFailed("RuntimeError: CUDA error: no device"), "device", "RuntimeError: CUDA error"),
        (FileNotFoundError(errno.ENOENT, "No such file"), "kit", "FileNotFoundError"),
        (ValueError("x" * 10_000), "kit", "ValueError: xxx"),
    ],
)
def test_a_failure_is_told_by_its_kind_and_bounded(error, kind, words):
    """Is a failure's kind the submission's, an unreadable file, memory, CUDA that did not start or the kit's, and
    its detail bounded?"""
    told_kind, detail = problem_of(error)
    assert told_kind == kind and detail.startswith(words) and len(detail) <= DETAIL_CHARS


def test_the_steps_begin_with_isolating_then_the_loaders():
    """Are the steps the sandbox's isolation, then the loader's, with the student's code last?"""
    assert STEPS == ("isolating", *LOAD_STEPS) and STEPS[-1] == "running"


def told(sock: socket.socket) -> list[dict]:
    sock.setblocking(False)
    found = []
    try:
        while True:
            found.append(wire.recv(sock)[0])
    except (BlockingIOError, EOFError):
        return found


def test_each_step_and_a_failure_of_the_kits_are_sent_but_nothing_once_the_students_code_runs():
    """Does Steps send each step begun and a failure while a step of the kit's runs, no failure once 'running'
    is begun (the student's failures are for the grader to measure), and raise nothing when the grader is gone?"""
    ours, theirs = socket.socketpair()
    steps = Steps(theirs)
    steps.begin("isolating")
    steps.begin("reading")
    steps.failed(PermissionError(errno.EACCES, "Permission denied"))
    steps.begin("running")
    steps.failed(SubmissionError("could not be parsed"))
    assert told(ours) == [
        {"op": "step", "step": "isolating"},
        {"op": "step", "step": "reading"},
        {"op": "failed", "problem": "unreadable", "detail": "PermissionError: [Errno 13] Permission denied"},
        {"op": "step", "step": "running"},
    ]
    theirs.close()
    steps.current = "parsing"
    steps.failed(MemoryError())  # the grader gone: nothing raised
