"""The trusted side of the sandbox: a zygote, and the student processes it forks."""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

from ..core import wire
from ..errors import KitError


PASSED_ON = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH")


def zygote_environment() -> dict[str, str]:
    """Only what Python, PyTorch and a GPU need: CI secrets in this environment never reach a student."""
    env = {key: os.environ[key] for key in PASSED_ON if key in os.environ}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}


class Zygote:
    """A clean process with PyTorch imported, forking one student process per request."""

    def __init__(self, preload: tuple[str, ...] = (), start_timeout: float = 300.0):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder.sandbox.zygote", str(theirs.fileno()), *preload],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=zygote_environment(),
        )
        theirs.close()
        self.sock = ours
        if not select.select([ours], [], [], start_timeout)[0] or ours.recv(1 << 16) != b'{"ready": true}':
            self.close()
            raise KitError("the sandbox's zygote process did not start; run `python -m autograder.sandbox.zygote` to see why")

    def spawn(self, request: dict) -> tuple[int, socket.socket]:
        self.sock.send(json.dumps({"op": "spawn", **request}).encode())
        message, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        if not fds:
            raise KitError("the zygote could not start a student process")
        return json.loads(message)["pid"], socket.socket(fileno=fds[0])

    def wait(self, pid: int) -> str:
        """How the process ended ('exit status 1', 'killed by signal 9 (SIGKILL)'): the zygote reaps it."""
        self.sock.send(json.dumps({"op": "wait", "pid": pid}).encode())
        return json.loads(self.sock.recv(1 << 16))["status"]

    def close(self) -> None:
        try:
            self.sock.send(b'{"op": "exit"}')
        except OSError:
            pass
        self.sock.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Timeout(Exception):
    pass


class Died(Exception):
    pass


class StudentProcess:
    """One student's process: send a request, get arrays back, or learn that it hung or died."""

    def __init__(self, zygote: Zygote, request: dict):
        self.zygote = zygote
        self.pid, self.sock = zygote.spawn(request)
        self.ended: str | None = None

    def receive(self, timeout: float) -> tuple[dict, dict]:
        deadline = time.monotonic() + max(timeout, 0.0)
        try:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.001))
            return wire.recv(self.sock)
        except (socket.timeout, TimeoutError):
            raise Timeout() from None
        except (EOFError, ConnectionError, wire.WireError) as error:
            raise Died(str(error)) from None

    def send(self, meta: dict, arrays: dict | None = None) -> None:
        try:
            self.sock.settimeout(10)
            wire.send(self.sock, meta, arrays)
        except (OSError, socket.timeout) as error:
            raise Died(str(error)) from None

    def kill(self) -> str:
        """End the process and everything it started; return how it ended."""
        if self.ended is None:
            for kill in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    kill()
                    break
                except ProcessLookupError:
                    continue
            self.sock.close()
            self.ended = self.zygote.wait(self.pid)
        return self.ended
