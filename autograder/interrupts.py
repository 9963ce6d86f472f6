"""SIGTERM stops a command as Ctrl-C does.

A cluster's time limit (Slurm sends SIGTERM, then SIGKILL), a stopped container or a
plain ``kill`` would otherwise end the grader at once, leaving its student processes,
their cgroups and scratch behind. Raised as KeyboardInterrupt instead, it unwinds every
``finally`` on the way out, as Ctrl-C does: grade-all keeps what it graded and says
"interrupted: rerun to resume" (its workers stop alike: deliver/grade_all/workers.py).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.pool import Pool
    from multiprocessing.process import BaseProcess

_HELD = {signal.SIGINT, signal.SIGTERM}


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
    KeyboardInterrupt mid-task) and the command waiting for them for ever: every fork pool starts with this, its
    initializer, and forks held_while_forking(); what the fork held comes through now, SIGTERM ending the worker."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    let_through()


@contextmanager
def held_while_forking() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while this thread forks, and in each child until it calls let_through(), inside its
    own try or once its own handlers are set.

    A child forked from a command runs the command's handler until it sets its own. A signal arriving between
    fork() and the child's first try (a pool closing on a worker not yet started, Slurm's SIGTERM to the job)
    raised KeyboardInterrupt in multiprocessing's own code, outside its try, and the child went on as a second copy
    of the command: a second grade-all, a test session's worker reporting Ctrl-C. Held, it waits in the kernel
    until the child is ready for it. Threads started meanwhile (a pool's, which fork its replacement workers) keep
    them held for good: the main thread takes them. A raw os.fork() child must not leave the ``with`` (it would let
    them through there): it ends with os._exit inside.

    In this process a signal held comes through as the block ends (or within it, where a thread started before,
    a queue's feeder, took it): what the parent must clean up after an interrupt (the child's pid, the pool) is
    recorded inside the block."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def start_held(process: BaseProcess, started: list) -> None:
    """process.start() with held_while_forking(), the process added to ``started`` before a signal held meanwhile
    comes through: whoever ends the workers after an interrupt finds it there."""
    with held_while_forking():
        process.start()
        started.append(process)


@contextmanager
def fork_pool(jobs: int) -> Iterator[Pool]:
    """A fork pool of ``jobs`` workers that SIGTERM ends (end_on_terminate), forked with held_while_forking() and
    terminated when the block ends, an interrupt as the workers fork included."""
    import multiprocessing  # here: every command imports this module; only the class views' pools need it

    with ExitStack() as stack:
        with held_while_forking():
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(jobs, initializer=end_on_terminate))
        yield pool


def let_through() -> None:
    """What held_while_forking() held comes through now: a child forked there calls it once ready."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
