"""The trusted side of the sandbox: a zygote, and the student processes it forks.

Replies from a student's process are read against a deadline for the whole exchange,
not per receive (a reply dripped a byte at a time still ends in time), and against a
size limit set before reading (a padded reply is refused before it is held).
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable

from ... import KIT_ROOT
from ...errors import KitError
from ...public import wire

PASSED_ON = (
    "PATH", "LANG", "LC_ALL", "HOME", "PYTHONPATH", "XDG_CACHE_HOME", "MPLCONFIGDIR",
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CUDA_HOME", "LD_LIBRARY_PATH",
)  # fmt: skip
POLL = 0.05  # seconds between checks of a running exchange (CPU time, scratch size)


def zygote_environment() -> dict[str, str]:
    """Only what Python, PyTorch and a GPU need: CI secrets in this environment never reach a student.

    The kit's folder leads PYTHONPATH: the zygote starts in "/", and imports the kit from
    where this process did (an editable install, or a run from the kit's folder)."""
    env = {key: os.environ[key] for key in PASSED_ON if key in os.environ}
    path = os.pathsep.join([str(KIT_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return {**env, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}


class Zygote:
    """A clean process with the kit's public engine (and PyTorch) imported, forking one student process per request."""

    def __init__(
        self,
        probes: tuple[str, ...] = (),
        torch: bool = True,
        start_timeout: float = 300.0,
        sock: socket.socket | None = None,
    ):
        if sock is not None:  # a clone of another zygote, already running
            self.process, self.sock, self.start_timeout, self._ready = None, sock, start_timeout, True
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # -B, and "/" for its working folder: it writes no bytecode anywhere, and imports nothing from
        # the folder the grader was started in (which may be a student's).
        arguments = [sys.executable, "-B", "-m", "autograder.sandbox.guest.zygote", str(theirs.fileno())]
        arguments += (["--torch"] if torch else []) + list(probes)
        self.process = subprocess.Popen(
            arguments,
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=zygote_environment(),
            cwd="/",
        )
        theirs.close()
        self.sock = ours
        self.start_timeout = start_timeout
        self._ready = False

    def ready(self) -> None:
        """Wait until the zygote has imported what it preloads (it starts while the grader loads)."""
        if self._ready:
            return
        timed_out = not select.select([self.sock], [], [], self.start_timeout)[0]
        if timed_out or self.sock.recv(1 << 16) != b'{"ready": true}':
            error = "" if timed_out else self._last_words()
            self.close()
            raise KitError(f"the sandbox's zygote process did not start{': ' + error if error else ''}")
        self._ready = True

    def _last_words(self) -> str:
        """What a zygote that hung up before it was ready wrote last: it is exiting, if not reaped yet."""
        process = self.process
        assert process is not None and process.stderr is not None  # a clone starts ready; ours pipes stderr
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return ""  # still running: its stderr would not end
        return process.stderr.read().decode(errors="replace")[-2000:]

    def _ask(self, request: dict) -> dict:
        self.ready()
        self.sock.send(json.dumps(request).encode())
        return json.loads(self.sock.recv(1 << 16))

    def spawn(self, request: dict) -> tuple[int, socket.socket]:
        self.ready()
        self.sock.send(json.dumps({"op": "spawn", **request}).encode())
        message, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        if not fds:
            raise KitError("the zygote could not start a student process")
        return json.loads(message)["pid"], socket.socket(fileno=fds[0])

    def wait(self, pid: int) -> str:
        """How the process ended ('exit status 1', 'killed by signal 9 (SIGKILL)'): the zygote reaps it."""
        return self._ask({"op": "wait", "pid": pid})["status"]

    def probe(self, request: dict) -> str | None:
        """Whether a student process could enter this isolation here: None, or why not."""
        return self._ask({"op": "probe", "request": request})["reason"]

    def helper(self, target: str, arguments: dict, sockets: int) -> tuple[int, list[socket.socket]]:
        """A process of the grader's forked from the zygote, never sandboxed, running ``target`` ("module:function",
        called with its sockets and ``arguments``): its pid, and the other end of each of its ``sockets``."""
        self.ready()
        self.sock.send(
            json.dumps({"op": "helper", "target": target, "arguments": arguments, "sockets": sockets}).encode()
        )
        fds: list[int] = []
        while len(fds) < sockets:  # a message at a time, each with up to 250 of them (the zygote's FDS_AT_ONCE)
            message, more, _, _ = socket.recv_fds(self.sock, 1 << 16, sockets - len(fds))
            if not more:
                for fd in fds:
                    os.close(fd)
                raise KitError("the zygote could not start a process of the grader's")
            fds += more
        return json.loads(message)["pid"], [socket.socket(fileno=fd) for fd in fds]

    def clone(self) -> Zygote:
        """A zygote of its own for another process of the grader, forked from this one."""
        self.ready()
        self.sock.send(b'{"op": "clone"}')
        _, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        if not fds:
            raise KitError("the zygote could not clone itself")
        return Zygote(sock=socket.socket(fileno=fds[0]))

    def close(self) -> None:
        try:
            self.sock.send(b'{"op": "exit"}')
        except OSError:
            pass
        self.sock.close()
        if self.process is None:
            return
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()


class Timeout(Exception):
    pass


class Died(Exception):
    pass


class TooLarge(Exception):
    pass


class StudentProcess:
    """One student's process: send a request, get arrays back, or learn that it hung, died or overflowed."""

    def __init__(self, zygote: Zygote, request: dict):
        self.zygote = zygote
        self.pid, self.sock = zygote.spawn(request)
        self.sock.setblocking(False)
        self.ended: str | None = None

    def send(self, meta: dict, arrays: dict | None = None, deadline: float | None = None) -> None:
        data = memoryview(wire.frame(meta, arrays))
        deadline = deadline if deadline is not None else time.monotonic() + 30
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout()
            try:
                if not select.select([], [self.sock], [], min(left, 1.0))[1]:
                    continue
                sent = self.sock.send(data)
            except BlockingIOError:
                continue
            except OSError as error:
                raise Died(str(error)) from None
            data = data[sent:]

    def receive(
        self,
        deadline: float,
        max_bytes: int,
        watch: Callable[[], None] | None = None,
        limits: wire.MessageLimits = wire.LIMITS,
    ) -> tuple[dict, dict]:
        """One message, whole before the deadline and no larger than max_bytes.

        watch is called every POLL seconds while waiting; it may raise (a CPU budget
        spent, a scratch folder too full) to end the exchange.
        """
        head = self._read(8, deadline, watch)
        (size,) = struct.unpack(">Q", head)
        if size > max_bytes:
            raise TooLarge(f"a reply of {size} bytes, over the {max_bytes} bytes this exchange allows")
        payload = self._read(size, deadline, watch)
        try:
            return wire.decode(payload, limits)
        except wire.WireError as error:
            raise Died(str(error)) from None

    def _read(self, n: int, deadline: float, watch) -> bytes:
        chunks, left = [], n
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout()
            if not select.select([self.sock], [], [], min(remaining, POLL))[0]:
                if watch is not None:
                    watch()
                continue
            try:
                chunk = self.sock.recv(min(left, 1 << 20))
            except BlockingIOError:
                continue
            except OSError as error:
                raise Died(str(error)) from None
            if not chunk:
                raise Died("the process closed its connection")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self.sock.close()
