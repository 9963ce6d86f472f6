"""Are a graded name's points split across its checks by weight and cases, exactly, with gates deciding all?"""

from fractions import Fraction

import pytest

from autograder.results.model import CheckResult
from autograder.results.scoring import exact, first_failure, points_json, points_text
from autograder.results.scoring import summarize as summarize_checks


def case(check: str, passed: bool, name: str = "f", weight: float = 1.0, gate: bool = False, **fields) -> CheckResult:
    return CheckResult(
        name, f"test_{name}::{check}", check, fields.pop("case", ""), passed, "", [], weight, gate, **fields
    )


def summarize(points: dict[str, float], results: list[CheckResult]):
    return summarize_checks(points, results, assignment="a", submission="s")


def points(report) -> dict[str, tuple[Fraction, Fraction]]:
    return {check.title: (check.score, check.max_score) for check in report.checks}


def test_points_follow_weights_and_passing_cases():
    """3 points over checks of weight 2 and 1: is the first worth 2, earning half of it for 2 of 4 cases?"""
    results = [case("a", i < 2, weight=2, case=f"c{i}") for i in range(4)] + [case("b", True)]
    report = summarize({"f": 3}, results)
    assert points(report) == {"a": (Fraction(1), Fraction(2)), "b": (Fraction(1), Fraction(1))}
    assert report.checks[0].message.startswith("failed 2 of 4 cases. First failure [c2]: ")
    assert report.score == 2 and report.max_score == 3


def test_thirds_add_up_exactly():
    """Do three checks sharing 1 point (or 0.1) add up to exactly that, not 0.99999994?"""
    report = summarize({"f": 0.1}, [case(title, True) for title in "abc"])
    assert sum(c.max_score for c in report.checks) == exact(0.1) == Fraction(1, 10)
    assert points_json(report.checks[0].max_score) == 0.033333 and points_text(report.score) == "0.1"


def test_a_failed_gate_costs_the_name_everything():
    """A gate carries nothing itself; failing it leaves every check of its name at 0, and says why?"""
    report = summarize({"f": 4}, [case("a", True), case("gate", False, gate=True)])
    assert points(report) == {"a": (Fraction(0), Fraction(4)), "gate": (Fraction(0), Fraction(0))}
    assert report.checks[0].message.endswith("but f earns no points because a check it must pass failed")
    assert summarize({"f": 4}, [case("a", True), case("gate", True, gate=True)]).score == 4


def test_with_no_weight_the_checks_share_equally():
    """Where no check of a name weighs anything, do its checks share its points equally (a failing gate still costing all)?"""
    report = summarize({"f": 2}, [case("a", True, weight=0), case("b", False, weight=0)])
    assert points(report) == {"a": (Fraction(1), Fraction(1)), "b": (Fraction(0), Fraction(1))}


def test_visible_checks_carry_no_points_and_every_name_needs_a_grader():
    """Does a notebook check earn nothing, and is a graded name with no hidden check refused?"""
    report = summarize({"f": 2}, [case("a", True), case("notebook", False, kind="visible")])
    assert points(report)["notebook"] == (0, 0) and report.score == 2
    with pytest.raises(RuntimeError, match=r"no grader checked \['g'\]"):
        summarize({"f": 2, "g": 1}, [case("a", True)])


def test_the_behaviour_of_a_check_is_its_failing_cases():
    """Is a check's behaviour one digest of its failing cases' behaviours, and none when any case's is unknown?"""
    first = summarize({"f": 1}, [case("a", False, case="c0", behaviour="x"), case("a", True, case="c1")])
    again = summarize({"f": 1}, [case("a", False, case="c0", behaviour="x"), case("a", True, case="c1", behaviour="y")])
    other = summarize({"f": 1}, [case("a", False, case="c0", behaviour="z")])
    unknown = summarize({"f": 1}, [case("a", False, case="c0")])
    assert first.checks[0].behaviour == again.checks[0].behaviour != other.checks[0].behaviour
    assert len(first.checks[0].behaviour) == 16 and unknown.checks[0].behaviour == ""


@pytest.mark.parametrize(
    "message, what",
    [
        ("failed. First failure: got 3", "got 3"),
        ("failed 2 of 5 cases. First failure [c1]: got 3", "got 3"),
        ("your code raised KeyError", "your code raised KeyError"),
    ],
)
def test_first_failure_is_what_went_wrong(message, what):
    assert first_failure(message) == what


@pytest.mark.parametrize(
    "value, text",
    [(Fraction(3737, 100), "37.37"), (Fraction(40), "40"), (Fraction(1, 2), "0.5"), (Fraction(-1, 1000), "0")],
)
def test_points_as_people_read_them(value, text):
    """At most two decimals, no trailing zeros, never "-0"?"""
    assert points_text(value) == text
