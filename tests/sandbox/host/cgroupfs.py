"""A simulated cgroup v2 hierarchy in a folder, with the kernel's rules, for the decision logic of sandbox/host/arrangement.py.

Each cgroup is a folder holding the interface files the kernel would (cgroup.controllers,
cgroup.subtree_control, cgroup.procs, and cgroup.type on every cgroup but the real root),
and the writes cgroups.py makes go through ``CgroupTree.write``, which does what the kernel
does or refuses as it refuses (cgroup v2's documentation, "Controlling Controllers" and
"No Internal Process Constraint"):

- ``+c`` in cgroup.subtree_control: only a controller the cgroup has in cgroup.controllers
  (ENOENT otherwise), and never in a cgroup that holds processes, the root excepted (EBUSY);
  ``-c``: not while a child has c enabled in its own subtree_control (EBUSY);
- a pid written to cgroup.procs moves that process from wherever it is; never into a
  cgroup that has controllers enabled for its children, the root excepted (EBUSY);
- a new cgroup's cgroup.controllers is its parent's subtree_control; a controller's files
  (memory.max, pids.max, cpu.max) exist only where it is in cgroup.controllers;
- a cgroup is removed only once it holds no process and no child cgroup (EBUSY).
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from autograder.sandbox.host import cgroups


class CgroupTree:
    def __init__(self, top: Path, controllers=("cpu", "io", "memory", "pids"), real_root: bool = True):
        self.top = top
        top.mkdir(parents=True, exist_ok=True)
        self._files(top, controllers, real_root)

    # ---------------------------------------------------------------- setting a host up (no rules)

    def make(self, relative: str, procs=(), enabled=()) -> Path:
        """A cgroup (and those above it) as a host has it: these processes in it, these controllers enabled below it."""
        folder = self.top
        for part in Path(relative).parts:
            folder = folder / part
            if not folder.exists():
                self.mkdir(folder)
        if procs:
            (folder / "cgroup.procs").write_text("".join(f"{pid}\n" for pid in procs))
        if enabled:
            (folder / "cgroup.subtree_control").write_text(" ".join(enabled) + "\n")
            for child in self.children(folder):
                (child / "cgroup.controllers").write_text(" ".join(enabled) + "\n")
        return folder

    def install(self, monkeypatch) -> CgroupTree:
        monkeypatch.setattr(cgroups, "write_value", self.write)
        monkeypatch.setattr(cgroups, "make_folder", self.mkdir)
        monkeypatch.setattr(cgroups, "remove_empty", self.rmdir)
        return self

    # ---------------------------------------------------------------- reading it

    @staticmethod
    def words(folder: Path, name: str) -> set[str]:
        return set((folder / name).read_text().split())

    def procs(self, folder: Path) -> set[int]:
        return {int(pid) for pid in self.words(folder, "cgroup.procs")}

    def children(self, folder: Path) -> list[Path]:
        return sorted(p for p in folder.iterdir() if p.is_dir())

    def cgroups(self) -> list[str]:
        """Every cgroup below the top, relative to it."""
        return sorted(str(p.relative_to(self.top)) for p in self.top.rglob("*") if p.is_dir())

    def where(self, pid: int) -> Path | None:
        for folder in [self.top, *self.top.rglob("*")]:
            if folder.is_dir() and pid in self.procs(folder):
                return folder
        return None

    # ---------------------------------------------------------------- the kernel's side

    def _files(self, folder: Path, controllers, real_root: bool) -> None:
        (folder / "cgroup.controllers").write_text(" ".join(sorted(controllers)) + "\n")
        (folder / "cgroup.subtree_control").write_text("\n")
        (folder / "cgroup.procs").write_text("")
        if not real_root:
            (folder / "cgroup.type").write_text("domain\n")

    def _is_root(self, folder: Path) -> bool:
        return not (folder / "cgroup.type").exists()

    def mkdir(self, folder: Path) -> None:
        if folder.exists():
            return
        if not (folder.parent / "cgroup.controllers").exists():
            raise OSError(errno.ENOENT, "not in a cgroup hierarchy", str(folder))
        folder.mkdir()
        self._files(folder, self.words(folder.parent, "cgroup.subtree_control"), real_root=False)

    def write(self, path: Path, text: str) -> None:
        folder, name = path.parent, path.name
        if name == "cgroup.subtree_control":
            enabled = self.words(folder, name)
            for token in text.split():
                sign, controller = token[0], token[1:]
                if sign == "+":
                    if controller not in self.words(folder, "cgroup.controllers"):
                        raise OSError(errno.ENOENT, "no such controller here", str(path))
                    if self.procs(folder) and not self._is_root(folder):
                        raise OSError(errno.EBUSY, "no internal processes", str(path))
                    enabled.add(controller)
                else:
                    if any(controller in self.words(c, name) for c in self.children(folder)):
                        raise OSError(errno.EBUSY, "a child still uses it", str(path))
                    enabled.discard(controller)
            path.write_text(" ".join(sorted(enabled)) + "\n")
            for child in self.children(folder):
                (child / "cgroup.controllers").write_text(" ".join(sorted(enabled)) + "\n")
        elif name == "cgroup.procs":
            pid = int(text)
            if self.words(folder, "cgroup.subtree_control") and not self._is_root(folder):
                raise OSError(errno.EBUSY, "no internal processes", str(path))
            before = self.where(pid)
            if before is not None:
                (before / name).write_text("".join(f"{p}\n" for p in sorted(self.procs(before) - {pid})))
            (folder / name).write_text("".join(f"{p}\n" for p in sorted(self.procs(folder) | {pid})))
        elif name == "cgroup.kill":
            (folder / "cgroup.procs").write_text("")
        else:
            controller = name.split(".")[0]
            if controller not in self.words(folder, "cgroup.controllers"):
                raise OSError(errno.ENOENT, f"no {name} where {controller} is not enabled", str(path))
            path.write_text(text)

    def rmdir(self, folder: Path, timeout: float = 0.0) -> bool:
        if not folder.exists():
            return True
        if self.procs(folder) or self.children(folder):
            return False
        shutil.rmtree(folder)
        return True
