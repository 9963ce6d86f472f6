"""What makes grade-all grade a student again: a changed submission, or a change of anything that decides a grade.

Each student's results.json keeps two digests (results/write.py ``Provenance``): the
submission's, and the grading's (the graders, probes, reference, points, known
mistakes, the kit, the grading options). A rerun grades a student again unless both
are the same and the student was graded; ``--force`` grades everyone again.

A class graded in shards (``--shard I/N``) gives each student to one shard by a hash of
their key: the same shard whatever the export's order, and whoever joins the class.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path

from ...assignments import Assignment
from ...config import GradingConfig
from ...grade.deciding import deciding_digest
from ...public import trees
from ...results.outcome import GRADED
from ...results.read import Results
from ...results.text import clean_name
from ..intake import Submission


def grading_digest(assignment: Assignment, config: GradingConfig) -> str:
    """A hash of everything that decides a grade (grade/deciding.py) and the grading options: a change of any of it grades everyone again."""
    options = (
        f"{config.device} {config.timeout} {config.wall_factor} {config.memory} {config.processes} {config.isolation}"
    ) + (f" {config.gpu_memory}" if config.device != "cpu" else "")  # GPU memory bounds only a GPU's grading
    return deciding_digest(assignment, options).hexdigest()


def submission_digest(path: Path) -> str:
    """A hash of everything submitted (links aside): a changed submission is graded again."""
    digest = hashlib.sha256()
    path = Path(path)
    try:
        files = [path] if path.is_file() else trees.regular_files(path)
    except trees.TreeTooDeep as error:  # refused when graded: the refusal is what is hashed
        return hashlib.sha256(str(error).encode("utf-8", "surrogateescape")).hexdigest()
    for file in files[:5000]:
        digest.update(file.relative_to(path.parent).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        inner = hashlib.sha256()
        with open(file, "rb") as handle:
            while chunk := handle.read(1 << 20):
                inner.update(chunk)
        digest.update(inner.digest())
    return digest.hexdigest()


def shard_of(key: str, shards: int) -> int:
    """Which of `shards` shards grades this student, from 1: a hash of their key, never their place in the class."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % shards + 1


def student_record(submission: Submission) -> dict:
    """Who a result belongs to, as its results.json keeps it."""
    record = asdict(submission)
    record["path"] = clean_name(str(submission.path))
    record["earlier"] = [clean_name(p.name) for p in submission.earlier]
    record["members"] = [{"name": n, "student_id": i, "email": e} for n, i, e in submission.members]
    return record


def is_done(earlier: Results | None, grading: str, submission: str) -> bool:
    """Did an earlier run grade this submission, as it is now, with everything that decides a grade as it is now?"""
    return (
        earlier is not None
        and earlier.status == GRADED
        and earlier.grading_digest == grading
        and earlier.submission_digest == submission
    )
