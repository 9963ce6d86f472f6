"""The zygote's own steps: how an exit is told, reaping, its requests answered, probes preloaded, orphans adopted.

The zygote forks, reaps every child it has and installs signal handlers: each test runs it in
a forked child (tests/sandbox/forked.py), so that none of that touches pytest's own process.
"""

import ctypes
import json
import os
import signal
import socket
import sys
import time

import numpy as np
import pytest

from autograder.public import probing, wire
from autograder.sandbox.guest import zygote

from ..forked import in_a_child

MiB = 1024**2


def test_an_end_is_told_as_an_exit_status_or_a_signal_by_name():
    """Is an exit told by its status and a kill by its signal's number and name?"""
    assert zygote.describe_status(3 << 8) == "exit status 3"
    assert zygote.describe_status(0) == "exit status 0"
    assert zygote.describe_status(signal.SIGKILL) == "killed by signal 9 (SIGKILL)"
    assert zygote.describe_status(signal.SIGSEGV) == "killed by signal 11 (SIGSEGV)"


def test_reaping_collects_every_ended_child_and_waits_for_none():
    """Are two ended children reaped with their statuses, without waiting for the one still running?"""

    def work() -> dict:
        ended = []
        for code in (0, 5):
            pid = os.fork()
            if pid == 0:
                os._exit(code)
            ended.append(pid)
        running = os.fork()
        if running == 0:
            signal.pause()
            os._exit(0)
        while not all(os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split()[2] == "Z"
                      for pid in ended):  # fmt: skip
            time.sleep(0.01)
        statuses: dict[int, int] = {}
        zygote._reap(statuses)
        os.kill(running, signal.SIGKILL)
        os.waitpid(running, 0)
        return {
            "codes": sorted(os.waitstatus_to_exitcode(s) for s in statuses.values()),
            "running": running in statuses,
        }

    assert in_a_child(work) == {"codes": [0, 5], "running": False}


def doubled(impl, x):
    return {"y": impl.double(x)}


@pytest.fixture
def probe(monkeypatch):
    """A probe the zygote's students inherit (they are forks of this process's child)."""
    monkeypatch.setitem(probing.PROBES, "test.doubled", probing.Probe("test.doubled", doubled, {}))


def spawn_request(tmp_path) -> dict:
    (tmp_path / "work").mkdir()
    submission = tmp_path / "submission.py"
    submission.write_text("def double(x):\n    print('score: 100')\n    return x * 2\n")
    return {
        "op": "spawn",
        "tier": "process",
        "device": "cpu",
        "framework": "numpy",
        "kind": "module",
        "path": str(submission),
        "graded": ["double"],
        "work": str(tmp_path / "work"),
        "limits": {"memory_bytes": 512 * MiB, "processes": 16, "file_bytes": MiB, "scratch_bytes": MiB,
                   "cpu_seconds": 30},
        "rlimit_memory": True,
        "rlimit_processes": True,
    }  # fmt: skip


def ask(sock: socket.socket, request: dict) -> dict:
    sock.send(json.dumps(request).encode())
    return json.loads(sock.recv(1 << 16))


def converse(tmp_path):
    """In the child: start a zygote (its own fork), spawn a student through it, have it answer, then end it all."""

    def work() -> dict:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            zygote.serve(theirs)
            os._exit(0)
        theirs.close()
        said = {"unknown": ask(ours, {"op": "wait", "pid": 1 << 22})["status"]}
        said["probe"] = ask(ours, {"op": "probe", "request": {"tier": "vm", "device": "cpu"}})["reason"]
        ours.send(json.dumps(spawn_request(tmp_path)).encode())
        message, fds, _, _ = socket.recv_fds(ours, 1 << 16, 1)
        student = socket.socket(fileno=fds[0])
        said["loading"] = []
        while not said["loading"] or said["loading"][-1] != "ready":
            heard = wire.recv(student)[0]
            said["loading"].append(heard.get("step", heard["op"]))
        meta, arrays = wire.pack({"x": np.arange(3)})
        arrays = {f"0/{key}": value for key, value in arrays.items()}  # the batch's first call
        wire.send(student, {"op": "run", "calls": [{"probe": "test.doubled", "inputs": meta}]}, arrays)
        reply, outputs = wire.recv(student)
        said["answer"] = [reply["errors"], outputs["0/y"].tolist()]
        student.close()  # the student process ends when the grader goes
        said["ended"] = ask(ours, {"op": "wait", "pid": json.loads(message)["pid"]})["status"]
        ours.send(b'{"op": "clone"}')
        _, fds, _, _ = socket.recv_fds(ours, 1 << 16, 1)
        clone = socket.socket(fileno=fds[0])
        said["clone"] = ask(clone, {"op": "wait", "pid": 1 << 22})["status"]
        clone.send(b'{"op": "exit"}')
        ours.send(b'{"op": "exit"}')
        said["zygote"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        return said

    return work


def test_the_zygote_spawns_a_student_answers_and_tells_how_each_ended(tmp_path, probe):
    """Through the zygote's socket: is an unknown pid 'unknown', a probe's failure named, a student spawned that
    tells each step of its loading (a .py file: no extracting) and answers its batch, its end told, a clone of the zygote answering too, and 'exit' honoured?"""
    assert in_a_child(converse(tmp_path)) == {
        "unknown": "unknown",
        "probe": "SandboxError: unknown tier 'vm'",
        "loading": ["isolating", "reading", "parsing", "running", "ready"],
        "answer": [[None], [0, 2, 4]],
        "ended": "exit status 0",
        "clone": "unknown",
        "zygote": 0,
    }


def test_the_zygote_ends_when_the_grader_is_gone():
    """When the grader's end of the socket closes, does serve return (no zygote outlives its grader)?"""

    def work() -> bool:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.close()
        zygote.serve(theirs)
        return True

    assert in_a_child(work, hang=30) is True


def test_each_assignments_probes_load_under_the_kits_name_for_them(tmp_path):
    """Is an assignment's probes.py loaded as autograder.course.<its folder>.probes, run once?"""
    (tmp_path / "kit_test_assignment").mkdir()
    probes = tmp_path / "kit_test_assignment" / "probes.py"
    probes.write_text("RUNS = globals().get('RUNS', 0) + 1\n")

    def work() -> list:
        zygote.preload_probes([str(probes)])
        module = sys.modules["autograder.course.kit_test_assignment.probes"]
        return [module.RUNS, module.__file__]

    assert in_a_child(work) == [1, str(probes)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux prctl")
def test_the_zygote_adopts_its_students_orphans():
    """After become_subreaper, is an orphan of a child reparented to this process, not to the machine's init?"""

    def work() -> list:
        zygote.become_subreaper()
        flag = ctypes.c_int(0)
        ctypes.CDLL(None).prctl(37, ctypes.byref(flag), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
        read, write = os.pipe()
        go_read, go_write = os.pipe()
        middle = os.fork()
        if middle == 0:
            if os.fork() == 0:
                os.close(go_write)
                os.read(go_read, 1)  # end of file once its parent is gone and reaped
                os.write(write, str(os.getppid()).encode())
                os._exit(0)
            os._exit(0)
        os.waitpid(middle, 0)
        os.close(go_write)
        os.close(write)
        adopter = int(os.read(read, 64))
        return [flag.value, adopter == os.getpid()]

    assert in_a_child(work) == [1, True]
