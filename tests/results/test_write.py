"""Does the writer put each outcome into results.json (and junit.xml) as the reader and Gradescope expect?

The format itself is checked against Gradescope's documentation in test_gradescope_format.py.
"""

import json

from autograder.public.loader import SubmissionError
from autograder.results.outcome import outcome_of, outcome_of_error
from autograder.results.read import read_results_file
from autograder.results.write import Provenance, gradescope_json, write_outcome

from ..deliver.students import HIDDEN_PE, student_report


def test_a_grading_writes_both_files_and_returns_what_a_reader_gets(tmp_path):
    """Graded: results.json and junit.xml; is what write_outcome returns the file's content, grade-all's record in it?"""
    provenance = Provenance("s" * 64, "g" * 64, {"name": "Ada", "email": ""})
    content = write_outcome(outcome_of(student_report()), tmp_path, "mha", provenance=provenance)
    assert content == json.loads((tmp_path / "results.json").read_text())
    assert (
        (tmp_path / "junit.xml").read_text().startswith('<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="mha"')
    )
    read = read_results_file(tmp_path / "results.json")
    assert (read.submission_digest, read.grading_digest, read.student.name) == ("s" * 64, "g" * 64, "Ada")


def test_nothing_graded_writes_results_json_only(tmp_path):
    """Not graded: results.json alone, the student's zero with the reason; junit.xml only where asked and graded?"""
    write_outcome(outcome_of_error(SubmissionError("ada.zip holds no notebook")), tmp_path / "a", "mha")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["results.json"]
    assert read_results_file(tmp_path / "a" / "results.json").reason == "ada.zip holds no notebook"
    write_outcome(outcome_of(student_report()), tmp_path / "b", "mha", junit=False)
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["results.json"]


def test_hidden_details_withheld_or_shown():
    """With the score shown at once, are the hidden checks' messages kept out; shown "visible", is the output the points?"""
    withheld = json.dumps(gradescope_json(student_report(), "visible", withhold_hidden=True))
    assert HIDDEN_PE not in withheld and "The details of this hidden check are not shown here." in withheld
    shown = gradescope_json(student_report(), "visible")
    assert shown["output"].startswith("mha: 31.2 of 40 points\n  tokenize ")
    assert gradescope_json(student_report())["output"].startswith("mha: graded. Your points and the hidden checks'")
