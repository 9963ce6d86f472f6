"""Does the benchmark run and print its figures? (It measures; no test asserts a speed.)"""

import pytest

import autograder.assignments
from autograder.bench import bench, print_figures


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
