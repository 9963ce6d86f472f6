"""Does the grade command give the points the work earns, in Gradescope's format, and say what it graded?"""

import json
import subprocess
import sys

import pytest

from autograder import KIT_ROOT
from autograder.author.samples import sample_path
from autograder.results.write import gradescope_json

KIT = [sys.executable, "-m", "autograder"]


def test_results_follow_gradescopes_format(mha, mha_grader):
    """Is the first test the visible self-checks' summary (no points), and does every other test start with
    its graded name, carry Gradescope's fields, stay hidden until the due date and add up to the score?"""
    results = gradescope_json(mha_grader.grade(mha.reference_path))
    summary, *hidden = results["tests"]
    assert summary["visibility"] == "visible" and "score" not in summary and summary["status"] == "passed"
    assert results["score"] == pytest.approx(sum(t["score"] for t in hidden), abs=1e-4)
    assert isinstance(results["execution_time"], float)
    for test in hidden:
        assert test["name"].split(":")[0] in mha.graded
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
        assert test["visibility"] == "after_due_date" and test["max_score"] > 0
    assert results["extra_data"]["status"] == "graded" and results["extra_data"]["isolation"]["tier"]


def test_points_add_up_exactly(mha, mha_grader):
    """Do the checks of each name share exactly its points, and the total add up with no rounding left over?"""
    report = mha_grader.grade(sample_path(mha))
    for name, (_, top) in report.by_name().items():
        assert top == mha.points[name]
    assert report.max_score == 40 and str(gradescope_json(report)["score"]) == "37.7"


@pytest.mark.slow
def test_grade_command_writes_results(mha, tmp_path):
    """Does `python -m autograder grade` write results.json and junit.xml as a CI job would read them?"""
    out = tmp_path / "out"
    done = subprocess.run(
        KIT + ["grade", str(sample_path(mha)), "--out", str(out)], capture_output=True, text=True, cwd=KIT_ROOT
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert "PositionalEncoding" in done.stdout and "37.7 of 40" in done.stdout and "isolation:" in done.stdout
    assert results["extra_data"]["entry"].endswith(".ipynb")


@pytest.mark.slow
def test_a_submission_with_nothing_gradable_is_the_students_zero(tmp_path):
    """With nothing gradable, does grade exit 2 with a results.json saying why (score 0, the student's fault)?"""
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("I ran out of time")
    done = subprocess.run(
        KIT + ["grade", str(tmp_path / "work"), "-a", "mha", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert (
        results["score"] == 0
        and results["extra_data"]["status"] == "not graded"
        and results["extra_data"]["student_fault"]
    )


@pytest.mark.slow
def test_a_missing_submission_is_a_clear_error(tmp_path):
    """Does grading a path that does not exist fail with a message, not a traceback?"""
    done = subprocess.run(
        KIT + ["grade", str(tmp_path / "missing.ipynb"), "-a", "mha", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr
