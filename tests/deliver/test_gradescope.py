"""Does the Gradescope bundle's own logic hold: late work marked by Gradescope's documented metadata?

The bundle as Gradescope runs it (run_autograder on a fake /autograder tree, setup.sh's
checks): tests/deliver/test_routes.py. Its results.json against Gradescope's format:
tests/results/test_gradescope_format.py.
"""

import json

import pytest

from autograder.deliver.gradescope import mark_late

# Gradescope's /autograder/submission_metadata.json, as its documentation shows it
# (gradescope-autograders.readthedocs.io/en/latest/submission_metadata/), trimmed to what is read.
METADATA = {
    "id": 123456,
    "created_at": "2018-07-01T14:22:32.365935-07:00",
    "assignment": {
        "due_date": "2018-07-31T23:00:00.000000-07:00",
        "late_due_date": None,
        "release_date": "2018-07-02T00:00:00.000000-07:00",
        "title": "Programming Assignment 1",
        "total_points": "20.0",
    },
    "submission_method": "upload",
    "users": [{"email": "student@example.com", "id": 1234, "name": "Student User"}],
    "previous_submissions": [],
}


@pytest.mark.parametrize(
    "created_at, late_due_date, says",
    [
        ("2018-07-01T14:22:32.365935-07:00", None, None),
        ("2018-07-31T23:00:00.000000-07:00", None, None),  # at the due date: on time
        ("2018-08-01T06:00:01Z", None, "Submitted late: 1 s after the due date"),
        ("2018-08-03T09:15:00.123-07:00", "2018-08-02T23:00:00.000000-07:00", "2 d 10 h 15 min after the due date"),
    ],
    ids=["early", "at the due date", "one second late, in UTC", "after the late due date"],
)
def test_gradescope_marks_late_work_by_its_metadata(tmp_path, created_at, late_due_date, says):
    """Does a submission after the documented metadata's due date get marked late, by how much, and others not?"""
    metadata = METADATA | {
        "created_at": created_at,
        "assignment": METADATA["assignment"] | {"late_due_date": late_due_date},
    }
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata))
    (tmp_path / "results.json").write_text(json.dumps({"score": 3.0, "output": "mha: 3 of 40", "extra_data": {}}))
    assert mark_late(tmp_path / "submission_metadata.json", tmp_path / "results.json") is (says is not None)
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == 3.0  # Gradescope's own settings decide a penalty
    if says is None:
        assert results == {"score": 3.0, "output": "mha: 3 of 40", "extra_data": {}}
    else:
        assert says in results["output"] and results["output"].endswith("\n\nmha: 3 of 40")
        assert ("after the late due date too" in results["output"]) is (late_due_date is not None)
    assert mark_late(tmp_path / "missing.json", tmp_path / "results.json") is False  # a local run has none
