"""A student process's own steps: silence, PyTorch's settings, a batch of probes answered, the namespaces it searches."""

import importlib.util
import os
import sys

import numpy as np
import pytest
import torch

from autograder.public import probing, wire
from autograder.sandbox.guest import child

from ..forked import in_a_child


def test_the_students_prints_reach_nothing():
    """After quiet(), does nothing the student prints or writes to stderr reach what stdout and stderr were?"""
    read, write = os.pipe()

    def work() -> None:
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.write(1, b"before ")
        child.quiet()
        print("score: 100", flush=True)
        sys.stderr.write("score: 100\n")
        sys.stderr.flush()
        os.write(2, b"score: 100")

    in_a_child(work)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        assert pipe.read() == b"before "


@pytest.mark.parametrize("kernels, tf32", [("exact", False), ("fast", True)])
def test_torch_gets_one_thread_and_the_kernels_asked_for(kernels, tf32):
    """Does the student's PyTorch run on one thread (fair timing), with TF32 off for grading (the tolerances assume
    float32) and on where the fast kernels are asked for (a student's default PyTorch, for doctor's comparison)?"""

    def work() -> list:
        torch.set_num_threads(2)
        torch.backends.cuda.matmul.allow_tf32 = not tf32
        torch.backends.cudnn.allow_tf32 = not tf32
        child.configure_torch("cpu", kernels)
        return [torch.get_num_threads(), torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32]

    assert in_a_child(work) == [1, tf32, tf32]


@pytest.mark.parametrize("device, index", [("cuda", 0), ("cuda:1", 1)])
def test_the_students_gpu_memory_is_capped_on_the_device_it_runs_on(monkeypatch, device, index):
    """On a GPU, is PyTorch's allocator capped at the student's GPU memory less a CUDA context's allowance, on the
    device asked for ("cuda" meaning the current one), through calls that refuse a device without its index as
    PyTorch's own do (their check stands in for CUDA here: "cuda" alone failed every student process on an H200)?"""
    from torch.cuda._utils import _get_device_index

    total, capped = 80 * 2**30, []

    def properties(d):
        _get_device_index(d, optional=False)  # PyTorch's check: ValueError for "cuda" without an index
        return type("Properties", (), {"total_memory": total})

    def fraction(f, d):
        capped.append((f, _get_device_index(d, optional=False)))

    monkeypatch.setattr(torch, "zeros", lambda *a, **k: None)  # CUDA "starts"
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", properties)
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", fraction)
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)
    monkeypatch.setattr(child, "set_kernels", lambda device, kernels: None)  # this process's settings kept
    child.configure_torch(device, "exact", 3 * 2**30)
    assert capped == [((3 * 2**30 - child.CONTEXT_ALLOWANCE) / total, index)]


def doubled(impl, x):
    return {"y": impl.double(x), "z": impl.triple(x)}


@pytest.fixture
def probe(monkeypatch):
    monkeypatch.setitem(probing.PROBES, "test.doubled", probing.Probe("test.doubled", doubled, {}))
    return "test.doubled"


def batch(*inputs: dict) -> tuple[dict, dict]:
    """A run request as the host sends it: each call's inputs packed, arrays keyed "<i>/<key>"."""
    calls, arrays = [], {}
    for i, values in enumerate(inputs):
        meta, mine = wire.pack(values)
        calls.append({"probe": "test.doubled", "inputs": meta})
        arrays.update({f"{i}/{key}": value for key, value in mine.items()})
    return {"op": "run", "calls": calls}, arrays


def test_a_batch_answers_each_call_in_order_with_its_own_error(probe):
    """Are a batch's outputs keyed by call, and does a call that fails give its error in its place only?"""
    impl = probing.Implementation({"double": lambda x: x * 2, "triple": lambda x: x * 3})
    meta, arrays = batch({"x": np.arange(3)}, {"x": np.array([5])})
    reply, outputs = child.answer(impl, meta, arrays)
    assert reply == {"op": "result", "errors": [None, None]}
    assert sorted(outputs) == ["0/y", "0/z", "1/y", "1/z"]
    assert outputs["0/y"].tolist() == [0, 2, 4] and outputs["1/z"].tolist() == [15]

    broken = probing.Implementation({"double": lambda x: x * 2, "triple": lambda x: x[9]})
    reply, outputs = child.answer(broken, *batch({"x": np.arange(3)}, {"x": np.arange(12)}))
    assert reply["errors"][0].startswith("your code raised IndexError") and reply["errors"][1] is None
    assert sorted(outputs) == ["1/y", "1/z"]


def test_matmul_precision_a_students_code_lowered_is_full_again_before_each_call(probe):
    """After the student's code lowers float32 matmuls by every setting PyTorch has (the legacy flag, the precision
    names, the newer per-backend fp32_precision: TF32 on the GPU, bfloat16 in the CPU's oneDNN), when it loads and
    in each call, does every call of a batch find the CPU's and the GPU's matmuls full float32 again?"""

    def work() -> list:
        seen = []

        def lowering(x):
            seen.append(
                [
                    torch.get_float32_matmul_precision(),
                    torch.backends.cuda.matmul.allow_tf32,
                    torch.backends.cuda.matmul.fp32_precision,
                    torch.backends.mkldnn.matmul.fp32_precision,
                ]
            )
            torch.set_float32_matmul_precision("medium")
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.fp32_precision = "tf32"  # the newer settings (PyTorch 2.9 and newer; the lock has 2.13)
            torch.backends.cuda.matmul.fp32_precision = "tf32"
            torch.backends.mkldnn.matmul.fp32_precision = "bf16"
            return x * 2

        child.configure_torch("cpu", "exact")
        lowering(0)  # as the student's code loads
        impl = probing.Implementation({"double": lowering, "triple": lambda x: x * 3})
        reply, _ = child.answer(impl, *batch({"x": np.arange(2)}, {"x": np.arange(3)}), kernels=("cpu", "exact"))
        return [reply["errors"], seen[1:]]

    assert in_a_child(work) == [[None, None], [["highest", False, "ieee", "ieee"]] * 2]


def test_a_missing_name_fails_its_calls_with_the_contract_message(probe):
    """Where the submission does not define a graded name, does each call say so, not crash the batch?"""
    impl = probing.Implementation({"double": lambda x: x * 2})
    reply, outputs = child.answer(impl, *batch({"x": np.arange(2)}))
    assert reply["errors"] == ["your submission does not define triple"] and outputs == {}


def load_module(path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_student_looks_names_up_in_its_own_folders_modules_only(tmp_path, monkeypatch):
    """Are the submission's namespace and the modules imported from its folder searched, and a module of a
    folder whose name merely begins the same not?"""
    for folder in ("work", "work-other"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "helper.py").write_text("VALUE = 1\n")
    mine = load_module(tmp_path / "work" / "helper.py", "kit_test_helper_mine")
    theirs = load_module(tmp_path / "work-other" / "helper.py", "kit_test_helper_theirs")
    monkeypatch.setitem(sys.modules, "kit_test_helper_mine", mine)
    monkeypatch.setitem(sys.modules, "kit_test_helper_theirs", theirs)
    namespace: dict = {}
    found = child.namespaces(namespace, tmp_path / "work")
    assert found[0] is namespace
    assert any(space is mine.__dict__ for space in found)
    assert not any(space is theirs.__dict__ for space in found)
    assert len(found) == 2
