"""Grade a class: an LMS export in, a summary, a class report and a feedback file per student out.

    python -m autograder grade-all SUBMISSIONS --out DIR [--assignment mha] [--jobs 4]

SUBMISSIONS is a folder or a zip as Canvas, Moodle, Blackboard, Gradescope or GitHub
Classroom export it, or a folder per student (deliver/intake/ reads them). In order:

1. the intake, and the assignment (named, or inferred from the first submissions);
2. each student whose submission, or anything that decides a grade, changed since an
   earlier run (deliver/regrade.py; ``--force``: everyone) graded into
   DIR/students/<key>/ (deliver/workers.py);
3. every student's results, typed, read once (those of earlier runs) or handed back by
   the workers, go to what is written of the class, whatever happened to any student:
   the written answers' page (answers.py), DIR/summary.csv (summary.py), the class as
   a whole (insight.py: notes, groups, similarity, dashboard), the LMS's grade file
   (lms_grades.py) and the class report (report.py: report.txt, report.png).

The exit status is 3 when the kit failed on any student (never their zero), 130 when
interrupted (Ctrl-C: what is graded is kept, and a rerun grades only the rest).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .. import assignments
from ..assignments import Assignment
from ..config import GradingConfig
from ..errors import KitError
from ..grade.submission import infer_assignment
from ..public import trees
from ..results.outcome import GRADED, KIT_ERROR
from ..results.read import Results
from ..results.scoring import points_text
from ..results.text import clean, clean_name
from . import answers
from .class_folder import read_class
from .insight import write_insight
from .intake import Intake, Submission, read_intake
from .lms_grades import write_lms_grades
from .regrade import grading_digest, is_done, submission_digest
from .report import write_report
from .summary import write_summary
from .workers import Grading, Run, grade_students


def grade_all(
    folder: Path,
    assignment_name: str | None,
    out: Path,
    config: GradingConfig,
    jobs: int = 1,
    progress: bool = True,
    force: bool = False,
    show_hidden: bool = False,
    lms_column_id: str = "",
    manual_points: Path | None = None,
) -> int:
    """Grade a class into out/; print the report; return the command's exit status (130 when interrupted)."""
    try:
        return _grade_all(
            folder, assignment_name, Path(out), config, jobs, progress, force, show_hidden, lms_column_id, manual_points
        )
    except KeyboardInterrupt:  # what is graded is kept: a rerun grades only the rest
        print("\ninterrupted: rerun to resume", file=sys.stderr)
        return 130


def _grade_all(
    folder: Path,
    assignment_name: str | None,
    out: Path,
    config: GradingConfig,
    jobs: int,
    progress: bool,
    force: bool,
    show_hidden: bool,
    lms_column_id: str,
    manual_points: Path | None,
) -> int:
    out.mkdir(parents=True, exist_ok=True, mode=0o700)  # the class's results: no other user's, no student uid's
    scratch = tempfile.mkdtemp(prefix="autograder-intake-")
    try:
        intake = read_intake(folder, Path(scratch))
        if not intake.submissions:
            raise KitError(f"{clean_name(folder)} holds no submission" + _skipped_text(intake))
        assignment = assignments.get(assignment_name) if assignment_name else _infer(intake)
        written = answers.written_of(assignment, intake, manual_points)  # a bad points file stops here, before grading
        run = Run(
            out,
            grading_digest(assignment, config),
            {s.key: submission_digest(s.path) for s in intake.submissions},
            show_hidden,
        )
        earlier = read_class(intake, out)  # an earlier run's: each results.json read once
        todo = [
            s
            for s in intake.submissions
            if force or not is_done(earlier.get(s.key), run.grading_digest, run.submission_digests[s.key])
        ]
        unchanged = {s.key for s in intake.submissions if s not in todo}
        gradings, stopped = _grade_todo(todo, assignment, config, run, jobs, progress, (Path(folder), out))
        status = _class_status(intake, unchanged, gradings)
        results = _class_results(intake, earlier, gradings)
        text, hand, lms = write_class(
            assignment,
            intake,
            out,
            results,
            status,
            unchanged,
            written,
            show_hidden=show_hidden,
            jobs=jobs,
            lms_column_id=lms_column_id,
            digests=run.submission_digests,
        )
    finally:  # a student's tree of any depth in the unpacked export: removed without recursion
        trees.remove_tree(scratch)
    print(text, end="")
    _say_what_was_done(intake, out, todo, status, stopped, written, hand, lms)
    return 3 if any(what == KIT_ERROR for what, _ in status.values()) else 0


def _grade_todo(
    todo: list[Submission],
    assignment: Assignment,
    config: GradingConfig,
    run: Run,
    jobs: int,
    progress: bool,
    private: tuple[Path, ...],
) -> tuple[dict[str, Grading], str]:
    """Each student of todo graded, by key, and why grading stopped ("" when it did not).

    private: the export and the output, closed to the students' uids (or the uid tier is refused)."""
    if not todo:
        return {}, ""
    try:
        return grade_students(todo, assignment, config, run, jobs, progress, private), ""
    except KitError as error:  # the grader cannot start here: nobody is graded, nobody gets a score
        stopped = clean(error, 2000)
        return {s.key: Grading(KIT_ERROR, stopped.splitlines()[0][:300]) for s in todo}, stopped


def _class_status(intake: Intake, unchanged: set[str], gradings: dict[str, Grading]) -> dict[str, tuple[str, str]]:
    """Everyone's (status, reason) in this run, in the intake's order: graded where nothing changed since an
    earlier run, else what grading them came to."""
    return {
        s.key: (GRADED, "") if s.key in unchanged else (gradings[s.key].status, gradings[s.key].reason)
        for s in intake.submissions
    }


def _class_results(intake: Intake, earlier: dict[str, Results], gradings: dict[str, Grading]) -> dict[str, Results]:
    """Everyone's results, in the intake's order: those graded in this run as their workers wrote them, the
    others an earlier run's (a student graded again whose results were not written has none)."""
    found = {}
    for submission in intake.submissions:
        current = gradings[submission.key].results if submission.key in gradings else earlier.get(submission.key)
        if current is not None:
            found[submission.key] = current
    return found


def write_class(
    assignment: Assignment,
    intake: Intake,
    out: Path,
    results: dict[str, Results],
    status: dict,
    unchanged: set[str],
    written: answers.Written,
    *,
    show_hidden: bool = False,
    jobs: int = 1,
    lms_column_id: str = "",
    digests: dict[str, str] | None = None,
    lap: Callable[[str], None] = lambda step: None,
):
    """Everything written of the class from its results (step 3): (report.txt's text, the answers' files, the
    LMS's file). digests: each submission's (deliver/regrade.py); lap(step) is called as each step ends."""
    hand = answers.write_answers(assignment, intake, out, written)
    lap("answers")
    rows = write_summary(intake, assignment, out, results, status, unchanged, written)
    lap("summary")
    # the notes of the instructor reach the feedback files before the LMS's feedback zip packs them
    insight = write_insight(
        assignment, out, intake, results, status, show_hidden=show_hidden, jobs=jobs, digests=digests, lap=lap
    )
    lms = write_lms_grades(intake, assignment, out, rows, lms_column_id)
    lap("lms grades")
    text = write_report(assignment, out, intake, results, status, insight)
    lap("report")
    return text, hand, lms


def _say_what_was_done(intake: Intake, out: Path, todo, status: dict, stopped: str, written, hand, lms) -> None:
    graded = sum(1 for s in todo if status[s.key][0] == GRADED)
    problems = {key: value for key, value in status.items() if value[0] == KIT_ERROR}
    print(
        f"\n{graded} graded, {len(intake.submissions) - len(todo)} unchanged since the last run, {len(problems)} errors of the kit"
    )
    if stopped:
        print(f"error: grading stopped: {stopped}", file=sys.stderr)
    for key, (what, reason) in list(problems.items())[:20]:
        print(f"  {key}: {what}: {reason}", file=sys.stderr)
    print(
        f"wrote {out / 'summary.csv'}, {out / 'report.txt'}, {out / 'report.png'}, {out / 'report.html'}, "
        f"{out / 'clusters.json'}, {out / 'similarity.csv'} and {out}/students/<student>/ (results.json, feedback.html, feedback.md)"
    )
    if hand:
        print(
            f"wrote {' and '.join(map(str, hand))}: the written answers, {points_text(written.top)} points, are graded by hand"
        )
    if lms:
        print(f"for {intake.source}: {', '.join(str(path) for path in lms.paths)}")
        for note in lms.notes:
            print(f"  {note}")


def _infer(intake: Intake) -> Assignment:
    for submission in intake.submissions[:10]:
        try:
            return infer_assignment(submission.path)
        except KitError:
            continue
    raise KitError("cannot tell which assignment these submissions are for; pass --assignment")


def _skipped_text(intake: Intake) -> str:
    if not intake.skipped:
        return ""
    return "; left out: " + "; ".join(f"{entry} ({why})" for entry, why in intake.skipped[:5])
