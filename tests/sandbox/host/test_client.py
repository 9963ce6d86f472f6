"""The grader's end of the sandbox: the zygote's environment and start, and replies read against a deadline and a
size limit (the student's end played here by a socket of the test's own)."""

import os
import socket
import struct
import subprocess
import time

import numpy as np
import pytest

from autograder import KIT_ROOT
from autograder.errors import KitError
from autograder.public import wire
from autograder.sandbox.host import client
from autograder.sandbox.host.client import Died, StudentProcess, Timeout, TooLarge, Zygote


def test_the_zygote_gets_no_secret_of_the_graders_environment(monkeypatch):
    """Are only the variables Python, PyTorch and a GPU need passed on (no CI token), with the kit's folder first
    on PYTHONPATH, ahead of the grader's own?"""
    monkeypatch.setenv("CI_JOB_TOKEN", "secret")
    monkeypatch.setenv("PYTHONPATH", "/opt/extra")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    env = client.zygote_environment()
    assert "CI_JOB_TOKEN" not in env and env["CUDA_VISIBLE_DEVICES"] == "1"
    assert env["PYTHONPATH"] == os.pathsep.join([str(KIT_ROOT), "/opt/extra"])
    assert set(env) <= set(client.PASSED_ON) | {"PYTHONDONTWRITEBYTECODE", "MPLBACKEND"}


def test_a_zygote_that_cannot_start_is_a_kit_error():
    """When the zygote fails while preloading (a probes file that is not there), is the kit's own error raised
    (never a student's score)?"""
    zygote = Zygote(probes=("/nonexistent/probes.py",), torch=False)
    with pytest.raises(KitError, match="^the sandbox's zygote process did not start"):
        zygote.ready()


def test_a_zygote_that_cannot_start_says_why(monkeypatch):
    """Does the error carry the zygote's own last words, even when its socket closes before the process is reaped
    (as it does: poll() finds it still running; modelled here so that the answer never depends on timing)?"""
    monkeypatch.setattr(subprocess.Popen, "poll", lambda self: None)
    zygote = Zygote(probes=("/nonexistent/probes.py",), torch=False)
    with pytest.raises(KitError, match="(?s)did not start: .*FileNotFoundError"):
        zygote.ready()


def test_a_zygote_answers_and_clones_itself():
    """Does a started zygote answer for a pid it never spawned, and does its clone answer too and close cleanly?"""
    zygote = Zygote(torch=False)
    try:
        assert zygote.wait(1 << 22) == "unknown"
        clone = zygote.clone()
        try:
            assert clone.wait(1 << 22) == "unknown"
        finally:
            clone.close()
    finally:
        zygote.close()
    assert zygote.process is not None and zygote.process.returncode == 0


class FakeZygote:
    """Spawns nothing: hands the grader one end of a socket pair, the test keeps the other (the student's)."""

    def __init__(self):
        self.student: socket.socket | None = None

    def spawn(self, request):
        ours, theirs = socket.socketpair()
        self.student = theirs
        return 0, ours


@pytest.fixture
def pair():
    zygote = FakeZygote()
    process = StudentProcess(zygote, {})
    yield process, zygote.student
    process.close()
    zygote.student.close()


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def test_a_reply_is_read_whole_and_decoded(pair):
    """Is a whole reply (its arrays too) read and decoded, and a request sent reaching the student's end?"""
    process, student = pair
    process.send({"op": "run"}, None, soon())
    assert wire.recv(student) == ({"op": "run"}, {})
    wire.send(student, {"op": "result", "errors": [None]})
    assert process.receive(soon(), 1 << 20) == ({"op": "result", "errors": [None]}, {})


def test_a_reply_over_its_size_is_refused_before_it_is_read(pair):
    """Is a reply that announces more bytes than the exchange allows refused from its header alone?"""
    process, student = pair
    student.sendall(struct.pack(">Q", 1 << 40))
    with pytest.raises(TooLarge, match=f"a reply of {1 << 40} bytes, over the 1000 bytes this exchange allows"):
        process.receive(soon(), 1000)


def test_a_reply_dripped_past_the_deadline_times_out(pair):
    """Is the deadline for the whole reply, so that a header with no payload ends in Timeout, the watch called
    while waiting?"""
    process, student = pair
    student.sendall(struct.pack(">Q", 100) + b"x")
    watched = []
    with pytest.raises(Timeout):
        process.receive(soon(0.3), 1 << 20, watch=lambda: watched.append(1))
    assert watched


def test_the_watch_may_end_the_exchange(pair):
    """Does an exception the watch raises (a CPU budget spent) end the wait for a reply?"""
    process, _ = pair

    class Spent(Exception):
        pass

    def watch():
        raise Spent()

    with pytest.raises(Spent):
        process.receive(soon(), 1 << 20, watch=watch)


def test_a_student_that_hangs_up_or_sends_garbage_died(pair):
    """Is a closed connection, or a payload that is no message, reported as Died with what happened?"""
    process, student = pair
    payload = b"not a message"
    student.sendall(struct.pack(">Q", len(payload)) + payload)
    with pytest.raises(Died):
        process.receive(soon(), 1 << 20)
    student.close()
    with pytest.raises(Died, match="the process closed its connection"):
        process.receive(soon(), 1 << 20)


def test_a_request_the_student_never_reads_times_out(pair):
    """When the student reads nothing and the socket's buffer is full, does sending stop at the deadline?"""
    process, _ = pair
    with pytest.raises(Timeout):
        process.send({"op": "run"}, {"big": np.zeros(16 << 20, dtype=np.uint8)}, soon(0.3))
