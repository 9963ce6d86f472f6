"""Does the Gradescope bundle hold what Gradescope runs, and no more, and is late work marked by Gradescope's
documented metadata?

The bundle as Gradescope runs it (run_autograder on a fake /autograder tree, setup.sh's
checks): tests/deliver/test_routes.py. Its results.json against Gradescope's format:
tests/results/test_gradescope_format.py.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from datetime import datetime, timedelta, timezone

import pytest

from autograder import KIT_ROOT, assignments
from autograder.config import GradingConfig
from autograder.deliver.grade_all.answers import gradescope_note
from autograder.deliver.routes import gradescope
from autograder.deliver.routes.gradescope import (
    _duration,
    _gradescope_time,
    grading_requirements,
    mark_late,
    write_bundle,
    zip_files,
)

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


def test_a_late_due_date_gradescope_writes_oddly_still_marks_the_work_late(tmp_path):
    """Where the metadata's late due date does not read as a time, is the work still marked late by the due date?"""
    metadata = METADATA | {
        "created_at": "2018-08-01T00:00:00-07:00",
        "assignment": METADATA["assignment"] | {"late_due_date": "next Friday"},
    }
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata))
    (tmp_path / "results.json").write_text(json.dumps({"score": 3.0, "output": "mha: 3 of 40", "extra_data": {}}))
    assert mark_late(tmp_path / "submission_metadata.json", tmp_path / "results.json") is True
    output = json.loads((tmp_path / "results.json").read_text())["output"]
    assert output.startswith("Submitted late: 1 h 0 min after the due date (2018-07-31 23:00:00-07:00).")
    assert "late due date too" not in output


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"created_at": "2018-08-01T00:00:00-07:00"},
        {"created_at": "2018-08-01T00:00:00", "assignment": {"due_date": "2018-07-31T23:00:00-07:00"}},
        {"created_at": "yesterday", "assignment": {"due_date": "2018-07-31T23:00:00-07:00"}},
        {"created_at": "2018-08-01T00:00:00Z", "assignment": None},
    ],
    ids=["empty", "no assignment", "no time zone", "not a time", "assignment null"],
)
def test_metadata_that_does_not_say_when_marks_nothing(tmp_path, metadata):
    """Is metadata without a submission time and due date, each with a time zone, no reason to mark work late?"""
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata))
    before = json.dumps({"score": 3.0, "output": "mha: 3 of 40", "extra_data": {}})
    (tmp_path / "results.json").write_text(before)
    assert mark_late(tmp_path / "submission_metadata.json", tmp_path / "results.json") is False
    assert (tmp_path / "results.json").read_text() == before


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2018-07-31T23:00:00.000000-07:00", datetime(2018, 7, 31, 23, tzinfo=timezone(timedelta(hours=-7)))),
        ("2018-08-01T06:00:00Z", datetime(2018, 8, 1, 6, tzinfo=timezone.utc)),
        ("2018-08-01T06:00:00.5+00:00", datetime(2018, 8, 1, 6, 0, 0, 500000, tzinfo=timezone.utc)),
        ("2018-08-01T06:00:00.1234567+00:00", datetime(2018, 8, 1, 6, 0, 0, 123456, tzinfo=timezone.utc)),
    ],
)
def test_gradescopes_times_read_with_any_fraction(text, expected):
    """Does a time read with a Z, or a fraction of any number of digits (Python 3.10 takes only 3 or 6)?"""
    assert _gradescope_time(text) == expected


def test_a_time_without_a_zone_is_refused():
    """Is a time with no zone refused rather than taken as the grader's local time?"""
    with pytest.raises(ValueError, match="no time zone"):
        _gradescope_time("2018-07-31T23:00:00")


@pytest.mark.parametrize(
    "seconds, text",
    [(0.4, "0 s"), (59, "59 s"), (60, "1 min"), (3600, "1 h 0 min"), (86400 + 300, "1 d 0 h 5 min")],
)
def test_how_late_reads(seconds, text):
    """Does a delay read in seconds under a minute, and in days, hours and minutes after?"""
    assert _duration(timedelta(seconds=seconds)) == text


# ------------------------------------------------------------------ the bundle


def test_grading_installs_the_lock_less_the_gpu_packages(tmp_path):
    """Is torch pinned apart (its markers dropped, for the CPU index), the GPU packages and pip options left out?"""
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        "\n".join(
            [
                "# a comment",
                "--index-url https://example.org/simple",
                "numpy==2.1.0",
                "    # via torch",
                "nvidia-cublas-cu12==12.4.5.8 ; platform_system == 'Linux'",
                "triton==3.1.0 ; platform_machine == 'x86_64'",
                "cuda-bindings==12.9.0",
                "torch==2.5.1 ; python_version >= '3.10'",
                "appnope==0.1.4 ; sys_platform == 'darwin'  # via ipykernel",
                "PyYAML==6.0.2",
                "",
            ]
        )
    )
    torch, others = grading_requirements(lock)
    assert torch == "torch==2.5.1"
    assert others == ["numpy==2.1.0", "appnope==0.1.4 ; sys_platform == 'darwin'", "PyYAML==6.0.2"]


def test_the_bundle_holds_the_trusted_kit_with_one_assignment(mha):
    """Does the zip hold the two scripts, the kit's engine, this assignment's folder and release, and nothing of the
    kit's tests, its other assignments or bytecode?"""
    files = zip_files(mha)
    assert {"setup.sh", "run_autograder", "kit/pyproject.toml", "kit/requirements-grading.txt"} <= set(files)
    assert "kit/autograder/deliver/routes/gradescope.py" in files and "kit/solutions/mha/reference.py" in files
    assert "kit/release/mha/mha.ipynb" in files
    others = [name for name in assignments.discover() if name != "mha"]
    assert others and not [f for f in files if f.startswith(tuple(f"kit/solutions/{n}/" for n in others))]
    assert not [f for f in files if f.startswith(("kit/tests/", "kit/source/")) or "__pycache__" in f]
    assert not [f for f in files if f.endswith(".pyc")]
    assert files["written_answers.txt"].decode() == gradescope_note(mha)  # graded by hand, said in the bundle
    requirements = files["kit/requirements-grading.txt"].decode().splitlines()
    assert requirements and not [r for r in requirements if r.startswith(("torch", "nvidia-", "triton"))]
    assert b'--index-url https://download.pytorch.org/whl/cpu "torch==' in files["setup.sh"]


def test_the_scripts_pass_the_grading_options_to_doctor_and_grade(mha):
    """Do setup.sh's doctor and run_autograder's grade get the same grading options, --show-score grade's only?"""
    plain = zip_files(mha)
    assert b"-m autograder doctor\n" in plain["setup.sh"]
    assert b'--assignment mha --out "$ROOT/results" \n' in plain["run_autograder"]
    config = GradingConfig(timeout=20.0, isolation="uid")
    files = zip_files(mha, config, show_score=True)
    assert b"-m autograder doctor --timeout 20.0 --isolation uid\n" in files["setup.sh"]
    assert b'--out "$ROOT/results" --timeout 20.0 --isolation uid --show-score\n' in files["run_autograder"]
    assert b"--show-score" not in files["setup.sh"]


def test_a_kit_that_stops_before_writing_still_gives_a_result(mha, tmp_path):
    """Where grading dies before results.json is written (killed, say), does run_autograder write one that says so,
    with the exit status, as the kit's failure and not the student's?"""
    root = tmp_path / "autograder"
    for name, data in zip_files(mha).items():
        (root / "source" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "source" / name).write_bytes(data)
    (root / "submission").mkdir()
    python = tmp_path / "python"  # grade is killed; the late check runs as usual
    python.write_text(f'#!/bin/sh\n[ "$1" = -m ] && exit 137\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": str(python), "PYTHONPATH": str(KIT_ROOT)}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["extra_data"]["status"] == "not graded" and results["extra_data"]["student_fault"] is False
    assert "stopped (exit status 137) before it could grade" in results["extra_data"]["error"]
    assert "tell your instructor" in results["output"]


def test_the_bundle_is_the_same_zip_each_time(mha, tmp_path):
    """Is the zip the same bytes when built twice, its scripts executable and every other file not?"""
    first, second = write_bundle(mha, tmp_path / "a.zip"), write_bundle(mha, tmp_path / "b.zip")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert modes.pop("setup.sh") == modes.pop("run_autograder") == 0o755
    assert set(modes.values()) == {0o644}


@pytest.mark.usefixtures("forgets_the_edit")
def test_no_bytecode_goes_into_the_bundle(mha, tmp_path, monkeypatch):
    """Where the kit and the assignment's folder hold __pycache__ and .pyc files, are they all left out of the zip?"""
    kit = tmp_path / "kit"
    shutil.copytree(mha.folder, kit / "solutions" / "mha")
    (kit / "release" / "mha").mkdir(parents=True)
    shutil.copy(mha.release_dir / mha.notebook_name, kit / "release" / "mha")
    for name in ("pyproject.toml", "requirements.lock"):
        shutil.copy(KIT_ROOT / name, kit)
    for cache in (kit / "autograder" / "__pycache__", kit / "solutions" / "mha" / "graders" / "__pycache__"):
        cache.mkdir(parents=True, exist_ok=True)  # the copied graders/ may hold one already
        (cache / "module.cpython-311.pyc").write_bytes(b"\x00")
    (kit / "autograder" / "__init__.py").write_text("")
    (kit / "autograder" / "stale.pyc").write_bytes(b"\x00")
    monkeypatch.setattr(gradescope, "KIT_ROOT", kit)
    monkeypatch.setattr(assignments, "KIT_ROOT", kit)
    monkeypatch.setattr(assignments, "SOLUTIONS", kit / "solutions")
    files = zip_files(assignments.Assignment("mha"))
    assert [f for f in files if f.startswith("kit/autograder/")] == ["kit/autograder/__init__.py"]
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]
    assert "kit/solutions/mha/graders/test_tokenize.py" in files
