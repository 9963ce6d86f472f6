"""Does grading give the points the work earns, in Gradescope's format?"""
import json
import subprocess
import sys

import pytest

from autograder import KIT_ROOT, build, mutants
from autograder.engine import infer_assignment
from autograder.errors import KitError

from .conftest import lost_names


def test_reference_gets_full_marks(assignment, graders):
    """Does the instructor's reference earn every point, with no grader failing on it?"""
    report = graders(assignment).grade(assignment.reference_path)
    assert not report.internal_errors()
    assert report.score == pytest.approx(report.max_score) and report.max_score == pytest.approx(sum(assignment.points.values()))
    assert report.max_score > 0


def test_blank_release_gets_zero_on_every_name(assignment, graders):
    """Does the blank release notebook earn 0 on every graded name, each stub naming its exercise?"""
    report = graders(assignment).grade(assignment.release_dir / assignment.notebook_name)
    assert not report.internal_errors()
    assert all(score == 0 for score, _ in report.by_name().values()), report.by_name()
    for number, name in enumerate(assignment.graded, start=1):
        messages = [check.message for check in report.checks if check.name == name]
        # a stub raises naming its exercise; an empty __init__ leaves the attributes missing
        assert any(f"Exercise {number} ({name})" in m or "should have an attribute" in m for m in messages), messages


def test_blank_stub_module_gets_zero(assignment, graders):
    """Does the blank stub module (assignments/<name>.py) earn 0?"""
    assert graders(assignment).grade(assignment.stub_path).score == 0


def test_one_bug_costs_only_its_name(assignment, graders):
    """Does the sample with one bug lose points on that name only, with the mistake named?"""
    mistake = build.SAMPLE_MISTAKE[assignment.name]
    report = graders(assignment).grade(build.sample_path(assignment))
    target = next(m.target for m in mutants.catalogue(assignment) if m.id == mistake)
    assert lost_names(report) == [target]
    assert report.mistakes() == [mistake]
    assert 0 < report.by_name()[target][0] < report.by_name()[target][1]


def test_each_check_names_its_graded_name(mha, mha_grader):
    """Does every test name start with the graded name it checks, and carry the Gradescope fields?"""
    from autograder.results import gradescope_json

    results = gradescope_json(mha_grader.grade(mha.reference_path))
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]), abs=1e-4)
    for test in results["tests"]:
        assert test["name"].split(":")[0] in mha.graded
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)


def test_points_table_splits_across_checks(mha, mha_grader):
    """Do the checks of each name share exactly its points from points.toml?"""
    report = mha_grader.grade(mha.reference_path)
    for name, (_, top) in report.by_name().items():
        assert top == pytest.approx(mha.points[name])


@pytest.mark.parametrize(
    "path, name",
    [
        ("release/mha/mha.ipynb", "mha"),
        ("solutions/mha/reference.py", "mha"),
        ("assignments/mha.py", "mha"),
        ("tests/heldout/mha/correct_repo", "mha"),
        ("release/attention_numpy/attention_numpy.ipynb", "attention_numpy"),
        ("assignments/attention_numpy.py", "attention_numpy"),
    ],
)
def test_assignment_is_inferred(path, name):
    """Is --assignment optional when the submission makes it clear?"""
    assert infer_assignment(KIT_ROOT / path).name == name


def test_unknown_submission_is_a_clear_error(tmp_path):
    """Does a folder with nothing gradable say what to do?"""
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(KitError, match="pass --assignment"):
        infer_assignment(tmp_path)


@pytest.mark.slow
def test_grade_command_writes_results(mha, tmp_path):
    """Does `python -m autograder grade` write results.json as a CI job would read it?"""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(build.sample_path(mha)), "--out", str(out), "--allow-unsandboxed"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert "PositionalEncoding" in done.stdout


def test_grade_command_reports_a_missing_submission(tmp_path):
    """Does grading a path that does not exist fail with a message, not a traceback?"""
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(tmp_path / "missing.ipynb"), "-a", "mha", "--out", str(tmp_path), "--allow-unsandboxed"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr
