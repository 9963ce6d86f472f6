"""Do the checks' weights split a name's points, and is a grader that gives a name no weight refused?"""

import dataclasses
from fractions import Fraction

import pytest

from autograder.assignments import Assignment
from autograder.errors import KitError
from autograder.grade import plan
from autograder.results.model import CheckResult
from autograder.results.scoring import summarize


def test_a_grader_that_gives_a_name_no_weight_is_refused(mha):
    """Does collecting a plan whose checks of one name are all gates or weigh 0 stop, naming the file and the fix?"""
    checks = plan.collect(mha)
    for change in ({"gate": True}, {"weight": 0.0}):
        weightless = [dataclasses.replace(c, **change) if c.name == "split_heads" else c for c in checks]
        with pytest.raises(KitError) as refused:
            plan._refuse_weightless(mha, weightless)
        message = str(refused.value)
        assert str(mha.graders_dir / "test_split_heads.py") in message
        assert "every check of split_heads is a gate or has weight 0" in message
        assert "@pytest.mark.weight(1)" in message


def test_the_assignments_plans_give_every_name_weight(assignment):
    """Does every assignment's plan pass the check (the plan is collected without error)?"""
    assert plan.collect(assignment)


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
