"""One submission graded: the one function every route that grades a submission calls.

``grade`` (and so Gradescope's run_autograder and a student's GitHub workflow, which
run it) and grade-all's workers grade through ``grade_one``; whatever happens, it gives
an Outcome, mapped to a status and an exit code in one place (results/outcome.py): a
crash of the kit is the kit's error (exit 3, "not graded"), never the student's zero.
"""

from __future__ import annotations

from pathlib import Path

from .. import assignments
from ..config import GradingConfig
from ..errors import KitError
from ..grade.engine import Grader
from ..grade.submission import infer_assignment
from ..public.loader import SubmissionError
from ..results.outcome import Outcome, not_gradable, outcome_of, outcome_of_error


def grade_one(grader: Grader, submission: Path, *, label: str | None = None, refused: str = "") -> Outcome:
    """Grade one submission with a grader that is ready; ``refused``: why the intake could not read it."""
    try:
        if refused:
            raise SubmissionError(refused)
        return outcome_of(grader.grade(Path(submission), label=label))
    except Exception as error:  # anything else is a failure of the kit: never the student's zero
        return outcome_of_error(error)


def grade_alone(submission: Path, assignment_name: str | None, config: GradingConfig) -> tuple[Outcome, str | None]:
    """Grade one submission with a grader of its own (``grade``); (its outcome, the assignment's name).

    With no assignment named, the submission must tell which it is for: when it does not,
    that is the submission's fault (nothing gradable), not the kit's.
    """
    try:
        assignment = assignments.get(assignment_name) if assignment_name else infer_assignment(Path(submission))
    except (KitError, SubmissionError) as error:
        return not_gradable(str(error)), assignment_name
    try:
        with Grader(assignment, config) as grader:
            return grade_one(grader, submission), assignment.name
    except Exception as error:  # the grader could not start here: the kit's failure, whatever it was
        return outcome_of_error(error), assignment.name
