"""Does summary.csv give every student a row that says what happened to them, with cells no spreadsheet runs?"""

import csv
from fractions import Fraction
from pathlib import Path

import pytest

from autograder.deliver.grade_all import answers
from autograder.deliver.grade_all.summary import (
    NEEDED,
    number_columns,
    read_summary,
    summary_rows,
    write_summary,
    written_points,
)
from autograder.deliver.intake import Intake, Submission
from autograder.errors import KitError
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from autograder.results.read import read_results
from autograder.results.scoring import points_text
from autograder.results.text import csv_cell
from autograder.results.write import gradescope_json, not_graded_json

from ..students import student_report


def intake() -> Intake:
    people = [
        Submission("ada", "Ada", "1", Path("ada.ipynb"), "folders", late=True),
        Submission("ben", "Ben", "2", Path("ben"), "folders"),
        Submission("cleo", "Cleo", "3", Path("cleo.ipynb"), "folders"),
        Submission("team", "Team", "", Path("team"), "gradescope", members=(("Dev", "4", "d@x"), ("Eve", "5", "e@x"))),
    ]
    return Intake("folders", people, [])


def report_of_ada():
    report = student_report()
    report.entry = "=cmd|' /C calc'!A0.ipynb"  # a file name a spreadsheet would run
    return report


RESULTS = {
    "ada": read_results(gradescope_json(report_of_ada())),
    "ben": read_results(not_graded_json("ben holds no notebook", "mha", student_fault=True)),
    "team": read_results(gradescope_json(student_report())),
}
STATUS = {
    "ada": (GRADED, ""),
    "ben": (NOT_GRADED, "ben holds no notebook"),
    "cleo": (KIT_ERROR, "no isolation tier works"),
    "team": (GRADED, ""),
}


def test_a_row_per_student_saying_what_happened(mha):
    """Graded, the student's zero, the kit's failure (no score), a group's members each: is each row right?"""
    head, rows = summary_rows(intake(), mha, RESULTS, STATUS, unchanged={"team"})
    assert head[:10] == [
        "key",
        "name",
        "student_id",
        "email",
        "late",
        "submitted_at",
        "status",
        "reason",
        "score",
        "max_score",
    ]
    assert head[10 : 10 + len(mha.graded)] == list(mha.graded) and head[-1] == "total"
    ada, ben, cleo, dev, eve = rows
    assert (ada["status"], ada["score"], ada["max_score"], ada["late"]) == ("graded", "31.2", "40", "yes")
    assert (ada["PositionalEncoding"], ada["encode"], ada["isolation"]) == ("1.2", "0", "hardened")
    assert ada["mistakes"] == "positional_cosine_exponent_off_by_one" and ada["internal_errors"] == "0"
    assert ada["file"] == "=cmd|' /C calc'!A0.ipynb" and ada["unchanged"] == ""  # made inert in the file only
    assert (ben["status"], ben["reason"], ben["score"], ben["max_score"], ben["tokenize"]) == (
        "not graded", "ben holds no notebook", "0", "", ""
    )  # fmt: skip
    assert (cleo["status"], cleo["score"], cleo["file"], cleo["internal_errors"], cleo["total"]) == (
        "error",
        "",
        "",
        "",
        "",
    )
    assert [(r["name"], r["group"], r["score"], r["unchanged"]) for r in (dev, eve)] == [
        ("Dev", "Team", "31.2", "yes"),
        ("Eve", "Team", "31.2", "yes"),
    ]


def test_the_total_waits_for_the_written_answers(mha):
    """Is the total blank until a person has given every written answer its points, then the sum?"""
    questions = answers.questions(mha)
    _, rows = summary_rows(intake(), mha, RESULTS, STATUS, written=answers.Written(questions))
    assert rows[0]["total"] == "" and "graded by hand, not included" in rows[0]["written_status"]
    given = answers.Written(questions, {"ada": {q.id: answers.exact(q.points) for q in questions}})
    _, rows = summary_rows(intake(), mha, RESULTS, STATUS, written=given)
    written = sum((answers.exact(q.points) for q in questions), answers.exact(0))
    assert rows[0]["total"] == points_text(answers.exact(31.2) + written)


def test_the_total_is_the_raw_total_less_the_late_penalty(mha):
    """With Ada 10% late (of the 47 points possible): are raw_total and total side by side, the penalty in points,
    when and what the policy said, the total waiting as the raw total does for the written answers, and a group's
    members each penalised as the group is?"""
    from autograder.results.read import LatePenalty
    from autograder.results.update import with_late_penalty

    record = LatePenalty("late", 10.0, line="Submitted 10 h late: −10%.", late_seconds=36000, possible=47.0)
    results = {key: with_late_penalty(RESULTS[key], record) or RESULTS[key] for key in ("ada", "team")}
    questions = answers.questions(mha)
    given = answers.Written(questions, {k: {q.id: answers.exact(q.points) for q in questions} for k in ("ada", "team")})
    head, rows = summary_rows(intake(), mha, results | {"ben": RESULTS["ben"]}, STATUS, written=given)
    assert head[-5:] == ["late_by", "late_penalty", "late_note", "raw_total", "total"]
    ada, ben, cleo, dev, eve = rows
    assert (ada["score"], ada["raw_total"], ada["late_penalty"], ada["total"]) == ("31.2", "38.2", "4.7", "33.5")
    assert (ada["late_by"], ada["late_note"]) == ("10 h", "Submitted 10 h late: −10%")
    assert [(r["raw_total"], r["late_penalty"], r["total"]) for r in (dev, eve)] == [("38.2", "4.7", "33.5")] * 2
    assert (ben["late_penalty"], ben["total"], cleo["late_penalty"], cleo["total"]) == ("", "", "", "")
    _, rows = summary_rows(intake(), mha, results, STATUS, written=answers.Written(questions))
    assert (rows[0]["raw_total"], rows[0]["late_penalty"], rows[0]["total"]) == ("", "", "")  # waits for a person
    assert {"late_penalty", "raw_total", "total"} <= number_columns(mha, given)


def test_summary_csv_is_written_whole(mha, tmp_path):
    """Does summary.csv hold the rows summary_rows gives, in order, each cell from outside made inert, and return them?"""
    rows = write_summary(intake(), mha, tmp_path, RESULTS, STATUS)
    numbers = number_columns(mha, answers.Written(answers.questions(mha)))
    with open(tmp_path / "summary.csv", newline="") as file:
        assert list(csv.DictReader(file)) == [
            {column: value if column in numbers else csv_cell(value) for column, value in row.items()} for row in rows
        ]


def test_summary_csv_reads_back_as_written(mha, tmp_path):
    """Does read_summary give back the rows written (an inert cell as written), and refuse a file that is not summary.csv?"""
    people = [*intake().submissions, Submission("eve", "=cmd", "@1", Path("eve.ipynb"), "folders")]
    rows = write_summary(Intake("folders", people, []), mha, tmp_path, RESULTS, STATUS)
    numbers = number_columns(mha, answers.Written(answers.questions(mha)))
    assert read_summary(tmp_path) == [
        {column: value if column in numbers else csv_cell(value) for column, value in row.items()} for row in rows
    ]
    assert read_summary(tmp_path)[-1]["name"] == "'=cmd"
    (tmp_path / "summary.csv").write_text('"key","name","student_id","score"\n"ada","Ada","1","31.2"\n')
    with pytest.raises(KitError, match="has no column status, reason, source, total: it is not grade-all's"):
        read_summary(tmp_path)
    with pytest.raises(KitError, match="does not exist: give the --out folder of a grade-all run"):
        read_summary(tmp_path / "elsewhere")


def test_summary_cells_are_not_formulas(mha, tmp_path):
    """Are a name, an id, an email and a file name that a spreadsheet would run kept as text, every field quoted,
    while the points stay the numbers the kit computed?"""
    people = [
        Submission("ada", "-3", "@SUM(1+1)", Path("ada.ipynb"), "folders", email=" =1+1"),
        Submission("team", "Team", "", Path("team"), "gradescope", members=(("\uff1dcmd", "+1", "\t=1"),)),
    ]
    write_summary(
        Intake("folders", people, []), mha, tmp_path, {"ada": RESULTS["ada"], "team": RESULTS["team"]}, STATUS
    )
    text = (tmp_path / "summary.csv").read_text()
    with open(tmp_path / "summary.csv", newline="") as file:
        ada, dev = csv.DictReader(file)
    assert (ada["name"], ada["student_id"], ada["email"], ada["file"]) == (
        "'-3", "'@SUM(1+1)", "' =1+1", "'=cmd|' /C calc'!A0.ipynb"
    )  # fmt: skip
    assert (dev["name"], dev["student_id"], dev["email"]) == ("'\uff1dcmd", "'+1", "'\\t=1")
    assert (ada["score"], ada["PositionalEncoding"], dev["score"]) == ("31.2", "1.2", "31.2")
    assert text.startswith('"key","name","student_id"') and '"31.2"' in text  # every field quoted


def test_rows_follow_the_results_as_the_kit_writes_them(mha):
    """A report's points, through results.json, give the row's (the same numbers the terminal shows)?"""
    report = student_report()
    _, rows = summary_rows(intake(), mha, {"ada": read_results(gradescope_json(report))}, STATUS)
    assert {name: rows[0][name] for name in mha.graded} == {
        name: f"{float(score):g}" for name, (score, _) in report.by_name().items()
    }


def test_the_written_points_are_read_back_as_summary_csv_holds_them(mha, tmp_path):
    """Are the points a person gave read back by student and question, a question with no points yet left out?"""
    questions = answers.questions(mha)
    first, second = questions[0].id, questions[1].id
    given = answers.Written(
        questions, {"ada": {first: Fraction(3, 2), second: Fraction(0)}, "team": {first: Fraction(1)}}
    )
    write_summary(intake(), mha, tmp_path, RESULTS, STATUS, written=given)
    assert written_points(tmp_path, list(mha.written)) == {
        "ada": {first: Fraction(3, 2), second: Fraction(0)},
        "team": {first: Fraction(1)},
    }
    assert written_points(tmp_path / "elsewhere", list(mha.written)) == {}  # no summary.csv: nothing given


def test_a_written_point_that_is_no_number_names_the_file_and_the_fix(mha, tmp_path):
    """Does a summary.csv whose written column holds no number stop the import, saying what to run?"""
    first = next(iter(mha.written))
    head = ",".join(NEEDED)
    (tmp_path / "summary.csv").write_text(f"{head},{first}\n{'ada' + ',' * len(NEEDED)}=1+1\n")
    with pytest.raises(KitError, match=f"ada's {first} is '=1\\+1', not a number of points; run grade-all again"):
        written_points(tmp_path, list(mha.written))
