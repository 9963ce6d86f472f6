"""The Gradescope autograder bundle: ``python -m autograder gradescope -a mha --out mha.zip``.

The zip holds, at its root, the two files Gradescope runs (setup.sh once when the
image is built, run_autograder for each submission) and, under kit/, the trusted side
of the kit with this one assignment: the engine, the assignment's folder (reference,
graders, probes, known mistakes), its release notebook (so that the course's own demo
cells are recognised and skipped) and the lock the kit was tested with.

Gradescope runs as root in containers that refuse new namespaces: the kit then grades
in its "uid" tier, the student's code as an unprivileged uid that can read nothing of
the kit. run_autograder makes the kit and the results folder unreadable to other users
before every grading. Gradescope shows students no total while any test is hidden:
by default the hidden checks' details and the points appear after the due date;
``--show-score`` shows the points at once and keeps the hidden checks' details back.
Written answers are graded by hand: written_answers.txt, at the zip's root, lists them.
"""

from __future__ import annotations

import re
import shlex
import zipfile
from pathlib import Path

from .. import KIT_ROOT
from ..assignment import Assignment
from ..config import GradingConfig
from .answers import gradescope_note

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image (Ubuntu 22.04: Python 3.10).
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
# PyTorch's CPU build (Gradescope has no GPU), at the version the kit was tested with.
/autograder/venv/bin/pip install --quiet --index-url https://download.pytorch.org/whl/cpu "{torch}"
/autograder/venv/bin/pip install --quiet -r /autograder/source/kit/requirements-grading.txt
/autograder/venv/bin/pip install --quiet --no-deps -e /autograder/source/kit
chmod -R go-rwx /autograder/source  # the kit: nothing of it for the student's uid
# Which isolation this image gives, and the reference graded through it (its outputs are
# cached for every submission): a host that cannot grade fails here, when the image is
# built, not on the students' submissions.
cd /autograder/source/kit
/autograder/venv/bin/python -m autograder doctor{options}
chmod -R go-rwx /autograder/source
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission. AUTOGRADER_ROOT (default /autograder) and
# KIT_PYTHON (default the venv setup.sh made) let the kit's tests run it on a fake tree.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{KIT_PYTHON:-$ROOT/venv/bin/python}}"
mkdir -p "$ROOT/results"
chmod 700 "$ROOT/results"
chmod -R go-rwx "$ROOT/source" 2>/dev/null || true
cd "$ROOT/source/kit"
"$PYTHON" -m autograder grade "$ROOT/submission" --assignment {assignment} --out "$ROOT/results" {options}
status=$?
# 0: graded; 2: nothing gradable was submitted; 3: the kit could not grade (results.json
# says so). Anything else is a failure before the kit could write: still give a result.
if [ ! -s "$ROOT/results/results.json" ]; then
    printf '{{"output": "The autograder failed (status %s) before it could grade; tell your instructor.", "tests": [], "extra_data": {{"status": "not graded"}}}}\\n' "$status" \\
        > "$ROOT/results/results.json"
fi
exit 0
"""


def grading_requirements(lock: Path) -> tuple[str, list[str]]:
    """(the torch pin, the other pins) of the lock: what grading installs, GPU packages aside."""
    torch, others = "torch", []
    for line in lock.read_text().splitlines():
        requirement = line.split("#", 1)[0].strip()
        if not requirement or requirement.startswith("-"):
            continue
        name = re.split(r"[=<>!~;\s\[]", requirement, maxsplit=1)[0].lower()
        if name == "torch":
            torch = requirement.split(";")[0].strip()
        elif not name.startswith("nvidia-") and name not in ("triton", "cuda-bindings", "cuda-pathfinder"):
            others.append(requirement)
    return torch, others


def bundle_files(
    assignment: Assignment, config: GradingConfig | None = None, show_score: bool = False
) -> dict[str, bytes]:
    """Every file of the zip, by its path in the zip."""
    config = config or GradingConfig()
    torch, others = grading_requirements(KIT_ROOT / "requirements.lock")
    arguments = " ".join(shlex.quote(word) for word in config.as_arguments())  # for doctor and grade alike
    options = f"{arguments} --show-score" if show_score else arguments
    files = {
        "setup.sh": SETUP.format(torch=torch, options=f" {arguments}" if arguments else "").encode(),
        "run_autograder": RUN.format(assignment=assignment.name, options=options.strip()).encode(),
        "kit/requirements-grading.txt": ("\n".join(others) + "\n").encode(),
        "kit/pyproject.toml": (KIT_ROOT / "pyproject.toml").read_bytes(),
        f"kit/release/{assignment.name}/{assignment.notebook_name}": (
            assignment.release_dir / assignment.notebook_name
        ).read_bytes(),
    }
    if assignment.written:  # graded by hand: the bundle says so, and what to add to Gradescope's outline
        files["written_answers.txt"] = gradescope_note(assignment).encode()
    for path in sorted((KIT_ROOT / "autograder").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files[f"kit/{path.relative_to(KIT_ROOT).as_posix()}"] = path.read_bytes()
    for path in sorted(assignment.folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[f"kit/{path.relative_to(KIT_ROOT).as_posix()}"] = path.read_bytes()
    return files


def write_bundle(
    assignment: Assignment, out: Path, config: GradingConfig | None = None, show_score: bool = False
) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in bundle_files(assignment, config, show_score).items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return out
