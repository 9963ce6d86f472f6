"""One submission's student side: a name that fails fails alone, a load that fails is remembered, what happened is
measured by the grader. The student's process is played here: a scripted zygote hands the session a socket whose
replies are written in advance, and a sleeping child of the test's own as the process to kill."""

import os
import signal
import socket
import sys
import time

import numpy as np
import pytest

from autograder import KIT_ROOT
from autograder.public import wire
from autograder.public.loader import Entry, SubmissionError
from autograder.sandbox.guest.steps import STEPS
from autograder.sandbox.guest.zygote import describe_status
from autograder.sandbox.host import session
from autograder.sandbox.host.loading import Refused, SandboxFailed
from autograder.sandbox.host.runtime import Isolation, Runtime
from autograder.sandbox.host.session import Call, Session, StudentError, StudentLimits

GiB = 1024**3
TOLD = [({"op": "step", "step": step}, None) for step in STEPS]  # each step of loading, as the guest tells it
READY = ({"op": "ready", "notes": ["a note"]}, None)
LOADED = [*TOLD, READY]
HANG_UP = None  # the script's end: the student's end of the socket closes


class ScriptedZygote:
    """Each spawn forks a sleeping child (the 'student process') and returns a socket whose replies are already
    written: one script per spawn."""

    def __init__(self, *scripts):
        self.scripts = list(scripts)
        self.spawned: list[int] = []
        self.kept: list[socket.socket] = []

    def spawn(self, request):
        script = self.scripts.pop(0)
        pid = os.fork()
        if pid == 0:
            try:
                signal.pause()
            finally:
                os._exit(0)
        os.setpgid(pid, pid)  # a group of its own, as the student process makes (os.setsid)
        ours, theirs = socket.socketpair()
        for step in script:
            if step is HANG_UP:
                theirs.close()
                break
            wire.send(theirs, *step)
        else:
            self.kept.append(theirs)
        self.spawned.append(pid)
        return pid, ours

    def wait(self, pid):
        return describe_status(os.waitpid(pid, 0)[1])

    def close(self):
        for sock in self.kept:
            sock.close()


def result(*outputs):
    """A reply to a batch: each call's outputs (a dict of arrays) or its error (a string)."""
    errors = [None if isinstance(out, dict) else out for out in outputs]
    arrays = {
        f"{i}/{key}": value for i, out in enumerate(outputs) if isinstance(out, dict) for key, value in out.items()
    }
    return {"op": "result", "errors": errors}, arrays


@pytest.fixture
def make_session(tmp_path):
    made = []

    def make(*scripts, timeout=5.0, device="cpu", gpu=None):
        zygote = ScriptedZygote(*scripts)
        runtime = Runtime(zygote, Isolation("process", "rlimits"), scratch_root=tmp_path / "scratch", gpu=gpu)
        folder = tmp_path / "scratch" / f"submission-{len(made)}"
        (folder / "submission").mkdir(parents=True)
        entry = Entry("module", folder / "submission" / "mha.py")
        limits = StudentLimits(timeout=timeout, gpu_memory_bytes=GiB)
        student = Session(runtime, entry, folder, device, limits, ("a", "b"), "numpy")
        made.append((student, zygote))
        return student, zygote

    yield make
    for student, zygote in made:
        student.close()
        zygote.close()


def test_a_name_whose_reply_is_no_result_fails_alone(make_session):
    """When the process answers a's batch with something other than its results: does a fail with that said,
    its process killed, b get a fresh process and its outputs, and a stay failed without another exchange?"""
    student, zygote = make_session(
        [*LOADED, ({"op": "result", "errors": "all passed"}, None)],
        [*LOADED, result({"y": np.arange(3)})],
    )
    with pytest.raises(StudentError, match="^while checking a, the process answered something other than its results$"):
        student.run("a", "p", {"x": 1})
    assert student.run("b", "p", {"x": 1})["y"].tolist() == [0, 1, 2]
    with pytest.raises(StudentError, match="^while checking a"):
        student.run("a", "p", {"x": 1})
    assert len(zygote.spawned) == 2 and student.notes == ["a note"]


def test_a_call_that_raised_fails_that_call_only(make_session):
    """Does one call's error fail that call, while the other calls of the same batch keep their outputs?"""
    student, _ = make_session([*LOADED, result("your code raised ValueError: no", {"y": np.ones(2)})])
    student.prefetch("a", [Call("p", {"x": 1}), Call("p", {"x": 2})])
    with pytest.raises(StudentError, match="^your code raised ValueError: no$"):
        student.run("a", "p", {"x": 1})
    assert student.run("a", "p", {"x": 2})["y"].tolist() == [1.0, 1.0]


def test_a_process_that_dies_is_told_by_the_graders_account(make_session):
    """When the process hangs up mid-check: is the failure the zygote's account of its end, not the student's?"""
    student, _ = make_session([*LOADED, HANG_UP])
    with pytest.raises(StudentError, match=r"^the process exited while checking a \(killed by signal 9 \(SIGKILL\)\)$"):
        student.run("a", "p", {"x": 1})


def test_a_load_that_fails_is_remembered_for_every_name(make_session):
    """When the process sends something other than 'ready' after loading: does every name fail with that, and no
    second process start?"""
    student, zygote = make_session([*TOLD, ({"op": "ready?"}, None)])
    for name in ("a", "b"):
        with pytest.raises(
            StudentError, match="^the process sent something other than 'ready' after loading your code$"
        ):
            student.run(name, "p", {"x": 1})
    assert len(zygote.spawned) == 1


def told(*steps: str) -> list:
    return [({"op": "step", "step": step}, None) for step in steps]


def test_a_notebook_that_does_not_parse_ends_the_grading_as_the_submissions_fault(make_session):
    """When the guest says, while parsing, that the notebook does not parse: is that the refusal (a SubmissionError
    with its words, not a StudentError), raised again for every name with no second process?"""
    failed = ({"op": "failed", "problem": "submission", "detail": "the notebook w.ipynb could not be parsed"}, None)
    student, zygote = make_session([*told("isolating", "reading", "parsing"), failed])
    for name in ("a", "b"):
        with pytest.raises(Refused, match="^the notebook w.ipynb could not be parsed$") as raised:
            student.run(name, "p", {"x": 1})
        assert isinstance(raised.value, SubmissionError) and not isinstance(raised.value, StudentError)
    assert len(zygote.spawned) == 1


def test_once_the_students_code_runs_it_cannot_blame_an_earlier_step(make_session):
    """When a message claiming a failure of the kit's (or a step again) comes after 'running': is it the student's
    failure to load, never a refusal or the kit's error?"""
    forged = ({"op": "failed", "problem": "submission", "detail": "the notebook could not be parsed"}, None)
    for lie in (forged, *told("reading")):
        student, _ = make_session([*TOLD, lie])
        with pytest.raises(StudentError, match="^the process sent something other than 'ready' after loading"):
            student.run("a", "p", {"x": 1})


def test_a_process_that_dies_in_a_step_of_the_kits_is_the_kits_failure(make_session):
    """When the process ends while parsing: is it the kit's failure (not graded), saying what it was doing and
    how it ended; and when it ends once the student's code runs, the student's, as before?"""
    student, _ = make_session([*told("isolating", "reading", "parsing"), HANG_UP])
    with pytest.raises(
        SandboxFailed,
        match=r"^the sandbox failed while parsing mha.py \(size unknown\), before any "
        r"code of the submission ran: its process ended \(killed by signal 9 \(SIGKILL\);",
    ):
        student.run("a", "p", {"x": 1})
    student, _ = make_session([*TOLD, HANG_UP])
    with pytest.raises(StudentError, match=r"^the process exited while loading your code \(killed by signal 9"):
        student.run("a", "p", {"x": 1})


def test_a_file_the_sandbox_cannot_read_is_the_kits_failure(make_session):
    """When the guest cannot read the submission's file: is it the kit's failure, saying so (not graded)?"""
    failed = ({"op": "failed", "problem": "unreadable", "detail": "PermissionError: [Errno 13] mha.py"}, None)
    student, _ = make_session([*told("isolating", "reading"), failed])
    with pytest.raises(SandboxFailed, match="^the kit cannot read this submission's files: PermissionError"):
        student.run("a", "p", {"x": 1})


OOM = "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def test_a_cuda_failure_on_the_gpu_is_set_aside_for_the_cpu(make_session):
    """On the GPU, does a call that met a CUDA error (out of memory, a device error) mark its name for grading again,
    and the same words on the CPU, or another error on the GPU, mark nothing?"""
    student, _ = make_session([*LOADED, result(OOM), result("your code raised ValueError: no")], device="cuda")
    student.prefetch("a", [Call("p", {"x": 1})])
    student.prefetch("b", [Call("p", {"x": 1})])
    assert student.device_failures.keys() == {"a"}
    on_cpu, _ = make_session([*LOADED, result(OOM)])
    on_cpu.prefetch("a", [Call("p", {"x": 1})])
    assert on_cpu.device_failures == {}


def test_cuda_that_does_not_start_for_the_student_sets_every_name_aside(make_session):
    """When the kit's code in the student's process says CUDA did not start (before any student code ran): does every
    name fail with that said, and every one wait for the CPU?"""
    failed = ({"op": "failed", "problem": "device", "detail": "RuntimeError: CUDA error: out of memory"}, None)
    student, _ = make_session([*told("isolating"), failed], device="cuda")
    with pytest.raises(
        StudentError, match=r"^CUDA did not start for your code \(RuntimeError: CUDA error: out of memory\)$"
    ):
        student.run("a", "p", {"x": 1})
    assert student.device_failures.keys() == {"a", "b"}


class GpuUse:
    """Stands for NVML's watch: the GPU memory the processes asked about hold."""

    def __init__(self, used: int):
        self.used, self.asked = used, []

    def used_by(self, pids):
        self.asked.append(set(pids))
        return self.used


def test_a_student_over_its_gpu_memory_loses_that_name_alone(make_session):
    """With the student's processes holding more GPU memory than its share (NVML, read from outside): does the name
    fail saying so, its process killed, not set aside for the CPU (it is the student's own doing), and the next name
    start a fresh process; and is the GPU never asked about on the CPU?"""
    watch = GpuUse(GiB + 1)
    student, zygote = make_session(LOADED, [*LOADED, result({"y": np.ones(1)})], device="cuda", gpu=watch)
    with pytest.raises(StudentError, match=r"^checking a held more than 1 GiB of GPU memory$"):
        student.run("a", "p", {"x": 1})
    assert student.device_failures == {} and zygote.spawned[0] in watch.asked[0]
    watch.used = 0
    assert student.run("b", "p", {"x": 1})["y"].tolist() == [1.0]
    unwatched = GpuUse(10 * GiB)
    on_cpu, _ = make_session(LOADED, gpu=unwatched, timeout=0.1)  # no reply: the watch runs until the wall time
    with pytest.raises(StudentError, match="took longer than"):
        on_cpu.run("a", "p", {"x": 1})
    assert unwatched.asked == []


def test_a_check_that_outlasts_its_wall_time_fails_saying_how_long(make_session):
    """When no reply comes: does the check end at the wall-clock backstop (timeout x wall_factor), saying it?"""
    student, _ = make_session(LOADED, timeout=0.1)
    with pytest.raises(StudentError, match="^checking a took longer than 0.3 s$"):
        student.run("a", "p", {"x": 1})


class JobAtItsLimit:
    """A job cgroup that bounds memory, has used 4 s of CPU time, and has (or has not) met its memory limit."""

    memory = True

    def __init__(self, reached: bool):
        self.reached = reached

    def cpu_seconds(self):
        return 4.0

    def reached_memory_limit(self):
        return self.reached


@pytest.mark.parametrize(
    ("reached", "told"),
    [(True, r"reached its memory limit \(0.5 GiB\) and then used more than 3 s of CPU time"),
     (False, r"used more than 3 s of CPU time")],
)  # fmt: skip
def test_a_time_limit_met_after_the_memory_limit_is_told_as_memory(reached, told):
    """A hog near its cgroup's limit can spend its time in the kernel's reclaim before any kill (seen in CI: System V
    segments at the limit, 3 s of CPU gone first). Is a CPU limit met after the memory limit told with the memory
    first, and one met without it told as time alone?"""
    student = Session.__new__(Session)
    student.limits = StudentLimits(memory_bytes=GiB // 2, timeout=3)
    student._job = JobAtItsLimit(reached)
    with pytest.raises(session._OverBudget, match=f"^{told}$"):
        student._watch(0.0, 3.0)()


def test_out_of_memory_errors_are_told_as_the_memory_limit():
    """Is a student's MemoryError (or errno 12) told as using more than its memory, and other errors kept, cut?"""
    student = Session.__new__(Session)
    student.limits = StudentLimits(memory_bytes=GiB // 2)
    assert student._error_text("your code raised MemoryError: ").startswith("used more than 0.5 GiB of memory (")
    assert student._error_text("OSError: [Errno 12] Cannot allocate memory").startswith("used more than 0.5 GiB")
    assert student._error_text("your code raised ValueError: x") == "your code raised ValueError: x"
    assert len(student._error_text("x" * 10_000)) == 4000
    assert StudentLimits().describe_memory() == "2 GiB"


def test_python_paths_bind_folders_outside_python_but_never_the_kit(tmp_path, monkeypatch):
    """Is a folder on sys.path outside Python's prefix bound, and the kit's own folder, its parents and what lies
    within it never?"""
    extra = tmp_path / "site"
    extra.mkdir()
    monkeypatch.setattr(sys, "path", [str(extra), str(KIT_ROOT), str(KIT_ROOT.parent), str(KIT_ROOT / "tests"), ""])
    assert session.python_paths() == [str(extra)]


def test_the_process_tree_and_its_cpu_time_are_read_from_proc():
    """Are a process's descendants found, its CPU time and memory read, and a gone process read as nothing?"""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            if os.fork() == 0:
                signal.pause()
            deadline = time.process_time() + 0.2
            while time.process_time() < deadline:  # 0.2 s of CPU time, then it says so and sleeps
                pass
            os.write(write, b"x")
            signal.pause()
        finally:
            os._exit(0)
    try:
        os.read(read, 1)
        tree = session._tree(pid)
        assert tree[0] == pid and len(tree) == 2
        assert session.cpu_of(pid) >= 0.2 - 2 / os.sysconf("SC_CLK_TCK")  # /proc counts in clock ticks
        assert session._memory_of(os.getpid()) > 0
    finally:
        for each in reversed(session._tree(pid)):
            os.kill(each, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert session.cpu_of(pid) == 0.0 and session._memory_of(pid) == 0 and session._tree(pid) == [pid]
