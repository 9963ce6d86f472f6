"""Do the checks' weights split a name's points (gates and checks of weight 0 included)?"""

from fractions import Fraction

from autograder.results.model import CheckResult
from autograder.results.scoring import summarize


def result(check: str, passed: bool, weight: float = 1.0, gate: bool = False) -> CheckResult:
    return CheckResult("name", check, check, "", passed, weight=weight, gate=gate)


def points(results: list[CheckResult]) -> Fraction:
    return summarize({"name": 3}, results, assignment="a", submission="s").by_name()["name"][0]


def test_a_name_whose_checks_weigh_nothing_is_scored_without_dividing_by_zero():
    """With only gates, or only checks of weight 0 (pytest's route may meet them), are the points shared
    equally, and does a failing gate still cost them all?"""
    assert points([result("a", True, gate=True), result("b", True, gate=True)]) == 3
    assert points([result("a", True, gate=True), result("b", False, gate=True)]) == 0
    assert points([result("a", True, weight=0), result("b", False, weight=0)]) == Fraction(3, 2)
    assert points([result("a", True, weight=0), result("b", True, weight=0), result("g", False, gate=True)]) == 0


def test_weights_still_split_the_points():
    """With a weighted check beside a gate, does the gate earn nothing itself and the weights decide?"""
    assert points([result("a", True, weight=2), result("b", False), result("g", True, gate=True)]) == 2
