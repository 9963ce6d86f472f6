"""Does the benchmark run and print its figures? (It measures; no test asserts a speed.)"""

import pytest

import autograder.assignments
from autograder.bench import bench, class_steps, print_class_steps, print_figures


@pytest.mark.slow
def test_bench_prints_its_figures(capsys):
    figures = bench(n=2, jobs=1, scaling=5)
    print_figures(figures)
    out = capsys.readouterr().out
    assert figures["same_scores"] == "2 of 2"
    assert figures["marginal_from"] == (2, 5)  # a class of 5 graded with as many jobs as the class of 2
    for words in (
        "bare import",
        "one grade",
        "marginal cost of a submission",
        "the checks' own work",
        "the kit's own cost",
        "nbgrader autograde",
        "times faster",
        "peak MiB",
        "scaling",
        "what the class view adds",
    ):
        assert words in out
    assert set(figures["own_work"]) == set(autograder.assignments.get("mha").graded)
    assert figures["small"].peak_mib > 0 and figures["nbgrader"].peak_mib > 0 and figures["baseline"].cpu > 0
    assert figures["insight"]["size"] == 5 and figures["insight"]["wall"] > 0 and figures["insight"]["cpu"] > 0


@pytest.mark.slow
def test_the_class_steps_are_timed_alone(capsys):
    """Does --class-steps time grade-all's steps over the class on synthetic classes of each size, as grading leaves
    them and again with nothing changed, and print each step's figures?"""
    figures = class_steps(sizes=(12, 30), jobs=2)
    print_class_steps(figures)
    out = capsys.readouterr().out
    assert [row["n"] for row in figures["rows"]] == [12, 30]
    for row in figures["rows"]:
        assert row["first"].peak_mib > 0 and row["steps"]["cpu"] > 0
        assert set(row["steps"]["steps"]) == {
            "results read", "answers", "summary", "notes", "code records", "clusters", "similarity", "dashboard",
            "lms grades", "report",
        }  # fmt: skip
    for words in ("bare import", "students", "again s", "peak MiB", "similarity", "report"):
        assert words in out
