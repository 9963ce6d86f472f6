"""Do the checks' weights split a name's points (gates and checks of weight 0 included), and is carrying forward read from points.toml?"""

from fractions import Fraction

import pytest

from autograder.assignments import Assignment
from autograder.errors import KitError
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


def test_carry_forward_is_on_unless_points_toml_says_otherwise(mha):
    """Is error carried forward on by default, read from points.toml, and a value other than true or false refused?"""
    assert mha.carry_forward is True
    for table, expected in (({}, True), ({"carry_forward": False}, False)):
        assignment = Assignment("mha")
        assignment.__dict__["_points_table"] = {**dict.fromkeys(mha.graded, 1), **table}
        assert assignment.carry_forward is expected
        assert "carry_forward" not in assignment.points
    assignment = Assignment("mha")
    assignment.__dict__["_points_table"] = {**dict.fromkeys(mha.graded, 1), "carry_forward": "yes"}
    with pytest.raises(KitError, match="carry_forward must be true or false"):
        assert assignment.carry_forward
