"""What the grader makes of a student process's account of its loading (sandbox/guest/steps.py).

The process tells each step as it begins. Until it tells "running", only the kit's
code has run in it, so its word is the kit's, and a failure is told by the step it
happened in and what it was. From "running" on, the submission's code runs in that
process: the grader then believes nothing of it but "ready", and what else happens
(an exit, a hang, memory) is the student's code's, measured by the grader.

What a failure comes to (results/outcome.py maps each to a status):

- in the student's code: the session fails every check of the process with it
  (``Misbehaved`` for a message other than "ready"), as before;
- CUDA that did not start (``DeviceNotStarted``): the session fails its names, and the
  engine grades them again on the CPU, never scoring the failure;
- the submission's own, found by the kit (a notebook that does not parse, a bound
  passed): ``Refused``, a SubmissionError: not graded, the student told what to do;
- anything else before the student's code ran (a file the sandbox may not read, a
  step of the kit's that ran out of memory, died or hung): ``SandboxFailed``, a
  KitError: not graded, exit 3, never a score.
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import KitError
from ...public import wire
from ...public.loader import STUDENT_CODE, Entry, SubmissionError
from ..guest.steps import DETAIL_CHARS, PROBLEMS, STEPS

MESSAGE_BYTES = 1 << 20  # a loading message: a step, a failure's detail, or "ready" with its notes
LIMITS = wire.MessageLimits(frame_bytes=MESSAGE_BYTES, header_bytes=MESSAGE_BYTES, arrays=0)
NOT_THE_STUDENTS = "not graded: the host's set-up, not the student's work"


class NotLoaded(Exception):
    """The submission could not be loaded, for a reason found before its code ran: no check can run on it, so its
    grading ends here (grade/engine.py lets it pass every check)."""


class Refused(SubmissionError, NotLoaded):
    """The submission itself cannot be loaded (the student's to fix); the message says what to do."""


class SandboxFailed(KitError, NotLoaded):
    """The sandbox failed before the submission's code ran: the kit's or the host's failure, never a score."""


class Misbehaved(Exception):
    """The student's code, running, sent something other than 'ready'."""


class DeviceNotStarted(Exception):
    """CUDA did not start in the student's process, before its code ran (the session grades its names again on
    the CPU, never scoring them)."""


class Loading:
    """One student process's loading, as the grader follows it from its messages.

    unreadable: why the sandbox could not read the submission, from the guest's detail
    (the grader looks at the copy's permissions: ``unreadable_reason``)."""

    def __init__(self, entry: Entry, unreadable: Callable[[str], str]):
        self.entry = entry
        self.step: str | None = None  # the step begun last: None before the first
        self.ready = False
        self.notes: list[str] = []
        self._unreadable = unreadable

    @property
    def student_code(self) -> bool:
        """Whether the submission's code has started to run."""
        return self.step == STUDENT_CODE

    def heard(self, message: dict) -> None:
        """Take one message of the process: a step begun, ready, or (raised) why it could not load."""
        op = message.get("op")
        if self.student_code:
            if op != "ready":
                raise Misbehaved()
            notes = message.get("notes", [])
            self.notes = [str(note)[:1000] for note in notes[:20]] if isinstance(notes, list) else []
            self.ready = True
            return
        step = message.get("step")
        begun = STEPS.index(self.step) if self.step is not None else -1
        if op == "step" and isinstance(step, str) and step in STEPS and STEPS.index(step) > begun:
            self.step = step
            return
        if op == "failed" and self.step is not None and message.get("problem") in PROBLEMS:
            raise self._failure(message["problem"], str(message.get("detail", ""))[:DETAIL_CHARS])
        raise SandboxFailed(
            f"the sandbox's process broke the loading protocol while {self.doing} (it sent {str(op)[:40]!r}); "
            f"{NOT_THE_STUDENTS}"
        )

    def _failure(self, problem: str, detail: str) -> Exception:
        if problem == "submission" and self.step in ("reading", "parsing", "extracting"):
            return Refused(detail)
        if problem == "device" and self.step == "isolating":
            return DeviceNotStarted(detail)
        if problem == "unreadable" and self.step == "reading":
            return SandboxFailed(self._unreadable(detail))
        if problem == "memory":
            return self.failed(f"it ran out of memory ({detail})")
        return self.failed(detail)

    def failed(self, what: str) -> SandboxFailed:
        """A step of the kit's failed (it died, hung or ran out of memory): what it was doing, and what happened."""
        return SandboxFailed(
            f"the sandbox failed while {self.doing}, before any code of the submission ran: {what}; {NOT_THE_STUDENTS}"
        )

    @property
    def doing(self) -> str:
        """What the step begun last does, in words, with the file's size where reading it is the step."""
        name = self.entry.path.name
        if self.step == "parsing":
            return (
                f"parsing {'the notebook ' if self.entry.kind == 'notebook' else ''}{name} ({_size(self.entry.path)})"
            )
        return {
            None: "starting its process",
            "isolating": "setting up its isolation",
            "reading": f"reading the submission's files ({name})",
            "extracting": f"extracting the code of the notebook {name}",
        }.get(self.step, "loading the submission")


def _size(path: Path) -> str:
    try:
        return f"{os.stat(path).st_size / 2**20:.1f} MiB"
    except OSError:
        return "size unknown"


# ------------------------------------------------------------------ a submission the sandbox cannot read


def closed_part(paths: Sequence[Path], uid: int, gid: int) -> tuple[Path, os.stat_result] | None:
    """The first of ``paths`` (folders, down to the submission's file or package) that uid, with group gid and no
    other, may not pass through (a folder on the way), or read (the last), by its permission bits; None when
    each is open to it."""
    for i, path in enumerate(paths):
        try:
            info = os.stat(path)
        except OSError:
            return None
        folder = stat.S_ISDIR(info.st_mode)
        need = (5 if folder else 4) if i == len(paths) - 1 else 1  # r-x to read a folder, r-- a file, --x to pass
        shift = 6 if info.st_uid == uid else 3 if info.st_gid == gid else 0
        if (info.st_mode >> shift) & need != need:
            return path, info
    return None


def unreadable_reason(paths: Sequence[Path], uid: int, gid: int, detail: str) -> str:
    """Why the sandbox's uid could not read the submission's copy, for the instructor: which part, its
    permissions and owner; or, where its permissions allow it, that something else refuses."""
    found = closed_part(paths, uid, gid)
    if found is None:
        return (
            f"the kit cannot read this submission's files: {detail}, though their permissions let the sandbox's "
            f"uid {uid} read them (an ACL, a security module or a mount option?); {NOT_THE_STUDENTS}"
        )
    path, info = found
    return (
        f"the kit cannot read this submission's files: {path} has permissions {stat.S_IMODE(info.st_mode):04o} "
        f"(owner {_user(info.st_uid)}), closed to the sandbox's uid {uid} (an instructor's umask, such as 077?); "
        f"{NOT_THE_STUDENTS}"
    )


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)
