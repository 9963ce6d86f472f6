"""Does the runner result carry the kit's points to GitHub Classroom, and nothing hidden?

``reporter_reads`` below does with a runner result what Classroom's reporter action
(classroom-resources/autograding-grading-reporter@v1: src/main.js, notify-classroom.js,
console-results.js, helpers/test-helpers.js) does with it: decode <ID>_RESULTS, post
"Points X/Y" from tests[].score and max_score, fail on status "fail" or "error", print a
line per test.
"""

import base64
import json
import math
from fractions import Fraction

import pytest

from autograder.deliver.routes import classroom
from autograder.results.model import CheckSummary, Report
from autograder.results.outcome import not_gradable
from autograder.results.read import read_results, read_results_file
from autograder.results.update import public_points
from autograder.results.write import gradescope_json, write_outcome

STATUSES = {"pass", "fail", "error"}


def reporter_reads(runner: str, environ: dict) -> dict:
    """The reporter's reading of one runner, checked against the shape its code relies on."""
    encoded = environ[f"{runner.strip().upper()}_RESULTS"]  # main.js
    result = json.loads(base64.b64decode(encoded, validate=True).decode("utf-8"))
    assert set(result) >= {"status", "max_score", "tests"}
    assert result["status"] in STATUSES
    assert isinstance(result["max_score"], (int, float)) and not isinstance(result["max_score"], bool)
    tests = result["tests"]
    assert isinstance(tests, list) and tests, "getTestScore divides by tests.length"
    lines = []
    for test in tests:
        assert isinstance(test["name"], str) and test["name"]
        assert test["status"] in STATUSES
        assert isinstance(test["score"], (int, float)) and math.isfinite(test["score"]), (
            "NotifyClassroom adds every score"
        )
        assert test.get("line_no") == 0, "any other line_no is printed after the name"
        assert not test.get("test_code"), "a test_code is printed under the name"
        assert isinstance(test.get("message", ""), str)
        if test["status"] == "pass":
            lines.append(f"✅ {test['name']}")
        elif test["status"] == "error":
            lines.append(f"Error: {test.get('message') or test['name']}")
        else:
            lines.append(f"❌ {test['name']}")
    # notify-classroom.js: a runner without max_score adds nothing to Classroom's grade
    points = (sum(test["score"] for test in tests), result["max_score"]) if result["max_score"] else None
    failed = {"fail": "Some tests failed.", "error": "Some tests errored."}.get(result["status"])
    return {"result": result, "points": points, "failed": failed, "lines": lines}


def check(name, title, passed, total, score, top, message):
    return CheckSummary(
        name=name,
        check=f"test_{name}::{title}",
        title=title,
        kind="hidden",
        passed=passed,
        total=total,
        score=Fraction(score),
        max_score=Fraction(top),
        message=message,
    )


@pytest.fixture
def document():
    """results.json of a submission with one exercise partly wrong, as the kit writes it."""
    report = Report(
        assignment="mha",
        submission="mha.ipynb",
        checks=[
            check("tokenize", "splits on whitespace like the reference", 8, 8, 2.0, 2.0, "passed (8 cases)"),
            check(
                "PositionalEncoding",
                "stores the sin and cos table",
                0,
                5,
                0.0,
                2.0,
                "failed 5 of 5 cases. First failure: table at (0, 1, 1): got 0.95, expected 0.54",
            ),
            check("PositionalEncoding", "keeps pe as a buffer", 1, 1, 2.0, 2.0, "passed (1 case)"),
        ],
        order=("tokenize", "PositionalEncoding"),
    )
    return gradescope_json(report)


@pytest.fixture
def results(document):
    """Those results, read as the kit reads them."""
    return read_results(document)


def test_one_entry_per_exercise_with_its_points(results):
    read = reporter_reads("points", {"POINTS_RESULTS": classroom.runner_result(results)})
    assert read["points"] == (4.0, 6.0)
    entries = {test["name"]: test for test in read["result"]["tests"]}
    assert list(entries) == ["tokenize", "PositionalEncoding"]
    assert entries["tokenize"]["status"] == "pass" and entries["tokenize"]["score"] == 2.0
    assert entries["PositionalEncoding"]["status"] == "fail"
    assert (entries["PositionalEncoding"]["score"], entries["PositionalEncoding"]["max_score"]) == (2.0, 4.0)
    assert entries["PositionalEncoding"]["message"] == "2 of 4 points"
    assert read["lines"] == ["✅ tokenize", "❌ PositionalEncoding"]


def test_no_hidden_check_detail_reaches_classroom(document, results):
    text = base64.b64decode(classroom.runner_result(results)).decode()
    for test in document["tests"]:
        title = test["name"].split(": ", 1)[1]
        assert title not in text
        assert test["output"] not in text
    assert "got 0.95" not in text and "expected" not in text


@pytest.mark.parametrize(
    "fail_under, status", [(None, "fail"), (100, "fail"), (66.7, "fail"), (66.6, "pass"), (0, "pass")]
)
def test_status_follows_the_threshold(results, fail_under, status):
    read = reporter_reads("grade", {"GRADE_RESULTS": classroom.runner_result(results, fail_under=fail_under)})
    assert read["result"]["status"] == status
    assert read["failed"] == (None if status == "pass" else "Some tests failed.")
    assert read["points"] == (4.0, 6.0)  # the points reach Classroom either way


def test_full_marks_pass_without_a_threshold(document):
    for test in document["tests"]:
        test["score"] = test["max_score"]
    for entry in document["extra_data"]["by_name"].values():
        entry["score"] = entry["max_score"]
    document["score"] = 6.0
    read = reporter_reads("points", {"POINTS_RESULTS": classroom.runner_result(read_results(document))})
    assert read["result"]["status"] == "pass" and read["failed"] is None and read["points"] == (6.0, 6.0)


def test_an_ungradable_submission_still_reports_zero_of_the_points(tmp_path):
    write_outcome(not_gradable("no notebook defines tokenize"), tmp_path, "mha")
    results = read_results_file(tmp_path / "results.json")
    points = {"tokenize": 2.0, "encode": 3.0}
    read = reporter_reads("points", {"POINTS_RESULTS": classroom.runner_result(results, fail_under=0, points=points)})
    assert read["result"]["status"] == "error" and read["failed"] == "Some tests errored."
    assert read["points"] == (0.0, 5.0)
    assert "Error: no notebook defines tokenize" in read["lines"]
    # without the assignment's points it still decodes; Classroom then gets no grade
    assert reporter_reads("points", {"POINTS_RESULTS": classroom.runner_result(results)})["points"] is None


def test_write_github_output_appends_one_line(results, tmp_path):
    output = tmp_path / "github_output"
    output.write_text("earlier=1\n")
    value = classroom.write_github_output(results, output)
    assert output.read_text() == f"earlier=1\nresult={value}\n"
    classroom.write_github_output(results, output, key="other")
    assert output.read_text().splitlines()[-1] == f"other={value}"


def test_public_points_hold_points_only_until_allowed(document, results):
    public = public_points(results)
    assert public["tests"] == [] and "mistakes" not in public["extra_data"]
    assert public["extra_data"]["by_name"]["PositionalEncoding"] == {"score": 2.0, "max_score": 4.0}
    text = json.dumps(public)
    assert not any(test["output"] in text or test["name"] in text for test in document["tests"])
    assert public_points(results, show_hidden=True) == document


def test_summary_shows_points_per_exercise_and_details_only_when_allowed(results):
    hidden = classroom.markdown_points(results)
    assert "| `PositionalEncoding` | 2 / 4 |" in hidden and "mha: 4 of 6 points" in hidden
    assert "sin and cos" not in hidden and "got 0.95" not in hidden
    shown = classroom.markdown_points(results, show_hidden=True)
    assert "stores the sin and cos table" in shown and "got 0.95" in shown


def test_report_to_github_writes_output_summary_and_artifact(document, tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text(json.dumps(document))
    (tmp_path / "results" / "junit.xml").write_text("<testsuite/>")
    environ = {
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "FAIL_UNDER": "50",
        "SHOW_HIDDEN_DETAILS": "false",
        "ASSIGNMENT": "mha",
    }
    payload = classroom.report_to_github(tmp_path / "results", tmp_path / "public", environ)
    key, value = (tmp_path / "output").read_text().strip().split("=", 1)
    assert key == "result" and reporter_reads("points", {"POINTS_RESULTS": value})["result"] == payload
    assert payload["status"] == "pass"
    assert sorted(p.name for p in (tmp_path / "public").iterdir()) == ["points.json"]
    assert "got 0.95" not in (tmp_path / "summary.md").read_text()

    environ |= {"SHOW_HIDDEN_DETAILS": "true", "GITHUB_OUTPUT": str(tmp_path / "output2")}
    classroom.report_to_github(tmp_path / "results", tmp_path / "shown", environ)
    assert sorted(p.name for p in (tmp_path / "shown").iterdir()) == ["junit.xml", "points.json", "results.json"]


def test_missing_results_are_an_error_with_the_assignments_points(tmp_path):
    environ = {"GITHUB_OUTPUT": str(tmp_path / "output"), "FAIL_UNDER": "0", "ASSIGNMENT": "mha"}
    payload = classroom.report_to_github(tmp_path / "nothing", tmp_path / "public", environ)
    assert payload["status"] == "error" and payload["max_score"] == 40
    value = (tmp_path / "output").read_text().strip().split("=", 1)[1]
    read = reporter_reads("points", {"POINTS_RESULTS": value})
    assert (
        read["points"] == (0.0, 40.0)
        and "Error: The autograder failed: grading wrote no results.json; tell your instructor." in read["lines"]
    )
