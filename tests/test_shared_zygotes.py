"""Do the tests' Graders share their zygotes safely (tests/zygotes.py): one per kind, reused only whole and only in
the process that started it?"""

import os
import select

import pytest

from autograder.config import GradingConfig
from autograder.grade.engine import Grader

from .zygotes import Shelf

KIND = {"torch": False}  # no PyTorch, no probes: the cheapest zygote to start


@pytest.fixture
def shelf():
    """A shelf of this test's own, its idle zygotes ended after the test."""
    shelf = Shelf()
    yield shelf
    shelf.close_all()


def test_a_zygote_given_back_serves_the_next_taker_of_its_kind_only(shelf):
    first = shelf.take(**KIND)
    pid = first.process.pid
    first.close()
    second = shelf.take(**KIND)
    assert second.process.pid == pid and second.wait(1) == "unknown"  # the same zygote, and it still answers
    other = shelf.take(torch=False, probes=("/nonexistent/probes.py",))
    assert other.process.pid != pid  # another kind gets a zygote of its own
    other.close()
    second.close()


def test_a_dead_zygote_a_broken_exchange_or_an_unread_reply_ends_it_rather_than_lend_it_again(shelf):
    lent = shelf.take(**KIND)
    lent.ready()
    dead = lent.process
    dead.kill()
    dead.wait()
    lent.close()
    raised = shelf.take(**KIND)
    broken = raised.process
    assert broken.pid != dead.pid
    with pytest.raises(TypeError):
        raised.spawn({"submission": object()})  # a request that raised: a Grader broken off mid-exchange
    raised.close()
    assert broken.wait(timeout=10) is not None  # ended, not shelved
    unread = shelf.take(**KIND)
    left = unread.process
    unread.ready()
    unread.sock.send(b'{"op": "wait", "pid": 1}')  # a reply that no one reads
    assert select.select([unread.sock], [], [], 10)[0]
    unread.close()
    assert left.wait(timeout=10) is not None
    fresh = shelf.take(**KIND)
    assert fresh.process.pid not in (dead.pid, broken.pid, left.pid)
    fresh.close()


def test_a_forked_process_neither_takes_nor_ends_its_parents_zygotes(shelf):
    lent = shelf.take(**KIND)
    pid = lent.process.pid
    lent.close()
    child = os.fork()
    if child == 0:  # pragma: no cover - its exit status is what the test sees
        status = 1
        try:
            shelf.close_all()
            status = 0 if shelf.idle and next(iter(shelf.idle.values())).process.pid == pid else 2
        finally:
            os._exit(status)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    again = shelf.take(**KIND)
    assert again.process.pid == pid and again.process.poll() is None
    again.close()


def test_the_tests_graders_take_their_zygotes_from_the_shelf(mha):
    """Does a Grader the tests build after another has closed grade with that one's zygote?"""
    with Grader(mha, GradingConfig(allow_unsandboxed=True)) as first:
        pid = first.runtime.zygote.process.pid
    with Grader(mha, GradingConfig(allow_unsandboxed=True)) as second:
        assert second.runtime.zygote.process.pid == pid
