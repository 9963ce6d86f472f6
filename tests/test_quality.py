"""Does the kit's own code pass its linter, formatter and type checker, as configured in pyproject.toml?

ruff's rules (pyproject's [tool.ruff.lint]) find undefined and unused names, unsorted
imports, syntax newer than Python 3.10 and likely bugs; `ruff format --check` finds code
that is not formatted. Code the kit did not write (tests/data/heldout, tests/data/hostile,
tests/data/fairness) and generated files are excluded there.
"""

import subprocess
import sys

import pytest

from autograder import KIT_ROOT


def ruff(*arguments: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "ruff", *arguments, "--no-cache", "."]
    return subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT, check=False)


def test_lint_is_clean():
    done = ruff("check", "--output-format", "concise")
    assert done.returncode == 0, done.stdout + done.stderr + "\nfix: ruff check --fix ."


def test_code_is_formatted():
    done = ruff("format", "--check")
    assert done.returncode == 0, done.stdout + done.stderr + "\nfix: ruff format ."


# mypy checks the whole kit in 16 s where its cache is cold (a fresh clone), 2 s once it is warm: handed out late as
# a fast test, it ran alone at the end of a fresh clone's make test, the other CPU idle.
@pytest.mark.takes(seconds=16)
def test_types_check():
    """Does mypy, configured in pyproject.toml, find no type error in the kit's code?"""
    done = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=KIT_ROOT, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_tracked_link_leaves_the_repository():
    """A committed symlink to a path outside the clone (a local venv, say) breaks every fresh clone."""
    listed = subprocess.run(["git", "ls-files", "-s"], capture_output=True, text=True, cwd=KIT_ROOT, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    outside = []
    for line in listed.stdout.splitlines():
        mode, blob, _, path = line.split(maxsplit=3)
        if mode == "120000":  # a symlink: its blob is the path it points to, as committed
            target = subprocess.run(["git", "cat-file", "blob", blob], capture_output=True, text=True, cwd=KIT_ROOT)
            pointed = (KIT_ROOT / path).parent / target.stdout
            if not pointed.resolve().is_relative_to(KIT_ROOT.resolve()):
                outside.append(f"{path} -> {target.stdout}")
    assert not outside, f"tracked symlinks leaving the repository: {outside}; fix: git rm --cached <path>"
