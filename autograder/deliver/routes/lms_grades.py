"""Grade files each LMS imports as it is, written by grade-all beside summary.csv.

One writer per LMS, each for the export grade-all read (intake.source), each built from
that LMS's own documentation or source, named above the writer. Every writer takes the
rows of summary.csv (grade_all/summary.py summary_rows): the grade is the "total" summary.csv gives (the
automatic score, plus the written answers' points once a person has given them all, less
the late policy's penalty; summary.csv keeps the raw total beside it), so whatever decides
summary.csv's total decides these files' too. A student the kit could
not grade (status "error") has an empty grade, never 0: each LMS below leaves an empty
grade as it was, and the run's output says who they are. Every cell that came from the
export (a name, an id, an email) passes through results/text.py's csv_cell, after any
split (Blackboard's last and first name), so that no spreadsheet runs it as a formula;
the grades are the kit's numbers, written as they are; every field is quoted, which each
importer below reads as the value inside the quotes.

    canvas_grades.csv       Canvas: Grades > Import
    moodle_grades.csv       Moodle: assignment > Upload grading worksheet
    moodle_feedback.zip     Moodle: assignment > Upload multiple feedback files in a zip
    blackboard_grades.csv   Blackboard Learn: Grade Centre > Work Offline > Upload
    gradescope_grades.csv   Gradescope: the class's points keyed by SID and email
    classroom_grades.csv    GitHub Classroom: the class's points keyed by GitHub login

--lms-column-id names the LMS's own column: Canvas's assignment id (the N of
.../assignments/N), Blackboard's Grade Centre column id (what follows "|" in the header
of Work Offline > Download). Neither is in the export. Without it the column carries
the assignment's name alone: Canvas matches an assignment of that title or asks, when
importing, which assignment the column is; Blackboard creates a new column.
"""

from __future__ import annotations

import html
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ...assignments import Assignment
from ...results.atomic import atomic_file, write_atomically
from ...results.scoring import points_text
from ...results.text import csv_cell, csv_document
from ..grade_all.summary import points_possible
from ..intake import Intake, Submission


@dataclass
class GradeFiles:
    """What one writer wrote, and what the instructor must know to import it."""

    paths: list[Path]
    notes: list[str] = field(default_factory=list)


@dataclass
class Rows:
    """summary.csv's rows (dicts by column) with what the writers need beside them."""

    assignment: Assignment
    intake: Intake
    rows: list[dict[str, str]]
    out: Path
    column_id: str = ""
    now: datetime = field(
        default_factory=lambda: datetime.now().astimezone()
    )  # local: Moodle's strtotime reads local time

    def submission(self, row: dict[str, str]) -> Submission:
        return next(s for s in self.intake.submissions if s.key == row["key"])

    def max_score(self) -> str:
        """The most points a student can get: the automatic checks' and the written answers' (graded by hand)."""
        return _points(self.assignment)


def grade(row: dict[str, str]) -> str:
    """The grade an LMS gets: summary.csv's total (blank until every written answer has its points)."""
    return row.get("total", row["score"])


def write_lms_grades(
    intake: Intake, assignment: Assignment, out: Path, rows: list[dict[str, str]], column_id: str = ""
) -> GradeFiles | None:
    """The grade file(s) of the LMS that made the export, or None for a plain folder."""
    writer = WRITERS.get(intake.source)
    if writer is None:
        return None
    written = writer(Rows(assignment, intake, rows, out, column_id))
    kit_errors = [row["name"] for row in rows if row["status"] == "error"]
    if kit_errors:
        written.notes.append(
            f"{len(kit_errors)} not graded by a failure of the kit ({', '.join(kit_errors[:5])}"
            f"{', ...' if len(kit_errors) > 5 else ''}): their grade is left empty, which the LMS leaves as it was"
        )
    waiting = [row["name"] for row in rows if row["status"] != "error" and row["score"] and not grade(row)]
    if waiting:
        written.notes.append(
            f"{len(waiting)} with written answers that have no points yet ({', '.join(waiting[:5])}"
            f"{', ...' if len(waiting) > 5 else ''}): their grade is left empty until grade-all is run with "
            f"--manual-points (written answers are never counted as 0)"
        )
    inert = [row["student_id"] for row in rows if csv_cell(row["student_id"]) != row["student_id"]]
    if inert:
        written.notes.append(
            f"{len(inert)} ids start with a character a spreadsheet would run as a formula ({', '.join(inert[:5])}"
            f"{', ...' if len(inert) > 5 else ''}): the file has each after a ', so that none runs, and the LMS will "
            f"not find those students by it: enter their grades by hand"
        )
    return written


def _points(assignment: Assignment) -> str:
    return points_text(points_possible(assignment))


# ------------------------------------------------------------------ Canvas

CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_POSSIBLE = "    Points Possible"  # the second row of Canvas's own export, first cell as written


def canvas(rows: Rows) -> GradeFiles:
    """Canvas's gradebook import CSV, as Canvas's Grades > Export writes it.

    Source: instructure/canvas-lms app/models/gradebook_importer.rb: the header starts
    with "Student", "ID" and ends its student columns with "Section" ("SIS User ID",
    "SIS Login ID" between); a student is found by ID (the user id of the Download
    Submissions zip) first; an assignment column is "<title> (<assignment id>)", a title
    alone matching an assignment of that title or becoming a new one; a row whose first
    cell holds "Points Possible" gives the columns' points; an empty grade is no change.
    Canvas's guide: "How do I import grades in the Gradebook?" (Instructor Guide).
    """
    title = rows.assignment.name + (f" ({rows.column_id})" if rows.column_id else "")
    header = CANVAS_STUDENT_COLUMNS + [title]
    lines = [[CANVAS_POINTS_POSSIBLE, "", "", "", "", rows.max_score()]]
    lines += [[csv_cell(row["name"]), csv_cell(row["student_id"]), "", "", "", grade(row)] for row in rows.rows]
    path = rows.out / "canvas_grades.csv"
    write_atomically(path, csv_document([header, *lines]))
    notes = []
    if not rows.column_id:
        notes.append(
            f"{path.name}: its column {title!r} has no Canvas assignment id: Canvas matches an assignment titled "
            f"{rows.assignment.name!r} or asks which one it is when you import; pass --lms-column-id N "
            f"(the N of the assignment's address, .../assignments/N) to name it exactly"
        )
    if any(row["student_id"].startswith("anon_") for row in rows.rows):
        notes.append(
            f"{path.name}: anonymous grading hides the user ids: import after the assignment's identities are shown"
        )
    return GradeFiles([path], notes)


# ------------------------------------------------------------------ Moodle

# The worksheet's columns as Moodle's "Download grading worksheet" writes them (with email as
# the identity field, no marking workflow, feedback comments on) and its "Upload grading
# worksheet" reads them: moodle/moodle mod/assign/gradingtable.php (the columns when
# downloading), mod/assign/feedback/offline/importgradeslib.php (the importer needs
# "Identifier", "Grade" and "Last modified (grade)"; it strips "Participant " from the
# identifier; it skips an empty grade, and a grade whose "Last modified (grade)", read by
# PHP's strtotime, is older than the grade Moodle holds), the English strings in
# mod/assign/lang/en/assign.php and assignfeedback_comments.
MOODLE_COLUMNS = [
    "Identifier",
    "Full name",
    "Email address",
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
]
MOODLE_PARTICIPANT = "Participant "  # get_string('hiddenuser', 'assign')
MOODLE_FEEDBACK_FOLDER = "{name}_{participant}_assignfeedback_file_"


def moodle(rows: Rows) -> GradeFiles:
    """Moodle's grading worksheet, and a zip of each student's feedback page for its bulk feedback upload."""
    lines = []
    for row in rows.rows:
        submission = rows.submission(row)
        lines.append(
            [
                csv_cell(MOODLE_PARTICIPANT + row["student_id"]),
                csv_cell(row["name"]),
                csv_cell(row["email"]),
                "Submitted for grading",
                grade(row),
                rows.max_score(),
                "Yes",
                _moodle_date(submission.submitted_at),
                moodle_date(rows.now),
                csv_cell(_moodle_comment(rows, row)),
            ]
        )
    sheet = rows.out / "moodle_grades.csv"
    write_atomically(sheet, csv_document([MOODLE_COLUMNS, *lines]))
    feedback = moodle_feedback_zip(rows)
    return GradeFiles(
        [sheet, feedback],
        [
            f"{sheet.name}: upload it with the assignment's 'Upload grading worksheet' (Moodle in English; "
            f"the assignment's maximum grade must be at least {rows.max_score()}, a higher grade is skipped); "
            f"{feedback.name}: 'Upload multiple feedback files in a zip'"
        ],
    )


def moodle_date(when: datetime) -> str:
    """As Moodle's userdate() writes a date (strftimedaydatetime, no leading zeros), which PHP's strtotime reads back."""
    return f"{when:%A}, {when.day} {when:%B %Y}, {int(when.strftime('%I'))}:{when:%M %p}"


def _moodle_date(iso: str) -> str:
    try:
        return moodle_date(datetime.fromisoformat(iso))
    except ValueError:
        return "-"  # what Moodle writes for no date


def _moodle_comment(rows: Rows, row: dict[str, str]) -> str:
    """The feedback comment: points, a late penalty, and the known mistakes named (the kit's own words only, as
    HTML text)."""
    if row["status"] == "error":
        return ""
    if grade(row) or not row["score"]:
        text = f"{rows.assignment.name}: {grade(row) or '0'} of {rows.max_score()} points."
    else:  # written answers still to be graded by hand: the automatic checks' points only, said so
        text = f"{rows.assignment.name}: {row['score']} of {row['max_score']} points from the automatic checks; "
        text += "the written answers are graded by hand."
    if row.get("late_penalty"):
        text += f" Late penalty: {row['late_penalty']} points, included."
    if row.get("mistakes"):
        text += f" Known mistakes: {row['mistakes']}."
    return html.escape(text + " Your feedback page is attached.")


def moodle_feedback_zip(rows: Rows) -> Path:
    """moodle_feedback.zip: <Full name>_<participant id>_assignfeedback_file_/feedback.html per student.

    Source: moodle/moodle mod/assign/feedback/file/importziplib.php,
    is_valid_filename_for_import: each folder name is split on "_" into at most five
    parts, the second the participant id, the third and fourth the plugin
    (assignfeedback, file); what follows is the file's name. So the full name may hold
    no "_" (Moodle's own download makes them spaces too).
    """
    path = rows.out / "moodle_feedback.zip"
    with atomic_file(path) as file, zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        for row in rows.rows:
            page = rows.out / "students" / row["key"] / "feedback.html"
            if page.is_file():
                name = "".join(c if c.isprintable() and c not in '_/\\:*?"<>|' else " " for c in row["name"]).strip()
                folder = MOODLE_FEEDBACK_FOLDER.format(name=name or "Participant", participant=row["student_id"])
                archive.writestr(f"{folder}/feedback.html", page.read_bytes())
    return path


# ------------------------------------------------------------------ Blackboard


def blackboard(rows: Rows) -> GradeFiles:
    """Blackboard Learn's Grade Centre upload file (Work Offline > Upload).

    Source: Blackboard Learn's help "Uploading or Downloading Grade Center Items for
    Working Offline": a header row; the student is the Username column (required, names
    are not processed); a grade column is matched by the Column ID after "|" in its
    header, "<name> [Total Pts: <points>] |<column id>", as Work Offline > Download writes
    it (a header without an id creates a new column); in a comma-delimited file every
    value is in quotation marks. An example upload: nbeaver/offline-grades-upload. The
    name is split at its last space first, and each part made inert on its own.
    """
    title = f"{rows.assignment.name} [Total Pts: {rows.max_score()}]" + (
        f" |{rows.column_id}" if rows.column_id else ""
    )
    lines = []
    for row in rows.rows:
        first, _, last = row["name"].rpartition(" ")
        lines.append([csv_cell(last), csv_cell(first), csv_cell(row["student_id"]), grade(row)])
    path = rows.out / "blackboard_grades.csv"
    write_atomically(path, csv_document([["Last Name", "First Name", "Username", title], *lines]))
    notes = []
    if not rows.column_id:
        notes.append(
            f"{path.name}: no Grade Centre column id, so Blackboard makes a new column of it; pass --lms-column-id N "
            f"(what follows '|' in the column's header in Work Offline > Download) to fill the existing one"
        )
    return GradeFiles([path], notes)


# ------------------------------------------------------------------ Gradescope and GitHub Classroom


def gradescope(rows: Rows) -> GradeFiles:
    """The class's points keyed by Gradescope's SID and email (the columns of Gradescope's own grade export)."""
    header = ["Name", "SID", "Email", "Total Score", "Max Points", "Status"]
    lines = [
        [
            csv_cell(row["name"]),
            csv_cell(row["student_id"]),
            csv_cell(row["email"]),
            grade(row),
            rows.max_score(),
            row["status"],
        ]
        for row in rows.rows
    ]
    path = rows.out / "gradescope_grades.csv"
    write_atomically(path, csv_document([header, *lines]))
    return GradeFiles([path])


def classroom(rows: Rows) -> GradeFiles:
    """The class's points keyed by GitHub login (the columns of GitHub Classroom's grades download)."""
    header = ["assignment_name", "github_username", "points_awarded", "points_available"]
    lines = [[rows.assignment.name, csv_cell(row["student_id"]), grade(row), rows.max_score()] for row in rows.rows]
    path = rows.out / "classroom_grades.csv"
    write_atomically(path, csv_document([header, *lines]))
    return GradeFiles([path])


WRITERS: dict[str, Callable[[Rows], GradeFiles]] = {
    "canvas": canvas,
    "moodle": moodle,
    "blackboard": blackboard,
    "gradescope": gradescope,
    "classroom": classroom,
}
