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

Late work: Gradescope puts /autograder/submission_metadata.json beside the submission
(documented at gradescope-autograders.readthedocs.io/en/latest/submission_metadata/):
``created_at``, the submission's time, and ``assignment.due_date`` (and
``late_due_date``, if set), ISO 8601 with an offset. Where the submission came after the
due date, run_autograder marks results.json late (``mark_late``): the times, by how
much, and a first line of its output saying so. Points are not changed;
a late penalty is Gradescope's setting. An extension is not in the documented metadata:
a student who has one is marked late all the same, by the assignment's due date.

Testing the bundle locally: run_autograder reads AUTOGRADER_ROOT (default /autograder,
the folder holding source/, submission/, results/ and submission_metadata.json) and
KIT_PYTHON (default the venv setup.sh made), as the README's Gradescope section shows.

Written answers are graded by hand: written_answers.txt, at the zip's root, lists them.
"""

from __future__ import annotations

import json
import re
import shlex
import zipfile
from datetime import datetime
from pathlib import Path

from ... import KIT_ROOT
from ...assignments import Assignment
from ...config import GradingConfig
from ...results.read import read_results_file
from ...results.update import marked_late, save_results
from ...results.write import not_graded_json
from ..grade_all.answers import gradescope_note

FAILED_BEFORE_GRADING = "the autograder stopped (exit status @STATUS@) before it could grade"  # run_autograder's

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
    failed={failed}
    printf '%s\\n' "${{failed//@STATUS@/$status}}" > "$ROOT/results/results.json"
fi
# Late work, by Gradescope's submission_metadata.json: said in results.json, points unchanged.
"$PYTHON" -c 'import sys; from autograder.deliver.routes.gradescope import mark_late; mark_late(sys.argv[1], sys.argv[2])' \\
    "$ROOT/submission_metadata.json" "$ROOT/results/results.json" || true
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


def zip_files(
    assignment: Assignment, config: GradingConfig | None = None, show_score: bool = False
) -> dict[str, bytes]:
    """Every file of the zip, by its path in the zip."""
    config = config or GradingConfig()
    torch, others = grading_requirements(KIT_ROOT / "requirements.lock")
    arguments = " ".join(shlex.quote(word) for word in config.as_arguments())  # for doctor and grade alike
    options = f"{arguments} --show-score" if show_score else arguments
    files = {
        "setup.sh": SETUP.format(torch=torch, options=f" {arguments}" if arguments else "").encode(),
        "run_autograder": RUN.format(
            assignment=assignment.name, options=options.strip(), failed=shlex.quote(_failed_json(assignment))
        ).encode(),
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


def _failed_json(assignment: Assignment) -> str:
    """The results.json run_autograder writes when grading stopped before the kit wrote one (@STATUS@: its exit status)."""
    return json.dumps(not_graded_json(FAILED_BEFORE_GRADING, assignment.name))


def write_bundle(
    assignment: Assignment, out: Path, config: GradingConfig | None = None, show_score: bool = False
) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in zip_files(assignment, config, show_score).items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return out


def mark_late(metadata_path: str | Path, results_path: str | Path) -> bool:
    """Mark results.json late where Gradescope's metadata puts the submission after the due date; True if late."""
    try:
        metadata = json.loads(Path(metadata_path).read_text())
        submitted = _gradescope_time(metadata["created_at"])
        due = _gradescope_time(metadata["assignment"]["due_date"])
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no metadata (a local run), or none that says when: nothing to mark
    if submitted <= due:
        return False
    late_due = (metadata.get("assignment") or {}).get("late_due_date")
    after = ""
    try:
        if late_due and submitted > _gradescope_time(late_due):
            after = ", after the late due date too"
    except (ValueError, TypeError):
        pass
    line = f"Submitted late: {_duration(submitted - due)} after the due date ({due.isoformat(sep=' ')}){after}."
    save_results(marked_late(read_results_file(results_path), submitted, due, line), Path(results_path))
    return True


def _gradescope_time(text: str) -> datetime:
    """An ISO 8601 time as Gradescope writes it ("2018-07-31T23:00:00.000000-07:00"), with any fraction or a Z."""
    text = str(text).strip().replace("Z", "+00:00")
    text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text)  # Python 3.10 wants 3 or 6 digits
    when = datetime.fromisoformat(text)
    if when.tzinfo is None:
        raise ValueError(f"{text}: no time zone")
    return when


def _duration(delta) -> str:
    """2 d 10 h 15 min; under a minute, in seconds."""
    if delta.total_seconds() < 60:
        return f"{int(delta.total_seconds())} s"
    minutes = int(delta.total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days} d"] if days else []
    parts += [f"{hours} h"] if hours or days else []
    return " ".join(parts + [f"{minutes} min"])
