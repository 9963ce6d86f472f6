"""File trees that a student made, walked and removed without recursion.

On Python 3.10 and 3.11, ``os.walk``, ``Path.rglob`` and ``shutil.rmtree`` call
themselves once per folder level, so a tree about a thousand folders deep (one
student's repository, upload, or what their code left in /tmp) raises RecursionError in
whoever reads it. Everything here keeps its own stack, never follows a symbolic link,
and reads no deeper than a limit: a tree deeper than that is refused with TreeTooDeep,
whose message says why and what to do, so that one student's tree stops only that
student's grading.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

MAX_DEPTH = 32  # folders below a submission's root: a course repository nests a dozen at most
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class TreeTooDeep(Exception):
    """A tree with a folder more than ``limit`` levels below its root."""

    def __init__(self, root: Path | str, limit: int):
        self.root, self.limit = Path(root), limit
        super().__init__(
            f"{self.root.name or self.root} holds folders nested more than {limit} levels deep, "
            f"more than the kit reads; hand in your code in a shallower folder"
        )


def walk(root: Path | str, max_depth: int = MAX_DEPTH) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Like ``os.walk(root)`` top-down, with an explicit stack: (folder, folder names, file names).

    As with os.walk, a link to a folder is named among the folders but never entered, an
    unreadable folder is passed over, and the caller may prune the folder names in place
    to keep the walk out of them. Raises TreeTooDeep on reaching a folder more than
    ``max_depth`` levels below root.
    """
    stack = [(Path(root), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError:
            continue
        folders: list[str] = []
        files: list[str] = []
        for entry in entries:
            (folders if _is_folder(entry) else files).append(entry.name)
        yield folder, folders, files
        below = [name for name in folders if not os.path.islink(folder / name)]
        if below and depth >= max_depth:
            raise TreeTooDeep(root, max_depth)
        stack.extend((folder / name, depth + 1) for name in reversed(below))


def regular_files(root: Path | str, max_depth: int = MAX_DEPTH) -> list[Path]:
    """Every regular file under root (links, devices, pipes and sockets left out), sorted."""
    found = []
    for folder, _, files in walk(root, max_depth):
        for name in files:
            path = folder / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    found.append(path)
            except OSError:
                continue
    return sorted(found)


def remove_tree(path: Path | str) -> None:
    """Remove path and everything under it, however deep, never following a link.

    Errors are passed over, as with ``shutil.rmtree(path, ignore_errors=True)``. Each
    folder found is first moved into one staging folder at the top, so that no folder is
    ever opened more than two levels down: the depth of the tree costs neither
    recursion, nor open files, nor path length.
    """
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        _quietly(os.unlink, path)
        return
    top = _open_folder(os.fspath(path), None)
    if top is None:
        return
    try:
        staging = _empty(top)
        if staging is not None:
            _quietly(os.rmdir, staging, dir_fd=top)
    finally:
        os.close(top)
    _quietly(os.rmdir, path)


def _empty(top: int) -> str | None:
    """Empty the folder open as ``top``; return the name of the staging folder made in it, if any."""
    staging: str | None = None
    staging_fd: int | None = None
    pending: list[str | None] = [None]  # None: top itself; else a folder moved into staging
    moved = 0
    try:
        while pending:
            name = pending.pop()
            fd = os.dup(top) if name is None else _open_folder(name, staging_fd)
            if fd is None:
                continue
            try:
                for entry in _entries(fd):
                    if entry.name == staging and name is None:
                        continue
                    if not entry.is_dir(follow_symlinks=False):
                        _quietly(os.unlink, entry.name, dir_fd=fd)
                        continue
                    if staging_fd is None:
                        staging, staging_fd = _make_staging(top)
                    moved += 1
                    _quietly(os.chmod, entry.name, 0o700, dir_fd=fd)  # moving a folder writes its '..'
                    if _quietly(os.rename, entry.name, str(moved), src_dir_fd=fd, dst_dir_fd=staging_fd):
                        pending.append(str(moved))
            finally:
                os.close(fd)
            if name is not None:
                _quietly(os.rmdir, name, dir_fd=staging_fd)
    finally:
        if staging_fd is not None:
            os.close(staging_fd)
    return staging


def _make_staging(top: int) -> tuple[str, int]:
    while True:
        name = f".removing-{secrets.token_hex(8)}"
        try:
            os.mkdir(name, 0o700, dir_fd=top)
        except FileExistsError:
            continue
        return name, os.open(name, _FOLDER, dir_fd=top)


def _open_folder(name: str, parent: int | None) -> int | None:
    """An open folder, made readable first where its owner shut it (a student's chmod 000)."""
    for attempt in range(2):
        try:
            return os.open(name, _FOLDER, dir_fd=parent)
        except PermissionError:
            if attempt or not _quietly(os.chmod, name, 0o700, dir_fd=parent):
                return None
        except OSError:
            return None
    return None


def _entries(fd: int) -> list[os.DirEntry]:
    _quietly(os.fchmod, fd, 0o700)  # a folder its owner made read-only: its entries can go
    try:
        with os.scandir(fd) as scan:
            return list(scan)
    except OSError:
        return []


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _quietly(call, *args, **kwargs) -> bool:
    """Whether call(*args, **kwargs) succeeded; an OSError is passed over."""
    try:
        call(*args, **kwargs)
    except OSError:
        return False
    return True
