"""A fresh clone of the kit in a scratch folder, and its command line.

What `git clone` gives an instructor: the repository's files (tracked, and new ones not
ignored), without .venv/, source/, build/, gradebook.db or the tests. The clone's own kit
is the one imported, by its commands and by the Jupyter kernels nbgrader starts from
them (PYTHONPATH), so that nothing it does reaches this checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import KIT_ROOT


def fresh_clone(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=KIT_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = KIT_ROOT / name
        if name.startswith("tests/") or not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target


# The tests that copy the session's built clone run in one process, which builds it once.
SHARES_THE_BUILT_CLONE = pytest.mark.xdist_group("built mha clone")


def copy_of_clone(clone: Path, target: Path) -> Path:
    """A copy of a clone (the session's built one, tests/conftest.py ``built_mha_clone``) for one test to change."""
    shutil.copytree(clone, target, symlinks=True)
    return target


def clone_env(clone: Path) -> dict[str, str]:
    """The environment a command of the clone runs in: its kit first, this venv's scripts on PATH."""
    scripts = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PYTHONPATH": str(clone),
        "PATH": scripts + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def run_in(clone: Path, *command: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """A command run in the clone's folder, as the README writes it (python is this venv's)."""
    words = [sys.executable if word == "python" else word for word in command]
    return subprocess.run(words, cwd=clone, env=clone_env(clone), capture_output=True, text=True, timeout=timeout)
