"""Changes made to a results.json after grading, each read back typed; and the part of it a student may see early.

Each works on the document the results were read from (``Results.document``), so that
every key stays as written (Gradescope reads the same file), and returns the results
read anew: the instructor's notes for a student's groups (grade-all), what the course's
late policy made of the submission's time (grade-all), the late mark of a submission made
after the due date (Gradescope's run_autograder, whose points Gradescope reduces), and the points
GitHub Classroom's artifact may show before the hidden checks' details are allowed.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path

from .atomic import write_atomically
from .outcome import NOT_GRADED
from .read import LatePenalty, Results, read_results

PUBLIC_KEYS = ("assignment", "max_score", "by_name", "notes", "error")  # what public_points keeps of extra_data


def save_results(results: Results, path: Path) -> None:
    """Write results' document as results.json, whole."""
    write_atomically(Path(path), json.dumps(results.document, indent=2) + "\n")


def with_cluster_notes(results: Results, notes: dict[str, str]) -> Results | None:
    """The results with ``notes`` (exercise -> the instructor's note for its group) as their notes, none
    removing them; None when they hold exactly those notes already."""
    if results.document.get("extra_data", {}).get("cluster_notes", {}) == notes:
        return None  # most students, most runs: nothing copied
    document = copy.deepcopy(results.document)
    extra = document.setdefault("extra_data", {})
    if extra.get("cluster_notes", {}) == notes:
        return None
    if notes:
        extra["cluster_notes"] = notes
    else:
        extra.pop("cluster_notes", None)
    return read_results(document)


def with_late_penalty(results: Results, late: LatePenalty | None) -> Results | None:
    """The results with ``late`` as what the late policy made of them (None: no policy applied), the raw score
    kept as ``score``; None when they say exactly that already (most runs: no copy of the document made)."""
    record = None
    if late is not None:
        record = {
            "status": late.status,
            "percent": late.percent,
            "of": late.of,
            "line": late.line,
            "note": late.note,
            "submitted_at": late.submitted_at,
            "due": late.due,
            "student_due": late.student_due,
            "late_seconds": late.late_seconds,
            "possible": late.possible,
            "raw_score": results.document.get("score"),
            "deducted": late.deducted,
            "score": late.score,
        }
    if results.document.get("extra_data", {}).get("late_penalty") == record:
        return None
    document = copy.deepcopy(results.document)
    extra = document.setdefault("extra_data", {})
    if record is None:
        extra.pop("late_penalty", None)
    else:
        extra["late_penalty"] = record
    return read_results(document)


def marked_late(results: Results, submitted: datetime, due: datetime, line: str) -> Results:
    """The results marked late: when it was submitted and due, by how many seconds, and ``line`` first in the
    output that the student reads. The points are not changed."""
    document = copy.deepcopy(results.document)
    document.setdefault("extra_data", {}).update(
        late=True,
        submitted_at=submitted.isoformat(),
        due_date=due.isoformat(),
        late_by_seconds=round((submitted - due).total_seconds()),
    )
    document["output"] = line + ("\n\n" + document["output"] if document.get("output") else "")
    return read_results(document)


def kit_failed_results(message: str) -> Results:
    """Results for a grading that left none to read: no test, and 0 of the points for a grade that needs a number."""
    return read_results(
        {"score": 0.0, "output": message, "tests": [], "extra_data": {"status": NOT_GRADED, "error": message}}
    )


def public_points(results: Results, show_hidden: bool = False) -> dict:
    """What may be shown of results.json: all of it when ``show_hidden``, else the points.

    Without ``show_hidden``: the total, the points per exercise, what loading the code
    reported and why it could not be graded; only tests whose visibility is "visible"
    (the kit marks its hidden checks "after_due_date"); no named mistakes.
    """
    document = results.document
    if show_hidden:
        return json.loads(json.dumps(document))
    extra = document.get("extra_data") or {}
    public = {
        "score": document.get("score", 0),
        "tests": [test for test in document.get("tests") or [] if test.get("visibility") == "visible"],
        "extra_data": {key: extra[key] for key in PUBLIC_KEYS if key in extra},
    }
    return json.loads(json.dumps(public))
