"""Are a class's results found where grade-all writes them, and read back once, those that cannot be read left out?"""

import errno
import json
from pathlib import Path

import pytest

from autograder.deliver.grade_all import class_folder
from autograder.deliver.grade_all.class_folder import read_class, results_path, student_folder
from autograder.deliver.intake import Intake, Submission
from autograder.results.read import read_results
from autograder.results.write import not_graded_json


def test_each_student_has_a_folder_of_their_own(tmp_path):
    assert student_folder(tmp_path, "ada") == tmp_path / "students" / "ada"
    assert results_path(tmp_path, "ada") == tmp_path / "students" / "ada" / "results.json"


def test_the_class_reads_back_in_the_intakes_order(tmp_path):
    """Are the readable results read, by key in the intake's order, and a missing, damaged or non-object one left out?"""
    keys = ["cleo", "ada", "ben", "dev"]
    intake = Intake("folders", [Submission(key, key, "", Path(key), "folders") for key in keys], [])
    late, empty = not_graded_json("late", "mha"), not_graded_json("empty", "mha", student_fault=True)
    for key, text in (("cleo", json.dumps(late)), ("ada", json.dumps(empty)), ("ben", "{damaged")):
        results_path(tmp_path, key).parent.mkdir(parents=True)
        results_path(tmp_path, key).write_text(text)
    results_path(tmp_path, "dev").parent.mkdir(parents=True)
    results_path(tmp_path, "dev").write_text("[]")
    found = read_class(intake, tmp_path)
    assert list(found) == ["cleo", "ada"] and found["cleo"].reason == "late"
    for key in ("ben", "dev"):  # not results.json as any writer makes them: out of the format check of tmp_path
        results_path(tmp_path, key).unlink()


def test_a_student_updated_after_grading_gets_the_feedback_before_the_results(tmp_path, monkeypatch):
    """A late penalty or a note written into a graded student's folder: is the feedback written first, so that a run
    stopped between the two (a full disk) leaves results.json as it was, and the next run finds the update still to
    make (it compares results.json)?"""
    path = results_path(tmp_path, "ada")
    path.parent.mkdir(parents=True)
    path.write_text('{"score": 10}\n')
    updated = read_results({"score": 9, "extra_data": {"status": "graded"}})

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path.parent / "feedback.html"))

    monkeypatch.setattr(class_folder, "write_feedback", full)
    with pytest.raises(OSError):
        class_folder.rewrite_student(tmp_path, "ada", updated, show_hidden=False, student="Ada")
    assert path.read_text() == '{"score": 10}\n'
    monkeypatch.undo()
    class_folder.rewrite_student(tmp_path, "ada", updated, show_hidden=False, student="Ada")
    assert json.loads(path.read_text())["score"] == 9 and (path.parent / "feedback.html").exists()
