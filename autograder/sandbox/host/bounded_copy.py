"""Copy a submission into the grader's scratch: bounded, and never following a link.

What a student hands in is counted before anything of it is parsed: its files, its
bytes and its depth. Symbolic links are not followed and not copied (a link to
/proc/self/cwd, /etc/shadow, /dev/urandom or a classmate's folder brings nothing in);
nor are devices, pipes or sockets. Each thing left out is noted, with the reason, for
the feedback.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ...public.loader import SKIP_DIRS, SubmissionError


@dataclass(frozen=True)
class CopyLimits:
    bytes: int = 64 * 1024**2  # the whole submission
    files: int = 2000
    depth: int = 12


def copy_submission(source: Path, target_folder: Path, limits: CopyLimits = CopyLimits()) -> tuple[Path, list[str]]:
    """Copy source (a file or a folder) into target_folder; return the copy's path and what was left out."""
    source = Path(source)
    try:
        info = os.lstat(source)
    except OSError:
        raise SubmissionError(f"{source} does not exist; give the path of a notebook, a .py file or a folder") from None
    if stat.S_ISLNK(info.st_mode):
        raise SubmissionError(f"{source.name} is a symbolic link; hand in the file or folder itself")
    target_folder.mkdir(parents=True, exist_ok=True)
    os.chmod(target_folder, 0o755)  # as every folder of the copy: whatever the grader's umask, the sandbox reads it
    target = target_folder / source.name
    budget = _Budget(limits)
    notes: list[str] = []
    if stat.S_ISREG(info.st_mode):
        _copy_file(source, target, budget)
    elif stat.S_ISDIR(info.st_mode):
        _copy_folder(source, target, budget, notes, depth=0, shown=Path(source.name))
    else:
        raise SubmissionError(f"{source.name} is not a regular file or folder")
    return target, notes


class _Budget:
    def __init__(self, limits: CopyLimits):
        self.limits = limits
        self.bytes = 0
        self.files = 0

    def take(self, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > self.limits.files:
            raise SubmissionError(
                f"the submission holds more than {self.limits.files} files; submit your code, not data"
            )
        if self.bytes > self.limits.bytes:
            raise SubmissionError(
                f"the submission holds more than {self.limits.bytes // 2**20} MiB; submit your code, not data"
            )


def _copy_file(source: Path, target: Path, budget: _Budget) -> None:
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SubmissionError(f"{source.name} is not a regular file")
        allowed = budget.limits.bytes - budget.bytes
        with os.fdopen(os.dup(fd), "rb") as reader, open(target, "wb") as writer:
            copied = 0
            while chunk := reader.read(min(1 << 20, allowed - copied + 1)):
                copied += len(chunk)
                if copied > allowed:
                    budget.take(copied)  # raises: the file grew past the limit while being read
                writer.write(chunk)
        budget.take(copied)
    finally:
        os.close(fd)
    os.chmod(target, 0o644)


def _copy_folder(source: Path, target: Path, budget: _Budget, notes: list[str], depth: int, shown: Path) -> None:
    if depth > budget.limits.depth:
        raise SubmissionError(f"the submission's folders nest deeper than {budget.limits.depth} levels")
    target.mkdir(exist_ok=True)
    os.chmod(target, 0o755)
    with os.scandir(source) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            where = shown / entry.name
            if entry.name in SKIP_DIRS:
                continue
            if entry.is_symlink():
                notes.append(f"{_printable(where)} is a symbolic link: it was not copied (hand in files, not links)")
            elif entry.is_dir(follow_symlinks=False):
                _copy_folder(Path(entry.path), target / entry.name, budget, notes, depth + 1, where)
            elif entry.is_file(follow_symlinks=False):
                _copy_file(Path(entry.path), target / entry.name, budget)
            else:
                notes.append(f"{_printable(where)} is not a regular file: it was not copied")


def _printable(path: Path) -> str:
    return str(path).encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
