"""Do the changes made to a results.json after grading keep every other key as written, and read back typed?"""

import json
from datetime import datetime, timedelta, timezone

from autograder.results.read import read_results, read_results_file
from autograder.results.update import (
    kit_failed_results,
    marked_late,
    public_points,
    save_results,
    with_cluster_notes,
)
from autograder.results.write import gradescope_json

from ..deliver.students import student_report


def written() -> dict:
    return json.loads(json.dumps(gradescope_json(student_report())))


def test_notes_are_put_in_changed_and_removed(tmp_path):
    """Are a student's notes added, left alone when the same (None), changed, and removed, every other key kept?"""
    results = read_results(written())
    noted = with_cluster_notes(results, {"PositionalEncoding": "Share the exponent."})
    assert noted is not None and noted.cluster_notes == {"PositionalEncoding": "Share the exponent."}
    assert {k: v for k, v in noted.document["extra_data"].items() if k != "cluster_notes"} == written()["extra_data"]
    assert with_cluster_notes(noted, {"PositionalEncoding": "Share the exponent."}) is None
    assert with_cluster_notes(noted, {"PositionalEncoding": "Other."}).cluster_notes == {"PositionalEncoding": "Other."}
    cleared = with_cluster_notes(noted, {})
    assert cleared is not None and cleared.document == written() and with_cluster_notes(results, {}) is None
    assert "cluster_notes" not in results.document["extra_data"]  # the results read first are left as they were
    save_results(noted, tmp_path / "results.json")
    assert read_results_file(tmp_path / "results.json") == noted


def test_late_work_is_marked_points_unchanged():
    """Does a late submission get the times, the seconds late and a first line of output, and the same points?"""
    due = datetime(2026, 11, 1, 23, 0, tzinfo=timezone(timedelta(hours=-7)))
    late = marked_late(
        read_results(written()), due + timedelta(hours=2, minutes=30), due, "Submitted late: 2 h 30 min."
    )
    extra = late.document["extra_data"]
    assert (extra["late"], extra["late_by_seconds"]) == (True, 9000)
    assert extra["due_date"] == "2026-11-01T23:00:00-07:00" and extra["submitted_at"] == "2026-11-02T01:30:00-07:00"
    assert late.output.startswith("Submitted late: 2 h 30 min.\n\nmha: graded.")
    assert late.score == read_results(written()).score


def test_the_public_part_holds_points_only():
    """Until details are allowed: the points per exercise and why, no hidden check nor mistake; then all of it."""
    public = public_points(read_results(written()))
    assert set(public["extra_data"]) == {"assignment", "max_score", "by_name", "notes"}
    assert [test["name"] for test in public["tests"]] == [written()["tests"][0]["name"]]  # the self-checks' test
    assert public_points(read_results(written()), show_hidden=True) == written()


def test_results_where_grading_left_none():
    """Are results for a grading that wrote nothing not graded, with the reason and 0 of the points?"""
    results = kit_failed_results("The autograder failed: grading wrote no results.json; tell your instructor.")
    assert not results.graded and results.score == 0.0 and results.reason.startswith("The autograder failed")
    assert public_points(results)["extra_data"] == {"error": results.reason}
