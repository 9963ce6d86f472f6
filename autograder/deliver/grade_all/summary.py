"""summary.csv: a row per student (each member of a group), in the intake's order, whatever happened to them.

The columns: who (key, name, ids, the late flag), the status and its reason, the score
and each exercise's points, the file graded, the isolation, the known mistakes named,
the kit's errors, earlier submissions, the LMS, the group, whether the row is kept from
an earlier run; then the written answers' columns (deliver/grade_all/answers.py), what the late
policy did (deliver/late/: ``late_by``, ``late_penalty`` in points, ``late_note``), ``raw_total``
(the automatic score plus the written answers' points) and ``total``: the raw total less the
late penalty, the number the LMS grade files (routes/lms_grades.py), made from these rows, carry. A row's values are text safe
to print (results/text.py's clean); in the file, every cell but the points the kit computed
passes through csv_cell, on one line, so a spreadsheet shows it as text: nothing in it
runs as a formula. read_summary reads the file back, for the steps after grade-all
(push canvas): the same rows, but for the cells csv_cell made inert, which stay as written.
"""

from __future__ import annotations

import csv
from datetime import timedelta
from fractions import Fraction
from pathlib import Path

from ...assignments import Assignment
from ...errors import KitError
from ...results.atomic import write_atomically
from ...results.outcome import GRADED, KIT_ERROR
from ...results.read import LatePenalty, Results
from ...results.scoring import exact, points_text
from ...results.text import clean, clean_name, csv_cell, csv_document
from ..intake import Intake, Submission
from ..late.apply import late_total
from ..late.policy import duration_text
from . import answers

CELL_LIMIT = 1000  # characters of one cell; the rest is cut, and said so
NEEDED = ("key", "name", "student_id", "status", "reason", "score", "source", "total")  # what read_summary requires
LATE_COLUMNS = ["late_by", "late_penalty", "late_note", "raw_total"]  # between the written answers' and total


def points_possible(assignment: Assignment) -> Fraction:
    """The most points a student can get: the automatic checks' and the written answers' (graded by hand)."""
    points = [*assignment.points.values(), *assignment.written.values()]
    return sum((exact(v) for v in points), Fraction(0))


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
    Its last columns are the written answers' (deliver/grade_all/answers.py), the late policy's, ``raw_total``
    (the automatic score, plus the written answers' points once a person has given them all)
    and ``total``, the raw total less the late penalty (deliver/late/). The LMS grade files
    (routes/lms_grades.py) are made from these rows: their grade is ``total``.
    Each value is text safe to print, not yet made inert for a spreadsheet: write_summary
    does that, cell by cell, and each LMS's writer after its own splits.
    """
    written = written if written is not None else answers.Written(answers.questions(assignment))
    head = ["key", "name", "student_id", "email", "late", "submitted_at", "status", "reason", "score", "max_score"]
    head += list(assignment.graded)
    head += ["file", "isolation", "mistakes", "internal_errors", "earlier", "source", "group", "unchanged"]
    head += written.head()[:-1] + LATE_COLUMNS + ["total"]
    possible = points_possible(assignment)
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
            values = [clean(v, CELL_LIMIT) for v in written.row(submission.key, score)]
            late = result.late if result is not None and not kit_failed else None
            taken, total = late_total(late, values[-1], possible)
            row += values[:-1] + [_late_by(late), taken, clean(_late_note(late), CELL_LIMIT), values[-1], total]
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
    numbers = number_columns(assignment, written or answers.Written(answers.questions(assignment)))
    cells = [[row[c] if c in numbers else csv_cell(row[c], CELL_LIMIT) for c in head] for row in rows]
    write_atomically(out / "summary.csv", csv_document([head, *cells]))
    return rows


def number_columns(assignment: Assignment, written: answers.Written) -> set[str]:
    """summary.csv's columns of numbers the kit computed (points, counts): written as they are, never as text."""
    numbers = {
        "score",
        "max_score",
        *assignment.graded,
        "internal_errors",
        *written.head(),
        "late_penalty",
        "raw_total",
    }
    return numbers - {"written_status"}


def written_points(out: Path, asked: list[str]) -> dict[str, dict[str, Fraction]]:
    """The written answers' points summary.csv holds (read_summary), by student key and question id: those a
    person gave with ``--manual-points``, and 0 for an answer not given; a blank cell (no points yet) is left out.
    Nothing where grade-all wrote no summary.csv."""
    path = Path(out) / "summary.csv"
    if not path.exists():
        return {}
    found: dict[str, dict[str, Fraction]] = {}
    for row in read_summary(out):
        key = row.get("key", "").strip()
        for question in asked:
            value = row.get(question, "").strip()
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
        submission.key, name, student_id, email, {True: "yes", False: "no", None: ""}[submission.late],
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
    return [clean(value, CELL_LIMIT) for value in row]


def _late_by(late: LatePenalty | None) -> str:
    """How long after the student's due date it was submitted ("" when not after it, or not known)."""
    return duration_text(timedelta(seconds=late.late_seconds)) if late and late.late_seconds else ""


def _late_note(late: LatePenalty | None) -> str:
    """What the late policy did: the student's line, and what the instructor must know."""
    return "; ".join(text.rstrip(".") for text in (late.line, late.note) if text) if late else ""


def points_text_of(value: float | None) -> str:
    """Points as summary.csv shows them ("" when there are none)."""
    return points_text(Fraction(str(value))) if value is not None else ""


def read_summary(out: Path) -> list[dict[str, str]]:
    """summary.csv of grade-all's folder ``out``, read back: its rows, as dicts by column, every value a string.

    The grade an LMS gets is lms_grades.grade of a row, as it is of summary_rows'. A cell
    csv_cell made inert keeps its leading ' (it is shown as written). KitError when the file
    is missing, unreadable or lacks a column the kit writes.
    """
    path = Path(out) / "summary.csv"
    try:
        with open(path, newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            rows = [{column: value or "" for column, value in row.items() if column is not None} for row in reader]
            head = reader.fieldnames or []
    except FileNotFoundError:
        raise KitError(f"{path} does not exist: give the --out folder of a grade-all run") from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise KitError(f"{path} could not be read ({error}): run grade-all again to write it") from None
    missing = [column for column in NEEDED if column not in head]
    if missing:
        raise KitError(
            f"{path} has no column {', '.join(missing)}: it is not grade-all's summary.csv, or an older kit's; "
            "run grade-all again to write it"
        )
    return rows
