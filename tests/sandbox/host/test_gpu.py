"""The GPU as the grader sees it, played by a stand-in for NVML: whether there is one to grade on, which device grading
starts with and why, which errors are CUDA's, and the GPU memory the student's processes hold."""

import os
from types import SimpleNamespace

import pytest

from autograder.errors import KitError
from autograder.sandbox.host import gpu

GiB = 1024**3


class FakeNvml:
    """pynvml's functions that the watch calls, over devices given as {pid: bytes} (None: NVML cannot tell)."""

    def __init__(self, *devices):
        self.devices = list(devices)
        self.started = 0

    def loader(self):
        self.started += 1
        return self

    def nvmlDeviceGetCount(self):
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index):
        return index

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used in self.devices[handle].items()]

    def nvmlDeviceGetMemoryInfo(self, handle):
        used = sum(u or 0 for u in self.devices[handle].values())
        return SimpleNamespace(used=used, total=80 * GiB, free=80 * GiB - used)


def test_the_student_processes_gpu_memory_is_summed_over_every_gpu():
    """Does the watch add what the given processes hold on each GPU, and nothing of other processes, nor what NVML
    cannot tell?"""
    nvml = FakeNvml({10: GiB, 11: 2 * GiB, 99: 30 * GiB}, {10: GiB, 12: None})
    watch = gpu.GpuWatch(nvml.loader)
    assert watch.used_by({10, 11, 12}) == 4 * GiB
    assert watch.used_by(set()) == 0 and watch.used_by({7}) == 0
    assert watch.device_memory() == (34 * GiB, 160 * GiB)


def test_a_forked_worker_starts_nvml_again(monkeypatch):
    """Is NVML started once per process: again in a grade-all worker forked from the grader, never per reading?"""
    nvml = FakeNvml({10: GiB})
    watch = gpu.GpuWatch(nvml.loader)
    watch.used_by({10})
    watch.used_by({10})
    assert nvml.started == 1
    monkeypatch.setattr(os, "getpid", lambda: -2)
    watch.used_by({10})
    assert nvml.started == 2


@pytest.mark.parametrize(
    "text, cuda",
    [
        ("OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", True),
        ("RuntimeError: CUDA error: an illegal memory access was encountered", True),
        ("RuntimeError: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", True),
        ("your code raised ValueError: shapes (2,3) and (4,) differ", False),
        ("used more than 2 GiB of memory", False),
    ],
)
def test_cuda_failures_are_told_from_the_codes_own_errors(text, cuda):
    """Are CUDA's own failures (memory, device errors, its libraries') told apart from an error of the code's logic?"""
    assert gpu.is_device_error(text) is cuda


@pytest.fixture
def nodes(monkeypatch):
    """The NVIDIA device nodes, present."""
    monkeypatch.setattr(gpu.os.path, "exists", lambda path: path == "/dev/nvidiactl")
    monkeypatch.setattr(gpu.glob, "glob", lambda pattern: ["/dev/nvidia0"])
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)


def test_without_device_nodes_there_is_no_gpu(monkeypatch):
    """Where the NVIDIA device nodes are missing: no GPU, said at once (NVML is never asked)?"""
    monkeypatch.setattr(gpu.os.path, "exists", lambda path: False)
    assert gpu.missing(lambda: pytest.fail("NVML asked")).startswith("no NVIDIA GPU here")


def test_a_gpu_needs_nvml_to_be_graded_on(nodes, monkeypatch):
    """With device nodes: is the GPU refused where NVML's bindings are missing (saying what to install), where NVML
    fails or sees none, or where CUDA_VISIBLE_DEVICES hides every GPU; and taken where NVML sees one?"""

    def not_installed():
        raise ImportError("No module named 'pynvml'")

    def failing():
        raise RuntimeError("NVML Shared Library Not Found")

    assert "pip install nvidia-ml-py" in gpu.missing(not_installed)
    assert (
        gpu.missing(failing) == "NVML, the driver's management library, does not start: NVML Shared Library Not Found"
    )
    assert gpu.missing(FakeNvml().loader) == "NVML sees no GPU"
    assert gpu.missing(FakeNvml({}).loader) is None
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    assert "hides every GPU" in gpu.missing(FakeNvml({}).loader)


def test_the_first_device_and_why():
    """cpu is the CPU; auto is CUDA where there is a GPU and the CPU, with the reason, where there is none; cuda on a
    host without a GPU is refused at once with the reason and what to do; an unknown device is refused?"""
    assert gpu.first_choice("cpu", lambda: pytest.fail("asked")) == ("cpu", "")
    assert gpu.first_choice("auto", lambda: None) == ("cuda", "--device auto: a GPU is here")
    assert gpu.first_choice("cuda", lambda: None) == ("cuda", "")
    assert gpu.first_choice("auto", lambda: "no NVIDIA GPU here") == (
        "cpu",
        "--device auto graded on the CPU: no NVIDIA GPU here",
    )
    with pytest.raises(KitError, match=r"^--device cuda: no NVIDIA GPU here; grade with --device cpu \(or auto\)$"):
        gpu.first_choice("cuda", lambda: "no NVIDIA GPU here")
    with pytest.raises(KitError, match="unknown device 'tpu'"):
        gpu.first_choice("tpu")
