"""Does a grading's report add its checks up per graded name, in the students' order, and list what results.json lists?"""

from fractions import Fraction

from autograder.results.model import CheckResult, CheckSummary, Report, by_check


def check(name: str, title: str, score: int, top: int, kind: str = "hidden", mistakes=()) -> CheckSummary:
    passed = int(score == top)
    return CheckSummary(name, f"t::{title}", title, kind, passed, 1, Fraction(score), Fraction(top), "", list(mistakes))


REPORT = Report(
    assignment="a",
    submission="s",
    checks=[
        check("g", "second name first", 0, 2, mistakes=["m2"]),
        check("f", "one", 1, 1),
        check("f", "a gate that passed", 0, 0),
        check("f", "a notebook check", 0, 0, kind="visible", mistakes=["m1"]),
    ],
    order=("f", "g", "h"),
    not_started=frozenset({"g", "h"}),
)


def test_points_per_name_in_the_students_order():
    """Are the points per graded name in the contract's order (a name with no check at 0 of 0), visible checks aside?"""
    assert REPORT.by_name() == {"f": (1, 1), "g": (0, 2), "h": (0, 0)}
    assert (REPORT.score, REPORT.max_score) == (1, 3)


def test_what_results_json_lists():
    """Does the report list the hidden checks that carry points or failed, the mistakes its hidden checks name,
    and the names not started that earned nothing?"""
    assert [c.title for c in REPORT.graded_checks()] == ["second name first", "one"]
    assert REPORT.mistakes() == ["m2"] and REPORT.unstarted() == ["g", "h"]


def test_cases_group_by_check_in_the_order_they_come():
    cases = [CheckResult("f", check, check, str(i), True) for i, check in enumerate(["b", "a", "b"])]
    assert {check: [c.case for c in group] for check, group in by_check(cases).items()} == {"b": ["0", "2"], "a": ["1"]}
