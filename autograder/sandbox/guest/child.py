"""A student process: isolate, load the submission, then answer batches of probe requests.

Everything before ``load`` is the kit's code; from ``load`` on, the student's code
runs here and may do anything this process can, so nothing it says is believed
beyond the plain arrays it returns, and those are judged as its answer.

    request: {"op": "run", "calls": [{"probe": id, "inputs": packed}, ...]}, arrays "<i>/<key>"
    reply:   {"op": "result", "errors": [None | feedback, ...]}, arrays "<i>/<key>"
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

from ...public import wire
from ...public.loader import Entry, load
from ...public.probing import Implementation, run_probe
from . import builtins, isolation


def quiet() -> None:
    """The student's prints go nowhere: a printed 'score: 100' must reach no report."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def configure_torch(device: str) -> None:
    import torch

    torch.set_num_threads(1)  # one core per student: fair and repeatable timing
    torch.backends.cuda.matmul.allow_tf32 = False  # full float32 on a GPU, as the tolerances assume
    torch.backends.cudnn.allow_tf32 = False
    if device.startswith("cuda"):
        torch.zeros(1, device=device)  # CUDA starts here, in the sandbox, never in the zygote


def answer(impl: Implementation, meta: dict, arrays: dict) -> tuple[dict, dict]:
    """Run a batch of probes; their outputs keyed "<i>/<key>", their errors in order."""
    errors, outputs = [], {}
    given = wire.by_call(arrays)
    for i, call in enumerate(meta["calls"]):
        inputs = wire.unpack(call["inputs"], given.get(i, {}))
        got, error = run_probe(call["probe"], impl, inputs)
        errors.append(error)
        for key, value in got.items():
            outputs[f"{i}/{key}"] = value
    return {"op": "result", "errors": errors}, outputs


def main(sock: socket.socket, request: dict) -> None:
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's reaper is not the student's
        os.setsid()
        quiet()
        isolation.enter(request)
        if request["framework"] == "torch":
            configure_torch(request["device"])
            builtins.forbid(tuple(request["graded"]))
        entry = Entry(request["kind"], Path(request["path"]))
        loaded = load(entry, frozenset(request.get("skip", ())))
        impl = Implementation(loaded.namespace, device=request["device"], label=entry.describe())
        wire.send(sock, {"op": "ready", "notes": [str(note)[:1000] for note in loaded.notes[:20]]})
        while True:
            meta, arrays = wire.recv(sock)
            reply, outputs = answer(impl, meta, arrays)
            wire.send(sock, reply, outputs)
    except BaseException:
        pass
    finally:
        os._exit(0)
