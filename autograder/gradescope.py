"""The Gradescope autograder bundle: ``python -m autograder gradescope -a mha --out mha.zip``.

The zip holds, at its root, the two files Gradescope runs (setup.sh once when the
image is built, run_autograder for each submission) and the kit itself under kit/:
the engine, the graders and the assignment's reference. run_autograder grades
$AUTOGRADER_ROOT/submission (Gradescope's /autograder by default) into
$AUTOGRADER_ROOT/results/results.json, hidden checks visible after the due date.

Gradescope's containers usually do not allow new namespaces, so the bundle grades with
--allow-unsandboxed: each submission already runs in a container of its own, and
only plain arrays still cross from the student's process to the grader.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from . import KIT_ROOT
from .assignments import Assignment

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image.
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
# The CPU build of PyTorch: Gradescope's machines have no GPU.
/autograder/venv/bin/pip install --quiet --index-url https://download.pytorch.org/whl/cpu "{torch}"
/autograder/venv/bin/pip install --quiet -r /autograder/source/kit/requirements-grading.txt
/autograder/venv/bin/pip install --quiet --no-deps -e /autograder/source/kit
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission. AUTOGRADER_ROOT (default /autograder) and
# KIT_PYTHON (default the venv setup.sh made) let the kit's tests run it on a fake tree.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{KIT_PYTHON:-$ROOT/venv/bin/python}}"
mkdir -p "$ROOT/results"
cd "$ROOT/source/kit"
"$PYTHON" -m autograder grade "$ROOT/submission" --assignment {assignment} --out "$ROOT/results" \\
    --allow-unsandboxed --timeout {timeout:g}
status=$?
# 0: graded; 2: the submission could not be graded (results.json says why). Anything
# else is a failure of the grader itself: make sure Gradescope still gets a result.
if [ ! -s "$ROOT/results/results.json" ]; then
    printf '{{"score": 0, "output": "The autograder failed (status %s); tell your instructor.", "tests": []}}\\n' "$status" \\
        > "$ROOT/results/results.json"
fi
exit 0
"""


def requirements(pyproject: Path) -> tuple[str, list[str]]:
    """(the torch requirement, the others) from the kit's own dependencies."""
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    torch = next(d for d in dependencies if d.replace(" ", "").startswith("torch"))
    return torch, [d for d in dependencies if d != torch]


def bundle_files(assignment: Assignment, timeout: float = 10.0) -> dict[str, bytes]:
    """Every file of the zip, by its path in the zip."""
    torch, others = requirements(KIT_ROOT / "pyproject.toml")
    files = {
        "setup.sh": SETUP.format(torch=torch).encode(),
        "run_autograder": RUN.format(assignment=assignment.name, timeout=timeout).encode(),
        "kit/requirements-grading.txt": ("\n".join(others) + "\n").encode(),
        "kit/pyproject.toml": (KIT_ROOT / "pyproject.toml").read_bytes(),
        f"kit/solutions/{assignment.name}/reference.py": assignment.reference_path.read_bytes(),
    }
    for path in sorted((KIT_ROOT / "autograder").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files[f"kit/{path.relative_to(KIT_ROOT).as_posix()}"] = path.read_bytes()
    return files


def write_bundle(assignment: Assignment, out: Path, timeout: float = 10.0) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in bundle_files(assignment, timeout).items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return out
