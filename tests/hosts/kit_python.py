#!/usr/bin/env python3
"""Run this repository's Python (its .venv) as another user or in another kit folder, without installing anything.

    python tests/hosts/kit_python.py [--user nobody] [--kit FOLDER] [--no-namespaces] -- PYTHON-ARGS...

Root's interpreter lives under /root, which no other user may enter: in a mount
namespace of its own, this binds it at /opt/kit-python, where anyone may read it, and
runs it with the kit (this repository, or a copy: --kit) and the .venv's site-packages
on PYTHONPATH. Then, outermost first: --user drops to that account (no capabilities,
no groups), --no-namespaces enters tests/hosts/no_namespaces.py's seccomp filter (a
container that refuses new namespaces), and the interpreter runs PYTHON-ARGS with a
clean environment. Needs root. What the tests use it for:

* the "userns" tier: an ordinary account (--user nobody) on this machine;
* the "uid" tier: root where namespaces are refused (--no-namespaces), with a copy of
  the kit whose sources no other user can read (--kit; ``private_copy`` makes one).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import pwd
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent.parent
CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
TARGET = "/opt/kit-python"
COPIED = ("autograder", "solutions", "release", "tests", "pyproject.toml")
PRIVATE = ("autograder", "solutions", "tests", "build")  # what no student's uid may read (sandbox.host.tiers.PRIVATE)


def private_copy(kit: Path) -> Path:
    """A copy of this repository's kit at kit (a new folder), its private folders root's alone
    and the rest readable, as an instructor who closed the kit to other users has it; with the
    reference's outputs this repository has cached (build/cache), as a kit that has graded keeps
    them (a store is named by the files it follows, so the copy finds it: tests that make a copy
    start a grader of this repository first, which caches them)."""
    kit.mkdir(parents=True)
    for part in COPIED:
        source = REPOSITORY / part
        if source.is_dir():
            shutil.copytree(source, kit / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, kit / part)
    (kit / "build").mkdir()
    copy_stores(kit / "build" / "cache")
    for private in PRIVATE:
        os.chmod(kit / private, 0o700)
    os.chmod(kit, 0o755)
    return kit


def copy_stores(target: Path) -> None:
    """Each assignment's store of reference outputs for its files as they are, where this repository has it (a store
    saved meanwhile leaves the copied index beside other arrays: each entry then finds its own outputs or none). One
    the copy has made already (a build's) is replaced: the same files name the same store, and a grader's holds what
    a build's does."""
    from autograder import assignments
    from autograder.grade.reference import cache_path

    target.mkdir(parents=True, exist_ok=True)
    for assignment in assignments.discover().values():
        store = cache_path(assignment)
        for part in (store.with_suffix(".json"), store):
            try:
                shutil.copy2(part, target / part.name)
            except OSError:
                break  # none yet: the copy's grader computes its own


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--user", help="run as this account (no capabilities, its own group only)")
    parser.add_argument(
        "--kit", type=Path, default=REPOSITORY, help="the kit's folder to import (default this repository)"
    )
    parser.add_argument("--no-namespaces", action="store_true", help="refuse new namespaces, as a container does")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    if os.geteuid() != 0:
        print("kit_python: needs root", file=sys.stderr)
        return 2
    venv_site = next((REPOSITORY / ".venv" / "lib").glob("python3*/site-packages"))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        print(f"kit_python: no mount namespace: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    os.makedirs(TARGET, exist_ok=True)
    if libc.mount(sys.base_prefix.encode(), TARGET.encode(), None, MS_BIND | MS_REC, None) != 0:
        print(f"kit_python: cannot bind {sys.base_prefix}: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    python = f"{TARGET}/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    env = {
        "PATH": f"{TARGET}/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONPATH": f"{options.kit}{os.pathsep}{venv_site}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLCONFIGDIR": f"/tmp/kit-python-matplotlib-{options.user or 'root'}",
    }
    command = [python, *args]
    if options.no_namespaces:
        command = [
            python,
            str(HERE / "no_namespaces.py"),
            *(["--no-new-privs"] if options.user else []),
            "--",
            *command,
        ]
    if options.user:
        account = pwd.getpwnam(options.user)
        command = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups",
                   "--inh-caps=-all", "--bounding-set=-all", "--", *command]  # fmt: skip
    os.execvpe(command[0], command, env)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
