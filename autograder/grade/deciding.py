"""What decides a grade: the one list of files that every digest of "the same grading" hashes.

Three digests rest on it: grade-all's regrade digest (deliver/regrade.py: a change grades
everyone again), the reference's output cache (grade/reference.py: a change computes the
outputs again) and the kit digest that nbgrader's hidden cells carry (a kernel whose kit
hashes otherwise refuses to score). A file left out of this list could change points
while every digest stays the same; the instructor's cluster notes are left out on
purpose, since they decide feedback only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import KIT_ROOT, __version__
from ..assignments import Assignment

KIT = KIT_ROOT / "autograder"
# The kit's parts that decide points: the public engine (probes and comparison), the graders'
# runtime, the sandbox (what a student process may do and how long), scoring and the options.
KIT_FOLDERS = ("public", "grade", "sandbox")
KIT_FILES = ("results/scoring.py", "config.py")
NOTES_FILE = "cluster_notes.toml"  # an assignment's notes per cluster: feedback only


def deciding_files(assignment: Assignment) -> list[Path]:
    """The kit's deciding sources, then every file of the assignment's folder but its notes, in a fixed order."""
    files = [path for folder in KIT_FOLDERS for path in sorted((KIT / folder).rglob("*.py"))]
    files += [KIT / name for name in KIT_FILES]
    files += sorted(
        path
        for path in assignment.folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.name != NOTES_FILE
    )
    return files


def deciding_digest(assignment: Assignment, *context: str) -> hashlib._Hash:
    """A running hash of the kit's version, the given context and every deciding file (path and content)."""
    digest = hashlib.sha256("\n".join((__version__, *context)).encode() + b"\0")
    for path in deciding_files(assignment):
        digest.update(_label(assignment, path).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest


def _label(assignment: Assignment, path: Path) -> str:
    """A file's name in the digest, the same wherever the kit and the assignment's folder lie."""
    if path.is_relative_to(assignment.folder):
        return f"solutions/{assignment.name}/{path.relative_to(assignment.folder).as_posix()}"
    return path.relative_to(KIT_ROOT).as_posix()


def kit_digest(assignment: Assignment) -> str:
    """The short digest nbgrader's hidden cells carry: the points they give follow from exactly these files."""
    return deciding_digest(assignment).hexdigest()[:16]
