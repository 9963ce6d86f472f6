"""Does grading give the points the work earns, in Gradescope's format, and say what it graded?"""

import json
import subprocess
import sys

import pytest

from autograder import KIT_ROOT
from autograder.author.samples import sample_path
from autograder.grade import mistakes
from autograder.results.write import gradescope_json

from ..conftest import lost_names

KIT = [sys.executable, "-m", "autograder"]


def test_reference_gets_full_marks(assignment, graders):
    """Does the instructor's reference earn every point, with no grader failing on it?"""
    report = graders(assignment).grade(assignment.reference_path)
    assert not report.internal_errors()
    assert report.score == report.max_score == sum(assignment.points.values())
    assert report.max_score > 0 and report.entry == "reference.py"


def test_blank_release_gets_zero_on_every_name(assignment, graders):
    """Does the blank release notebook earn 0 on every graded name, each stub naming its exercise?"""
    report = graders(assignment).grade(assignment.release_dir / assignment.notebook_name)
    assert not report.internal_errors()
    assert all(score == 0 for score, _ in report.by_name().values()), report.by_name()
    for number, name in enumerate(assignment.graded, start=1):
        messages = [check.message for check in report.hidden if check.name == name]
        # a stub raises naming its exercise; an empty __init__ leaves the attributes missing
        assert any(f"Exercise {number} ({name})" in m or "should have an attribute" in m for m in messages), messages
    # Not started is not a mistake: an empty constructor "accepts" what a catalogued slip accepts.
    assert not [(c.name, c.mistakes) for c in report.hidden if c.mistakes]
    assert not [c.name for c in report.hidden if "known mistake" in c.message]


def test_blank_stub_module_gets_zero(assignment, graders):
    """Does the blank stub module (assignments/<name>.py) earn 0, gate checks included?"""
    assert graders(assignment).grade(assignment.stub_path).score == 0


def test_one_bug_costs_only_its_name(assignment, graders):
    """Does the sample with one bug lose points on that name only, with the mistake named?"""
    mistake = assignment.demo_mistake
    report = graders(assignment).grade(sample_path(assignment))
    target = next(m.target for m in mistakes.catalogue(assignment) if m.id == mistake)
    assert lost_names(report) == [target]
    assert report.mistakes() == [mistake]
    assert 0 < report.by_name()[target][0] < report.by_name()[target][1]


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


def test_visible_checks_are_reported_without_points(mha, mha_grader):
    """Are the student's visible checks part of the results, visible at once and worth nothing?"""
    report = mha_grader.grade(sample_path(mha))
    visible = [c for c in report.checks if c.kind == "visible"]
    assert {c.name for c in visible} == set(mha.graded) and all(c.max_score == 0 for c in visible)
    assert [c.name for c in visible if c.status != "passed"] == ["PositionalEncoding"]


def test_points_add_up_exactly(mha, mha_grader):
    """Do the checks of each name share exactly its points, and the total add up with no rounding left over?"""
    report = mha_grader.grade(sample_path(mha))
    for name, (_, top) in report.by_name().items():
        assert top == mha.points[name]
    assert report.max_score == 40 and str(gradescope_json(report)["score"]) == "37.371429"


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
    assert "PositionalEncoding" in done.stdout and "37.37 of 40" in done.stdout and "isolation:" in done.stdout
    assert results["extra_data"]["entry"].endswith(".ipynb")


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
