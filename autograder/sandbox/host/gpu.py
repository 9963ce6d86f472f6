"""The GPU as the grader sees it: whether there is one to grade on, and the GPU memory each student's processes hold.

A student's process on the GPU starts with its PyTorch allocator capped below the
student's GPU memory (sandbox/guest/child.py), but the student's code could lift that
cap: the bound is kept from outside. NVML (the driver's management library, through
nvidia-ml-py's ``pynvml``, imported only where CUDA is used) reports the GPU memory each
process holds, its CUDA context included; the session's watch ends an exercise whose
processes hold more than the student's share (sandbox/host/session.py). A neighbour
that grabs the whole GPU before the watch sees it can make another student's
allocation fail: a CUDA error in a student's process is never scored as it is, the
exercise is graded again on the CPU (grade/engine.py), which gives the same verdicts.
"""

from __future__ import annotations

import glob
import os
import re
from typing import Any

from ...errors import KitError

GiB = 1024**3

# What a CUDA failure says in a student's process (PyTorch's words, CUDA's and its libraries'): it is
# graded again on the CPU, never scored, as it may be a neighbour's doing. The text comes from the
# student's process and so may be forged: it buys nothing but a grading on the CPU.
DEVICE_ERROR = re.compile(
    r"CUDA out of memory|OutOfMemoryError|CUDA error|CUDA driver error|CUBLAS_STATUS_|CUDNN_STATUS_|cudaError"
    r"|CUFFT_|CUSOLVER_STATUS_|NCCL error|AcceleratorError|CUDA-capable device"
)


def is_device_error(text: str) -> bool:
    """Whether an error text is a CUDA failure (out of memory, a device error), not an error of the code's own logic."""
    return bool(DEVICE_ERROR.search(text[:4000]))


def nvml() -> Any:
    """nvidia-ml-py's pynvml, started; ImportError where it is not installed, pynvml.NVMLError where NVML fails."""
    import pynvml  # here: only a grader that uses CUDA loads NVML

    pynvml.nvmlInit()
    return pynvml


def missing(nvml_loader=nvml) -> str | None:
    """Why there is no GPU here to grade on, at once and without starting CUDA; None where there is one."""
    if not os.path.exists("/dev/nvidiactl") or not glob.glob("/dev/nvidia[0-9]*"):
        return "no NVIDIA GPU here (no /dev/nvidiactl and /dev/nvidia<N>: no GPU, or its driver is not loaded)"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU from the kit"
    try:
        library = nvml_loader()
    except ImportError:
        return (
            "NVML's Python bindings are not installed, and the GPU memory of each student is watched "
            "through them: pip install nvidia-ml-py (or the kit's extra: pip install -e '.[gpu]')"
        )
    except Exception as error:  # pynvml.NVMLError: the driver's library is missing or refuses
        return f"NVML, the driver's management library, does not start: {error}"
    if library.nvmlDeviceGetCount() == 0:
        return "NVML sees no GPU"
    return None


def first_choice(wanted: str, why_missing=None) -> tuple[str, str]:
    """The device to grade on first, and why: with --device cuda on a host without a GPU, KitError at once.

    auto tries CUDA where there is a GPU (the grader falls back to the CPU where CUDA cannot be
    isolated: grade/engine.py), and the CPU where there is none."""
    if wanted == "cpu":
        return "cpu", ""
    if wanted not in ("cuda", "auto") and not wanted.startswith("cuda:"):
        raise KitError(f"unknown device {wanted!r}: choose cpu, cuda or auto")
    absent = (why_missing or missing)()
    if absent is None:
        return ("cuda" if wanted == "auto" else wanted), ("--device auto: a GPU is here" if wanted == "auto" else "")
    if wanted == "auto":
        return "cpu", f"--device auto graded on the CPU: {absent}"
    raise KitError(f"--device {wanted}: {absent}; grade with --device cpu (or auto)")


class GpuWatch:
    """The GPU memory that given processes hold, over every GPU NVML sees, read from outside them."""

    def __init__(self, nvml_loader=nvml):
        self._loader = nvml_loader
        self._nvml: Any = None
        self._pid = -1
        self._handles: list = []

    def _library(self) -> Any:
        """NVML started in this process (again after a fork: grade-all's workers watch from their own)."""
        if self._pid != os.getpid():
            self._nvml = self._loader()
            self._handles = [self._nvml.nvmlDeviceGetHandleByIndex(i) for i in range(self._nvml.nvmlDeviceGetCount())]
            self._pid = os.getpid()
        return self._nvml

    def used_by(self, pids: set[int]) -> int:
        """Bytes of GPU memory the processes pids hold now (their CUDA contexts included)."""
        if not pids:
            return 0
        library = self._library()
        used = 0
        for handle in self._handles:
            for process in library.nvmlDeviceGetComputeRunningProcesses(handle):
                if process.pid in pids and process.usedGpuMemory:
                    used += int(process.usedGpuMemory)
        return used

    def device_memory(self) -> tuple[int, int]:
        """(bytes used, bytes in all) over every GPU, by anyone."""
        library = self._library()
        infos = [library.nvmlDeviceGetMemoryInfo(handle) for handle in self._handles]
        return sum(int(i.used) for i in infos), sum(int(i.total) for i in infos)
