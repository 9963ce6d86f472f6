"""Are a class's results found where grade-all writes them, and read back once, those that cannot be read left out?"""

import json
from pathlib import Path

from autograder.deliver.grade_all.class_folder import read_class, results_path, student_folder
from autograder.deliver.intake import Intake, Submission
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
