"""summary.csv: a row per student (each member of a group), in the intake's order, whatever happened to them.

The columns: who (key, name, ids, the late flag), the status and its reason, the score
and each exercise's points, the file graded, the isolation, the known mistakes named,
the kit's errors, earlier submissions, the LMS, the group, whether the row is kept from
an earlier run; then the written answers' columns and ``total`` (deliver/answers.py).
The LMS grade files (lms_grades.py) are made from these rows. Every cell is text a
spreadsheet shows as text: nothing in it runs as a formula or rewrites a terminal.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from pathlib import Path

from ..assignments import Assignment
from ..errors import KitError
from ..results.atomic import write_atomically
from ..results.outcome import GRADED, KIT_ERROR
from ..results.read import Results
from ..results.scoring import points_text
from ..results.text import clean, clean_name
from . import answers
from .intake import Intake, Submission


def summary_rows(
    intake: Intake,
    assignment: Assignment,
    results: dict[str, Results],
    status: dict,
    unchanged: frozenset[str] | set[str] = frozenset(),
    written: answers.Written | None = None,
) -> tuple[list[str], list[dict[str, str]]]:
    """summary.csv's columns and rows (one per student, group members each, in the intake's order).

    results: each student's results by key; status: each student's (status, reason) in this run.
    Its last columns are the written answers' (deliver/answers.py) and ``total``: the
    automatic score, plus the written answers' points once a person has given them all.
    The LMS grade files (lms_grades.py) are made from these rows: their grade is ``total``.
    """
    written = written if written is not None else answers.Written(answers.questions(assignment))
    head = ["key", "name", "student_id", "email", "late", "submitted_at", "status", "reason", "score", "max_score"]
    head += list(assignment.graded)
    head += ["file", "isolation", "mistakes", "internal_errors", "earlier", "source", "group", "unchanged"]
    head += written.head()
    rows = []
    for submission in intake.submissions:
        result = results.get(submission.key)
        kit_failed = status.get(submission.key, ("not graded", ""))[0] == KIT_ERROR
        for name, student_id, email in submission.members or [
            (submission.name, submission.student_id, submission.email)
        ]:
            row = _row(submission, name, student_id, email, result, status, assignment)
            row.append("yes" if submission.key in unchanged else "")  # graded by an earlier run, nothing changed since
            score = None if kit_failed or result is None else result.score
            row += [csv_safe(v) for v in written.row(submission.key, score)]
            rows.append(dict(zip(head, row)))
    return head, rows


def write_summary(
    intake: Intake,
    assignment: Assignment,
    out: Path,
    results: dict[str, Results],
    status: dict,
    unchanged: frozenset[str] | set[str] = frozenset(),
    written: answers.Written | None = None,
) -> list[dict[str, str]]:
    """summary.csv: one row per student, in the intake's order, whatever happened to them; the rows."""
    head, rows = summary_rows(intake, assignment, results, status, unchanged, written)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(head)
    writer.writerows([row[column] for column in head] for row in rows)
    write_atomically(out / "summary.csv", buffer.getvalue())
    return rows


def written_points(out: Path, asked: list[str]) -> dict[str, dict[str, Fraction]]:
    """The written answers' points summary.csv holds, by student key and question id: those a person gave with
    ``--manual-points``, and 0 for an answer not given; a blank cell (no points yet) is left out."""
    path = Path(out) / "summary.csv"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    found: dict[str, dict[str, Fraction]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        key = (row.get("key") or "").strip()
        for question in asked:
            value = (row.get(question) or "").strip()
            if not key or not value:
                continue
            try:
                found.setdefault(key, {})[question] = Fraction(value)
            except (ValueError, ZeroDivisionError):
                raise KitError(
                    f"{path}: {clean_name(key)}'s {question} is {clean(value, 40)!r}, not a number of points; "
                    "run grade-all again to write it anew"
                ) from None
    return found


def _row(
    submission: Submission,
    name: str,
    student_id: str,
    email: str,
    result: Results | None,
    status: dict,
    assignment: Assignment,
) -> list[str]:
    """One student's row: a group's members each get one, with the group's results."""
    result = result if result is not None else Results(graded=False, reason="")
    what, reason = status.get(submission.key, ("not graded", "no results"))
    graded = result.status == GRADED
    points = result.points()
    row = [
        submission.key, name, student_id, email, "yes" if submission.late else "",
        submission.submitted_at, what, reason,
        points_text_of(result.score) if what != KIT_ERROR else "",
        points_text_of(result.max_score) if graded else "",
    ]  # fmt: skip
    row += [
        points_text_of(points[exercise].score) if graded and exercise in points else ""
        for exercise in assignment.graded
    ]
    row += [
        result.entry, result.isolation, " ".join(result.mistakes),
        len(result.internal_errors) if result.graded else "", " ".join(clean_name(p.name) for p in submission.earlier), submission.source,
        submission.name if submission.members else "",
    ]  # fmt: skip
    return [csv_safe(value) for value in row]


def points_text_of(value: float | None) -> str:
    """Points as summary.csv shows them ("" when there are none)."""
    return points_text(Fraction(str(value))) if value is not None else ""


def csv_safe(value) -> str:
    """A cell no spreadsheet takes for a formula, with nothing that rewrites a terminal."""
    text = clean(value, 1000)
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
