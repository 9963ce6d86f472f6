"""nbgrader's course folder: an LMS download into submitted/, and grade-all's points into gradebook.db.

    python -m autograder collect EXPORT --assignment mha [--course .]
    python -m autograder gradebook OUT --assignment mha [--course .] [--keep-manual]

``collect`` reads an LMS export with the kit's intake (deliver/intake/: Canvas,
Moodle, Blackboard, Gradescope, GitHub Classroom, plain folders) and puts each
student's notebook where ``nbgrader autograde`` looks for it,
COURSE/submitted/<key>/<assignment>/<assignment>.ipynb (with the .py files beside it,
and nbgrader's timestamp.txt where the LMS gives the time), and each student, with
name, email and LMS id, into gradebook.db. A student whose work is not a notebook is listed:
grade-all grades it.

``gradebook`` is the route of record's last step: each OUT/students/<key>/results.json
of grade-all becomes that student's submission of the assignment in gradebook.db,
through nbgrader's own API; the points of each graded name go to its grade cell
(<name>-tests), and the written answers' points that OUT/summary.csv holds (given with
``grade-all --manual-points``) become the manual grades of their cells (<answer id>);
an answer with no points yet is left to formgrader. The student's nbgrader id is the
key grade-all gave them (the same as ``collect``'s), with their name and email from the LMS.

Scores already in gradebook.db may have been written by ``nbgrader autograde``, which
runs each notebook's own cells, unsandboxed, with the instructor's access: a notebook
can forge its own points and write anyone's scores (a manual score of 0 for a
classmate, say). So grade-all's points are the record: every stored score that differs
from them (the automatic score, a manual score, extra credit, a late penalty) is named,
then replaced; ``--keep-manual`` keeps the manual scores, extra credit and late
penalties (still naming them), a written answer's manual grade included. Students in gradebook.db whom grade-all did not grade
are named too.

Where grade-all applied a late policy (``--late-policy``, deliver/late/), its record is the
late penalty's too, ``--keep-manual`` or not: the assignment's due date, each submission's
time and extension are stored as nbgrader keeps them (UTC), and the penalty is the one
nbgrader's AssignLatePenalties gives with the kit's plugin (late/nbgrader_plugin.py) for
that policy: the same percent of the notebook's points possible (or score), within its
score, so that ``nbgrader export``'s score is the raw score less it.

For ``nbgrader generate_feedback`` (and formgrader), the graded notebook is placed in
COURSE/autograded/<id>/<assignment>/ with each grade cell showing the kit's feedback,
and nothing of the student's that a browser would render: Markdown the student wrote or
changed is shown as text, raw cells too, outputs are cleared, and cell and notebook
metadata come from the release. The assignment is put into gradebook.db first if the
course does not hold it as the build defines it (author/release.py ``register``).
"""

from __future__ import annotations

import copy
import re
import shutil
import tempfile
import warnings
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from ...assignments import Assignment
from ...author.build import master
from ...author.release import open_gradebook, register
from ...errors import KitError
from ...public.loader import SubmissionError, find_entry
from ...results.outcome import GRADED
from ...results.read import LatePenalty, Results, ResultsUnreadable, read_results_file
from ...results.scoring import exact
from ...results.text import clean
from ..grade_all.summary import written_points
from ..intake import Submission, read_intake
from ..late.rules import deduction

TOLERANCE = 1e-6  # nbgrader stores scores as floats; the kit's are rounded to 1e-4 or finer


# ------------------------------------------------------------------ an LMS download into submitted/


def collect(export: Path, assignment: Assignment, course: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Put each student's notebook of an export into COURSE/submitted/; return (students placed, (entry, why) skipped)."""
    course = Path(course)
    register(assignment, master(assignment), course)
    placed: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        intake = read_intake(Path(export), Path(scratch) / "intake")
        skipped = list(intake.skipped)
        with open_gradebook(course) as gradebook:
            for submission in intake.submissions:
                why = _place(submission, assignment, course / "submitted" / submission.key / assignment.name)
                if why:
                    skipped.append((submission.name, why))
                    continue
                first, _, last = submission.name.partition(" ")
                gradebook.update_or_create_student(
                    submission.key,
                    first_name=first or None,
                    last_name=last or None,
                    email=submission.email or None,
                    lms_user_id=submission.student_id or None,  # an extension of the late policy may name it
                )
                placed.append(submission.key)
    return placed, skipped


def _place(submission: Submission, assignment: Assignment, target: Path) -> str | None:
    """Copy the submission's notebook (and the .py files beside it) into target; the reason where it cannot."""
    if submission.undecided:  # the export does not tell whose files these are: none is placed for this student
        return submission.undecided
    try:
        entry = find_entry(submission.path, assignment.graded)
    except SubmissionError as error:
        return clean(error, 300)
    if entry.kind != "notebook":
        return f"{entry.describe()} is not a notebook: nbgrader autograde grades notebooks; grade-all grades it"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copyfile(entry.path, target / assignment.notebook_name)
    for sibling in sorted(entry.path.parent.iterdir()) if submission.path.is_dir() else []:
        if sibling.suffix == ".py" and sibling.is_file() and not sibling.is_symlink():
            shutil.copyfile(sibling, target / sibling.name)
    if submission.submitted_at:
        (target / "timestamp.txt").write_text(submission.submitted_at)  # what nbgrader reads for lateness
    return None


# ------------------------------------------------------------------ grade-all's points into gradebook.db


def export(out: Path, assignment: Assignment, course: Path, keep_manual: bool = False) -> dict[str, float]:
    """Store every graded student's points as the record; return {student id: total} as nbgrader now sees it."""
    from nbgrader.api import MissingEntry  # here: nbgrader is the instructor's extra, and only this step needs it

    out, course = Path(out), Path(course)
    graded = _graded(out, assignment)
    written = written_points(out, list(assignment.written))
    release = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    register(assignment, master(assignment), course)
    notebook = Path(assignment.notebook_name).stem
    totals: dict[str, float] = {}
    differences: list[str] = []
    with open_gradebook(course) as gradebook, warnings.catch_warnings():
        # nbgrader's add_submission trips SQLAlchemy's autoflush warnings; they concern its own session
        warnings.filterwarnings("ignore", message=".*not in session.*")
        for folder, results in graded:
            student = folder.name
            first, _, last = results.student.name.partition(" ")
            gradebook.update_or_create_student(
                student, first_name=first or None, last_name=last or None, email=results.student.email or None
            )
            try:
                gradebook.find_submission(assignment.name, student)
            except MissingEntry:
                gradebook.add_submission(assignment.name, student)
            changed = []
            for exercise in results.exercises:
                grade = gradebook.find_grade(f"{exercise.name}-tests", notebook, assignment.name, student)
                changed += _store_record(grade, exercise.score or 0.0, keep_manual)
            for answer, points in written.get(student, {}).items():
                grade = gradebook.find_grade(answer, notebook, assignment.name, student)
                changed += _store_written(grade, float(points), keep_manual)
            submitted = gradebook.find_submission_notebook(notebook, assignment.name, student)
            gradebook.db.flush()
            gradebook.db.expire(submitted)  # its score, which bounds a late penalty, is the grades' just stored
            changed += _late_penalty(submitted, results.late, keep_manual)
            gradebook.db.commit()
            if changed:
                differences.append(f"{student}: {', '.join(changed)}")
            totals[student] = gradebook.find_submission(assignment.name, student).score
            target = course / "autograded" / student / assignment.name / assignment.notebook_name
            _place_feedback_notebook(folder, results, release, target)
        others = sorted(
            s.student.id for s in gradebook.find_assignment(assignment.name).submissions if s.student.id not in totals
        )
    _say_differences(differences, others, keep_manual)
    return totals


def _graded(out: Path, assignment: Assignment) -> list[tuple[Path, Results]]:
    graded = []
    for path in sorted(out.glob("students/*/results.json")):
        try:
            results = read_results_file(path)
        except ResultsUnreadable as error:
            raise KitError(f"{path}: {error}; run grade-all again to write it anew") from None
        if results.status == GRADED and results.assignment == assignment.name:
            graded.append((path.parent, results))
    if not graded:
        raise KitError(f"{out} holds no graded students/<key>/results.json of {assignment.name}: run grade-all first")
    return graded


def _store_record(grade, record: float, keep_manual: bool) -> list[str]:
    """Make grade-all's points the grade cell's score; name each stored score that differed."""
    name = grade.name.removesuffix("-tests")
    changed = []
    if grade.auto_score is not None and abs(grade.auto_score - record) > TOLERANCE:
        changed.append(f"{name} automatic {grade.auto_score:g} (grade-all {record:g})")
    if grade.manual_score is not None and abs(grade.manual_score - record) > TOLERANCE:
        changed.append(
            f"{name} manual {grade.manual_score:g} (grade-all {record:g})" + (", kept" if keep_manual else "")
        )
    if grade.extra_credit:
        changed.append(f"{name} extra credit {grade.extra_credit:g}" + (", kept" if keep_manual else ""))
    grade.auto_score = record
    grade.needs_manual_grade = False  # the kit's points are automatic: formgrader has nothing to grade by hand here
    if not keep_manual:
        grade.manual_score = None
        grade.extra_credit = None
    return changed


def _store_written(grade, record: float, keep_manual: bool) -> list[str]:
    """Make a person's points for a written answer its cell's manual grade; name a stored one that differed."""
    changed = []
    kept = keep_manual and grade.manual_score is not None
    if grade.manual_score is not None and abs(grade.manual_score - record) > TOLERANCE:
        changed.append(
            f"{grade.name} manual {grade.manual_score:g} (grade-all {record:g})" + (", kept" if kept else "")
        )
    if grade.extra_credit:
        changed.append(f"{grade.name} extra credit {grade.extra_credit:g}" + (", kept" if keep_manual else ""))
    if not kept:
        grade.manual_score = record
    if not keep_manual:
        grade.extra_credit = None
    grade.needs_manual_grade = False  # graded by hand already: formgrader has nothing left to grade here
    return changed


def _late_penalty(submitted, late: LatePenalty | None, keep_manual: bool) -> list[str]:
    """The late penalty of grade-all's record where it applied a late policy: its due date, the submission's time
    and extension, and the penalty nbgrader's AssignLatePenalties gives for that policy; else nbgrader's own
    (which autograde computes: 0 unless a LateSubmissionPlugin is configured), dropped unless --keep-manual."""
    stored = submitted.late_submission_penalty  # None where nbgrader computed none
    if late is None:
        if not stored:
            return []
        if not keep_manual:
            submitted.late_submission_penalty = 0.0
        return [f"late penalty {stored:g}" + (", kept" if keep_manual else "")]
    _late_times(submitted.assignment, late)
    score = submitted.score or 0.0
    penalty = float(deduction(exact(late.percent), late.of, exact(score), exact(submitted.max_score or 0.0)))
    submitted.late_submission_penalty = penalty
    if stored is None or abs(stored - penalty) <= TOLERANCE:
        return []
    return [f"late penalty {stored:g} (grade-all {penalty:g})"]


def _late_times(submission, late: LatePenalty) -> None:
    """The due date, the submission's time and extension as nbgrader keeps them: UTC, without a zone."""
    due = _utc(late.due)
    if due is not None:
        submission.assignment.duedate = due
    submitted, student_due = _utc(late.submitted_at), _utc(late.student_due)
    if submitted is not None:
        submission.timestamp = submitted
    submission.extension = (
        student_due - due if due is not None and student_due is not None and student_due > due else None
    )


def _utc(iso: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo is not None else None


def _say_differences(differences: list[str], others: list[str], keep_manual: bool) -> None:
    if differences:
        kept = (
            "" if keep_manual else "; grade-all's are stored now (--keep-manual keeps manual scores and extra credit)"
        )
        print(f"gradebook.db held other scores than grade-all's for {len(differences)} students{kept}:")
        for line in differences:
            print(f"  {line}")
        print(
            "  Scores written by `nbgrader autograde` come from each notebook's own kernel, unsandboxed: a notebook "
            "can forge them, and write other students' scores."
        )
    if others:
        print(
            f"in gradebook.db but not graded by grade-all, their scores unchecked ({len(others)}): {', '.join(others)}"
        )


# ------------------------------------------------------------------ the notebook nbgrader's feedback renders


def _place_feedback_notebook(folder: Path, results: Results, release: nbformat.NotebookNode, target: Path) -> None:
    graded = folder / "submission.ipynb"
    if not graded.exists():
        return  # the submission was not a notebook: nbgrader has nothing to render
    try:
        student = nbformat.read(graded, as_version=4)
    except (OSError, ValueError, KeyError, AttributeError, TypeError, nbformat.ValidationError):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)  # nbgrader autograde leaves its notebook read-only (0444)
    target.write_text(nbformat.writes(feedback_notebook(student, release, results)))


def feedback_notebook(
    student: nbformat.NotebookNode, release: nbformat.NotebookNode, results: Results
) -> nbformat.NotebookNode:
    """The student's notebook as nbgrader's feedback may render it: nothing of the student's that a browser runs.

    The course's own Markdown stays; Markdown the student wrote or changed, and raw cells,
    become text; code keeps its source (nbconvert escapes it) and loses its outputs; the
    cells and the notebook take their metadata from the release (the grade cells, the
    locked cells' sources too, as nbgrader autograde restores them); each grade cell
    shows the kit's points and checks for its name.
    """
    course = {cell.get("id"): cell for cell in release.cells}
    feedback = _grade_cell_text(results)
    cells, seen = [], set()
    for index, cell in enumerate(student.cells):
        ours = course.get(cell.get("id")) if cell.get("id") not in seen else None  # a copied id is the student's
        if ours is not None and ours.cell_type != cell.get("cell_type"):
            ours = None
        seen.add(cell.get("id"))
        source = str(cell.get("source", ""))
        if ours is None:
            kind = "code" if cell.get("cell_type") == "code" else "text"
            made = (
                nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(as_text(source))
            )
            made.id = f"student-{index}"
            cells.append(made)
            continue
        meta = copy.deepcopy(ours.metadata)
        nbgrader = meta.get("nbgrader", {})
        if cell.get("cell_type") == "code":
            made = nbformat.v4.new_code_cell(
                ours.source if nbgrader.get("locked") else source, id=ours.id, metadata=meta
            )
            name = nbgrader.get("grade_id", "").removesuffix("-tests") if nbgrader.get("grade") else ""
            if name in feedback:
                made.outputs = [nbformat.v4.new_output("stream", name="stdout", text=feedback[name])]
        elif cell.get("cell_type") == "markdown" and ours.source == source:
            made = nbformat.v4.new_markdown_cell(source, id=ours.id, metadata=meta)
        else:
            made = nbformat.v4.new_markdown_cell(as_text(source), id=ours.id, metadata=meta)
        cells.append(made)
    notebook = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(release.metadata))
    nbformat.validate(notebook)
    return notebook


def as_text(source: str) -> str:
    """Markdown that shows source as it is, rendering nothing: a fence longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{source}\n{fence}"


def _grade_cell_text(results: Results) -> dict[str, str]:
    """The text each grade cell shows: the name's points, then each hidden check's result."""
    lines: dict[str, list[str]] = {exercise.name: [] for exercise in results.exercises}
    for check in results.hidden_checks():
        if check.exercise in lines:
            mark = "pass" if check.passed else "FAIL"
            lines[check.exercise].append(f"[{mark}] {clean(check.name, 300)}: {clean(check.message, 2000)}")
    return {
        exercise.name: f"{exercise.name}: {exercise.score or 0.0:g} of {exercise.max_score or 0.0:g} points\n"
        + "\n".join(lines[exercise.name])
        + "\n"
        for exercise in results.exercises
    }
