"""Is the kit's own code free of the errors a linter finds (undefined or unused names, syntax)?"""

import subprocess
import sys

from autograder import KIT_ROOT


def test_no_undefined_or_unused_names():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--select",
            "F,E9",
            "--output-format",
            "concise",
            "--no-cache",
            "autograder",
            "tests",
            "solutions",
            "--exclude",
            "tests/heldout,tests/hostile",
        ],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_types_check():
    """Does mypy, configured in pyproject.toml, find no type error in the kit's code?"""
    done = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
