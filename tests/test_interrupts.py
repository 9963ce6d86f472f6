"""Does SIGTERM stop a command as Ctrl-C does, unwinding its clean-up, and can a clean-up hold both off?"""

import multiprocessing
import os
import signal
import time
from pathlib import Path

from autograder.interrupts import (
    fork_pool,
    held_while_forking,
    ignore_interrupts,
    interrupt_on_terminate,
    interrupt_once,
    let_through,
    start_held,
)

from .sandbox.forked import in_a_child, sigterm_as_it_forks


def _terminated_in_a_try() -> list[str]:
    interrupt_on_terminate()
    seen = []
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        seen.append("slept through it")
    except KeyboardInterrupt:
        seen.append("interrupted")
    finally:
        seen.append("cleaned up")
    return seen


def _terminated_while_ignoring() -> str:
    interrupt_on_terminate()
    ignore_interrupts()
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)
    return "still here"


def test_sigterm_raises_keyboard_interrupt_so_finally_blocks_run():
    """Does a SIGTERM interrupt the work where it is, with the finally block run?"""
    assert in_a_child(_terminated_in_a_try) == ["interrupted", "cleaned up"]


def test_a_clean_up_that_ignores_interrupts_runs_to_its_end():
    """Once ignore_interrupts() is called, do SIGTERM and SIGINT leave the process running?"""
    assert in_a_child(_terminated_while_ignoring) == "still here"


def _interrupted_twice() -> list[str]:
    interrupt_once()
    seen = []
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C from the terminal ...
        os.kill(os.getpid(), signal.SIGTERM)  # ... and the parent's SIGTERM, both pending at once
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # delivered here, one after other
        time.sleep(5)
        seen.append("slept through it")
    except KeyboardInterrupt:
        seen.append("interrupted")
    finally:
        seen.append("cleaned up")
    return seen


def test_a_second_signal_at_the_same_moment_is_ignored():
    """With interrupt_once (a grade-all worker), do Ctrl-C and SIGTERM arriving together raise one
    KeyboardInterrupt, the clean-up running to its end, where two would interrupt the clean-up itself?"""
    assert in_a_child(_interrupted_twice) == ["interrupted", "cleaned up"]


def _worker_told_as_it_forks(folder: str) -> str:
    interrupt_on_terminate()  # the command's handler, which the child inherits
    os.register_at_fork(after_in_child=sigterm_as_it_forks(f"{folder}/fired"))

    def worker() -> None:
        interrupt_once()
        try:
            let_through()
            Path(folder, "seen").write_text("ran its work")
        except KeyboardInterrupt:
            Path(folder, "seen").write_text("interrupted in its try")

    process = multiprocessing.get_context("fork").Process(target=worker)
    with held_while_forking():
        process.start()
    process.join()
    return Path(folder, "seen").read_text()


def test_a_signal_as_a_worker_forks_waits_for_its_try(tmp_path):
    """A SIGTERM that reaches a forked worker before its own handler is set ran the command's handler there: its
    KeyboardInterrupt was raised in multiprocessing's code (here: in the at-fork hook, where Python drops it; at
    fork()'s return, the worker went on as a second copy of the command). Held across the fork, does it wait until
    the worker is inside its try, and interrupt it there?"""
    assert in_a_child(lambda: _worker_told_as_it_forks(str(tmp_path))) == "interrupted in its try"


def _interrupted_as_the_pool_forks() -> list[int]:
    interrupt_on_terminate()
    os.register_at_fork(before=lambda: os.kill(os.getpid(), signal.SIGTERM))  # held: it comes through as they end
    try:
        with fork_pool(2):
            return [-1]  # never: the SIGTERM comes through before the block's body
    except KeyboardInterrupt:
        return [child.pid or 0 for child in multiprocessing.active_children()]


def test_a_signal_held_while_a_pool_forks_ends_its_workers():
    """A SIGTERM that reaches the command while its pool forks waits, then comes through as the forking ends: is the
    pool terminated then, with no worker left running (where the pool made before its ``with`` was left to them)?"""
    assert in_a_child(_interrupted_as_the_pool_forks) == []


def _interrupted_as_a_worker_starts() -> list:
    interrupt_on_terminate()
    started: list = []
    os.register_at_fork(before=lambda: os.kill(os.getpid(), signal.SIGTERM))
    process = multiprocessing.get_context("fork").Process(target=time.sleep, args=(0,))
    try:
        start_held(process, started)
        return ["not interrupted"]
    except KeyboardInterrupt:
        process.join()
        return ["interrupted", [p.pid for p in started] == [process.pid]]


def test_a_worker_started_as_a_signal_comes_is_among_those_to_end():
    """Is a worker whose start a SIGTERM interrupts (held, it comes through as the fork ends) in the list its parent
    ends after an interrupt?"""
    assert in_a_child(_interrupted_as_a_worker_starts) == ["interrupted", True]
