"""Does results.json read back, typed, as the kit wrote it, and does a damaged one read as far as it can?"""

import json
from dataclasses import fields
from fractions import Fraction

import pytest

from autograder import assignments
from autograder.grade.plan import collect
from autograder.results.model import CheckSummary, Report
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from autograder.results.read import Results, ResultsUnreadable, Student, read_results, read_results_file
from autograder.results.write import Provenance, gradescope_json, not_graded_json

from ..deliver.students import EXPLANATIONS, POINTS, SYNTAX_ERROR, student_report

PROVENANCE = Provenance("f" * 64, "d" * 64, {"name": "Ada  Lovelace", "email": "ada@example.org", "key": "ada"})


def test_every_field_reads_back_as_written():
    """Do the status, points, checks, mistakes, notes, summary and grade-all's record read back as the writer wrote them?"""
    report = student_report()
    report.entry, report.device = "sub dir/mha.ipynb", "cpu"
    read = read_results(json.loads(json.dumps(gradescope_json(report, provenance=PROVENANCE))))
    assert (read.graded, read.status, read.student_fault, read.reason) == (True, GRADED, False, "")
    assert (read.assignment, read.entry, read.device, read.isolation) == ("mha", "sub dir/mha.ipynb", "cpu", "hardened")
    assert read.score == float(report.score) == 31.2 and read.max_score == float(report.max_score) == 40
    assert {e.name: (e.score, e.max_score) for e in read.exercises} == {
        name: (float(s), float(m)) for name, (s, m) in report.by_name().items()
    }
    assert [e.name for e in read.exercises if e.not_started] == ["encode"]
    hidden = {check.name: check for check in read.hidden_checks()}
    written = {f"{c.name}: {c.title}": c for c in report.graded_checks()}
    assert list(hidden) == list(written)
    for name, check in hidden.items():
        assert (check.passed, check.cases, check.mistakes) == (
            written[name].status == "passed",
            (written[name].passed, written[name].total),
            tuple(written[name].mistakes),
        )
        assert (check.score, check.max_score) == (float(written[name].score), float(written[name].max_score))
    assert {(c.exercise, c.title) for c in read.checks if c.visible} == {
        (c.name, c.title) for c in report.checks if c.kind == "visible"
    }
    assert read.mistakes == report.mistakes() and read.explanations == EXPLANATIONS
    assert read.notes == [SYNTAX_ERROR] and read.internal_errors == []
    assert read.hidden_cases == dict.fromkeys(POINTS, 6)
    assert read.student == Student("Ada  Lovelace", "ada@example.org")
    assert (read.submission_digest, read.grading_digest) == ("f" * 64, "d" * 64)


@pytest.mark.parametrize("assignment", assignments.names())
def test_the_kits_own_names_and_titles_read_back_unchanged(assignment):
    """Is every hidden check's name read back exactly as written, so that group ids and grade cells built
    from it are those of the results as written?"""
    plan = collect(assignments.get(assignment))
    checks = [
        CheckSummary(c.name, f"{c.module}::{c.function_name}", c.title, "hidden", 0, 1, Fraction(0), Fraction(1), "x")
        for c in {(c.name, c.title): c for c in plan}.values()
    ]
    report = Report(
        assignment=assignment, submission="x", checks=checks, order=tuple(dict.fromkeys(c.name for c in plan))
    )
    read = read_results(gradescope_json(report))
    assert [c.name for c in read.hidden_checks()] == [f"{c.name}: {c.title}" for c in checks]


def test_the_status_of_each_outcome():
    """Is a kit's failure without a score not graded, the student's zero not graded with its fault, and a graded
    result whose kit broke on a check graded, with the error?"""
    kit = read_results(not_graded_json("no isolation tier works", "mha"))
    assert (kit.graded, kit.status, kit.student_fault, kit.score) == (False, NOT_GRADED, False, None)
    assert kit.reason == "no isolation tier works"
    student = read_results(not_graded_json("holds no notebook", "mha", student_fault=True))
    assert (student.graded, student.student_fault, student.score) == (False, True, 0.0)
    broken = gradescope_json(student_report())
    broken["extra_data"]["status"] = KIT_ERROR
    assert read_results(broken).graded and read_results(broken).status == KIT_ERROR


@pytest.mark.parametrize(
    "damaged",
    [
        {},
        [],
        {"score": True, "extra_data": {"status": 3, "student": "ada", "fingerprint": 5, "by_name": []}},
        {"tests": ["x", {"name": 3, "score": "nan", "tags": "t"}], "extra_data": {"entry": ["a"], "notes": "n"}},
        {"extra_data": {"late_penalty": {"percent": 10}}},
    ],
    ids=["empty", "a list", "wrong types", "damaged tests", "a late penalty without its status"],
)
def test_a_damaged_file_reads_as_far_as_it_can(damaged):
    """Does each wrong or missing value read as missing, never as an error?"""
    read = read_results(damaged)
    assert isinstance(read, Results) and read.score is None and read.status == "" and not read.graded
    assert read.student == Student() and read.submission_digest == "" and read.entry == "" and read.late is None


def test_a_damaged_late_penalty_reads_as_far_as_it_can():
    """A late record with wrong types: does each read as missing (no penalty), never as an error or a number?"""
    late = read_results(
        {"extra_data": {"late_penalty": {"status": "late", "percent": "x", "late_seconds": True, "of": 3, "score": []}}}
    ).late
    assert late is not None and (late.percent, late.late_seconds, late.of, late.score, late.deducted) == (
        0.0, None, "possible", None, 0.0
    )  # fmt: skip


def test_a_file_that_cannot_be_read_says_why(tmp_path):
    """Is a missing, unreadable or non-object results.json refused with the reason, and a good one read?"""
    with pytest.raises(ResultsUnreadable, match="grading wrote no results.json"):
        read_results_file(tmp_path / "results.json")
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(ResultsUnreadable, match=r"results.json could not be read \("):
        read_results_file(tmp_path / "results.json")
    (tmp_path / "results.json").write_text("[1, 2]")
    with pytest.raises(ResultsUnreadable, match="is not a JSON object"):
        read_results_file(tmp_path / "results.json")
    (tmp_path / "results.json").write_text(json.dumps(not_graded_json("why", "mha")))
    assert read_results_file(tmp_path / "results.json").reason == "why"


def test_the_document_is_kept_as_read():
    """Does the typed result keep the document it was read from (for update.py), out of comparisons?"""
    document = gradescope_json(student_report())
    read = read_results(document)
    assert read.document is document
    assert read == read_results(json.loads(json.dumps(document)))
    assert not next(f for f in fields(Results) if f.name == "document").compare
