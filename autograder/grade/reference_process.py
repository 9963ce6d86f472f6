"""The reference answering a carried run from a process of its own, bounded in memory and CPU time.

What the reference computes for a stand-in is decided by the student's data. Every
request is bounded (grade/carry.py's ``bounded``: values, axes, integers), but not
what the reference makes of it: a query of shape (1024, 1, 24, 1) and a key that
broadcasts against it are 49,152 values, and their scores (1024, 1024, 24, 24) are 4.8
GB. So the reference never answers in the grader's process. Each carried run forks one
process (the reference and PyTorch are imported already: about 20 ms): from the grader's
process, or for grade-all's workers from the ``Forker``, a process the sandbox's zygote
forks, PyTorch imported there (below). That process runs grade/carry.py's ``Server``
under an address-space bound (RLIMIT_AS: an allocation past it fails in the reference)
and a CPU-time budget that the grader watches, with a wall-clock backstop. The grader relays: each request of the student's
process goes to that process, and a function the caller passed (a sublayer), which the
reference calls, is asked of the student's process through the grader.

A request that the reference cannot answer within those bounds stops the run's
reference: the stand-in is told why ("the reference would need 4.5 GiB of memory to
answer ..."), refuses every later request of the run with the same reason, and
``stopped`` keeps it for the student's feedback. Nothing of it outlives the run: the
process is killed and reaped when the run closes, and dies with the process it was forked
from.

Between the grader and that process (both trusted, one machine) messages are pickled
(meta, arrays) pairs, as grade/carry.py exchanges them with the student's side:

    grader -> reference:  {"op": "carry", ...}      a request of a stand-in
                          {"op": "called", ...}     the student's side's answer to a callback
    reference -> grader:  {"op": "carried", ...}    the answer
                          {"op": "callback", ...}   run a function the caller passed
                          {"op": "refused", "reason": text}   a bound was reached: the run's reference stops
"""

from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import pickle
import resource
import select
import signal
import socket
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import KitError
from ..interrupts import held_while_forking
from ..public.carry import Message, error_reply, talk
from ..sandbox.guest.isolation import address_space_now
from ..sandbox.host.session import cpu_of
from .carry import Overrun, Server, kinds
from .reference import Reference
from .threads import single_threaded

if TYPE_CHECKING:
    from ..sandbox.host.client import Zygote

_HEADER = struct.Struct("!Q")
_POLL = 0.05  # seconds between looks at the reference's CPU time while it works
PR_SET_PDEATHSIG = 1


class _Stopped(Exception):
    """The reference's process stopped answering: the message says why, for the student."""


class ReferenceProcess:
    """The reference answering the stand-ins of one carried run (the names given) from a process of its
    own, started at the first request; ``converse`` as grade/carry.py's Server has it. Close it after the run.

    memory_bytes: what the reference may allocate beyond what the grader holds when it forks;
    cpu_seconds: CPU time it may spend in the run; wall_seconds: time the grader waits on it in the run.
    """

    def __init__(
        self,
        reference: Reference,
        names,
        memory_bytes: int,
        cpu_seconds: float,
        wall_seconds: float,
        forker: ForkerClient | None = None,
    ):
        """forker: where grade-all's workers have their reference's processes started (Forker); else this process
        forks them."""
        self.reference = reference
        self.forker = forker
        # What each name is, from where the reference runs: without a forker, loaded here before any fork
        self.kinds = forker.kinds(names) if forker is not None else kinds(reference, names)
        self.names = tuple(names)
        self.memory_bytes = memory_bytes
        self.cpu_seconds = cpu_seconds
        self.wall_seconds = wall_seconds
        self.stopped: str | None = None  # why the reference stopped answering in this run
        self._pid: int | None = None
        self._sock: socket.socket | None = None
        self._waited = 0.0  # wall seconds spent waiting on it

    # ---------------------------------------------------------------- the conversation with a sandboxed process

    def converse(self, send, receive, meta: dict, arrays: dict) -> Message:
        """Send a batch to the student's process and relay its stand-ins' requests until its result comes."""

        def serve(request: dict, data: dict) -> Message:
            return self._serve(request, data, callback)

        def callback(request: dict, data: dict) -> Message:
            return talk(send, receive, (request, data), "carry", serve)

        return talk(send, receive, (meta, arrays), "carry", serve)

    def _serve(self, request: dict, data: dict, callback) -> Message:
        """The reference's answer to one request, run there; the callbacks it makes run on the student's side."""
        if self.stopped is not None:
            return error_reply("carried", self.stopped)
        try:
            self._start()
            return talk(self._send, self._receive, (request, data), "callback", callback)
        except _Stopped as stopped:
            self.stopped = str(stopped)
            self._end()
            return error_reply("carried", self.stopped)
        except BaseException:  # the student's side failed during a callback: the exchange ends with it
            self._end()
            raise

    def close(self) -> None:
        self._end()

    # ---------------------------------------------------------------- the process

    def _start(self) -> None:
        if self._pid is not None:
            return
        if self.forker is not None:
            self._pid, self._sock = self.forker.start(self.names, self.memory_bytes)
            return
        _preload_torch()
        ours, theirs = socket.socketpair()
        with held_while_forking():  # Ctrl-C and SIGTERM are the grader's: they stay held in the child, which it ends
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child's exit status is what the tests see
                code = 1
                try:
                    ours.close()
                    code = _serve_forever(theirs, self.reference, self.names, self.memory_bytes)
                finally:
                    os._exit(code)
            self._pid, self._sock = pid, ours  # _end() ends it, whatever comes as the block ends
        theirs.close()

    def _end(self) -> None:
        pid, self._pid = self._pid, None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap(pid)

    def _reap(self, pid: int) -> int | None:
        """How the process ended (os.waitpid's status), once it has; None where that is not known."""
        if self.forker is not None:
            return self.forker.wait(pid)
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None

    def _send(self, meta: dict, arrays: dict) -> None:
        assert self._sock is not None  # started by _serve
        try:
            _write(self._sock, (meta, arrays))
        except OSError:
            raise _Stopped(self._why_gone()) from None

    def _receive(self) -> Message:
        """The reference's next message, while it keeps within its CPU budget and the run's wall time."""
        assert self._sock is not None and self._pid is not None  # started by _serve
        while True:
            started = time.monotonic()
            ready, _, _ = select.select([self._sock], [], [], _POLL)
            self._waited += time.monotonic() - started
            if ready:
                break
            if cpu_of(self._pid) > self.cpu_seconds:
                raise _Stopped(
                    f"the reference standing in for {self._listed()} used more than {self.cpu_seconds:g} s of CPU "
                    f"time on the calls your code sent it, and was stopped"
                )
            if self._waited > self.wall_seconds:
                raise _Stopped(
                    f"the reference standing in for {self._listed()} took more than {self.wall_seconds:g} s on the "
                    f"calls your code sent it, and was stopped"
                )
        try:
            meta, arrays = _read(self._sock)
        except (OSError, EOFError, pickle.UnpicklingError):
            raise _Stopped(self._why_gone()) from None
        if meta.get("op") == "refused":
            raise _Stopped(str(meta.get("reason")))
        return meta, arrays

    def _why_gone(self) -> str:
        """Why the process ended, from its exit status."""
        pid, self._pid = self._pid, None
        how = "ended"
        status = None if pid is None else self._reap(pid)
        if status is not None:
            try:
                how = (
                    f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
                    if os.WIFSIGNALED(status)
                    else f"exited with status {os.WEXITSTATUS(status)}"
                )
            except ValueError:
                pass
        return f"the reference standing in for {self._listed()} {how} while answering a call your code made"

    def _listed(self) -> str:
        return ", ".join(self.names)


def _preload_torch() -> None:
    """PyTorch imported here once, not in each run's process: the server decodes every request into tensors,
    a NumPy assignment's too."""
    try:
        import torch  # here: a NumPy assignment is graded without PyTorch until its first carried run  # noqa: F401
    except ImportError:
        pass


# ------------------------------------------------------------------ grade-all's workers: one process starts them all


class Forker:
    """A process that starts the reference's processes of grade-all's workers' carried runs: forked by the sandbox's
    zygote, so PyTorch is imported there already, and the reference loaded there at the first request. (grade-all's
    own process imported PyTorch for its workers to fork with: 1 core-s while the zygote started, for nothing where
    no error is carried forward, and each worker held PyTorch's memory.)

    Never sandboxed: the zygote forks it as the grader's, and the grader's code runs in it alone (the zygote's
    memory keeps nothing of it). A SOCK_SEQPACKET socket to each worker (``client(k)``, handed to worker k, then
    ``handed(k)`` in grade-all's process). It keeps Ctrl-C and SIGTERM held and dies with the zygote
    (PR_SET_PDEATHSIG), the processes it started with it (theirs). A request and its reply, JSON:

        {"op": "kinds", "names": [...]}                       ->  {name: "module" or "function"}
        {"op": "start", "names": [...], "memory_bytes": N}   ->  {"pid": P}, the process's socket with it (SCM_RIGHTS)
        {"op": "wait", "pid": P}                              ->  {"status": S}: os.waitpid's, null where P is not its own

    A worker kills the process it was given (same uid) and watches its CPU time in /proc, as of a process it forked;
    what the Forker started for a worker it ends itself once that worker hangs up (a worker killed mid-run). A request
    it cannot answer (a fork refused) is the kit's error for that run alone: it serves the next one.
    """

    def __init__(self, zygote: Zygote, reference_path: Path, name: str, workers: int):
        self._zygote = zygote
        target = f"{__name__}:serve_workers"
        self.pid: int | None
        self.pid, self._ours = zygote.helper(target, {"path": str(reference_path), "name": name}, workers)

    def client(self, worker: int) -> ForkerClient:
        return ForkerClient(self._ours[worker], [end for k, end in enumerate(self._ours) if k != worker])

    def handed(self, worker: int) -> None:
        """Worker ``worker`` holds its socket now: this process's copy is closed."""
        self._ours[worker].close()

    def close(self) -> None:
        for end in self._ours:
            end.close()
        pid, self.pid = self.pid, None
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
                self._zygote.wait(pid)  # the zygote reaps it
            except (OSError, ValueError, KitError):
                pass  # the zygote is gone, and the forker with it

    def __enter__(self) -> Forker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ForkerClient:
    """A worker's end of the Forker: the reference's process of a carried run started there, and its end told."""

    def __init__(self, sock: socket.socket, others: list[socket.socket] | None = None):
        self.sock = sock
        self._others = list(others or [])

    def forked(self) -> None:
        """In the worker, once forked: the other workers' sockets are closed here, so that the Forker sees each
        worker hang up when it ends (and ends what it started for it)."""
        for end in self._others:
            end.close()
        self._others = []

    def kinds(self, names) -> dict[str, str]:
        """What each of the reference's names is (grade/carry.py's ``kinds``), asked where the reference runs."""
        reply, _ = self._ask({"op": "kinds", "names": list(names)})
        return {str(name): str(kind) for name, kind in reply.items()}

    def start(self, names, memory_bytes: int) -> tuple[int, socket.socket]:
        """The pid of a reference's process answering ``names`` within ``memory_bytes``, and a socket to it."""
        reply, fds = self._ask({"op": "start", "names": list(names), "memory_bytes": memory_bytes}, fds=1)
        if len(fds) != 1:
            raise KitError(f"{_FORKER} sent no socket with its reply")
        return int(reply["pid"]), socket.socket(fileno=fds[0])

    def wait(self, pid: int) -> int | None:
        """How the process ended (os.waitpid's status), waited for there; None where it was not started there."""
        status = self._ask({"op": "wait", "pid": pid})[0]["status"]
        return None if status is None else int(status)

    def close(self) -> None:
        self.sock.close()

    def _ask(self, request: dict, fds: int = 0) -> tuple[dict, list[int]]:
        """The reply to a request, and the descriptors that came with it; KitError where the forker is gone."""
        try:
            self.sock.send(json.dumps(request).encode())
            message, received, _, _ = (
                socket.recv_fds(self.sock, 1 << 16, fds) if fds else (self.sock.recv(1 << 16), [], 0, None)
            )
        except OSError as error:
            raise KitError(f"{_FORKER} is gone ({error.strerror}): the kit could not grade this student") from None
        if not message:
            raise KitError(f"{_FORKER} is gone: the kit could not grade this student")
        reply = json.loads(message)
        if isinstance(reply, dict) and "failed" in reply:
            raise KitError(f"{_FORKER} could not answer: {reply['failed']}")
        return reply, received


_FORKER = "the process that starts the reference's processes"


def serve_workers(ends: list[socket.socket], path: str, name: str) -> int:
    """The Forker's process, forked by the zygote: answer each worker's requests until every worker has hung up;
    the exit status (0)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # never outlive the zygote
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # grade-all ends it
    faulthandler.disable()
    quiet = os.open(os.devnull, os.O_WRONLY)  # the zygote's stderr is read only when the zygote fails to start
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)
    reference = Reference.from_file(Path(path), name)
    kept = sorted({0, 1, 2} | {end.fileno() for end in ends})
    for low, high in zip(kept, kept[1:] + [os.sysconf("SC_OPEN_MAX")]):
        os.closerange(low + 1, high)  # whatever else the zygote held: not this process's
    started: dict[int, socket.socket] = {}  # each process started, by pid: the worker's socket it was started for
    listening = list(ends)
    while listening:
        for end in select.select(listening, [], [])[0]:
            message = end.recv(1 << 16)
            if not message:  # the worker ended: so does what it started (its CPU time was watched there only)
                listening.remove(end)
                _end_all([pid for pid, owner in started.items() if owner is end], started)
                continue
            try:
                _answer(end, json.loads(message), reference, ends, started)
            except Exception as error:  # that request fails, as the kit's, and the Forker serves the next ones
                end.send(json.dumps({"failed": f"{type(error).__name__}: {error}"[:2000]}).encode())
    return 0


def _answer(end: socket.socket, request: dict, reference: Reference, ends, started: dict) -> None:
    if request["op"] == "kinds":  # the reference loaded here at the first
        end.send(json.dumps(kinds(reference, request["names"])).encode())
    elif request["op"] == "start":
        pid, ours = _start_for_worker(reference, request, ends)
        started[pid] = end
        socket.send_fds(end, [json.dumps({"pid": pid}).encode()], [ours.fileno()])
        ours.close()
    elif request["op"] == "wait":  # the worker killed it, or it ended by itself (its socket closed)
        pid = request["pid"]
        status = os.waitpid(pid, 0)[1] if started.pop(pid, None) is not None else None
        end.send(json.dumps({"status": status}).encode())
    else:
        raise ValueError(f"no request {request['op']!r}")


def _end_all(pids: list[int], started: dict) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        del started[pid]


def _start_for_worker(reference: Reference, request: dict, ends: list[socket.socket]) -> tuple[int, socket.socket]:
    _preload_torch()
    single_threaded()  # PyTorch on one thread before any fork, as in the grader's own process
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's exit status is what the tests see
        code = 1
        try:
            for end in ends:
                end.close()
            ours.close()
            code = _serve_forever(theirs, reference, tuple(request["names"]), int(request["memory_bytes"]))
        finally:
            os._exit(code)
    theirs.close()
    return pid, ours


# ------------------------------------------------------------------ in the reference's process


def _serve_forever(sock: socket.socket, reference: Reference, names, memory_bytes: int) -> int:
    """Answer requests until the grader hangs up; the exit status (0) once it has."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # never outlive the grader
    faulthandler.disable()  # a crash here is told by its signal, not by a dump into the grader's stderr
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    bound = address_space_now() + memory_bytes
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        bound = min(bound, soft)
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    server = Server(reference, names, memory_bytes=memory_bytes)

    def send(meta: dict, arrays: dict) -> None:
        _write(sock, (meta, arrays))

    def receive() -> Message:
        return _read(sock)

    def callback(meta: dict, arrays: dict) -> Message:
        return talk(send, receive, (meta, arrays), "carry", lambda m, a: server.handle(m, a, callback))

    while True:
        try:
            meta, arrays = receive()
        except (OSError, EOFError):
            return 0
        try:
            send(*server.handle(meta, arrays, callback))
        except Overrun as overrun:
            send({"op": "refused", "reason": str(overrun)}, {})
            return 0


def _write(sock: socket.socket, message: Message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _read(sock: socket.socket) -> Message:
    (size,) = _HEADER.unpack(_exactly(sock, _HEADER.size))
    return pickle.loads(_exactly(sock, size))


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other side hung up")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
