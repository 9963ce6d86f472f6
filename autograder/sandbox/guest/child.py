"""A student process: isolate, load the submission, then answer batches of probe requests.

Everything before ``load`` is the kit's code; from ``load`` on, the student's code
runs here and may do anything this process can, so nothing it says is believed
beyond the plain arrays it returns, and those are judged as its answer.

    request: {"op": "run", "calls": [{"probe": id, "inputs": packed}, ...], "carry": {name: kind}},
             arrays "<i>/<key>"
    reply:   {"op": "result", "errors": [None | feedback, ...]}, arrays "<i>/<key>"

A batch with ``carry`` runs with those graded names standing in as the reference
(public/carry.py): their calls go to the grader over this socket, and end with the batch.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

from ...public import wire
from ...public.carry import Substitutes, talk
from ...public.loader import Entry, load
from ...public.probing import Implementation, run_probe
from . import forbidden, isolation


def quiet() -> None:
    """The student's prints go nowhere: a printed 'score: 100' must reach no report."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def configure_torch(device: str) -> None:
    import torch  # here: the zygote preloads PyTorch only for a PyTorch assignment

    torch.set_num_threads(1)  # one core per student: fair and repeatable timing
    torch.backends.cuda.matmul.allow_tf32 = False  # full float32 on a GPU, as the tolerances assume
    torch.backends.cudnn.allow_tf32 = False
    if device.startswith("cuda"):
        torch.zeros(1, device=device)  # CUDA starts here, in the sandbox, never in the zygote


def answer(
    impl: Implementation, meta: dict, arrays: dict, sock: socket.socket | None = None, spaces: list | None = None
) -> tuple[dict, dict]:
    """Run a batch of probes; their outputs keyed "<i>/<key>", their errors in order. With ``carry``,
    the names it gives stand in as the reference for the batch, in ``spaces`` (the namespaces the
    student's code looks names up in), asking the grader over ``sock``."""
    carry = meta.get("carry")
    if carry and sock is not None and isinstance(carry, dict):
        substitutes = Substitutes(
            carry,
            lambda request, data: talk(
                lambda m, a: wire.send(sock, m, a), lambda: wire.recv(sock), (request, data), "callback",
                substitutes.on_callback,
            ),
            device=impl.device,
        )  # fmt: skip
        with substitutes.installed(spaces or [impl.namespace]):
            return answer(impl, {**meta, "carry": None}, arrays)
    errors, outputs = [], {}
    given = wire.by_call(arrays)
    for i, call in enumerate(meta["calls"]):
        inputs = wire.unpack(call["inputs"], given.get(i, {}))
        got, error = run_probe(call["probe"], impl, inputs)
        errors.append(error)
        for key, value in got.items():
            outputs[f"{i}/{key}"] = value
    return {"op": "result", "errors": errors}, outputs


def namespaces(namespace: dict, folder: Path) -> list[dict]:
    """Where the student's code looks its names up: the submission's namespace, then each module it imported
    from its own folder (a package's modules, a notebook's helper file)."""
    found = [namespace]
    for module in list(sys.modules.values()):
        path = str(getattr(module, "__file__", None) or "")
        space = getattr(module, "__dict__", None)
        if path.startswith(str(folder) + os.sep) and isinstance(space, dict) and space is not namespace:
            found.append(space)
    return found


def main(sock: socket.socket, request: dict) -> None:
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's reaper is not the student's
        os.setsid()
        quiet()
        isolation.enter(request)
        if request["framework"] == "torch":
            configure_torch(request["device"])
            forbidden.forbid(tuple(request["graded"]))
        entry = Entry(request["kind"], Path(request["path"]))
        loaded = load(entry, frozenset(request.get("skip", ())))
        impl = Implementation(loaded.namespace, device=request["device"], label=entry.describe())
        folder = entry.path if entry.kind == "package" else entry.path.parent
        spaces = namespaces(loaded.namespace, folder)
        wire.send(sock, {"op": "ready", "notes": [str(note)[:1000] for note in loaded.notes[:20]]})
        while True:
            meta, arrays = wire.recv(sock)
            reply, outputs = answer(impl, meta, arrays, sock, spaces)
            wire.send(sock, reply, outputs)
    except BaseException:
        pass
    finally:
        os._exit(0)
