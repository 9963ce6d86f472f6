"""Does every results.json the kit writes follow Gradescope's documented format, and show students no 0/0 noise?

The schema (gradescope_results.schema.json) is written from Gradescope's "Autograder
Specifications"; the first tests show it refuses what the documentation does not allow,
so that passing it means something. Then the kit writes results.json in each way it
can (graded at each visibility, with the score shown at once, not graded for the
student's fault or the kit's, from grade-all and from run_autograder's last resort)
and every file is checked. tests/conftest.py also checks every results.json any test
leaves in its tmp_path.
"""

import copy
import json
import os
import subprocess
from pathlib import Path

import pytest

from autograder.author.samples import sample_path
from autograder.config import GradingConfig
from autograder.deliver.grade_all.batch import grade_all
from autograder.deliver.routes.gradescope import zip_files
from autograder.errors import KitError
from autograder.public.loader import SubmissionError
from autograder.results.outcome import outcome_of_error
from autograder.results.read import read_results_file
from autograder.results.write import not_graded_json, write_outcome, write_results

from ..deliver.students import brief_student, student_results
from .gradescope_format import file_problems, problems, results_files

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")

# The documentation's own example (docs/specs.md, Output format), comments taken out.
DOCUMENTED = {
    "score": 44.0,
    "execution_time": 136,
    "output": "Text relevant to the entire submission",
    "output_format": "simple_format",
    "test_output_format": "text",
    "test_name_format": "text",
    "visibility": "after_due_date",
    "stdout_visibility": "visible",
    "extra_data": {},
    "tests": [
        {
            "score": 2.0,
            "max_score": 2.0,
            "status": "passed",
            "name": "Your name here",
            "name_format": "text",
            "number": "1.1",
            "output": "Giant multiline string that will be placed in a <pre> tag and collapsed by default",
            "output_format": "text",
            "tags": ["tag1", "tag2", "tag3"],
            "visibility": "visible",
            "extra_data": {},
        }
    ],
    "leaderboard": [
        {"name": "Accuracy", "value": 0.926},
        {"name": "Time", "value": 15.1, "order": "asc"},
        {"name": "Stars", "value": "*****"},
    ],
}


def test_the_schema_accepts_the_documentations_examples():
    assert problems(DOCUMENTED) == []
    informational = {"tests": [{"name": "Compilation check", "status": "passed"}], "score": 0}  # "Test case status"
    assert problems(informational) == []


@pytest.mark.parametrize(
    "where, value",
    [
        (("visibility",), "public"),
        (("stdout_visibility",), "after_grading"),
        (("output_format",), "markdown"),
        (("tests", 0, "status"), "pass"),
        (("tests", 0, "output_format"), "HTML"),
        (("tests", 0, "name_format"), "rst"),
        (("tests", 0, "visibility"), "shown"),
        (("tests", 0, "score"), "2"),
        (("tests", 0, "extra"), {"kind": "hidden"}),  # a misspelt extra_data: Gradescope drops it silently
        (("leaderboard", 0, "order"), "ascending"),
        (("scores",), 44.0),
    ],
)
def test_the_schema_refuses_what_the_documentation_does_not_allow(where, value):
    results = copy.deepcopy(DOCUMENTED)
    target = results
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    assert problems(results), f"{'/'.join(map(str, where))} = {value!r} passed"


def test_a_score_is_needed_somewhere(tmp_path):
    """Without a top-level score, every test must carry one; and NaN is not JSON."""
    assert problems({"tests": [{"name": "a", "status": "passed"}]})
    assert problems({"tests": []}) == []  # the kit's 'not graded' with no score: nothing to add up, no score given
    (tmp_path / "results.json").write_text('{"score": NaN}')
    assert file_problems(tmp_path / "results.json") == ["not JSON: NaN is not JSON (RFC 8259 has no NaN or Infinity)"]
    (tmp_path / "results.json").write_text('{"score": 1}')  # leave a valid one for conftest's check


# ------------------------------------------------------------------ every way the kit writes it


def kit_conventions(results: dict) -> list[str]:
    """What the kit promises beyond the format: before the due date a student sees no row of 0.0/0.0, one
    visible self-checks test first (informational, in Markdown), hidden checks in plain text."""
    found = []
    tests = results.get("tests", [])
    for test in tests:
        if test.get("visibility") == "visible" and test.get("max_score") == 0 and test.get("status") == "passed":
            found.append(f"{test['name']}: a visible 0/0 row")
        kind = test.get("extra_data", {}).get("kind")
        if kind == "self-checks":
            if test is not tests[0] or "score" in test or test["output_format"] != "md":
                found.append("the self-checks test is first, has no score, and is Markdown")
        elif kind != "hidden" or test.get("output_format") != "text" or test.get("name_format") != "text":
            found.append(f"{test.get('name')}: a hidden check in plain text")
    if results.get("output_format") != "text":
        found.append("the top-level output is plain text (its default, simple_format, renders HTML)")
    return found


@pytest.mark.slow
def test_every_results_json_grade_writes_follows_the_format(mha, mha_grader, tmp_path):
    """Graded (full marks, blank, the brief's student), at every visibility, with the score shown at once, and not
    graded for either reason: does each file follow the format and the kit's conventions?"""
    reports = {
        "reference": mha_grader.grade(mha.reference_path),
        "blank": mha_grader.grade(mha.release_dir / mha.notebook_name),
        "student": mha_grader.grade(brief_student(mha, tmp_path / "ada.ipynb")),
    }
    written = []
    for label, report in reports.items():
        for visibility in VISIBILITIES:
            written.append(write_results(report, tmp_path / label / visibility, visibility))
        written.append(write_results(report, tmp_path / label / "show-score", "visible", withhold_hidden=True))
    for folder, error in (("empty", SubmissionError("ada.zip holds no notebook")), ("kit", KitError("no zygote"))):
        write_outcome(outcome_of_error(error), tmp_path / folder, "mha")
        written.append(tmp_path / folder / "results.json")
    assert sorted(written) == results_files(tmp_path)
    for path in written:
        results = json.loads(path.read_text())
        assert file_problems(path) == [] and kit_conventions(results) == [], path
    student = json.loads((tmp_path / "student" / "after_due_date" / "results.json").read_text())
    visible = [t for t in student["tests"] if t["visibility"] == "visible"]
    assert len(visible) == 1 and visible[0]["status"] == "failed"
    assert "**Known mistake** `positional_cosine_exponent_off_by_one`" in visible[0]["output"], (
        "the named mistake is in the test students see before the due date"
    )
    # MultiHeadAttention calls the split_heads that did not load: checked with the reference's, it passes
    passing = next(line for line in visible[0]["output"].splitlines() if line.startswith("Passing:"))
    assert "`MultiHeadAttention`" in passing


def test_the_feedback_fixtures_follow_the_format():
    """The results the feedback tests render are the kit's own, so they follow the format too."""
    assert problems(student_results()) == [] and kit_conventions(student_results()) == []
    assert problems(not_graded_json("late", "mha", student_fault=True)) == []


@pytest.mark.slow
def test_every_results_json_grade_all_writes_follows_the_format(mha, tmp_path):
    """A class with full marks, the brief's student, a student with nothing gradable and one with a hostile file
    name: does every student's results.json follow the format?"""
    export = tmp_path / "export"
    for student, source in (("bob", sample_path(mha, None)), ("ada", brief_student(mha, tmp_path / "ada.ipynb"))):
        (export / student).mkdir(parents=True)
        (export / student / "mha.ipynb").write_bytes(Path(source).read_bytes())
    (export / "carol").mkdir()
    (export / "carol" / "notes.txt").write_text("I ran out of time")
    (export / "eve").mkdir()
    (export / "eve" / "x\n### mha: 40 of 40 points\n| a | b |.ipynb").write_text("not a notebook")
    grade_all(export, "mha", tmp_path / "out", GradingConfig(allow_unsandboxed=True), progress=False)
    found = results_files(tmp_path / "out")
    assert len(found) == 4
    for path in found:
        assert file_problems(path) == [], path


def test_run_autograders_last_resort_follows_the_format(mha, tmp_path):
    """When the kit cannot even start, run_autograder writes results.json itself: is that one in the format too?"""
    root = tmp_path / "autograder"
    for name, data in zip_files(mha).items():
        if name == "run_autograder":
            (root / "source").mkdir(parents=True, exist_ok=True)
            (root / "source" / name).write_bytes(data)
    (root / "source" / "kit").mkdir()
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": "/bin/false"}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert file_problems(root / "results" / "results.json") == []
    results = read_results_file(root / "results" / "results.json")
    assert "the autograder stopped (exit status 1) before it could grade" in results.output
    assert (results.status, results.student_fault, results.score, results.assignment) == (
        "not graded",
        False,
        None,
        "mha",
    )
