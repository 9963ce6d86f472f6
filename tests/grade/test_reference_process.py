"""Does the reference answer a carried run from a process of its own, within its memory and CPU time, and leave
nothing behind?"""

import os
import signal
import time

import numpy as np
import pytest
import torch

from autograder.errors import KitError
from autograder.grade import engine
from autograder.grade.carry import Server, allocation_asked, out_of_memory
from autograder.grade.reference import Reference, exec_source
from autograder.grade.reference_process import Forker, ReferenceProcess
from autograder.public.plain_trees import Encoder

MiB = 1 << 20


def request(name: str, *args) -> tuple[dict, dict, list]:
    arrays: dict = {}
    callables: list = []
    encoder = Encoder(arrays, callables)
    meta = {"op": "carry", "kind": "call", "name": name, "args": encoder.tree(args), "kwargs": encoder.tree({})}
    return meta, arrays, callables


def nobody(meta, arrays):
    raise AssertionError("no function was passed: the reference must not call back")


def answer(reply) -> np.ndarray:
    meta, arrays = reply
    assert meta["error"] is None, meta["error"]
    return arrays[meta["result"]["a"]]


MADE_UP = """
import os
import signal

import torch


def spin(x):
    while True:
        x = x + 1


def whose(x):
    return torch.tensor(os.getpid())


def hoard(x):
    return torch.zeros(int(x.sum()), 1024, 1024, dtype=torch.uint8)  # x.sum() MiB


def crash(x):
    os.kill(os.getpid(), signal.SIGSEGV)
"""


@pytest.fixture(scope="module")
def references(mha, tmp_path_factory):
    """By name, a reference and the file it is loaded from: the course's, and one of functions that show where and
    how it runs."""
    made_up = tmp_path_factory.mktemp("made_up") / "made_up.py"
    made_up.write_text(MADE_UP)
    loaded = Reference(lambda: exec_source(MADE_UP, str(made_up), "reference_made_up"))
    return {"mha": (Reference.of(mha), mha.reference_path), "made_up": (loaded, made_up)}


@pytest.fixture(scope="module", params=["grader", "forker"])
def lend(request, mha, references):
    """lend(reference, *names, memory=, cpu=, wall=): a carried run's reference, its processes forked by this
    process (a grader on its own), or by the Forker the zygote starts (grade-all's workers)."""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True) if request.param == "forker" else None
    forkers: dict[str, Forker] = {}

    def lent(which, *names, memory=256 * MiB, cpu=5.0, wall=30.0) -> ReferenceProcess:
        reference, path = references[which]
        client = None
        if zygote is not None:
            if which not in forkers:
                forkers[which] = Forker(zygote, path, which, 1)
            client = forkers[which].client(0)
        return ReferenceProcess(
            reference, names, memory_bytes=memory, cpu_seconds=cpu, wall_seconds=wall, forker=client
        )

    yield lent
    for forker in forkers.values():
        forker.close()
    if zygote is not None:
        zygote.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def test_the_reference_answers_as_in_process_but_from_a_process_of_its_own(lend, references):
    """Does split_heads's stand-in get the same answer as the in-process server gives, computed in another process
    that is gone once the run closes?"""
    x = torch.arange(24.0).reshape(1, 2, 12)
    meta, arrays, _ = request("split_heads", x, 3)
    in_process = answer(Server(references["mha"][0], ["split_heads"]).handle(meta, arrays, nobody))
    server = lend("mha", "split_heads")
    try:
        assert np.array_equal(answer(server._serve(meta, arrays, nobody)), in_process)
    finally:
        server.close()
    elsewhere = lend("made_up", "whose")
    pid = int(answer(elsewhere._serve(*request("whose", torch.zeros(1))[:2], nobody)))
    assert pid != os.getpid() and alive(pid)
    elsewhere.close()
    assert not alive(pid), "the reference's process outlived its run"


def test_a_function_the_caller_passed_is_asked_of_the_student_through_the_grader(lend):
    """Does the reference's call of the dropout the caller passed reach the student's side (the grader's callback),
    and its answer go back into the reference's computation?"""
    q = torch.eye(2).reshape(1, 2, 2)
    meta, arrays, _ = request("scaled_dot_product_attention", q, q, q, None, lambda p: p)
    asked = []

    def student(callback_meta, callback_arrays):  # the student's dropout: doubles what it is given
        asked.append(callback_meta["kind"])
        given = callback_arrays[callback_meta["args"]["items"][0]["a"]]
        out: dict = {}
        return {
            "op": "called",
            "result": Encoder(out).tree(torch.from_numpy(given * 2)),
            "call": None,
            "error": None,
        }, out

    server = lend("mha", "scaled_dot_product_attention")
    try:
        meta_out, arrays_out = server._serve(meta, arrays, student)
    finally:
        server.close()
    assert asked == ["call"] and meta_out["error"] is None
    output = arrays_out[meta_out["result"]["items"][0]["a"]]
    probs = torch.softmax(q @ q.mT / 2**0.5, dim=-1)
    assert np.allclose(output, (2 * probs @ q).numpy(), rtol=1e-6, atol=1e-7)


def test_a_call_that_needs_more_memory_than_given_stops_the_runs_reference(lend):
    """Is a call whose answer would take 400 MiB, with 256 MiB given, refused saying how much it needed, and every
    later call of the run refused with the same reason, while the grader's process allocated none of it?"""
    server = lend("made_up", "hoard")
    before = _rss()
    try:
        meta, _ = server._serve(*request("hoard", torch.tensor([400.0]))[:2], nobody)
        assert "would need 0.39 GiB at once" in meta["error"] and "given 0.25 GiB" in meta["error"]
        assert server.stopped == meta["error"]
        later, _ = server._serve(*request("hoard", torch.tensor([1.0]))[:2], nobody)
        assert later["error"] == meta["error"]
    finally:
        server.close()
    assert _rss() - before < 100 * MiB


def test_a_call_that_works_past_its_cpu_time_is_stopped(lend):
    """Is a reference that computes for longer than its CPU budget stopped, saying so, within about that budget?"""
    server = lend("made_up", "spin", cpu=0.5)
    started = time.monotonic()
    try:
        meta, _ = server._serve(*request("spin", torch.zeros(1))[:2], nobody)
    finally:
        server.close()
    assert "used more than 0.5 s of CPU time" in meta["error"]
    assert time.monotonic() - started < 20  # a loaded machine gives it a fraction of a core: generous


def test_a_reference_that_dies_is_told_by_its_signal_and_answers_no_more(lend):
    """Does a crash of the reference's process end its answers with the signal named, the grader unharmed?"""
    server = lend("made_up", "crash", "whose")
    try:
        meta, _ = server._serve(*request("crash", torch.zeros(1))[:2], nobody)
        assert "was killed by SIGSEGV" in meta["error"]
        again, _ = server._serve(*request("whose", torch.zeros(1))[:2], nobody)
        assert again["error"] == meta["error"]
    finally:
        server.close()


def test_the_students_failure_during_a_callback_ends_the_exchange_and_the_process(lend):
    """When the student's side dies while the reference waits on it, does that failure reach the grader as it is,
    with the reference's process gone?"""
    q = torch.eye(2).reshape(1, 2, 2)
    meta, arrays, _ = request("scaled_dot_product_attention", q, q, q, None, lambda p: p)

    class Died(Exception):
        pass

    def student(callback_meta, callback_arrays):
        raise Died("the student's process exited")

    server = lend("mha", "scaled_dot_product_attention")
    server._start()
    pid = server._pid
    with pytest.raises(Died):
        server._serve(meta, arrays, student)
    assert server._pid is None and not alive(pid)
    server.close()


def test_the_forker_and_what_it_started_end_with_it(mha, references):
    """Does the zygote's Forker load the reference itself (PyTorch already there), start a run's process that is not
    the grader's own child, and leave neither once closed?"""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True)
    forker = Forker(zygote, references["made_up"][1], "made_up", 2)
    try:
        client = forker.client(1)
        assert client.kinds(["whose", "spin"]) == {"whose": "function", "spin": "function"}
        server = ReferenceProcess(references["made_up"][0], ["whose"], 256 * MiB, 5.0, 30.0, client)
        pid = int(answer(server._serve(*request("whose", torch.zeros(1))[:2], nobody)))
        assert alive(pid) and pid not in (os.getpid(), forker.pid)
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # the forker's child, not this process's
        helper = forker.pid
    finally:
        forker.close()
        zygote.close()
    deadline = time.monotonic() + 10
    while (alive(pid) or alive(helper)) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(pid) and not alive(helper)


def test_a_forker_gone_is_the_kits_failure_never_the_students(mha, references):
    """Where the Forker's process is gone (killed, crashed), does a carried run raise the kit's error, which grading
    counts as the grader's own failure (engine.run_check), rather than tell the student the reference stopped?"""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True)
    forker = Forker(zygote, references["made_up"][1], "made_up", 1)
    try:
        client = forker.client(0)
        server = ReferenceProcess(references["made_up"][0], ["whose"], 256 * MiB, 5.0, 30.0, client)
        os.kill(forker.pid, signal.SIGKILL)
        with pytest.raises(KitError, match="the process that starts the reference's processes is gone"):
            server._serve(*request("whose", torch.zeros(1))[:2], nobody)
        assert server.stopped is None
        with pytest.raises(KitError, match="is gone"):  # the next run's, as it is made
            ReferenceProcess(references["made_up"][0], ["whose"], 256 * MiB, 5.0, 30.0, client)
    finally:
        forker.close()
        zygote.close()


def test_what_a_worker_started_ends_when_the_worker_does(mha, references):
    """A worker killed mid-run (out of memory, a crash) watched its reference's CPU time alone: does the Forker end
    the processes it started for that worker once the worker's socket hangs up, and keep serving the others?"""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True)
    forker = Forker(zygote, references["made_up"][1], "made_up", 2)
    told, tell = os.pipe()
    try:
        worker = os.fork()
        if worker == 0:  # pragma: no cover - a worker, killed below
            try:
                client = forker.client(0)
                client.forked()
                server = ReferenceProcess(references["made_up"][0], ["spin"], 256 * MiB, 600.0, 600.0, client)
                server._start()
                os.write(tell, str(server._pid).encode())
                server._serve(*request("spin", torch.zeros(1))[:2], nobody)
            finally:
                os._exit(0)
        forker.handed(0)
        spinning = int(os.read(told, 64))
        assert alive(spinning)
        os.kill(worker, signal.SIGKILL)
        os.waitpid(worker, 0)
        deadline = time.monotonic() + 10
        while alive(spinning) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(spinning), "the reference's process outlived its worker"
        assert forker.client(1).kinds(["whose"]) == {"whose": "function"}
    finally:
        os.close(told)
        os.close(tell)
        forker.close()
        zygote.close()


def test_a_request_that_fails_is_the_kits_error_and_the_forker_serves_on(mha, references):
    """Does a request the Forker cannot answer (here one it does not know; a fork refused for want of memory or
    processes alike) come back as the kit's error, and the next request get its answer, where one failure used to
    end the Forker for every worker?"""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True)
    forker = Forker(zygote, references["made_up"][1], "made_up", 1)
    try:
        client = forker.client(0)
        with pytest.raises(KitError, match="could not answer: ValueError: no request 'fly'"):
            client._ask({"op": "fly"})
        assert client.kinds(["spin"]) == {"spin": "function"}
    finally:
        forker.close()
        zygote.close()


def test_a_forker_for_more_workers_than_a_message_carries_sockets(mha, references):
    """Linux passes at most 253 descriptors in one message: does a Forker for 300 workers get a socket to each (the
    zygote sends them a message of 250 at a time), where the zygote died of EINVAL?"""
    zygote = engine.Zygote(probes=(str(mha.probes_path),), torch=True)
    forker = Forker(zygote, references["made_up"][1], "made_up", 300)
    try:
        assert forker.client(299).kinds(["whose"]) == {"whose": "function"}
        assert zygote.process.poll() is None, "the zygote died sending them"
    finally:
        forker.close()
        zygote.close()


def test_an_allocation_refused_is_told_by_how_much_it_asked():
    """Are PyTorch's and NumPy's refused allocations read as such, with the bytes they asked for?"""
    torch_error = RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
        "allocate 4831838208 bytes. Error code 12 (Cannot allocate memory)"
    )
    numpy_error = MemoryError("Unable to allocate 4.50 GiB for an array with shape (1024, 1024, 24, 24)")
    assert out_of_memory(torch_error) and allocation_asked(torch_error) == 4831838208
    assert out_of_memory(numpy_error) and allocation_asked(numpy_error) == int(4.5 * 2**30)
    assert not out_of_memory(RuntimeError("shape '[1, 2, 3]' is invalid for input of size 5"))
    assert allocation_asked(MemoryError()) is None


def _rss() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
