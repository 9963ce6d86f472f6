"""One submission's student side, as the graders see it: run a probe for a graded name.

Each graded name has its own wall-time budget. When checking a name hangs, crashes or
runs out of memory, the student process is killed, that name fails with what
happened, and the next name starts a fresh process: the other names keep their points.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..core import wire
from ..core.loader import Entry
from .client import Died, StudentProcess, Timeout, Zygote

GiB = 1024**3


@dataclass(frozen=True)
class Limits:
    timeout: float = 10.0  # seconds of wall time per graded name (and for loading the code)
    memory_bytes: int = 2 * GiB
    processes: int = 64  # processes and threads the student's code may have at once
    file_bytes: int = 64 * 1024**2  # the largest file it may write in its scratch space

    def describe_memory(self) -> str:
        return f"{self.memory_bytes / GiB:g} GiB"


class StudentError(Exception):
    """The student's code failed a probe; the message is feedback for the student."""


@dataclass
class Session:
    zygote: Zygote
    entry: Entry
    device: str = "cpu"
    limits: Limits = field(default_factory=Limits)
    isolation: str = "process"
    graded: tuple[str, ...] = ()  # the assignment's graded names, to blame a call of PyTorch's attention
    notes: list[str] = field(default_factory=list)  # what loading the code reported

    def __post_init__(self):
        self._process: StudentProcess | None = None
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
            ended = self._kill()
            self._fail(name, f"the process exited while checking {name} ({ended})")
        finally:
            self._spent[name] = self._spent.get(name, 0.0) + time.monotonic() - started
        error = reply.get("error")
        if error:
            error = str(error)[:2000]
            if "MemoryError" in error.split(":")[0]:
                return {}, f"used more than {self.limits.describe_memory()} of memory ({error})"
            return {}, error
        return outputs, None

    def close(self) -> None:
        self._kill()

    # ---------------------------------------------------------------- process lifetime

    def _request(self) -> dict:
        return {
            "graded": list(self.graded),
            "kind": self.entry.kind,
            "path": str(self.entry.path),
            "device": self.device,
            "isolation": self.isolation,
            "limits": {
                "memory_bytes": self.limits.memory_bytes,
                "processes": self.limits.processes,
                "file_bytes": self.limits.file_bytes,
            },
        }

    def _ensure_process(self) -> StudentProcess:
        if self._load_failure:
            raise StudentError(self._load_failure)
        if self._process is not None:
            return self._process
        process = StudentProcess(self.zygote, self._request())
        self._process = process
        try:
            reply, _ = process.receive(self.limits.timeout)
        except Timeout:
            self._kill()
            self._load_failure = f"loading your code took longer than {self.limits.timeout:g} s"
            raise StudentError(self._load_failure) from None
        except Died:
            ended = self._kill()
            self._load_failure = f"the process exited while loading your code ({ended})"
            raise StudentError(self._load_failure) from None
        if reply.get("op") != "ready":
            self._kill()
            self._load_failure = "the process sent something other than 'ready' after loading your code"
            raise StudentError(self._load_failure)
        if not self.notes:
            self.notes = [str(note)[:500] for note in reply.get("notes", [])[:20]]
        return process

    def _kill(self) -> str:
        process, self._process = self._process, None
        return process.kill() if process is not None else "not running"

    def _fail(self, name: str, message: str):
        self._kill()
        self._failed[name] = message
        raise StudentError(message)
