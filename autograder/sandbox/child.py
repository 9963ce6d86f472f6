"""A student process: isolate, load the submission, then answer probe requests.

Everything before ``load`` is the kit's code; from ``load`` on, the student's code
runs here and may do anything this process can, so nothing it says is believed
beyond the arrays it returns.
"""
from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

from ..core import wire
from ..core.loader import Entry, load
from ..core.probing import Implementation, install_tripwires, run_probe
from . import isolation


def quiet() -> None:
    """The student's prints go nowhere: a printed 'score: 100' must reach no report."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def configure_torch() -> None:
    import torch

    torch.set_num_threads(1)  # one core per student: fair and repeatable timing
    torch.backends.cuda.matmul.allow_tf32 = False  # full float32 on a GPU, as the tolerances assume
    torch.backends.cudnn.allow_tf32 = False


def main(sock: socket.socket, request: dict) -> None:
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's reaper is not the student's
        os.setsid()
        quiet()
        isolation.enter(request)
        if request["framework"] == "torch":
            configure_torch()
            install_tripwires(tuple(request["graded"]))
        entry = Entry(request["kind"], Path(request["path"]))
        loaded = load(entry, frozenset(request.get("skip", ())))
        impl = Implementation(loaded.namespace, device=request["device"], label=entry.describe())
        wire.send(sock, {"op": "ready", "notes": loaded.notes[:20]})
        while True:
            meta, arrays = wire.recv(sock)
            inputs = wire.unpack(meta["inputs"], arrays)
            outputs, error = run_probe(meta["probe"], impl, inputs)
            wire.send(sock, {"op": "result", "error": error}, outputs)
    except BaseException:
        pass
    finally:
        os._exit(0)
