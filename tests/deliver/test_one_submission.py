"""Does grading one submission end in one outcome whatever happens, a crash of the kit never the student's zero?"""

import pytest

from autograder.config import GradingConfig
from autograder.deliver import one_submission
from autograder.deliver.one_submission import grade_alone, grade_one
from autograder.grade.engine import HostError
from autograder.public.loader import SubmissionError
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from autograder.sandbox.host.loading import Refused, SandboxFailed

from .students import student_report


class StandIn:
    """A grader that is ready, whose grade() gives a report or raises what it is given."""

    def __init__(self, raises: BaseException | None = None):
        self.raises, self.graded = raises, []

    def grade(self, submission, label=None):
        self.graded.append((submission, label))
        if self.raises is not None:
            raise self.raises
        return student_report()


@pytest.mark.parametrize(
    "raises, status, says",
    [
        (None, GRADED, ""),
        (SubmissionError("ada.zip holds no notebook"), NOT_GRADED, "ada.zip holds no notebook"),
        (HostError("the reference loses points here"), KIT_ERROR, "the reference loses points here"),
        (Refused("the notebook ada.ipynb could not be parsed"), NOT_GRADED, "the notebook ada.ipynb could not"),
        (SandboxFailed("the kit cannot read this submission's files"), KIT_ERROR, "the kit cannot read"),
        (KeyError("cases"), KIT_ERROR, "KeyError: 'cases'"),
        (RecursionError("maximum recursion depth exceeded"), KIT_ERROR, "RecursionError: maximum recursion"),
    ],
    ids=["graded", "nothing gradable", "host", "no notebook", "unreadable", "a bug of the kit", "recursion"],
)
def test_whatever_happens_one_outcome(tmp_path, raises, status, says):
    """Does each way a grading ends give its outcome, with the reason?"""
    outcome = grade_one(StandIn(raises), tmp_path / "ada.ipynb", label="ada.ipynb")
    assert outcome.status == status and outcome.message.startswith(says)
    assert (outcome.report is not None) is (status == GRADED)


def test_a_refused_submission_is_not_graded_at_all(tmp_path):
    """Is a hand-in the intake could not read the student's zero, without the grader being asked?"""
    grader = StandIn()
    outcome = grade_one(grader, tmp_path / "ada", refused="its folders nest deeper than 100 levels")
    assert outcome.status == NOT_GRADED and outcome.message == "its folders nest deeper than 100 levels"
    assert grader.graded == []


def test_ctrl_c_is_not_an_outcome(tmp_path):
    """Does Ctrl-C stop grading rather than become the kit's error for this student?"""
    with pytest.raises(KeyboardInterrupt):
        grade_one(StandIn(KeyboardInterrupt()), tmp_path / "ada.ipynb")


def test_grading_alone_infers_the_assignment_or_says_it_cannot(tmp_path):
    """With no assignment named, is a submission that tells none the student's fault (nothing gradable), saying
    why: no file a submission can be, or nothing that tells the assignment?"""
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4\n")
    outcome, name = grade_alone(tmp_path / "report.pdf", None, GradingConfig())
    assert (outcome.status, name) == (NOT_GRADED, None) and "a submission is an .ipynb notebook" in outcome.message
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.py").write_text("x = 1\n")
    outcome, name = grade_alone(tmp_path / "work", None, GradingConfig())
    assert (outcome.status, name) == (NOT_GRADED, None) and "cannot tell which assignment" in outcome.message


def test_grading_alone_a_notebook_that_is_no_notebook_says_why(tmp_path):
    """With no assignment named, is a notebook that does not parse refused for that (whatever the assignment),
    not for telling none?"""
    (tmp_path / "ada.ipynb").write_text('{"cells": [')
    outcome, name = grade_alone(tmp_path / "ada.ipynb", None, GradingConfig())
    assert (outcome.status, name, outcome.exit_code) == (NOT_GRADED, None, 2)
    assert outcome.message.startswith("the notebook ada.ipynb could not be parsed: it ends after 11 characters")


def test_a_grader_that_cannot_start_is_the_kits_error(tmp_path, monkeypatch):
    """When the grader itself crashes as it starts, is that the kit's error for the named assignment?"""

    def crash(*arguments, **options):
        raise OSError("the zygote's socket could not be made")

    monkeypatch.setattr(one_submission, "Grader", crash)
    outcome, name = grade_alone(tmp_path / "ada.ipynb", "mha", GradingConfig())
    assert (outcome.status, name, outcome.exit_code) == (KIT_ERROR, "mha", 3)
    assert outcome.message == "OSError: the zygote's socket could not be made"
