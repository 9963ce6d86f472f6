"""SIGTERM stops a command as Ctrl-C does.

A cluster's time limit (Slurm sends SIGTERM, then SIGKILL), a stopped container or a
plain ``kill`` would otherwise end the grader at once, leaving its student processes,
their cgroups and scratch behind. Raised as KeyboardInterrupt instead, it unwinds every
``finally`` on the way out, as Ctrl-C does: grade-all keeps what it graded and says
"interrupted: rerun to resume" (its workers stop alike: deliver/grade_all/workers.py).
"""

from __future__ import annotations

import signal


def interrupt_on_terminate() -> None:
    """From now on, SIGTERM raises KeyboardInterrupt in this process (its main thread)."""
    signal.signal(signal.SIGTERM, _interrupt)


def ignore_interrupts() -> None:
    """From now on, Ctrl-C and SIGTERM wait: for a clean-up that a second signal must not cut short."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _ignore)


def _ignore(signum, frame):
    """Nothing: a handler of Python's own, never SIG_IGN, for a signal already pending when the handler changes to
    SIG_IGN is reported on stderr as "ignored due to race condition", with a traceback."""


def interrupt_once() -> None:
    """From now on, the first Ctrl-C or SIGTERM raises KeyboardInterrupt and every later one waits: a grade-all
    worker hears Ctrl-C from the terminal and SIGTERM from its parent at almost the same moment, and the second,
    caught before its clean-up could ignore it, printed a traceback. The handler ignores both before it raises.

    Ctrl-C stays ignored where the command was started ignoring it (a shell script's background job, nohup): the
    command goes on grading then, and its workers must too, or each student left would be a kit error."""
    for number in (signal.SIGINT, signal.SIGTERM):
        if number == signal.SIGINT and signal.getsignal(number) == signal.SIG_IGN:
            continue
        signal.signal(number, _interrupt_then_ignore)


def _interrupt_then_ignore(signum, frame):
    ignore_interrupts()
    raise KeyboardInterrupt


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def end_on_terminate() -> None:
    """A multiprocessing pool's worker: SIGTERM ends it, as the pool expects when it closes. A worker forked from a
    command inherits interrupt_on_terminate's handler, which left workers stuck on the pool's locks (a worker's
    KeyboardInterrupt mid-task) and the command waiting for them for ever: every fork pool starts with this."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
