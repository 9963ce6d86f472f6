"""A student process: isolate, load the submission, then answer batches of probe requests.

Everything before the loading's step "running" is the kit's code, and tells the grader
each step as it begins, and why one failed (guest/steps.py); from "running" on, the
student's code runs here and may do anything this process can, so nothing it says is
believed beyond "ready" and the plain arrays it returns, and those are judged as its answer.

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
from .steps import DeviceFailed, Steps


def quiet() -> None:
    """The student's prints go nowhere: a printed 'score: 100' must reach no report."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


CONTEXT_ALLOWANCE = 1 << 30  # GPU memory a CUDA context (and what else the allocator does not count) may take


def configure_torch(device: str, kernels: str = "exact", gpu_memory_bytes: int | None = None) -> None:
    """One thread; on a GPU, CUDA started here (never in the zygote), PyTorch's kernels as asked, and its
    allocator capped within the student's GPU memory (a first line only: the grader's watch keeps the bound).

    kernels "exact": full float32 matmuls (no TF32) and attention's math kernel only, as the tolerances assume;
    "fast": TF32 matmuls and the flash and memory-efficient attention kernels, a student's default PyTorch on a GPU
    (doctor compares the verdicts of both with the CPU's)."""
    import torch  # here: the zygote preloads PyTorch only for a PyTorch assignment

    torch.set_num_threads(1)  # one core per student: fair and repeatable timing
    set_kernels(device, kernels)
    if device.startswith("cuda"):
        torch.zeros(1, device=device)  # CUDA starts here, in the sandbox, never in the zygote
        if gpu_memory_bytes:
            # These two take a device with its index ("cuda:0") or an int: "cuda" alone is refused.
            index = torch.device(device).index
            index = torch.cuda.current_device() if index is None else index
            total = torch.cuda.get_device_properties(index).total_memory
            cap = max(gpu_memory_bytes - CONTEXT_ALLOWANCE, gpu_memory_bytes // 4)
            torch.cuda.set_per_process_memory_fraction(min(1.0, cap / total), index)


def set_kernels(device: str, kernels: str) -> None:
    """PyTorch's kernels as grading asks, set again before every call of the student's code (answer): code
    that turns TF32 or bfloat16 matmuls on when it loads or in an earlier call (allow_tf32 = True,
    set_float32_matmul_precision("high"), the fp32_precision settings, as training scripts do) is graded with
    full float32 matmuls all the same, on the GPU (cuBLAS) and on the CPU (oneDNN). Code that turns them on
    inside the graded call itself runs that call with them. On an H200, TF32 took the reference's
    feed-forward network past the float32 tolerances; loosening them would pass real mistakes (a LayerNorm's
    eps, 1e-5, is smaller than TF32's rounding), so the kernels stay exact and the tolerances as they are."""
    import torch  # here: only a PyTorch assignment's process sets its kernels

    fast = kernels == "fast"
    torch.set_float32_matmul_precision("high" if fast else "highest")  # every backend's matmuls, the CPU's too
    torch.backends.cudnn.allow_tf32 = fast
    if device.startswith("cuda"):
        torch.backends.cuda.enable_flash_sdp(fast)
        torch.backends.cuda.enable_mem_efficient_sdp(fast)
        if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):  # PyTorch 2.3 and newer
            torch.backends.cuda.enable_cudnn_sdp(fast)
        torch.backends.cuda.enable_math_sdp(True)


def answer(
    impl: Implementation,
    meta: dict,
    arrays: dict,
    sock: socket.socket | None = None,
    spaces: list | None = None,
    kernels: tuple[str, str] | None = None,
) -> tuple[dict, dict]:
    """Run a batch of probes; their outputs keyed "<i>/<key>", their errors in order. With ``carry``,
    the names it gives stand in as the reference for the batch, in ``spaces`` (the namespaces the
    student's code looks names up in), asking the grader over ``sock``. ``kernels``: a PyTorch process's
    (device, kernels), set again before each call (set_kernels)."""
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
            return answer(impl, {**meta, "carry": None}, arrays, kernels=kernels)
    errors, outputs = [], {}
    given = wire.by_call(arrays)
    for i, call in enumerate(meta["calls"]):
        inputs = wire.unpack(call["inputs"], given.get(i, {}))
        if kernels is not None:
            set_kernels(*kernels)
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
    steps = Steps(sock)
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's reaper is not the student's
        os.setsid()
        quiet()
        steps.begin("isolating")
        isolation.enter(request)
        kernels = None
        if request["framework"] == "torch":
            kernels = (request["device"], request.get("kernels", "exact"))
            try:
                configure_torch(*kernels, request["limits"].get("gpu_memory_bytes"))
            except (
                Exception
            ) as error:  # the kit's code, before any of the student's: the device failed, not the student
                if not request["device"].startswith("cuda"):
                    raise
                raise DeviceFailed(f"{type(error).__name__}: {error}"[:500]) from None
            forbidden.forbid(tuple(request["graded"]))
        entry = Entry(request["kind"], Path(request["path"]))
        loaded = load(entry, frozenset(request.get("skip", ())), steps.begin)
        impl = Implementation(loaded.namespace, device=request["device"], label=entry.describe())
        folder = entry.path if entry.kind == "package" else entry.path.parent
        spaces = namespaces(loaded.namespace, folder)
        wire.send(sock, {"op": "ready", "notes": [str(note)[:1000] for note in loaded.notes[:20]]})
        while True:
            meta, arrays = wire.recv(sock)
            reply, outputs = answer(impl, meta, arrays, sock, spaces, kernels)
            wire.send(sock, reply, outputs)
    except BaseException as error:
        steps.failed(error)  # a step of the kit's only: the student's failures are measured by the grader
    finally:
        os._exit(0)
