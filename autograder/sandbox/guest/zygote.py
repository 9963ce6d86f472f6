"""A warm, clean process that forks student processes: ``python -m autograder.sandbox.guest.zygote FD``.

It is started as a fresh interpreter, so that its memory holds nothing but libraries
and the kit's public engine: no reference, no hidden input, no other student's code.
It imports PyTorch once; each student process it forks starts with PyTorch ready.

Requests come as JSON messages on the SOCK_SEQPACKET socket FD; a spawned process's end of its own
socket goes back with the reply (SCM_RIGHTS). The zygote reaps its children and
tells the grader how each one ended, which the grader trusts: it is the zygote's
word, not the student's.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import importlib.util
import json
import os
import signal
import socket
import sys

# Everything a student process may need from the kit is imported here: inside the
# sandbox the kit's files are out of reach. CUDA is never started here (a forked
# process cannot use a CUDA context it inherits): the student process starts it.
PRELOAD = (
    "numpy",
    "autograder.public.wire",
    "autograder.public.probing",
    "autograder.public.compare",
    "autograder.public.loader",
    "autograder.sandbox.guest.isolation",
    "autograder.sandbox.guest.child",
)
TORCH = (
    "torch",
    "autograder.public.torch_probes",
    "autograder.sandbox.guest.forbidden",
    "matplotlib",
    "matplotlib.pyplot",
    "matplotlib.backends.backend_agg",
    "matplotlib.figure",
    "matplotlib.collections",
)


UMASK = 0o022
FDS_AT_ONCE = 250  # descriptors sent in one message: Linux takes at most 253 (SCM_MAX_FD)


def preload(modules) -> None:
    os.environ["MPLBACKEND"] = "Agg"
    for module in modules:
        importlib.import_module(module)


def warm_matplotlib() -> None:
    """Draw nothing, but build one figure as a heatmap exercise does, so that what
    matplotlib initialises on first use (the colour maps' registry, the tick and text
    machinery, the layout engines) is done once here, not in every student process."""
    from matplotlib.figure import Figure  # here: preload() has imported it, for a PyTorch assignment only

    figure = Figure(figsize=(2, 2), layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    image = axes.matshow([[0.0, 1.0], [1.0, 0.0]], cmap="bone", vmin=0, vmax=1)
    axes.set_xticks(range(2), labels=["a", "b"], rotation=90)
    axes.set_yticks(range(2), labels=["a", "b"])
    axes.set_title("warm")
    figure.colorbar(image, ax=figure.axes)


def preload_probes(paths) -> None:
    """Each assignment's probes, by file, under the kit's name for them (autograder.course.<name>.probes)."""
    for path in paths:
        name = f"autograder.course.{os.path.basename(os.path.dirname(path))}.probes"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None  # a .py file always gets a source loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


def _reap(statuses: dict) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        statuses[pid] = status


def describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"killed by signal {number} ({signal.Signals(number).name})"
    return f"exit status {os.WEXITSTATUS(status)}"


def serve(sock: socket.socket) -> None:
    """One request, one reply, each a SOCK_SEQPACKET message."""
    statuses: dict[int, int] = {}
    # Reap as soon as a child ends, orphans included, even while waiting for a request.
    signal.signal(signal.SIGCHLD, lambda *_: _reap(statuses))
    while True:
        message = sock.recv(1 << 16)
        if not message:
            return  # the grader is gone
        request = json.loads(message)
        _reap(statuses)
        if request["op"] == "spawn":
            parent_end, child_end = socket.socketpair()
            pid = os.fork()
            if pid == 0:
                sock.close()
                parent_end.close()
                from autograder.sandbox.guest import child  # here: preloaded (PRELOAD) once MPLBACKEND is set

                child.main(child_end, request)  # never returns
            child_end.close()
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [parent_end.fileno()])
            parent_end.close()
        elif request["op"] == "wait":
            pid = request["pid"]
            if pid not in statuses:
                try:
                    _, status = os.waitpid(pid, 0)
                    statuses[pid] = status
                except ChildProcessError:
                    statuses.setdefault(pid, -1)  # the SIGCHLD handler may have reaped it meanwhile
            status = statuses.pop(pid)
            answer = "unknown" if status == -1 else describe_status(status)
            statuses.clear()  # orphans reaped on the way: nobody asks for them
            sock.send(json.dumps({"pid": pid, "status": answer}).encode())
        elif request["op"] == "probe":
            from autograder.sandbox.guest.isolation import probe_tier  # here: as child, preloaded

            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                reason = probe_tier(request["request"])
            finally:
                signal.signal(signal.SIGCHLD, lambda *_: _reap(statuses))
            sock.send(json.dumps({"reason": reason}).encode())
        elif request["op"] == "clone":
            # A zygote of its own for another grader process (grade-all's workers): a fork, so
            # nothing is imported again.
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            pid = os.fork()
            if pid == 0:
                sock.close()
                ours.close()
                become_subreaper()
                serve(theirs)
                os._exit(0)
            theirs.close()
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [ours.fileno()])
            ours.close()
        elif request["op"] == "helper":
            _fork_helper(sock, request)
        elif request["op"] == "exit":
            return


def _fork_helper(sock: socket.socket, request: dict) -> None:
    """A process of the grader's own, never sandboxed, forked here for what this process holds (PyTorch imported:
    grade-all's reference forker, grade/reference_process.py). The grader's code it runs (request["target"],
    "module:function") is imported in it alone; it gets request["sockets"] sockets, whose other ends go back."""
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(request["sockets"])]
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            sock.close()
            for kept_here, _ in pairs:
                kept_here.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its children are its own to reap, not this loop's
            module, function = request["target"].split(":")
            code = getattr(importlib.import_module(module), function)(
                [theirs for _, theirs in pairs], **request["arguments"]
            )
        finally:
            os._exit(code)
    for _, theirs in pairs:
        theirs.close()
    back = [end for end, _ in pairs]
    for first in range(0, len(back), FDS_AT_ONCE):  # a message carries at most 253 (SCM_MAX_FD): --jobs 300 too
        socket.send_fds(
            sock, [json.dumps({"pid": pid}).encode()], [end.fileno() for end in back[first : first + FDS_AT_ONCE]]
        )
    for end in back:
        end.close()


def become_subreaper() -> None:
    """Orphans of the student processes are reparented here, not to the machine's init, and reaped."""
    if sys.platform.startswith("linux"):
        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def main() -> None:
    """FD [--torch] PROBES...: the socket, whether to import PyTorch, each assignment's probes.py."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    become_subreaper()
    # The grader's umask (an instructor's 077) is not the sandbox's: the folders a student process makes for
    # its new root (/sandbox, its mount points) get the modes they ask for, so its unprivileged uid can pass.
    os.umask(UMASK)
    torch = "--torch" in sys.argv[2:]
    preload(PRELOAD + (TORCH if torch else ()))
    if torch:
        warm_matplotlib()
    preload_probes([arg for arg in sys.argv[2:] if arg != "--torch"])
    # Everything loaded so far lives as long as the zygote: keep it out of the garbage
    # collector's sight, so that a student process's collections do not walk (and so
    # copy, page by page) the whole of PyTorch and matplotlib inherited by fork.
    gc.freeze()
    sock.send(b'{"ready": true}')
    serve(sock)
    # Gone without the interpreter's clean-up: tearing down PyTorch and matplotlib module by module takes
    # 0.16 s, and the grader waits for this process to end before its own close returns.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
