"""Do the changes made to a results.json after grading keep every other key as written, and read back typed?"""

import json
from datetime import datetime, timedelta, timezone

from autograder.results.read import LatePenalty, read_results, read_results_file
from autograder.results.update import (
    kit_failed_results,
    marked_late,
    public_points,
    save_results,
    with_cluster_notes,
    with_late_penalty,
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


def test_a_late_penalty_is_put_in_changed_and_removed_the_raw_score_kept(tmp_path):
    """Is the late policy's record added with the raw score beside it, read back typed as written, left alone when
    the same (None), changed, and removed, every other key (the score first) kept?"""
    results = read_results(written())
    late = LatePenalty(
        "late", 10.0, "possible", "Submitted 10 h late: −10%.", "", "2025-02-15T09:59:00-05:00",
        "2025-02-14T23:59:00-05:00", "2025-02-14T23:59:00-05:00", 36000, 47.0, 4.7, 26.5,
    )  # fmt: skip
    penalised = with_late_penalty(results, late)
    assert penalised is not None and penalised.late == late and penalised.score == results.score == 31.2
    record = penalised.document["extra_data"]["late_penalty"]
    assert (record["raw_score"], record["deducted"], record["score"]) == (31.2, 4.7, 26.5)
    assert {k: v for k, v in penalised.document["extra_data"].items() if k != "late_penalty"} == written()["extra_data"]
    assert with_late_penalty(penalised, late) is None
    save_results(penalised, tmp_path / "results.json")
    assert read_results_file(tmp_path / "results.json").late == late
    on_time = LatePenalty("on time", possible=47.0, score=31.2)
    assert with_late_penalty(penalised, on_time).late == on_time
    removed = with_late_penalty(penalised, None)
    assert removed is not None and removed.late is None and removed.document == written()
    assert with_late_penalty(results, None) is None


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
