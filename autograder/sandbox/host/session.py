"""One submission's student side, as the graders see it: run probes for a graded name.

Each graded name has its own budget: CPU seconds of the student's process tree (a
busy neighbour cannot make an honest student run out), with a wall-clock backstop for
code that sleeps. When checking a name hangs, crashes, overflows or runs out of memory,
the student's processes are killed, that name fails with what happened, and the next
name starts a fresh process: the other names keep their points. What happened is
measured here (CPU time, the cgroup's out-of-memory count, the zygote's account of the
exit, and where no size-limited file system holds its files, what they take: its
scratch, and in the uid tier its uid's files in the shared scratch places), never taken
from the student.

A name's probes go to the student's process in one exchange (``prefetch``); a probe
not asked for in advance costs an exchange of its own.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from ... import KIT_ROOT
from ...public import trees, wire
from ...public.loader import Entry
from ..guest.isolation import INSIDE
from . import disk, gpu, uids
from .cgroups import JobCgroup
from .client import Died, StudentProcess, Timeout, TooLarge
from .loading import LIMITS, MESSAGE_BYTES, DeviceNotStarted, Loading, Misbehaved, NotLoaded, unreadable_reason
from .runtime import Runtime

GiB = 1024**3
_jobs = iter(range(1 << 62))


@dataclass(frozen=True)
class StudentLimits:
    timeout: float = 10.0  # CPU seconds per graded name (and for loading the code)
    wall_factor: float = 3.0  # ... and at most this many times as much wall time
    memory_bytes: int = 2 * GiB
    processes: int = 32  # processes and threads the student's code may have at once
    file_bytes: int = 64 * 1024**2  # the largest file it may write
    scratch_bytes: int = 64 * 1024**2  # all it may write (its work folder and /tmp together)
    gpu_memory_bytes: int = 2 * GiB  # GPU memory its processes may hold, CUDA contexts included (on a GPU)

    def describe_memory(self) -> str:
        return f"{self.memory_bytes / GiB:g} GiB"

    def describe_gpu_memory(self) -> str:
        return f"{self.gpu_memory_bytes / GiB:g} GiB"


class StudentError(Exception):
    """The student's code failed a probe; the message is feedback for the student."""

    # The call that raised ({"probe_id", "inputs", "error"}), attached by the view that ran it
    # (grade.engine.StudentView, deliver.nbgrader.InProcessStudent): lets the engine name a known mistake.
    evidence: dict | None = None
    # Whether the student's process as a whole failed (it died, hung, overran a limit or broke the
    # protocol), told by where the error arose, never by its words: a student's own exception may say
    # anything.
    process_level: bool = False


class _OverBudget(Exception):
    pass


@dataclass
class Call:
    probe: str
    inputs: dict
    expected_bytes: int = 1 << 20  # the reference's outputs' size: bounds the reply


class Session:
    """The student side of one submission (already copied into ``folder``, its entry inside)."""

    def __init__(
        self,
        runtime: Runtime,
        entry: Entry,
        folder: Path,
        device: str,
        limits: StudentLimits,
        graded: tuple[str, ...],
        framework: str,
        skip: tuple[str, ...] = (),
    ):
        self.runtime = runtime
        self.entry = entry
        self.folder = folder  # holds submission/ (the copy), and the scratch of each process
        self.device = device
        self.limits = limits
        self.graded = graded
        self.framework = framework
        self.skip = skip
        self.notes: list[str] = []  # what loading the code reported
        self._process: StudentProcess | None = None
        self._job: JobCgroup | None = None
        self._uid: int | None = None
        self._scratch: Path | None = None
        self._cpu_base = 0.0
        self._failed: dict[str, str] = {}
        self._answers: dict[tuple[str, str], tuple[dict, str | None]] = {}
        self._load_failure: str | None = None  # the student's code failed to load: every name fails with it
        self._not_loaded: NotLoaded | None = None  # loading failed before the student's code ran: no name is graded
        # Error carried forward (grade/carry.py): names whose stand-ins the student's process puts in
        # place for every batch, and the trusted side that answers them while a batch runs.
        self.carry: dict[str, str] = {}
        self.server: Any = None
        # Graded names whose process met a CUDA failure it did not cause by holding more than its GPU
        # memory (a neighbour may have), each with that failure in the words CUDA gave it: the engine grades
        # them again on the CPU, never scores them.
        self.device_failures: dict[str, str] = {}

    # ---------------------------------------------------------------- the interface graders use

    def run(
        self, name: str, probe_id: str, inputs: dict, expected_bytes: int = 1 << 20, digest: str | None = None
    ) -> dict[str, np.ndarray]:
        """The probe's outputs on the student's code, or StudentError saying what went wrong.

        digest: wire.digest(probe_id, inputs), where the caller has it."""
        key = (name, digest or wire.digest(probe_id, inputs))
        if key not in self._answers:
            self.prefetch(name, [Call(probe_id, inputs, expected_bytes)])
        outputs, error = self._answers.get(key, ({}, self._failed.get(name)))
        if error:
            failure = StudentError(error)
            failure.process_level = key not in self._answers  # no answer: the exchange itself failed
            raise failure
        return outputs

    def prefetch(self, name: str, calls: list[Call]) -> None:
        """Ask the student's process for every call of a name in one exchange; the answers wait in a cache."""
        keys = [(name, wire.digest(c.probe, c.inputs)) for c in calls]  # each call's digest made once
        todo = [(call, key) for call, key in zip(calls, keys) if key not in self._answers]
        if not todo or name in self._failed:
            return
        try:
            results = self._exchange(name, [call for call, _ in todo])
        except StudentError as error:
            self._failed[name] = str(error)
            return
        for (_, key), result in zip(todo, results):
            self._answers[key] = result
            if result[1] and self._on_gpu and gpu.is_device_error(result[1]):
                self.device_failures.setdefault(name, result[1][:300])

    def close(self) -> None:
        self._kill()
        trees.remove_tree(self.folder)

    # ---------------------------------------------------------------- one exchange

    def _exchange(self, name: str, calls: list[Call]) -> list[tuple[dict, str | None]]:
        process = self._ensure_process()
        meta_calls, arrays = [], {}
        for i, call in enumerate(calls):
            meta, mine = wire.pack(call.inputs)
            meta_calls.append({"probe": call.probe, "inputs": meta})
            arrays.update({f"{i}/{key}": value for key, value in mine.items()})
        budget = self.limits.timeout
        cpu_start = self._cpu()
        started = time.monotonic()
        deadline = started + budget * self.limits.wall_factor
        max_bytes = sum(4 * c.expected_bytes + 4096 for c in calls) + (1 << 20)
        limits = wire.MessageLimits(frame_bytes=max_bytes, arrays=64 * len(calls) + 64)
        request = {"op": "run", "calls": meta_calls, **({"carry": self.carry} if self.carry else {})}
        watch = self._watch(cpu_start, budget)
        try:
            if self.server is None:
                process.send(request, arrays, deadline)
                reply, outputs = process.receive(deadline, max_bytes, watch, limits)
            else:
                reply, outputs = self.server.converse(
                    lambda meta, data: process.send(meta, data, deadline),
                    lambda: process.receive(
                        deadline, max(max_bytes, 1 << 26), watch, wire.MessageLimits(frame_bytes=1 << 26)
                    ),
                    request,
                    arrays,
                )
        except Timeout:
            self._fail(f"checking {name} {self._near_memory()}took longer than {budget * self.limits.wall_factor:g} s")
        except _OverBudget as over:
            self._fail(f"checking {name} {over}")
        except TooLarge as error:
            self._fail(f"while checking {name}, your code sent {error}")
        except Died:
            self._fail(self._death(f"while checking {name}"))
        errors = reply.get("errors")
        if not isinstance(errors, list) or len(errors) != len(calls):
            self._fail(f"while checking {name}, the process answered something other than its results")
        results: list[tuple[dict, str | None]] = []
        answers = wire.by_call(outputs)
        for i, failure in enumerate(errors):
            results.append(({}, self._error_text(failure)) if failure else (answers.get(i, {}), None))
        return results

    def _error_text(self, error) -> str:
        text = str(error)[:4000]
        head = text.split(":")[0]
        if "MemoryError" in head or any(words in text[:300] for words in ("can't allocate memory", "[Errno 12]")):
            return f"used more than {self.limits.describe_memory()} of memory ({text[:300]})"
        return text

    def _watch(self, cpu_start: float, budget: float):
        def watch() -> None:
            used = self._cpu() - cpu_start
            if used > budget:
                raise _OverBudget(f"{self._near_memory()}used more than {budget:g} s of CPU time")
            if self._scratch is not None and self.runtime.isolation.tier in ("uid", "process"):
                if self._files_held(self.limits.scratch_bytes + 1) > self.limits.scratch_bytes:
                    raise _OverBudget(f"wrote more than {self.limits.scratch_bytes // 2**20} MiB of files")
            if self._job is not None and self._job.memory:
                if self._job.out_of_memory():  # a process of it was killed for memory: a fork, say
                    raise _OverBudget(f"used more than {self.limits.describe_memory()} of memory")
            elif self._memory() > self.limits.memory_bytes:
                raise _OverBudget(f"used more than {self.limits.describe_memory()} of memory in its processes together")
            watch_gpu = self.runtime.gpu if self._on_gpu else None
            if watch_gpu is not None and watch_gpu.used_by(self._student_pids()) > self.limits.gpu_memory_bytes:
                raise _OverBudget(f"held more than {self.limits.describe_gpu_memory()} of GPU memory")

        return watch

    def _near_memory(self) -> str:
        """Words for a time limit met by a process that met its memory limit before (its time then went on the
        kernel's reclaim as much as on its code): the memory named first, since it is what to fix."""
        if self._job is not None and self._job.memory and self._job.reached_memory_limit():
            return f"reached its memory limit ({self.limits.describe_memory()}) and then "
        return ""

    @property
    def load_failure(self) -> str | None:
        """Why the student's code failed to load, failing every name (None where it loaded, or is not loaded yet)."""
        return self._load_failure

    @property
    def _on_gpu(self) -> bool:
        return self.device.startswith("cuda")

    def _student_pids(self) -> set[int]:
        """Every process of the student: its job cgroup's, else its process tree's (its uid's in the uid tier)."""
        return self._job.pids() if self._job is not None else set(self._pids())

    def _memory(self) -> int:
        """Memory of the student's processes together, where no cgroup counts it (rlimits bound each alone)."""
        return sum(_memory_of(pid) for pid in self._pids())

    def _pids(self) -> list[int]:
        """The student's processes: its uid's in the uid tier, else the tree of the process the zygote forked."""
        if self._process is None:
            return []
        if self._uid is not None and self.runtime.isolation.tier == "uid":
            return uids.processes_of(self._uid)
        return _tree(self._process.pid)

    def _files_held(self, stop_at: int) -> int:
        """What the student's files hold where no size-limited file system bounds them: its scratch,
        and in the uid tier what its uid holds in the shared scratch places."""
        assert self._scratch is not None  # the watch runs only once the process has one
        held = disk.held_under(self._scratch, stop_at)
        if held < stop_at and self._uid is not None and self.runtime.isolation.tier == "uid":
            held += uids.usage_of(self._uid, stop_at - held)
        return held

    def _cpu(self) -> float:
        """CPU seconds used by the student's process tree so far (its cgroup's, or summed from /proc)."""
        if self._job is not None:
            seconds = self._job.cpu_seconds()
            if seconds is not None:
                return seconds
        return sum(cpu_of(pid) for pid in self._pids())

    def _death(self, when: str) -> str:
        """Why the process is gone, from what the grader itself can see."""
        out_of_memory, ended = self._end()
        if out_of_memory:
            return f"used more than {self.limits.describe_memory()} of memory {when}, and was stopped"
        return f"the process exited {when} ({ended})"

    def _end(self) -> tuple[bool, str]:
        """End the process: whether its cgroup ran out of memory, and how it ended (the zygote's account)."""
        out_of_memory = self._job is not None and self._job.out_of_memory()
        return out_of_memory, self._kill()

    # ---------------------------------------------------------------- process lifetime

    def _ensure_process(self) -> StudentProcess:
        """The student's process, started and loaded: its loading followed step by step (host/loading.py), so
        that only a failure of the student's code is the student's (StudentError, for every name); one before
        it ran ends the grading (NotLoaded)."""
        if self._not_loaded is not None:
            raise self._not_loaded
        if self._load_failure:
            raise StudentError(self._load_failure)
        if self._process is not None:
            return self._process
        request = self._request()
        self._process = StudentProcess(self.runtime.zygote, request)
        loading = Loading(self.entry, self._unreadable)
        try:
            self._load(self._process, loading)
        except NotLoaded as failure:
            self._kill()
            self._not_loaded = failure
            raise
        except StudentError as failure:
            self._load_failure = str(failure)
            raise
        if not self.notes:
            self.notes = loading.notes
        return self._process

    def _load(self, process: StudentProcess, loading: Loading) -> None:
        """Follow the loading until 'ready'. The kit's steps and the student's code each get the loading's budget:
        the kit's reading of a large notebook costs the student none of theirs."""
        budget = self.limits.timeout
        wall = budget * self.limits.wall_factor
        deadline, watch = time.monotonic() + wall, self._watch(0.0, budget)
        try:
            while not loading.ready:
                message, _ = process.receive(deadline, MESSAGE_BYTES, watch, LIMITS)
                student_code = loading.student_code
                loading.heard(message)
                if loading.student_code and not student_code:
                    deadline, watch = time.monotonic() + wall, self._watch(self._cpu(), budget)
        except Misbehaved:
            self._kill()
            raise StudentError("the process sent something other than 'ready' after loading your code") from None
        except DeviceNotStarted as failure:  # said by the kit's code, before the student's ran
            self._kill()
            if not self._on_gpu:
                raise loading.failed(str(failure)) from None
            self.device_failures.update(dict.fromkeys(self.graded, f"CUDA did not start: {str(failure)[:300]}"))
            raise StudentError(f"CUDA did not start for your code ({str(failure)[:300]})") from None
        except Timeout:
            self._kill()
            if not loading.student_code:
                raise loading.failed(f"it took longer than {wall:g} s") from None
            raise StudentError(f"loading your code took longer than {wall:g} s") from None
        except _OverBudget as over:
            self._kill()
            if not loading.student_code:
                raise loading.failed(f"it {over}") from None
            raise StudentError(f"loading your code {over}") from None
        except TooLarge as error:
            if not loading.student_code:
                self._kill()
                raise loading.failed(f"it sent {error}") from None
            raise StudentError(self._death("while loading your code")) from None
        except Died as error:
            if loading.student_code:
                raise StudentError(self._death("while loading your code")) from None
            out_of_memory, ended = self._end()
            if out_of_memory:
                what = f"it used more than {self.limits.describe_memory()} of memory (grade with more --memory)"
            else:
                what = f"its process ended ({ended}; {error})"
            raise loading.failed(what) from None

    def _unreadable(self, detail: str) -> str:
        """Why the student's uid could not read the copy of the submission, told from its permissions on the way to
        the entry: from the copy's folder where the sandbox binds it (hardened, userns), else from the scratch."""
        tier = self.runtime.isolation.tier
        top = self.folder / "submission" if tier in ("hardened", "userns") else self.runtime.scratch_root
        paths = [top, *[p for p in self.entry.path.parents if p.is_relative_to(top) and p != top][::-1]]
        uid = self._uid if self._uid is not None else os.geteuid()
        gid = self._uid if self._uid is not None else os.getegid()
        return unreadable_reason([*paths, self.entry.path], uid, gid, detail)

    def _request(self) -> dict:
        isolation = self.runtime.isolation
        self._scratch = Path(tempfile.mkdtemp(prefix="process-", dir=self.folder))
        relative = self.entry.path.relative_to(self.folder / "submission").as_posix()
        limits = self.limits
        request: dict[str, object] = {
            "graded": list(self.graded),
            "framework": self.framework,
            "skip": list(self.skip),
            "kind": self.entry.kind,
            "device": self.device,
            "tier": isolation.tier,
            "path": str(self.entry.path),
            "kernels": self.runtime.kernels,
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "gpu_memory_bytes": limits.gpu_memory_bytes,
                "processes": limits.processes,
                "file_bytes": limits.file_bytes,
                "scratch_bytes": limits.scratch_bytes,
                "cpu_seconds": limits.timeout * (len(self.graded) + 2),
            },
        }
        self._job = isolation.new_job(f"{os.getpid()}-{next(_jobs)}", limits)
        if self._job is not None:
            request["cgroups"] = self._job.procs_files
        request["rlimit_memory"] = self._job is None or not self._job.memory
        request["rlimit_processes"] = self._job is None or not self._job.processes
        if isolation.tier in ("hardened", "userns"):
            request["python_paths"] = python_paths()
            (self._scratch / "root").mkdir()
            os.symlink(self.folder / "submission", self._scratch / "submission")
            request.update(scratch=str(self._scratch), path=f"{INSIDE}/submission/{relative}")
        else:
            work = self._scratch / "work"
            work.mkdir()
            request["work"] = str(work)
        if isolation.tier in ("hardened", "uid"):
            assert isolation.uid_pool is not None  # these tiers always come with one (tiers.attempt)
            self._uid = isolation.uid_pool.next()
            request["uid"] = self._uid
        if isolation.tier == "uid":
            assert self._uid is not None  # drawn just above
            # The copy and the scratch: reachable by this uid alone (its group), none by other students.
            os.chown(self.folder, -1, self._uid)
            os.chmod(self.folder, 0o710)
            os.chmod(self._scratch, 0o711)
            os.chown(self._scratch / "work", self._uid, self._uid)
            os.chmod(self._scratch / "work", 0o700)
        return request

    def _kill(self) -> str:
        process, self._process = self._process, None
        job, self._job = self._job, None
        ended = "not running"
        tier = self.runtime.isolation.tier
        if process is not None:
            if job is not None:
                job.kill_all()
            if tier in ("hardened", "userns"):
                _signal(process.pid, signal.SIGTERM)  # the warden ends the namespace, and with it every process
            elif tier == "uid" and self._uid is not None:
                uids.kill_all(self._uid)
            else:
                _signal(-process.pid, signal.SIGKILL)
                _signal(process.pid, signal.SIGKILL)
            process.close()
            ended = self.runtime.zygote.wait(process.pid)
        if job is not None:
            job.remove()
        if tier == "uid" and self._uid is not None:
            uids.kill_all(self._uid)
            uids.remove_files_of(self._uid)
            uids.remove_ipc_of(self._uid)
        if self._scratch is not None:
            trees.remove_tree(self._scratch)
            self._scratch = None
        return ended

    def _fail(self, message: str) -> NoReturn:
        self._kill()
        raise StudentError(message)


def python_paths() -> list[str]:
    """Folders Python imports from outside its prefix (PYTHONPATH, a user site): bound read-only in the sandbox.

    Never the kit's own source (an editable install puts the repository on sys.path):
    the student's process has every module of the kit it needs already imported.
    """
    prefixes = (sys.prefix, sys.base_prefix)
    found: list[str] = []
    for entry in sys.path:
        path = Path(entry).resolve() if entry else None
        if (
            path is None
            or not path.is_dir()
            or str(path).startswith(prefixes)
            or path == KIT_ROOT
            or path in KIT_ROOT.parents
        ):
            continue
        if path.is_relative_to(KIT_ROOT) and not str(path).startswith(prefixes):
            continue
        found.append(str(path))
    return found


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def _tree(pid: int) -> list[int]:
    """pid and its descendants, from /proc/<pid>/task/*/children."""
    found: list[int] = []
    frontier = [pid]
    while frontier and len(found) < 10000:
        current = frontier.pop()
        found.append(current)
        try:
            for task in os.scandir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task.name}/children") as children:
                    frontier += [int(child) for child in children.read().split()]
        except OSError:
            continue
    return found


def _memory_of(pid: int) -> int:
    """A process's proportional share of the anonymous and shared memory it maps (pages it shares with
    its forks divided among them), in bytes; 0 when it is gone or not ours to read (the userns tier's
    processes are not dumpable, and the memory they share with the zygote would count in full otherwise)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            return sum(int(line.split()[1]) * 1024 for line in rollup if line.startswith(("Pss_Anon:", "Pss_Shmem:")))
    except (OSError, ValueError, IndexError):
        return 0


def cpu_of(pid: int) -> float:
    """utime + stime of a process and of its children it has reaped, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0
