"""One submission's student side, as the graders see it: run a probe for a graded name.

Each graded name has its own wall-time budget. When checking a name hangs, crashes or
runs out of memory, the student process (and everything it started) is killed, that
name fails with what happened, and the next name starts a fresh process: the other
names keep their points. What happened is measured here (the clock, the cgroup's
out-of-memory count, the zygote's account of the exit), never taken from the student.
"""
from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import wire
from ..core.loader import SKIP_DIRS, Entry
from .cgroups import JobCgroups
from .client import Died, StudentProcess, Timeout, Zygote

GiB = 1024**3
MAX_SUBMISSION_BYTES = 64 * 1024**2  # a submission folder larger than this is not copied into a sandbox
_jobs = itertools.count()


@dataclass(frozen=True)
class Limits:
    timeout: float = 10.0  # seconds of wall time per graded name (and for loading the code)
    memory_bytes: int = 2 * GiB
    processes: int = 64  # processes and threads the student's code may have at once
    file_bytes: int = 64 * 1024**2  # the most it may write to a file, and its /tmp's size

    def describe_memory(self) -> str:
        return f"{self.memory_bytes / GiB:g} GiB"


class StudentError(Exception):
    """The student's code failed a probe; the message is feedback for the student."""


class Sandbox:
    """What one hardened student process needs outside it: a scratch folder and cgroups."""

    def __init__(self, entry: Entry, submission: Path, limits: Limits, uid: int):
        self.scratch = Path(tempfile.mkdtemp(prefix="attention-kit-"))  # root only: 0700
        copy = self.scratch / "submission"
        inside = _copy_submission(Path(submission), copy)
        self.path = "/sandbox/submission/" + entry.path.resolve().relative_to(inside).as_posix()
        for folder in (self.scratch / "root", self.scratch / "work"):
            folder.mkdir()
        os.chown(self.scratch / "work", uid, uid)
        os.chmod(self.scratch / "work", 0o700)
        self.cgroups = JobCgroups(f"{os.getpid()}-{next(_jobs)}", limits.memory_bytes, limits.processes)

    def request(self) -> dict:
        return {"scratch": str(self.scratch), "cgroups": self.cgroups.procs_files}

    def out_of_memory(self) -> bool:
        return self.cgroups.out_of_memory()

    def destroy(self) -> None:
        self.cgroups.remove()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _copy_submission(submission: Path, copy: Path) -> Path:
    """Copy the submission (a file or a folder) into copy/, readable by anyone: the sandbox binds it read-only.

    Returns the folder whose copy copy/ is: the submission's parent.
    """
    submission = submission.resolve()
    copy.mkdir()
    if submission.is_file():
        shutil.copy2(submission, copy / submission.name)
    else:
        total = sum(p.stat().st_size for p in submission.rglob("*") if p.is_file() and not (set(p.parts) & SKIP_DIRS))
        if total > MAX_SUBMISSION_BYTES:
            raise StudentError(f"the submission holds {total / 2**20:.0f} MiB; submit your code, not data (at most {MAX_SUBMISSION_BYTES // 2**20} MiB)")
        shutil.copytree(submission, copy / submission.name, ignore=shutil.ignore_patterns(*SKIP_DIRS), symlinks=False)
    for folder, _, files in os.walk(copy):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return submission.parent


@dataclass
class Session:
    zygote: Zygote
    entry: Entry
    device: str = "cpu"
    limits: Limits = field(default_factory=Limits)
    isolation: str = "process"
    graded: tuple[str, ...] = ()  # the assignment's graded names, to blame a call of PyTorch's attention
    submission: Path | None = None  # what was handed in (a file or a folder); the entry lies within
    uid: int = 61000  # the unprivileged uid of this session's hardened processes
    framework: str = "torch"  # "numpy": no PyTorch set-up in the student's process
    skip: tuple[str, ...] = ()  # digests of the course's demonstration cells, not run when grading
    notes: list[str] = field(default_factory=list)  # what loading the code reported

    def __post_init__(self):
        self._process: StudentProcess | None = None
        self._sandbox: Sandbox | None = None
        self._spent: dict[str, float] = {}
        self._failed: dict[str, str] = {}
        self._answers: dict[tuple[str, str], tuple[dict, str | None]] = {}
        self._load_failure: str | None = None

    # ---------------------------------------------------------------- the interface graders use

    def run(self, name: str, probe_id: str, inputs: dict) -> dict[str, np.ndarray]:
        """The probe's outputs on the student's code, or StudentError saying what went wrong."""
        if name in self._failed:
            raise StudentError(self._failed[name])
        key = (name, wire.digest(probe_id, inputs))
        if key not in self._answers:  # the same question twice gets the first answer
            self._answers[key] = self._ask(name, probe_id, inputs)
        outputs, error = self._answers[key]
        if error:
            raise StudentError(error)
        return outputs

    def close(self) -> None:
        self._kill()

    # ---------------------------------------------------------------- one question

    def _ask(self, name: str, probe_id: str, inputs: dict) -> tuple[dict, str | None]:
        process = self._ensure_process()
        budget = self.limits.timeout - self._spent.get(name, 0.0)
        meta, arrays = wire.pack(inputs)
        started = time.monotonic()
        try:
            process.send({"op": "run", "probe": probe_id, "inputs": meta}, arrays)
            reply, outputs = process.receive(budget)
        except Timeout:
            self._fail(name, f"checking {name} timed out after {self.limits.timeout:g} s")
        except Died:
            self._fail(name, self._death(f"while checking {name}"))
        finally:
            self._spent[name] = self._spent.get(name, 0.0) + time.monotonic() - started
        error = reply.get("error")
        if error:
            error = str(error)[:2000]
            if "MemoryError" in error.split(":")[0]:
                return {}, f"used more than {self.limits.describe_memory()} of memory ({error})"
            return {}, error
        return outputs, None

    def _death(self, when: str) -> str:
        """Why the process is gone, from what the grader itself can see."""
        out_of_memory = self._sandbox is not None and self._sandbox.out_of_memory()
        ended = self._kill()
        if out_of_memory:
            return f"used more than {self.limits.describe_memory()} of memory {when}, and was stopped"
        return f"the process exited {when} ({ended})"

    # ---------------------------------------------------------------- process lifetime

    def _request(self) -> dict:
        request = {
            "graded": list(self.graded),
            "framework": self.framework,
            "skip": list(self.skip),
            "kind": self.entry.kind,
            "path": str(self.entry.path),
            "device": self.device,
            "isolation": self.isolation,
            "uid": self.uid,
            "limits": {
                "memory_bytes": self.limits.memory_bytes,
                "processes": self.limits.processes,
                "file_bytes": self.limits.file_bytes,
            },
        }
        if self.isolation == "hardened":
            self._sandbox = Sandbox(self.entry, self.submission or self.entry.path, self.limits, self.uid)
            request.update(self._sandbox.request(), path=self._sandbox.path)
        return request

    def _ensure_process(self) -> StudentProcess:
        if self._load_failure:
            raise StudentError(self._load_failure)
        if self._process is not None:
            return self._process
        self._process = StudentProcess(self.zygote, self._request())
        try:
            reply, _ = self._process.receive(self.limits.timeout)
        except Timeout:
            self._kill()
            self._load_failure = f"loading your code took longer than {self.limits.timeout:g} s"
            raise StudentError(self._load_failure) from None
        except Died:
            self._load_failure = self._death("while loading your code")
            raise StudentError(self._load_failure) from None
        if reply.get("op") != "ready":
            self._kill()
            self._load_failure = "the process sent something other than 'ready' after loading your code"
            raise StudentError(self._load_failure)
        if not self.notes:
            self.notes = [str(note)[:500] for note in reply.get("notes", [])[:20]]
        return self._process

    def _kill(self) -> str:
        process, self._process = self._process, None
        sandbox, self._sandbox = self._sandbox, None
        ended = "not running"
        if process is not None:
            if sandbox is not None:
                sandbox.cgroups.kill_all()
            ended = process.kill()
        if sandbox is not None:
            sandbox.destroy()
        return ended

    def _fail(self, name: str, message: str):
        self._kill()
        self._failed[name] = message
        raise StudentError(message)
