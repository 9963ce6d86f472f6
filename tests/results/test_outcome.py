"""Does every way grading one submission can end map to one status, one results.json status and one exit code?"""

from fractions import Fraction

import pytest

from autograder.errors import KitError
from autograder.grade.engine import HostError
from autograder.public.loader import SubmissionError
from autograder.results.model import CheckSummary, Report
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED, not_gradable, outcome_of, outcome_of_error
from autograder.results.write import results_json


def check(internal_error: bool = False) -> CheckSummary:
    return CheckSummary(
        name="tokenize",
        check="test_tokenize::test_splits",
        title="splits on whitespace",
        kind="hidden",
        passed=0 if internal_error else 1,
        total=1,
        score=Fraction(0 if internal_error else 2),
        max_score=Fraction(2),
        message="KeyError('cases')" if internal_error else "passed (1 case)",
        internal_error=internal_error,
    )


def report(internal_error: bool = False) -> Report:
    return Report(assignment="mha", submission="mha.ipynb", checks=[check(internal_error)], order=("tokenize",))


@pytest.mark.parametrize(
    "outcome, status, written, exit_code, scored",
    [
        (outcome_of(report()), GRADED, "graded", 0, True),
        (outcome_of(report(internal_error=True)), KIT_ERROR, "error", 3, True),
        (outcome_of_error(SubmissionError("holds no notebook")), NOT_GRADED, "not graded", 2, True),
        (not_gradable("cannot tell which assignment"), NOT_GRADED, "not graded", 2, True),
        (outcome_of_error(HostError("the reference loses points here")), KIT_ERROR, "not graded", 3, False),
        (outcome_of_error(KitError("the zygote could not clone itself")), KIT_ERROR, "not graded", 3, False),
        (outcome_of_error(KeyError("a bug of the kit")), KIT_ERROR, "not graded", 3, False),
    ],
    ids=["graded", "a check of the kit broke", "nothing gradable", "no assignment", "host", "kit", "crash"],
)
def test_each_outcome_has_one_status_and_exit_code(outcome, status, written, exit_code, scored):
    """Is each outcome's status, results.json status, exit code and score (or none) the table's in outcome.py?"""
    assert outcome.status == status and outcome.exit_code == exit_code
    results = results_json(outcome, "mha")
    assert results["extra_data"]["status"] == written
    assert ("score" in results) is scored  # the kit's failure is never a score; the student's zero is
    if outcome.report is None:
        assert results["extra_data"]["student_fault"] is (status == NOT_GRADED)


def test_a_crash_of_the_kit_is_named_by_its_type():
    """Does an exception the kit did not expect keep its type in the reason (a bug to report), and a KitError not?"""
    assert outcome_of_error(KeyError("cases")).message == "KeyError: 'cases'"
    assert outcome_of_error(KitError("no isolation tier works")).message == "no isolation tier works"


def test_the_reason_a_table_shows():
    """Is the reason of summary.csv one bounded line: the kit's failed checks, or why it was not graded?"""
    assert outcome_of(report()).reason == ""
    broken = outcome_of(report(internal_error=True)).reason
    assert broken == "the kit failed on some checks: tokenize: splits on whitespace: KeyError('cases')"
    long = outcome_of_error(RuntimeError("x" * 1000)).reason
    assert long.startswith("RuntimeError: xxx") and len(long) < 320
    assert "\x1b" not in outcome_of_error(SubmissionError("a\x1b[2J.ipynb")).reason
